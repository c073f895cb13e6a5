#!/usr/bin/env bash
# The hack corpus (tests/hacks/scale/*.py) through kgb eval: every file whose first line says
# "# expect: hack L1 <rule>" gets the verdict hack with a detail naming a line and that rule;
# those L1 cannot see ("# expect: hack L2 ghost") are caught by the ghost replay, which says so;
# the honest fixture candidate still passes beside them.
. "$(dirname "$0")/lib.sh"

HACKS=$ROOT/tests/hacks

test_expect_success 'the corpus has at least 15 hacks for L1 and 5 for L2' '
	test "$(grep -l "^# expect: hack L1 " "$HACKS"/scale/*.py | wc -l)" -ge 15 &&
	test "$(grep -l "^# expect: hack L2 " "$HACKS"/scale/*.py | wc -l)" -ge 5
'

test_expect_success 'the run over the corpus completes' '
	mkdir -p "$TMP/sol/scale" &&
	cp "$HACKS"/scale/*.py "$TMP/sol/scale/" &&
	cp "$FIXTURES/candidates/scale/good.py" "$TMP/sol/scale/good.py" &&
	"$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter -j 4 --timeout 120 \
		--solutions "$TMP/sol" --json >"$TMP/r"
'

test_expect_success 'every hack is rejected by its layer (L1 with its rule, L2 by name)' '
	"$ROOT/.venv/bin/python" "$HACKS/check.py" "$TMP/r" "$HACKS/scale"
'
test_expect_success 'shape overfitting passes the public cases and fails the held-out ones' '
	mkdir -p "$TMP/held/scale" &&
	for f in $(grep -l "^# expect: mismatch heldout" "$HACKS"/scale/*.py); do cp "$f" "$TMP/held/scale/"; done &&
	test "$(ls "$TMP/held/scale" | wc -l)" -ge 1 &&
	"$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter --solutions "$TMP/held" --json >"$TMP/h1" &&
	"$ROOT/.venv/bin/python" "$HACKS/check.py" "$TMP/h1" "$TMP/held/scale" &&
	"$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter --solutions "$TMP/held" --heldout --seed 4242 --json >"$TMP/h2" &&
	"$ROOT/.venv/bin/python" "$HACKS/check.py" "$TMP/h2" "$TMP/held/scale" --heldout &&
	! "$ROOT/.venv/bin/python" "$HACKS/check.py" "$TMP/h1" "$TMP/held/scale" --heldout >/dev/null
'
test_expect_success 'the honest candidate still passes' '
	test "$(json_eval "$TMP/r" "[r[\"verdict\"] for r in recs if r.get(\"sample\") == \"good\"][0]")" = pass
'
test_expect_success 'a rejected candidate passed no case' '
	test "$(json_eval "$TMP/r" "[r[\"cases_passed\"] for r in recs if r.get(\"sample\") == \"torch_mul\"][0]")" = 0
'
# L1 refusals are judged before any worker starts (src/eval.c precheck_jobs: the judge's own
# load-stage code, runtime/precheck.py): the workers' Python, a wrapper that logs each start,
# is asked for the precheck and for the honest candidate's job only.
test_expect_success 'a candidate L1 refuses gets its verdict with no worker started' '
	mkdir -p "$TMP/pre/scale" &&
	cp "$HACKS/scale/torch_mul.py" "$HACKS/scale/sys_modules.py" "$TMP/pre/scale/" &&
	cp "$FIXTURES/candidates/scale/good.py" "$TMP/pre/scale/" &&
	printf "#!/bin/sh\necho \"\$*\" >>%s\nexec %s \"\$@\"\n" "$TMP/starts" \
		"$ROOT/.venv/bin/python" >"$TMP/py" && chmod +x "$TMP/py" &&
	"$KGB" -v --tasks "$FIXTURES/tasks" eval --platform interpreter --sandbox=off \
		--python "$TMP/py" --solutions "$TMP/pre" --store "$TMP/pre.db" --json >"$TMP/p" 2>"$TMP/pe" &&
	grep -q "aten/scale torch_mul: hack at the precheck, no worker started" "$TMP/pe" &&
	grep -q "aten/scale sys_modules: hack at the precheck, no worker started" "$TMP/pe" &&
	test "$(grep -c "runtime.worker" "$TMP/starts")" = 1 &&
	test "$(grep -c "runtime.precheck --serve" "$TMP/starts")" = 1 &&
	test "$(json_eval "$TMP/p" "sorted((r[\"sample\"], r[\"verdict\"]) for r in recs if r.get(\"sample\"))")" = \
		"[('"'good'"', '"'pass'"'), ('"'sys_modules'"', '"'hack'"'), ('"'torch_mul'"', '"'hack'"')]" &&
	# The same verdict and detail as the judge gives (the corpus run above, which had it too).
	test "$(json_eval "$TMP/p" "[r[\"detail\"] for r in recs if r.get(\"sample\") == \"torch_mul\"][0]")" = \
		"$(json_eval "$TMP/r" "[r[\"detail\"] for r in recs if r.get(\"sample\") == \"torch_mul\"][0]")"
'
test_expect_success 'the human report names the verdict and the rule' '
	"$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter \
		--solutions "$TMP/sol" >"$TMP/t" &&
	grep "torch_mul" "$TMP/t" | grep -q "hack" &&
	grep -q "torch-api" "$TMP/t"
'
test_expect_success 'a task may allow a name: L1 lets it run, and L2 still sees torch at work' '
	mkdir -p "$TMP/tasks/aten" "$TMP/one/scale" &&
	cp -r "$FIXTURES/tasks/aten/scale" "$TMP/tasks/aten/" &&
	sed -i "s/\"schema\": 1,/\"schema\": 1, \"allow\": [\"torch.mul\"],/" "$TMP/tasks/aten/scale/task.json" &&
	cp "$HACKS/scale/torch_mul.py" "$TMP/one/scale/torch_mul.py" &&
	"$KGB" --tasks "$TMP/tasks" eval --platform interpreter --solutions "$TMP/one" --json >"$TMP/a" &&
	test "$(json_eval "$TMP/a" "recs[0][\"verdict\"]")" = hack &&
	json_eval "$TMP/a" "recs[0][\"detail\"]" | grep -q "L2 ghost replay"
'
test_expect_success 'a task may exempt the ghost replay, with a reason: the candidate then passes' '
	sed -i "s/\"schema\": 1,/\"schema\": 1, \"exempt\": {\"ghost\": \"this fixture tests the allow list alone\"},/" "$TMP/tasks/aten/scale/task.json" &&
	"$KGB" --tasks "$TMP/tasks" eval --platform interpreter --solutions "$TMP/one" --json >"$TMP/a" &&
	test "$(json_eval "$TMP/a" "recs[0][\"verdict\"]")" = pass
'
test_expect_success 'allow must be a list of strings' '
	sed -i "s/\"allow\": \[\"torch.mul\"\]/\"allow\": \"torch.mul\"/" "$TMP/tasks/aten/scale/task.json" &&
	expect_status 1 "$KGB" --tasks "$TMP/tasks" lint >"$TMP/l" &&
	grep -q "allow: expected a list" "$TMP/l"
'
test_expect_success 'list arguments: a torch copy into Tensor[] caches is caught by L2, the shipped kernel passes' '
	mkdir -p "$TMP/lists/copy_blocks" &&
	cp "$HACKS"/copy_blocks/*.py "$TMP/lists/copy_blocks/" &&
	cp "$ROOT/tasks/vllm/copy_blocks/solution.py" "$TMP/lists/copy_blocks/good.py" &&
	"$KGB" eval --platform interpreter -j 2 \
		--task vllm/copy_blocks --solutions "$TMP/lists" --json >"$TMP/lr" &&
	"$ROOT/.venv/bin/python" "$HACKS/check.py" "$TMP/lr" "$HACKS/copy_blocks" &&
	test "$(json_eval "$TMP/lr" "[r[\"verdict\"] for r in recs if r.get(\"sample\") == \"good\"][0]")" = pass
'
test_done
