#!/usr/bin/env bash
# list, show and lint on the shipped catalog and on broken fixture catalogs.
. "$(dirname "$0")/lib.sh"

test_expect_success 'list --json has one record per task, each with cases' '
	"$KGB" list --json >"$TMP/l" &&
	test "$(json_eval "$TMP/l" "len(recs)")" -ge 12 &&
	test "$(json_eval "$TMP/l" "all(r[\"source\"] in (\"aten\", \"vllm\", \"cublas\") and r[\"cases\"] > 0 for r in recs)")" = True
'
test_expect_success 'list --source vllm lists only vLLM tasks' '
	"$KGB" list --source vllm --json >"$TMP/l" && test "$(json_eval "$TMP/l" "len(recs) >= 11 and all(r[\"source\"] == \"vllm\" for r in recs)")" = True
'
test_expect_success 'list --source bogus is a usage error' 'expect_status 2 "$KGB" list --source bogus'
test_expect_success 'show prints signatures, semantics and platform' '
	"$KGB" show add --platform interpreter >"$TMP/p" &&
	grep -q "add.Tensor(Tensor self, Tensor other" "$TMP/p" &&
	grep -q "broadcast" "$TMP/p" &&
	grep -q "CPU interpreter" "$TMP/p"
'
test_expect_success 'show of an unknown task exits 3' 'expect_status 3 "$KGB" show nosuchop'
test_expect_success 'lint is clean on the shipped catalog' '"$KGB" lint'

broken() { # broken NAME JSON: a fixture catalog with one task whose task.json is JSON
	local d=$TMP/$1/aten/scale
	mkdir -p "$d" && cp "$FIXTURES"/tasks/aten/scale/*.* "$d"/ && printf '%s\n' "$2" >"$d/task.json"
}
test_expect_success 'lint reports invalid JSON with line and column' '
	broken bad1 "{\"schema\": 1, \"op\": \"scale\",, }" &&
	expect_status 1 "$KGB" --tasks "$TMP/bad1" lint >"$TMP/o" &&
	grep -q "bad1/aten/scale/task.json:1:[0-9]*: invalid JSON" "$TMP/o"
'
test_expect_success 'lint names the field and what was expected' '
	sed "s/\"float16\"\]/\"float17\"]/" "$FIXTURES/tasks/aten/scale/task.json" >"$TMP/t.json" &&
	broken bad2 "$(cat "$TMP/t.json")" &&
	sed -i "s/\"dtype\": \"\$dtype\"/\"dtype\": 7/" "$TMP/bad2/aten/scale/task.json" &&
	expect_status 1 "$KGB" --tasks "$TMP/bad2" lint >"$TMP/o" &&
	grep -q "entries\[0\].args\[0\].tensor.dtype: expected a dtype name" "$TMP/o"
'
test_expect_success 'lint expands grids: a bad axis value is found after substitution' '
	sed "s/\"float16\"\]/\"float17\"]/" "$FIXTURES/tasks/aten/scale/task.json" >"$TMP/t.json" &&
	broken bad3 "$(cat "$TMP/t.json")" &&
	expect_status 1 "$KGB" --tasks "$TMP/bad3" lint >"$TMP/o" &&
	grep -q "dtype: expected a dtype name after substitution" "$TMP/o"
'
test_expect_success 'eval refuses a broken catalog with exit 3' '
	expect_status 3 "$KGB" --tasks "$TMP/bad1" eval --platform interpreter 2>"$TMP/e" &&
	grep -q "invalid JSON" "$TMP/e"
'
test_done
