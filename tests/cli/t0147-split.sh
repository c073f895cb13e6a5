#!/usr/bin/env bash
# --split N checks each candidate in N jobs (shards dealt round-robin) and merges them: the
# verdicts, case counts and first failures (global case numbers) are those of one job.
. "$(dirname "$0")/lib.sh"

# $1: --split value; prints one line per candidate: sample verdict passed/total first failure
run_split() {
	"$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter --solutions "$TMP/sol" \
		--split "$1" --store "$TMP/s$1.db" --json >"$TMP/r$1" &&
	json_eval "$TMP/r$1" "[(r[\"sample\"], r[\"verdict\"], r[\"cases_passed\"], r[\"cases_total\"], (r.get(\"first_failure\") or {}).get(\"case\")) for r in sorted(recs[:-1], key=lambda r: r[\"sample\"])]"
}

test_expect_success 'three shards judge as one job' '
	mkdir -p "$TMP/sol/scale" &&
	for n in good wrong_tail raises segfault syntax_error; do
		cp "$FIXTURES/candidates/scale/$n.py" "$TMP/sol/scale/" || return 1
	done &&
	run_split 1 >"$TMP/one" && run_split 3 >"$TMP/three" && cat "$TMP/three" &&
	cmp "$TMP/one" "$TMP/three" &&
	grep -q "wrong_tail., .mismatch." "$TMP/three"
'
test_expect_success 'a crash names its shard; a load error does not' '
	json_eval "$TMP/r3" "{r[\"sample\"]: r[\"detail\"] for r in recs[:-1]}" >"$TMP/d" && cat "$TMP/d" &&
	grep -q "segfault.: .shard [123] of 3: worker killed by signal 11" "$TMP/d" &&
	! grep -q "syntax_error.: .shard" "$TMP/d"
'
test_expect_success '--split is checked' '
	expect_status 2 "$KGB" eval --split 0
'
test_done
