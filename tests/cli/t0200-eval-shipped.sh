#!/usr/bin/env bash
# The main job on the CPU interpreter: every shipped solution passes every case, and a second
# run of the same command reuses every stored result.
. "$(dirname "$0")/lib.sh"

test_expect_success 'every shipped solution passes on the interpreter' '
	"$KGB" eval --platform interpreter --timeout 900 --json >"$TMP/r" &&
	json_eval "$TMP/r" "[(r[\"task\"], r[\"verdict\"], r[\"first_failure\"]) for r in recs[:-1] if r[\"verdict\"] != \"pass\"]" &&
	test "$(json_eval "$TMP/r" "recs[-1][\"pass\"] == recs[-1][\"total\"] >= 12")" = True &&
	test "$(json_eval "$TMP/r" "all(r[\"cases_passed\"] == r[\"cases_total\"] > 0 for r in recs[:-1])")" = True
'
test_expect_success 'speedup is n/a (null) on the interpreter, never a number' '
	test "$(json_eval "$TMP/r" "all(r[\"speedup\"] is None for r in recs[:-1])")" = True
'
test_expect_success 'the second run reuses all of them' '
	"$KGB" eval --platform interpreter --json >"$TMP/r2" &&
	test "$(json_eval "$TMP/r2" "recs[-1][\"evaluated\"] == 0 and recs[-1][\"reused\"] == recs[-1][\"total\"]")" = True
'
test_done
