#!/usr/bin/env bash
# kgb lint's grid audit (docs/task-format.md, "What lint requires of a grid"): degenerate sizes,
# the `degenerate` excuses and held-out cases; kgb eval --heldout refuses a task with none.
. "$(dirname "$0")/lib.sh"

PY=$ROOT/.venv/bin/python

# variant NAME PYTHON: a copy of the fixture catalog whose task.json PYTHON edits (as `t`).
variant() {
	mkdir -p "$TMP/$1/aten" && cp -r "$FIXTURES/tasks/aten/scale" "$TMP/$1/aten/" &&
	"$PY" - "$TMP/$1/aten/scale/task.json" "$2" <<-'PYEOF'
	import json, sys
	t = json.load(open(sys.argv[1]))
	exec(sys.argv[2])
	json.dump(t, open(sys.argv[1], "w"), indent=2)
	PYEOF
}

test_expect_success 'the fixture grid reaches sizes 0, 1 and 7 and has held-out shapes' '
	"$KGB" --tasks "$FIXTURES/tasks" lint
'
test_expect_success 'a grid without sizes 0 and 1 is a finding naming task, entry and argument' '
	variant small "t[\"axes\"][\"shape\"] = [[], [7], [1000], [4096], [33, 65]]" &&
	expect_status 1 "$KGB" --tasks "$TMP/small" lint >"$TMP/o" &&
	grep -q "small/aten/scale/task.json: entries\[0\] (scale): argument .self. has no dimension of size 0" "$TMP/o" &&
	grep -q "entries\[0\] (scale): argument .self. has no dimension of size 1 " "$TMP/o" &&
	test "$(wc -l <"$TMP/o")" = 2
'
test_expect_success 'a reason in degenerate excuses a size; one the grid does not need is a finding' '
	variant excused "t[\"axes\"][\"shape\"] = [[], [7], [1000], [3, 1]]; t[\"entries\"][0][\"degenerate\"] = {\"empty\": {\"self\": \"this fixture pretends the op has no empty form\"}}" &&
	"$KGB" --tasks "$TMP/excused" lint &&
	variant stale "t[\"entries\"][0][\"degenerate\"] = {\"empty\": \"this fixture pretends the op has no empty form\"}" &&
	expect_status 1 "$KGB" --tasks "$TMP/stale" lint >"$TMP/o" &&
	grep -q "degenerate.empty: every case grid it covers reaches that size" "$TMP/o"
'
test_expect_success 'held-out shapes must exist where shapes vary, and be new' '
	variant noheld "del t[\"entries\"][0][\"heldout\"]" &&
	expect_status 1 "$KGB" --tasks "$TMP/noheld" lint >"$TMP/o" &&
	grep -q "entries\[0\] (scale): no held-out shapes" "$TMP/o" &&
	variant public "t[\"entries\"][0][\"heldout\"] = {\"shape\": [[7], [12345]]}" &&
	expect_status 1 "$KGB" --tasks "$TMP/public" lint >"$TMP/o" &&
	grep -q "4 of 8 held-out cases have the shapes of a public case (first: shape=\[7\]" "$TMP/o"
'
# Inputs of ones and no heldout axes: the reseeded copies would be the public cases again.
test_expect_success 'a task with no held-out case: lint says so, eval --heldout refuses it (exit 3)' '
	variant none "del t[\"entries\"][0][\"heldout\"]; t[\"entries\"][0][\"args\"][0][\"tensor\"][\"dist\"] = \"ones\"" &&
	expect_status 1 "$KGB" --tasks "$TMP/none" lint >"$TMP/o" &&
	grep -q "none/aten/scale/task.json: heldout: no held-out cases" "$TMP/o" &&
	expect_status 3 "$KGB" --tasks "$TMP/none" eval --platform interpreter --heldout --seed 7 \
		--store "$TMP/n.db" 2>"$TMP/e" &&
	grep -q "heldout: task .scale. has no held-out cases" "$TMP/e" &&
	test ! -e "$TMP/n.db" &&
	"$KGB" --tasks "$TMP/none" eval --platform interpreter --seed 7 --store "$TMP/n.db" -j 1 --json >"$TMP/r" &&
	test "$(json_eval "$TMP/r" "recs[0][\"verdict\"]")" = pass
'
test_expect_success 'values drawn from the seed give held-out cases to a task without heldout axes' '
	"$KGB" --tasks "$TMP/noheld" eval --platform interpreter --seed 7 --store "$TMP/h.db" -j 1 --json >"$TMP/r0" &&
	"$KGB" --tasks "$TMP/noheld" eval --platform interpreter --heldout --seed 7 --store "$TMP/h.db" -j 1 --json >"$TMP/r1" &&
	test "$(json_eval "$TMP/r0" "recs[0][\"cases_total\"]")" = 28 &&
	test "$(json_eval "$TMP/r1" "recs[0][\"cases_total\"]")" = 30
'
test_done
