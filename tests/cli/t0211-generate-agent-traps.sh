#!/usr/bin/env bash
# `kgb generate --track external` against a hostile agent (issue 36): whatever the agent leaves
# in its workspace (solution.py or usage.json as a symbolic link, a FIFO, a directory, a file too
# large) is that task's failure with its reason, never a read outside the workspace, a hang or
# the end of the run; a catalog's prompt.md too large is an error, not a prompt without its
# semantics; and ./verify stays correct whatever the --out path holds.
. "$(dirname "$0")/lib.sh"

TASKS=$FIXTURES/gen-tasks
GOOD=$TASKS/aten/scale/solution.py
GOOD_SHIFT=$TASKS/aten/shift/solution.py
cp "$GOOD" "$TMP/good-scale.py"
cp "$GOOD_SHIFT" "$TMP/good-shift.py"
echo "SECRET-5e1f" >"$TMP/secret.txt"
printf '{"prompt_tokens": 1, "completion_tokens": 2, "cached_tokens": 0, "cost_usd": 9.5}' \
	>"$TMP/fake-usage.json"

# The agent: on task `scale` it does what $1 says, on `shift` it behaves but for usage.json in
# the *-usage modes; it reports a usage of 10 + 5 tokens first, which a trap may then replace.
cat >"$TMP/agent.sh" <<-EOF
#!/bin/sh
mode=\$1
printf '{"prompt_tokens": 10, "completion_tokens": 5, "cached_tokens": 0}' >usage.json
if [ "\$KGB_TASK" = shift ]; then
	cp "$TMP/good-shift.py" solution.py
	case \$mode in
	big-usage) head -c 100000 /dev/zero | tr '\\0' ' ' >>usage.json ;;
	link-usage) rm usage.json && ln -s "$TMP/fake-usage.json" usage.json ;;
	esac
	exit 0
fi
case \$mode in
link-shipped) ln -s "$GOOD" solution.py ;;
link-secret) ln -s "$TMP/secret.txt" solution.py ;;
fifo) mkfifo solution.py && rm usage.json && mkfifo usage.json ;;
dir) mkdir solution.py && rm usage.json && mkdir usage.json ;;
nul) cp "$TMP/good-scale.py" solution.py && printf '\\000import sys; sys.exit(1)\\n' >>solution.py ;;
big|big-usage|link-usage)
	cp "$TMP/good-scale.py" solution.py
	head -c 2000000 /dev/zero | tr '\\0' '#' >>solution.py ;;
verify)
	cp "$TMP/good-scale.py" solution.py
	./verify >verify.out 2>&1; echo "verify exit \$?" >>verify.out ;;
esac
EOF
chmod +x "$TMP/agent.sh"

rows() { sqlite3 "$KGB_STORE" "$1"; }
# ext MODE: both tasks with the agent in MODE, into $TMP/MODE and $TMP/MODE.db; exit status 0
# wanted (a failed task is an outcome); `timeout` turns a hang into a failure of the test.
ext() {
	export KGB_STORE=$TMP/$1.db
	timeout 300 "$KGB" --tasks "$TASKS" generate --platform interpreter --track external \
		--agent-cmd "$TMP/agent.sh $1" --out "$TMP/$1" --json >"$TMP/$1.out"
}
outcome() { rows "select outcome || \"|\" || coalesce(error, \"\") from generations where task = \"$1\" and stage = \"$2\""; }

test_expect_success 'solution.py linked to the hidden shipped solution: not followed, task failed' '
	ext link-shipped &&
	outcome scale generate | grep -qx "no_code|solution.py in the agent.s workspace is a symbolic link: not followed" &&
	test -z "$(outcome scale final)" && test ! -e "$TMP/link-shipped/final/scale/s0.py" &&
	test "$(json_eval "$TMP/link-shipped.out" "[(r[\"task\"], r[\"solved\"]) for r in recs[:-1]]")" = "[('"'"'scale'"'"', False), ('"'"'shift'"'"', True)]" &&
	test "$(outcome shift final)" = "pass|"
'

test_expect_success 'solution.py linked to a file outside: nothing of it is read or copied' '
	ext link-secret &&
	outcome scale generate | grep -qx "no_code|solution.py in the agent.s workspace is a symbolic link: not followed" &&
	! grep -rqs SECRET-5e1f "$TMP/link-secret" "$TMP/link-secret.db" &&
	test "$(outcome shift final)" = "pass|"
'

test_expect_success 'a FIFO as solution.py and as usage.json: refused at once, never waited on' '
	ext fifo &&
	outcome scale generate | grep -qx "no_code|solution.py in the agent.s workspace is a FIFO, not a regular file: not read" &&
	rows "select prompt_tokens, completion_tokens from generations where task = \"scale\"" | grep -qx -- "-1|-1" &&
	test "$(outcome shift final)" = "pass|"
'

test_expect_success 'a directory as solution.py and as usage.json: refused' '
	ext dir &&
	outcome scale generate | grep -qx "no_code|solution.py in the agent.s workspace is a directory, not a regular file: not read" &&
	test "$(outcome shift final)" = "pass|"
'

test_expect_success 'a solution.py holding a NUL byte: refused, never scored cut short at it' '
	ext nul &&
	outcome scale generate | grep -qx "no_code|solution.py in the agent.s workspace holds a NUL byte: not Python source" &&
	test -z "$(outcome scale final)" &&
	test "$(outcome shift final)" = "pass|"
'

test_expect_success 'a solution.py over 1 MiB fails its task only; the next task runs and is scored' '
	ext big &&
	outcome scale generate | grep -qx "no_code|solution.py in the agent.s workspace is larger than 1 MiB: not read" &&
	test "$(json_eval "$TMP/big.out" "[(r[\"task\"], r[\"solved\"]) for r in recs[:-1]]")" = "[('"'"'scale'"'"', False), ('"'"'shift'"'"', True)]" &&
	test "$(json_eval "$TMP/big.out" "recs[-1][\"solved\"]")" = 1
'

test_expect_success 'usage.json too large or a symbolic link: usage unknown with the reason, solution scored' '
	ext big-usage &&
	outcome shift generate | grep -qx "generated|usage.json in the agent.s workspace is larger than 64 KiB: not read; the agent.s tokens and cost are unknown" &&
	rows "select prompt_tokens from generations where task = \"shift\" and stage = \"generate\"" | grep -qx -- -1 &&
	test "$(outcome shift final)" = "pass|" &&
	ext link-usage &&
	outcome shift generate | grep -qx "generated|usage.json in the agent.s workspace is a symbolic link: not followed; the agent.s tokens and cost are unknown" &&
	rows "select prompt_tokens, cost_usd is null from generations where task = \"shift\" and stage = \"generate\"" | grep -qx -- "-1|1" &&
	test "$(outcome shift final)" = "pass|" &&
	# Unknown tokens make the totals unknown, not a sum with -1 in it (scale reported 10 + 5).
	test "$(json_eval "$TMP/link-usage.out" "[(r[\"task\"], r[\"prompt_tokens\"]) for r in recs[:-1]]")" = "[('"'"'scale'"'"', 10), ('"'"'shift'"'"', None)]" &&
	test "$(json_eval "$TMP/link-usage.out" "(recs[-1][\"prompt_tokens\"], recs[-1][\"tokens_per_success\"])")" = "(None, None)"
'

# A name with a quote, a command substitution, a space and a newline: ./verify must quote it.
odd="$TMP/o'\$(touch pwned) \`touch pwned2\` x
y"
test_expect_success './verify works with an --out path holding a quote, $(...), a space and a newline' '
	export KGB_STORE=$TMP/odd.db &&
	timeout 300 "$KGB" --tasks "$TASKS" generate --platform interpreter --track external \
		--task scale --agent-cmd "$TMP/agent.sh verify" --out "$odd" --json >"$TMP/odd.out" &&
	cat "$odd/external/scale/verify.out" &&
	grep -qx "verify exit 0" "$odd/external/scale/verify.out" &&
	test -z "$(find "$TMP" -name "pwned*")" &&
	test "$(json_eval "$TMP/odd.out" "recs[0][\"final_verdict\"]")" = pass
'

test_expect_success 'a prompt.md over 1 MiB in the catalog: an error, no prompt without its semantics' '
	cp -rL "$TASKS" "$TMP/cat" &&
	head -c 2000000 /dev/zero | tr "\\0" x >>"$TMP/cat/aten/shift/prompt.md" &&
	export KGB_STORE=$TMP/prompt.db &&
	expect_status 3 "$KGB" --tasks "$TMP/cat" generate --platform interpreter --track external \
		--agent-cmd true --out "$TMP/prompt" 2>"$TMP/e" &&
	cat "$TMP/e" &&
	grep -q "aten/shift.*prompt.md.*larger than 1 MiB" "$TMP/e" &&
	test ! -e "$TMP/prompt/external/scale" &&
	expect_status 3 "$KGB" --tasks "$TMP/cat" show --platform interpreter aten/shift 2>"$TMP/e" &&
	grep -q "prompt.md.*larger than 1 MiB" "$TMP/e"
'

test_done
