#!/usr/bin/env bash
# lint --deep: an honest task kills every mutant and has an informative reference; a task with
# a degenerate reference is reported, and its zeroing mutant survives.
. "$(dirname "$0")/lib.sh"

test_expect_success 'the fixture task kills every mutant' '
	"$KGB" --tasks "$FIXTURES/tasks" lint --deep --json >"$TMP/d" &&
	json_eval "$TMP/d" "recs" &&
	test "$(json_eval "$TMP/d" "[r for r in recs if r.get(\"schema\") == \"kgb.lint.deep.v1\"][0][\"killed\"]")" = 6 &&
	test "$(json_eval "$TMP/d" "[r for r in recs if r.get(\"schema\") == \"kgb.lint.deep.v1\"][0][\"base\"]")" = pass &&
	test "$(json_eval "$TMP/d" "[r for r in recs if r.get(\"schema\") == \"kgb.lint.deep.v1\"][0][\"validity\"][\"degenerate\"]")" = 0
'
test_expect_success 'a degenerate reference is a finding and lets the zero mutant survive' '
	expect_status 1 "$KGB" --tasks "$FIXTURES/degenerate" lint --deep >"$TMP/o" &&
	grep -q "degenerate reference in" "$TMP/o" &&
	grep -q "mutant .zero. survives" "$TMP/o"
'
test_expect_success 'an exemption with a reason silences a check' '
	mkdir -p "$TMP/ex/aten" && cp -r "$FIXTURES/degenerate/aten/scale" "$TMP/ex/aten/" &&
	sed -i "s/\"schema\": 1,/\"schema\": 1, \"exempt\": {\"validity\": \"the fixture is constant on purpose\", \"zero\": \"the output is all zeros by definition\"},/" "$TMP/ex/aten/scale/task.json" &&
	"$KGB" --tasks "$TMP/ex" lint --deep >"$TMP/o2" &&
	grep -q " E " "$TMP/o2"
'
test_expect_success 'an exemption needs a known check and a reason' '
	mkdir -p "$TMP/ex2/aten" && cp -r "$FIXTURES/tasks/aten/scale" "$TMP/ex2/aten/" &&
	sed -i "s/\"schema\": 1,/\"schema\": 1, \"exempt\": {\"bogus\": \"x\"},/" "$TMP/ex2/aten/scale/task.json" &&
	expect_status 1 "$KGB" --tasks "$TMP/ex2" lint >"$TMP/o3" &&
	grep -q "exempt: unknown check .bogus." "$TMP/o3"
'
test_done
