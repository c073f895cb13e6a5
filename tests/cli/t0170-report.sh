#!/usr/bin/env bash
# `kgb report` prints a stored run again, exactly as eval did; the summary metrics
# (docs/metrics.md) against hand-computed values on a run written straight into a store.
. "$(dirname "$0")/lib.sh"

ev() { "$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter -j 2 "$@"; }

test_expect_success 'report prints what eval printed, table and JSON' '
	ev >"$TMP/eval.txt" && "$KGB" report >"$TMP/report.txt" &&
	cmp "$TMP/eval.txt" "$TMP/report.txt" &&
	ev --json >"$TMP/eval.json" && "$KGB" report --json >"$TMP/report.json" &&
	cmp "$TMP/eval.json" "$TMP/report.json" &&
	"$KGB" report --run 1 --store "$KGB_STORE" >"$TMP/run1.txt" &&
	cmp "$TMP/eval.txt" "$TMP/run1.txt" && grep -q "run 1," "$TMP/run1.txt" &&
	"$KGB" report >"$TMP/latest.txt" && grep -q "run 2," "$TMP/latest.txt"
'
test_expect_success 'bad input: missing store, unknown run, bad --run' '
	expect_status 3 "$KGB" report --store "$TMP/none.db" 2>"$TMP/e" &&
	grep -q "cannot read store .*none.db" "$TMP/e" && test ! -e "$TMP/none.db" &&
	expect_status 3 "$KGB" report --run 99 2>"$TMP/e" && grep -q "has no run 99" "$TMP/e" &&
	expect_status 2 "$KGB" report --run x 2>"$TMP/e" && grep -q "expected a run number" "$TMP/e"
'
# A cuda run written directly: task t1 with two samples (2.0x pass, fail), t2 with two
# (0.5x pass with sol fractions 0.2, 0.6, 0.4 on its timed cases; 1.0x pass), t3 with one
# passing sample and no timed case.
test_expect_success 'metrics of a synthetic cuda run' '
	"$ROOT/.venv/bin/python" - "$KGB_STORE" <<-PY &&
	import sqlite3, sys
	db = sqlite3.connect(sys.argv[1])
	db.execute("INSERT INTO runs(id, started_at, platform, harness, env) VALUES(50, \"t\", \"cuda\", \"h\", \"{}\")")
	rows = [("t1", "s1", "pass", 2.0, 3), ("t1", "s2", "mismatch", None, 3),
	        ("t2", "s1", "pass", 0.5, 3), ("t2", "s2", "pass", 1.0, 3), ("t3", "s1", "pass", None, 0)]
	for i, (task, sample, verdict, sp, timed) in enumerate(rows):
	    key = "k%d" % i
	    db.execute("INSERT INTO evaluations(key, task, source, task_version, candidate_hash, platform,"
	               " harness, verdict, cases_total, cases_passed, timed_cases, speedup, created_at, run_id)"
	               " VALUES(?, ?, \"aten\", \"v\", ?, \"cuda\", \"h\", ?, 3, 3, ?, ?, \"t\", 50)",
	               (key, task, key, verdict, timed, sp))
	    db.execute("INSERT INTO run_evals VALUES(50, ?, ?, NULL, ?, 0)", (task, sample, key))
	for cid, f in enumerate((0.2, 0.6, 0.4)):
	    db.execute("INSERT INTO cases(eval_key, case_id, entry, timed, verdict, detail) VALUES(\"k2\", ?, \"e\", 1, \"pass\", ?)",
	               (cid, "{\"verdict\": \"pass\", \"sol_fraction\": %r}" % f))
	db.commit()
	PY
	"$KGB" report --run 50 --json >"$TMP/m.json" &&
	test "$(json_eval "$TMP/m.json" "recs[-1][\"pass\"], recs[-1][\"total\"]")" = "(4, 5)" &&
	test "$(json_eval "$TMP/m.json" "round(recs[-1][\"geomean_speedup\"], 9)")" = 1.0 &&
	test "$(json_eval "$TMP/m.json" "recs[-1][\"speedup_candidates\"], recs[-1][\"fast_p_candidates\"]")" = "(3, 4)" &&
	test "$(json_eval "$TMP/m.json" "[recs[-1][\"fast_p\"][k] for k in (\"0.8\", \"1.0\", \"1.5\")]")" = "[0.5, 0.25, 0.25]" &&
	test "$(json_eval "$TMP/m.json" "round(recs[-1][\"pass_at_k\"][\"1\"][\"value\"], 6), recs[-1][\"pass_at_k\"][\"1\"][\"tasks\"]")" = "(0.833333, 3)" &&
	test "$(json_eval "$TMP/m.json" "list(recs[-1][\"pass_at_k\"]) == [\"1\"]")" = True &&
	test "$(json_eval "$TMP/m.json" "recs[-1][\"sol_fraction_median\"]")" = 0.4 &&
	test "$(json_eval "$TMP/m.json" "[r[\"sol_fraction\"] for r in recs[:-1]]")" = "[None, None, 0.4, None, None]" &&
	test "$(json_eval "$TMP/m.json" "recs[-1][\"by_source\"][\"aten\"][\"fast_p\"][\"0.8\"]")" = 0.5 &&
	test "$(json_eval "$TMP/m.json" "len(recs[-1][\"geomean_speedup_ci95\"])")" = 2 &&
	"$KGB" report --run 50 >"$TMP/m.txt" &&
	grep -q "pass@k: pass@1 0.833 (3 tasks)" "$TMP/m.txt" &&
	grep -q "speedup: geometric mean 1.000x (95% CI .*) over 3 passing timed candidates" "$TMP/m.txt" &&
	grep -q "fast_p: fast_0.8 50.0% fast_1.0 25.0% fast_1.5 25.0% of 4 candidates with timed cases" "$TMP/m.txt" &&
	grep -q "speed-of-light: median 0.40 of the device.s ceilings over 1 passing timed candidates" "$TMP/m.txt"
'
test_expect_success 'each source says what its speedups are against (vLLM: our reference, not vLLM)' '
	sqlite3 "$KGB_STORE" "UPDATE evaluations SET source = \"vllm\" WHERE key = \"k2\"" &&
	"$KGB" report --run 50 >"$TMP/b.txt" &&
	grep -q "^baseline of aten: ATen (torch eager, the same operator)$" "$TMP/b.txt" &&
	grep -q "^baseline of vllm: the task.s PyTorch reference in the inputs. dtype (not vLLM.s kernels), unless the task.s baseline.py loads" "$TMP/b.txt" &&
	! grep -q "baseline of cublas" "$TMP/b.txt" &&
	"$KGB" report --run 50 --json >"$TMP/b.json" &&
	json_eval "$TMP/b.json" "recs[-1][\"by_source\"][\"vllm\"][\"baseline\"]" | grep -q "not vLLM" &&
	test "$(json_eval "$TMP/b.json" "\",\".join(sorted(r[\"baseline\"][:3] for r in recs[:-1]))")" = "ATe,ATe,ATe,ATe,the"
'
# A store another tool wrote (or edited by hand): kgb's NOT NULL columns without the
# constraint, NULLs in them, and bytes that are not UTF-8 (a candidate's file name is enough
# for those). Every reader shows them, escaped or as "?", and none crashes.
cat >"$TMP/odd.sql" <<'SQL'
CREATE TABLE e2 AS SELECT * FROM evaluations; DROP TABLE evaluations;
ALTER TABLE e2 RENAME TO evaluations;
UPDATE evaluations SET verdict = NULL, task = NULL, source = CAST(X'ff41' AS TEXT),
	detail = CAST(X'c328' AS TEXT);
CREATE TABLE r2 AS SELECT * FROM run_evals; DROP TABLE run_evals;
ALTER TABLE r2 RENAME TO run_evals; UPDATE run_evals SET sample = CAST(X'e282' AS TEXT);
SQL
test_expect_success 'a store with NULL and non-UTF-8 text: report, export and compare read it' '
	cp "$KGB_STORE" "$TMP/odd.db" && sqlite3 "$TMP/odd.db" <"$TMP/odd.sql" &&
	"$KGB" report --store "$TMP/odd.db" >"$TMP/odd.txt" &&
	grep -qF "\xffA/? " "$TMP/odd.txt" && grep -qF "\xe2\x82" "$TMP/odd.txt" &&
	"$KGB" report --json --store "$TMP/odd.db" >"$TMP/odd.json" &&
	test "$(json_eval "$TMP/odd.json" "recs[0][\"verdict\"] == \"?\" and \"xe2\" in recs[0][\"sample\"]")" = True &&
	! grep -q "(null)" "$TMP/odd.json" &&
	"$KGB" report -o "$TMP/odd.html" --store "$TMP/odd.db" &&
	"$KGB" export --format csv --store "$TMP/odd.db" >"$TMP/odd.csv" &&
	"$KGB" export --format jsonl --store "$TMP/odd.db" >"$TMP/odd.jsonl" &&
	test "$(json_eval "$TMP/odd.jsonl" "recs[0][\"task\"] == \"?\" and \"xff\" in recs[0][\"source\"]")" = True &&
	"$KGB" compare "$TMP/odd.db" "$KGB_STORE" >/dev/null &&
	"$KGB" compare --json "$TMP/odd.db" "$KGB_STORE" >/dev/null
'

# Another application's SQLite file given as a store: refused with exit 3, and left exactly as
# it was (kgb once switched it to WAL and added its tables); a missing store is not created.
test_expect_success 'a database that is not kgb'"'"'s is refused untouched; readers create nothing' '
	sqlite3 "$TMP/theirs.db" "CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES (1);" &&
	cp "$TMP/theirs.db" "$TMP/theirs0.db" &&
	expect_status 3 "$KGB" report --store "$TMP/theirs.db" 2>"$TMP/e" &&
	grep -q "theirs.db. is not a kgb store" "$TMP/e" &&
	expect_status 3 "$KGB" export --format csv --store "$TMP/theirs.db" 2>/dev/null &&
	expect_status 3 "$KGB" compare "$TMP/theirs.db" "$KGB_STORE" 2>/dev/null &&
	expect_status 3 "$KGB" merge "$TMP/theirs.db" "$KGB_STORE" 2>/dev/null &&
	expect_status 3 ev --store "$TMP/theirs.db" 2>/dev/null &&
	cmp "$TMP/theirs.db" "$TMP/theirs0.db" &&
	test "$(sqlite3 "$TMP/theirs.db" "pragma journal_mode")" = delete &&
	expect_status 3 "$KGB" compare "$TMP/missing.db" "$KGB_STORE" 2>"$TMP/e" &&
	grep -q "cannot read store .*missing.db" "$TMP/e" && test ! -e "$TMP/missing.db"
'

test_done
