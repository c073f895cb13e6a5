#!/usr/bin/env bash
# The trust boundary (docs/security.md): a candidate that got past L1 (here: a task that allows
# os, sys, gc, torch compute and the introspection rules) runs in its runner, and whatever it
# does there (forged protocol lines, a forged environment error, the checker replaced, every
# tensor it can find zeroed, answers only to the first calls on an input so that the L2 replay
# finds nothing) reaches neither kgb nor its judge: each attack runs (its marker is on the
# runner's stderr) and each gets a failing verdict; the honest control passes beside them.
. "$(dirname "$0")/lib.sh"

B=$ROOT/tests/hacks/boundary
mkdir -p "$TMP/cat/aten" "$TMP/sol/scale"
cp -r "$FIXTURES/tasks/aten/scale" "$TMP/cat/aten/"
cp "$B"/*.py "$TMP/sol/scale/"
"$ROOT/.venv/bin/python" - "$TMP/cat/aten/scale/task.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["allow"] = ["os", "sys", "gc", "os.write", "os._exit", "print", "range", "getattr", "setattr",
              "hasattr", "type", "list", "isinstance", "len", "zero_", "zeros_like", "values",
              "startswith", "get_objects", "modules", "numel", "is_floating_point",
              "module-cache", "dunder", "attribute", "private-attr", "introspection",
              "tuple", "str", "float", "double", "sum", "get", "torch-compute", "kill",
              "getpid", "signal", "SIGKILL", "int", "max", "full", "int32"]
json.dump(t, open(sys.argv[1], "w"), indent=1)
PY

verdict() { json_eval "$TMP/r" "[r[\"verdict\"] for r in recs if r.get(\"sample\") == \"$1\"][0]"; }

test_expect_success 'the run over the attacks completes' '
	"$KGB" -vv --tasks "$TMP/cat" eval --platform interpreter -j 2 --timeout 120 \
		--solutions "$TMP/sol" --json >"$TMP/r" 2>"$TMP/err"
'
test_expect_success 'every attack fails, the honest control passes' '
	for f in "$B"/*.py; do
		s=$(basename "$f" .py) &&
		want=$(sed -n "s/^# expect: //p" "$f") &&
		got=$(verdict "$s") && echo "$s: $got (expected $want)" &&
		if [ "$want" = pass ]; then test "$got" = pass; else test "$got" != pass; fi || return 1
	done &&
	test "$(ls "$B"/*.py | wc -l)" -ge 5
'
test_expect_success 'no attack passed a case that has an element to get wrong' '
	sqlite3 "$KGB_STORE" "select c.axes from cases c join run_evals r on r.eval_key = c.eval_key
		where r.sample != \"honest_with_os\" and c.verdict = \"pass\"" >"$TMP/passed" &&
	! grep -v "\"shape\":\[0\]" "$TMP/passed"
'
test_expect_success 'each attack ran in its runner' '
	grep -q "boundary attack ran: forged lines written to [1-9]" "$TMP/err" &&
	grep -q "boundary attack ran: replaced [1-9][0-9]* functions" "$TMP/err" &&
	grep -q "boundary attack ran: zeroed [1-9][0-9]* tensors" "$TMP/err" &&
	json_eval "$TMP/r" "[r[\"detail\"] for r in recs if r.get(\"sample\") == \"forged_env_error\"][0]" |
		grep -q "boundary attack ran: forged env_error written"
'
test_expect_success 'the L2 replay in its own process: what the runner saw before does not reach it' '
	test "$(verdict replay_counted)" = hack &&
	json_eval "$TMP/r" "[r[\"detail\"] for r in recs if r.get(\"sample\") == \"replay_counted\"][0]" |
		grep -q "L2 ghost replay: the outputs are right" &&
	grep -q "boundary attack ran: call 2 on this input" "$TMP/err"
'
test_expect_success 'a candidate that kills the replay s process: crash, named as the replay s' '
	test "$(verdict replay_killed)" = crash &&
	json_eval "$TMP/r" "[r[\"detail\"] for r in recs if r.get(\"sample\") == \"replay_killed\"][0]" |
		grep -q "worker (L2 replay) killed by signal 9"
'
test_expect_success 'a forged environment error is stored as the candidate s own failure' '
	test "$(verdict forged_env_error)" = crash &&
	test "$(json_eval "$TMP/r" "recs[-1][\"total\"]")" = "$(ls "$B"/*.py | wc -l)"
'
test_done
