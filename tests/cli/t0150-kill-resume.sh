#!/usr/bin/env bash
# No result is lost or duplicated when kgb is killed with SIGKILL at random moments: rerunning
# the same command until it completes gives the same verdicts as one uninterrupted run, with
# every candidate stored once and no worker left behind.
. "$(dirname "$0")/lib.sh"

# Twelve candidates: honest ones (distinct bytes, so each is its own evaluation), wrong ones,
# crashing and raising ones. The hanging one is left out: it only costs time.
test_expect_success 'set up the candidates' '
	mkdir -p "$TMP/sol/scale" &&
	for i in 1 2 3 4 5 6; do
		{ cat "$FIXTURES/candidates/scale/good.py"; echo "# copy $i"; } \
			>"$TMP/sol/scale/good$i.py" || return 1
	done &&
	for n in raises segfault syntax_error wrong_tail; do
		cp "$FIXTURES/candidates/scale/$n.py" "$TMP/sol/scale/" || return 1
	done &&
	{ cat "$FIXTURES/candidates/scale/wrong_tail.py"; echo "# again"; } >"$TMP/sol/scale/wrong2.py" &&
	{ cat "$FIXTURES/candidates/scale/raises.py"; echo "# again"; } >"$TMP/sol/scale/raises2.py"
'
# run_eval_exec replaces the calling (sub)shell with kgb; run_eval keeps the caller.
run_eval_exec() {
	TMPDIR="$TMP/scratch" exec "$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter -j 2 \
		--solutions "$TMP/sol" --store "$1" --json
}
run_eval() {
	(run_eval_exec "$@")
}
test_expect_success 'an uninterrupted run' '
	run_eval "$TMP/ref.db" >"$TMP/ref" &&
	json_eval "$TMP/ref" "sorted((r[\"sample\"], r[\"verdict\"], r[\"cases_passed\"]) for r in recs[:-1])" >"$TMP/want"
'
test_expect_success 'twenty SIGKILLs at random moments, then a rerun to completion' '
	for i in $(seq 1 20); do
		# A subshell that execs kgb: $! is kgb itself, not a shell above it.
		(exec >/dev/null 2>&1; run_eval_exec "$TMP/k.db") &
		pid=$! &&
		sleep "$(awk -v s=$RANDOM "BEGIN { srand(s); printf \"%.2f\", 0.2 + rand() * 4 }")" &&
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null || true # 137 when the kill landed
	done &&
	{ run_eval "$TMP/k.db" >"$TMP/got.json" 2>"$TMP/got.err" || { tail -5 "$TMP/got.err"; false; }; } &&
	json_eval "$TMP/got.json" "sorted((r[\"sample\"], r[\"verdict\"], r[\"cases_passed\"]) for r in recs[:-1])" >"$TMP/got" &&
	test -s "$TMP/want" && diff -u "$TMP/want" "$TMP/got"
'
test_expect_success 'each candidate is stored once' '
	test "$("$ROOT/.venv/bin/python" -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(\"select count(*), count(distinct key) from evaluations\").fetchone())" "$TMP/k.db")" = "(12, 12)"
'
test_expect_success 'no worker outlives its kgb (PDEATHSIG)' '
	sleep 2 &&
	for p in /proc/[0-9]*; do readlink "$p/cwd" 2>/dev/null; done >"$TMP/cwds" &&
	! grep -F "$TMP/scratch" "$TMP/cwds"
'
test_done
