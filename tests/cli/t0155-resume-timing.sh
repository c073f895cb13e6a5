#!/usr/bin/env bash
# A run killed in its timing phase keeps the checks it finished (the store's checks table), so
# the next run times those candidates without checking them again. The two phases are the
# GPU's; KGB_TWO_PHASE=1 runs them on the interpreter (its "timing" jobs re-check the timed
# cases), on a copy of the fixture task with small timed cases.
. "$(dirname "$0")/lib.sh"

PY=$ROOT/.venv/bin/python
export KGB_TWO_PHASE=1

setup() {
	mkdir -p "$TMP/tasks/aten" "$TMP/sol/scale" &&
	cp -r "$FIXTURES/tasks/aten/scale" "$TMP/tasks/aten/" &&
	"$PY" - "$TMP/tasks/aten/scale/task.json" <<-'PYEOF' &&
	import json, sys
	t = json.load(open(sys.argv[1]))
	t["entries"][0]["perf"] = {"shape": [[64]]}
	json.dump(t, open(sys.argv[1], "w"), indent=2)
	PYEOF
	cp "$FIXTURES/candidates/scale/good.py" "$TMP/sol/scale/good.py" &&
	# The workers' Python: kills kgb itself when it is handed a timing job.
	printf '%s\n' '#!/bin/sh' 'IFS= read -r job' \
		'case $job in *"\"timing\""*) kill -KILL $PPID; exit 1 ;; esac' \
		"exec \"$PY\" \"\$@\" <<EOF2" '$job' 'EOF2' >"$TMP/killer" &&
	chmod +x "$TMP/killer"
}
ev() {
	"$KGB" --tasks "$TMP/tasks" -v eval --platform interpreter --sandbox=off \
		--solutions "$TMP/sol" --store "$TMP/t.db" "$@"
}
count() { sqlite3 "$TMP/t.db" "select count(*) from $1"; }

test_expect_success 'killed while timing: the check is kept, nothing is stored as done' '
	setup &&
	expect_status 137 ev --python "$TMP/killer" 2>"$TMP/err1"
	cat "$TMP/err1" &&
	grep -q "scale good: checked, 4 cases to time" "$TMP/err1" &&
	test "$(count checks)" = 1 && test "$(count evaluations)" = 0
'
test_expect_success 'the next run only times it, and stores the whole result' '
	ev --json >"$TMP/r" 2>"$TMP/err2" && cat "$TMP/err2" &&
	grep -q "1 candidate checked by an earlier run: timing only" "$TMP/err2" &&
	! grep -q "checked, 4 cases to time" "$TMP/err2" &&
	grep -q "\[timed 1/1 " "$TMP/err2" &&
	test "$(json_eval "$TMP/r" "\" \".join(str(recs[0][k]) for k in (\"verdict\", \"cases_passed\", \"cases_total\", \"timed_cases\"))")" = "pass 32 32 4" &&
	test "$(count checks)" = 0 && test "$(count evaluations)" = 1
'
test_expect_success 'two phases with shards and a standby timing worker' '
	cp "$FIXTURES/candidates/scale/wrong_tail.py" "$TMP/sol/scale/" &&
	{ cat "$FIXTURES/candidates/scale/good.py" && echo "# another"; } >"$TMP/sol/scale/good2.py" &&
	ev --split 2 --json >"$TMP/r3" 2>"$TMP/err3" && cat "$TMP/err3" &&
	test "$(json_eval "$TMP/r3" "\", \".join(sorted(\"%s %s %s\" % (r[\"sample\"], r[\"verdict\"], r[\"timed_cases\"]) for r in recs[:-1]))")" = \
		"good pass 4, good2 pass 4, wrong_tail mismatch 4" &&
	grep -q "\[timed 1/1 " "$TMP/err3" &&
	test "$(count checks)" = 0
'
test_expect_success 'several timing workers share the lock, passed into the sandbox' '
	{ cat "$FIXTURES/candidates/scale/good.py" && echo "# a third"; } >"$TMP/sol/scale/good3.py" &&
	rm -f "$TMP/sol/scale/wrong_tail.py" &&
	ev --sandbox=auto --force --timing-jobs 3 --json >"$TMP/r4" 2>"$TMP/err4" && cat "$TMP/err4" &&
	test "$(json_eval "$TMP/r4" "\", \".join(sorted(\"%s %s\" % (r[\"sample\"], r[\"verdict\"]) for r in recs[:-1]))")" = \
		"good pass, good2 pass, good3 pass" &&
	# Every case says where its time went; the timed ones waited for the lock (or not).
	test "$(sqlite3 "$TMP/t.db" "select count(*) from cases where json_extract(detail, \"\$.phase_ms.check\") is null")" = 0 &&
	test "$(sqlite3 "$TMP/t.db" "select count(*) from cases where timed = 1 and json_extract(detail, \"\$.phase_ms.wait\") is null")" = 0
'
test_expect_success '--timing-jobs takes 1..64' '
	expect_status 2 ev --timing-jobs 0 2>"$TMP/err5" &&
	grep -q "timing-jobs: expected 1..64, got .0." "$TMP/err5"
'
test_done
