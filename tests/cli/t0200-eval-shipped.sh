#!/usr/bin/env bash
# The main job on the CPU interpreter: the shipped solutions pass every case, and a second run
# of the same command reuses every stored result. `make check` runs the demo's tasks
# (tasks/demo.txt: each kind of kernel of the three sources, about a minute on two cores);
# `make check-full` (KGB_CHECK_FULL=1) runs every task, about 12 minutes on a quiet 2-core
# machine, which is why it is a target of its own (docs/testing.md says when to run it).
. "$(dirname "$0")/lib.sh"

select=()
if [ "${KGB_CHECK_FULL:-0}" != 1 ]; then
	while read -r task _; do
		case $task in '' | '#'*) continue ;; esac
		select+=(--task "$task")
	done <"$ROOT/tasks/demo.txt"
fi

test_expect_success 'every shipped solution selected passes on the interpreter' '
	"$KGB" eval --platform interpreter --timeout 900 "${select[@]}" --json >"$TMP/r" &&
	json_eval "$TMP/r" "[(r[\"task\"], r[\"verdict\"], r[\"first_failure\"]) for r in recs[:-1] if r[\"verdict\"] != \"pass\"]" &&
	test "$(json_eval "$TMP/r" "recs[-1][\"pass\"] == recs[-1][\"total\"] >= 12")" = True &&
	test "$(json_eval "$TMP/r" "all(r[\"cases_passed\"] == r[\"cases_total\"] > 0 for r in recs[:-1])")" = True
'
test_expect_success 'the demo covers the three sources' '
	test "$(json_eval "$TMP/r" "\" \".join(sorted(recs[-1][\"by_source\"]))")" = "aten cublas vllm"
'
test_expect_success 'speedup is n/a (null) on the interpreter, never a number' '
	test "$(json_eval "$TMP/r" "all(r[\"speedup\"] is None for r in recs[:-1])")" = True
'
test_expect_success 'the second run reuses all of them' '
	"$KGB" eval --platform interpreter "${select[@]}" --json >"$TMP/r2" &&
	test "$(json_eval "$TMP/r2" "recs[-1][\"evaluated\"] == 0 and recs[-1][\"reused\"] == recs[-1][\"total\"]")" = True
'
test_expect_success 'make run s script in a pipe: a line per task, the table, the report' '
	test "${KGB_CHECK_FULL:-0}" = 1 ||
	{ KGB_REPORT=$TMP/report.html "$ROOT/scripts/run.sh" 2>&1 | cat >"$TMP/run" &&
	test "$(grep -c "^\[stored\] .* shipped: pass" "$TMP/run")" = $((${#select[@]} / 2)) &&
	grep -q "^pass rate: $((${#select[@]} / 2))/$((${#select[@]} / 2))" "$TMP/run" &&
	grep -q "the report of this run: $TMP/report.html" "$TMP/run" &&
	grep -q "<html" "$TMP/report.html"; }
'
test_done
