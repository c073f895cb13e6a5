#!/usr/bin/env bash
# `kgb generate` against a local scripted chat server (tests/llm/server.py) speaking the OpenAI
# and Anthropic APIs: the requests sent, retries, budgets, exact token and cost accounting, the
# Pass@k and tokens-per-success arithmetic, and the three tracks end to end on the interpreter.
. "$(dirname "$0")/lib.sh"

PY=$ROOT/.venv/bin/python
TASKS=$FIXTURES/gen-tasks
GOOD=$TASKS/aten/scale/solution.py
GOOD_SHIFT=$TASKS/aten/shift/solution.py
export OPENAI_API_KEY=sk-test-7f3a ANTHROPIC_API_KEY=ak-test-91c2

# serve NAME: starts the server on $TMP/NAME.json, logging to $TMP/NAME.log; sets URL.
serve() {
	rm -f "$TMP/$1.port" "$TMP/$1.log"
	"$PY" "$ROOT/tests/llm/server.py" "$TMP/$1.json" "$TMP/$1.log" "$TMP/$1.port" &
	SERVER_PIDS="${SERVER_PIDS:-} $!"
	for _ in $(seq 100); do [ -s "$TMP/$1.port" ] && break; sleep 0.1; done
	URL=http://127.0.0.1:$(cat "$TMP/$1.port")
}
trap 'kill ${SERVER_PIDS:-} 2>/dev/null' EXIT

# script NAME PYTHON-EXPR: writes the server script {"rules": EXPR}, with good and bad modules.
script() {
	"$PY" - "$TMP/$1.json" "$GOOD" "$2" "$GOOD_SHIFT" <<-'PY'
	import json, sys
	good = open(sys.argv[2]).read()
	shift = open(sys.argv[4]).read()
	bad = good.replace("x * 2", "x * 3")
	json.dump({"rules": eval(sys.argv[3])}, open(sys.argv[1], "w"))
	PY
}

# Each test has a store of its own ($KGB_STORE is set before it), so rows() sees its run only.
gen() { "$KGB" --tasks "$TASKS" generate --platform interpreter --backoff 0 "$@"; }
rows() { sqlite3 "$KGB_STORE" "$1"; }

script oa '[{"match": "implement `scale`", "replies": [
	{"code": bad, "usage": {"prompt": 1000, "completion": 200, "cached": 100}},
	{"status": 429, "retry_after": "0"}, {"status": 503}, {"code": good}]},
	{"match": "implement `shift`", "replies": [{"code": shift}]},
	{"match": "wrong results", "replies": [{"code": good, "usage": {"prompt": 1500, "completion": 300}}]}]'
serve oa
export KGB_STORE=$TMP/oa.db
test_expect_success 'sample track, OpenAI API, two tasks: reflection, retries, exact counts and Pass@k' '
	gen --base-url "$URL/v1" --model m1 --samples 2 --rounds 1 --concurrency 1 --k 1,2 \
		--out "$TMP/oa" --json >"$TMP/oa.out" &&
	test "$(json_eval "$TMP/oa.out" "[(r[\"task\"], r[\"pass_at_k\"][\"1\"]) for r in recs[:-1]]")" = "[('"'"'scale'"'"', 0.5), ('"'"'shift'"'"', 1.0)]" &&
	test "$(json_eval "$TMP/oa.out" "recs[-1][\"pass_at_k\"][\"1\"]")" = "{'"'"'value'"'"': 0.75, '"'"'tasks'"'"': 2}" &&
	test "$(json_eval "$TMP/oa.out" "recs[-1][\"pass_at_k\"][\"2\"][\"value\"]")" = 1.0 &&
	test "$(json_eval "$TMP/oa.out" "recs[-1][\"solved_within_rounds\"]")" = "[0.75, 1.0]" &&
	test "$(json_eval "$TMP/oa.out" "recs[-1][\"prompt_tokens\"]")" = 2800 &&
	test "$(json_eval "$TMP/oa.out" "recs[-1][\"completion_tokens\"]")" = 650 &&
	test "$(json_eval "$TMP/oa.out" "recs[-1][\"cached_tokens\"]")" = 100 &&
	test "$(json_eval "$TMP/oa.out" "recs[-1][\"tokens_per_success\"]")" = 1725.0 &&
	test "$(json_eval "$TMP/oa.out" "recs[-1][\"cost_usd\"]")" = None &&
	test "$(rows "select group_concat(http_attempts) from (select http_attempts from generations where task = \"scale\" and round = 0 order by sample)")" = "1,3" &&
	test "$(rows "select outcome from generations where task = \"scale\" and sample = 0 and round = 0")" = mismatch &&
	test "$(rows "select outcome from generations where task = \"scale\" and sample = 0 and round = 1")" = pass &&
	test "$(rows "select group_concat(outcome) from generations where not (task = \"scale\" and sample = 0)")" = "pass,pass,pass" &&
	rows "select feedback from generations where outcome = \"mismatch\"" | grep -q "wrong results on .scale. with" &&
	test -f "$TMP/oa/r0/scale/s0.py" && test -f "$TMP/oa/r1/scale/s0.py" && test -f "$TMP/oa/r0/shift/s1.py" &&
	test "$(grep -c "" "$TMP/oa.log")" = 7 &&
	json_eval "$TMP/oa.log" "{r[\"path\"] for r in recs}" | grep -qx "{.\/v1\/chat\/completions.}" &&
	json_eval "$TMP/oa.log" "{r[\"auth\"] for r in recs}" | grep -qx "{.Bearer sk-test-7f3a.}" &&
	test "$(json_eval "$TMP/oa.log" "[len(r[\"body\"][\"messages\"]) for r in recs]")" = "[1, 1, 1, 1, 1, 1, 3]" &&
	json_eval "$TMP/oa.log" "recs[-1][\"body\"][\"messages\"][1][\"role\"]" | grep -qx assistant &&
	! grep -rq sk-test-7f3a "$KGB_STORE" "$TMP/oa.out" "$TMP/oa"
'

script an '[{"match": "implement `scale`", "replies": [
	{"code": good, "usage": {"prompt": 1000, "completion": 200, "cached": 100}}]}]'
serve an
export KGB_STORE=$TMP/an.db
cat >"$TMP/prices.json" <<-EOF
{"claude-x": {"input": 2.0, "cached_input": 1.0, "output": 10.0}}
EOF
test_expect_success 'Anthropic Messages API, streamed: cached tokens and cost' '
	gen --task scale --api anthropic --base-url "$URL" --model claude-x --stream --prices "$TMP/prices.json" \
		--temperature 0.5 --out "$TMP/an" --json >"$TMP/an.out" &&
	test "$(json_eval "$TMP/an.out" "recs[-1][\"prompt_tokens\"]")" = 1000 &&
	test "$(json_eval "$TMP/an.out" "recs[-1][\"cached_tokens\"]")" = 100 &&
	test "$(json_eval "$TMP/an.out" "recs[-1][\"completion_tokens\"]")" = 200 &&
	test "$(json_eval "$TMP/an.out" "round(recs[-1][\"cost_usd\"], 10)")" = 0.0039 &&
	test "$(json_eval "$TMP/an.out" "round(recs[-1][\"cost_per_success\"], 10)")" = 0.0039 &&
	test "$(json_eval "$TMP/an.log" "recs[0][\"path\"]")" = /v1/messages &&
	test "$(json_eval "$TMP/an.log" "recs[0][\"auth\"]")" = ak-test-91c2 &&
	test "$(json_eval "$TMP/an.log" "recs[0][\"version\"]")" = 2023-06-01 &&
	test "$(json_eval "$TMP/an.log" "(recs[0][\"body\"][\"stream\"], recs[0][\"body\"][\"temperature\"], recs[0][\"body\"][\"model\"])")" = "(True, 0.5, '"'"'claude-x'"'"')"
'

script cut '[{"match": "implement `scale`", "replies": [{"code": good, "cut": True}, {"code": good}]}]'
serve cut
export KGB_STORE=$TMP/cut.db
test_expect_success 'a stream cut off before its end marker is retried' '
	gen --task scale --base-url "$URL/v1" --model m --stream --out "$TMP/cut" >/dev/null &&
	test "$(rows "select outcome, http_attempts from generations")" = "pass|2" &&
	test "$(grep -c "" "$TMP/cut.log")" = 2
'

# The candidate's file on a full disk (a link to /dev/full: the write is buffered, so the
# failure shows in fclose, which once freed the FILE twice and aborted).
export KGB_STORE=$TMP/full.db
test_expect_success 'a candidate that cannot be written (full disk) is an error, not an abort' '
	for r in r0 r1; do mkdir -p "$TMP/full/$r/scale" && ln -s /dev/full "$TMP/full/$r/scale/s0.py" &&
		ln -s /dev/full "$TMP/full/$r/scale/s1.py" || return 1; done &&
	expect_status 4 gen --task scale --base-url "$URL/v1" --model m --out "$TMP/full" 2>"$TMP/e" &&
	grep -q "cannot write .*scale/s[01].py.: No space left on device" "$TMP/e"
'

script bad '[{"match": "implement `scale`", "replies": [
	{"text": "I would rather not."}, {"refusal": "I cannot help with that."},
	{"text": "Let me think about", "finish": "length"}, {"text": "```python\ndef scale(x):\n    return", "finish": "length"},
	{"malformed": True}, {"no_usage": True}, {"status": 400, "body": "{\"error\": {\"message\": \"bad model\"}}"},
	{"status": 500}]}]'
serve bad
export KGB_STORE=$TMP/bad.db
test_expect_success 'replies without usable code, and failures: each outcome and reason' '
	gen --task scale --base-url "$URL/v1" --model m --samples 7 --concurrency 1 --retries 1 \
		--out "$TMP/bad" --json >"$TMP/bad.out" &&
	rows "select sample, outcome, http_attempts, error from generations order by sample" >"$TMP/bad.rows" &&
	cat "$TMP/bad.rows" &&
	grep -q "^0|no_code|1|the reply has no fenced Python code block" "$TMP/bad.rows" &&
	grep -q "^1|no_code|1|the model refused" "$TMP/bad.rows" &&
	grep -q "^3|no_code|1|the reply was cut off at the token limit inside its code block" "$TMP/bad.rows" &&
	grep -q "^2|no_code|1|the reply was cut off at the token limit before any Python" "$TMP/bad.rows" &&
	grep -q "^4|no_reply|2|POST $URL/v1/chat/completions: the reply carries no valid token usage.*(after 2 attempts)" "$TMP/bad.rows" &&
	grep -q "|no_reply|1|POST $URL/v1/chat/completions: HTTP 400: .*bad model" "$TMP/bad.rows" &&
	grep -q "|no_reply|2|POST $URL/v1/chat/completions: HTTP 500: .*(after 2 attempts)" "$TMP/bad.rows" &&
	test "$(json_eval "$TMP/bad.out" "recs[-1][\"solved\"]")" = 0 &&
	test "$(json_eval "$TMP/bad.out" "recs[-1][\"tokens_per_success\"]")" = None
'

script slow '[{"match": "implement `scale`", "replies": [{"code": good, "delay": 3}]}]'
serve slow
export KGB_STORE=$TMP/slow.db
test_expect_success 'a request that outlives its timeout is retried, then given up' '
	expect_status 4 gen --task scale --base-url "$URL/v1" --model m --request-timeout 0.5 --retries 1 \
		--out "$TMP/slow" --json >"$TMP/slow.out" &&
	rows "select outcome, http_attempts, error from generations" | grep -q "^no_reply|2|POST $URL/v1/chat/completions: Timeout was reached (after 2 attempts)" &&
	test "$(grep -c "" "$TMP/slow.log")" = 2
'

script wait '[{"match": "implement `scale`", "replies": [{"status": 429, "retry_after": "1"}, {"text": "no code"}]}]'
serve wait
export KGB_STORE=$TMP/wait.db
test_expect_success 'Retry-After is honoured over the backoff' '
	gen --task scale --base-url "$URL/v1" --model m --out "$TMP/wait" >/dev/null &&
	rows "select http_attempts, latency_ms >= 1000 from generations" | grep -qx "2|1"
'

script budget '[{"match": "implement `scale`", "replies": [{"code": good, "usage": {"prompt": 120, "completion": 40}}]}]'
serve budget
export KGB_STORE=$TMP/budget.db
test_expect_success 'the token budget stops new requests once spent' '
	gen --task scale --base-url "$URL/v1" --model m --samples 4 --concurrency 1 --budget-tokens 300 \
		--out "$TMP/budget" --json >"$TMP/budget.out" &&
	test "$(grep -c "" "$TMP/budget.log")" = 2 &&
	test "$(rows "select group_concat(outcome) from (select outcome from generations order by sample)")" = "pass,pass,budget,budget" &&
	test "$(json_eval "$TMP/budget.out" "recs[-1][\"prompt_tokens\"] + recs[-1][\"completion_tokens\"]")" = 320 &&
	test "$(json_eval "$TMP/budget.out" "recs[0][\"pass_at_k\"][\"1\"]")" = 0.5
'

# Without --prices no cost is known, a request the budget kept from being sent included: its
# cost is unknown (null) like the others', never a 0 that makes the sum look known (issue 36).
test_expect_success 'without prices the costs are null, also with requests the budget stopped' '
	test "$(json_eval "$TMP/budget.out" "[r[\"cost_usd\"] for r in recs]")" = "[None, None]" &&
	test "$(json_eval "$TMP/budget.out" "recs[-1][\"cost_per_success\"]")" = None &&
	test "$(rows "select count(*) from generations where cost_usd is not null")" = 0 &&
	gen --task scale --base-url "$URL/v1" --model m --samples 4 --concurrency 1 --budget-tokens 300 \
		--out "$TMP/budget2" >"$TMP/budget2.out" &&
	grep -qx "cost: unknown (no --prices for this model)" "$TMP/budget2.out" &&
	printf "{\"m\": {\"input\": 1.0, \"output\": 10.0}}" >"$TMP/mprices.json" &&
	gen --task scale --base-url "$URL/v1" --model m --samples 4 --concurrency 1 --budget-tokens 300 \
		--prices "$TMP/mprices.json" --out "$TMP/budget3" --json >"$TMP/budget3.out" &&
	test "$(json_eval "$TMP/budget3.out" "round(recs[-1][\"cost_usd\"], 10)")" = 0.00104 &&
	test "$(rows "select count(*) from generations where outcome = \"budget\" and cost_usd = 0")" = 2
'

script agent '[{"match": "implement `scale`", "replies": [{"text": "thinking"}]},
	{"match": "implement `shift`", "replies": [{"code": shift}]},
	{"match": "no usable code", "replies": [{"code": good}]}]'
serve agent
export KGB_STORE=$TMP/agent.db
test_expect_success 'agent track, two tasks: feedback until correct, then the held-out cases' '
	gen --track agent --base-url "$URL/v1" --model m --out "$TMP/agent" --json >"$TMP/agent.out" &&
	test "$(json_eval "$TMP/agent.out" "[r[\"final_verdict\"] for r in recs[:-1]]")" = "['"'"'pass'"'"', '"'"'pass'"'"']" &&
	test "$(rows "select group_concat(stage || \":\" || outcome) from (select * from generations where task = \"scale\" order by round)")" = "generate:no_code,generate:pass,final:pass" &&
	test "$(rows "select group_concat(stage || \":\" || outcome) from (select * from generations where task = \"shift\" order by round)")" = "generate:pass,final:pass" &&
	test -f "$TMP/agent/final/scale/s0.py" && test -f "$TMP/agent/final/shift/s0.py" &&
	test "$(json_eval "$TMP/agent.out" "recs[-1][\"solved_within_rounds\"][:2]")" = "[0.5, 1.0]" &&
	test "$(grep -c "" "$TMP/agent.log")" = 3
'

# The final evaluations send no request: they cost nothing, and a run whose every request has
# a price has a known cost, in the store's totals (kgb report) as in its own output (issue 36).
export KGB_STORE=$TMP/agentp.db
test_expect_success 'agent track with prices: the run'"'"'s cost is known, in kgb report too' '
	printf "{\"m\": {\"input\": 1.0, \"output\": 10.0}}" >"$TMP/aprices.json" &&
	gen --track agent --base-url "$URL/v1" --model m --prices "$TMP/aprices.json" \
		--out "$TMP/agentp" --json >"$TMP/agentp.out" &&
	test "$(rows "select count(*) from generations where stage = \"final\" and cost_usd is null")" = 2 &&
	test "$(json_eval "$TMP/agentp.out" "round(recs[-1][\"cost_usd\"], 10)")" = 0.0018 &&
	"$KGB" report --run 1 -o "$TMP/agentp.html" &&
	grep -q "data-key=\"cost_per_success_usd\" data-value=\"0\.000[89]" "$TMP/agentp.html"
'

cp "$GOOD" "$TMP/good.py"
cat >"$TMP/agent.sh" <<-EOF
#!/bin/sh
# A scripted "coding agent": reads the prompt, writes a kernel, verifies it, reports usage.
# First it tries what its sandbox forbids: reading the shipped solution, writing outside its
# workspace; probe.txt says what it saw.
if cat "$GOOD" >/dev/null 2>&1; then echo "solution readable"; else echo "solution hidden"; fi >probe.txt
if touch "$TMP/outside" 2>/dev/null; then echo "outside writable"; else echo "outside read-only"; fi >>probe.txt
grep -q "implement \\\`scale\\\`" "\$KGB_PROMPT" || exit 1
cp "$TMP/good.py" "\$KGB_SOLUTION"
./verify >verify.out 2>&1 || exit 1
printf '{"prompt_tokens": 4000, "completion_tokens": 800, "cached_tokens": 0, "cost_usd": 0.02}' >usage.json
EOF
chmod +x "$TMP/agent.sh"
export KGB_STORE=$TMP/ext.db
test_expect_success 'external track: a scripted agent command, its verify and its usage' '
	gen --task scale --track external --agent-cmd "$TMP/agent.sh" --out "$TMP/ext" --json >"$TMP/ext.out" &&
	test "$(json_eval "$TMP/ext.out" "recs[0][\"final_verdict\"]")" = pass &&
	test "$(json_eval "$TMP/ext.out" "recs[-1][\"tokens_per_success\"]")" = 4800.0 &&
	test "$(json_eval "$TMP/ext.out" "recs[-1][\"cost_usd\"]")" = 0.02 &&
	grep -q "pass" "$TMP/ext/external/scale/verify.out" &&
	grep -qx "solution hidden" "$TMP/ext/external/scale/probe.txt" &&
	grep -qx "outside read-only" "$TMP/ext/external/scale/probe.txt" && test ! -e "$TMP/outside" &&
	! cmp -s "$GOOD" "$TMP/ext/external/.catalog/aten/scale/solution.py" &&
	grep -q "Withheld from the agent" "$TMP/ext/external/.catalog/aten/scale/solution.py" &&
	test -f "$TMP/ext/external/.catalog/aten/scale/reference.py" &&
	gen --track external --agent-cmd "$TMP/agent.sh" --budget-tokens 100 --out "$TMP/ext3" --json >"$TMP/ext3.out" &&
	test "$(json_eval "$TMP/ext3.out" "[r[\"solved\"] for r in recs[:-1]]")" = "[True, False]" &&
	rows "select outcome, error from generations where task = \"shift\"" | grep -qx "budget|not started: the run.s budget is spent" &&
	gen --task scale --track external --agent-cmd "sleep 30" --agent-timeout 1 --out "$TMP/ext2" --json >"$TMP/ext2.out" &&
	test "$(json_eval "$TMP/ext2.out" "recs[0][\"solved\"]")" = False &&
	rows "select outcome, error from generations where model = \"sleep 30\"" | grep -q "^timeout|the agent command ran out of time" &&
	gen --task scale --track external --agent-sandbox off --agent-cmd "$TMP/agent.sh" --out "$TMP/ext4" --json >"$TMP/ext4.out" &&
	grep -qx "solution readable" "$TMP/ext4/external/scale/probe.txt" &&
	expect_status 2 gen --track external --agent-cmd true --agent-sandbox maybe 2>"$TMP/e" &&
	grep -q "expected auto, strict or off" "$TMP/e"
'

script pr '[{"match": "implement `scale`", "replies": [{"code": good}]}]'
serve pr
PR_URL=$URL
export KGB_STORE=$TMP/pr.db
# body FIELD...: the last logged request body's value of each FIELD (None when absent).
body() { json_eval "$TMP/pr.log" "[recs[-1][\"body\"].get(k) for k in \"$*\".split()]"; }
test_expect_success 'request fields: the API'"'"'s token limit field, --max-tokens-field, --param' '
	gen --task scale --base-url "$URL" --model m --max-tokens 77 --out "$TMP/pr" >/dev/null &&
	test "$(json_eval "$TMP/pr.log" "recs[-1][\"path\"]")" = /v1/chat/completions &&
	test "$(body max_completion_tokens max_tokens)" = "[77, None]" &&
	gen --task scale --base-url "$URL/v1/" --model m --max-tokens 77 --max-tokens-field max_tokens \
		--temperature 0.5 --param top_p=0.95 --param reasoning_effort=high \
		--param "stop=[\"<eot>\"]" --param temperature=0.1 --out "$TMP/pr" >/dev/null &&
	test "$(body max_completion_tokens max_tokens top_p reasoning_effort stop temperature)" = \
		"[None, 77, 0.95, '"'"'high'"'"', ['"'"'<eot>'"'"'], 0.1]" &&
	rows "select env from runs where harness = \"generate\" order by id desc limit 1" >"$TMP/env.json" &&
	test "$(json_eval "$TMP/env.json" "recs[0][\"params\"], recs[0][\"max_tokens_field\"]")" = \
		"({'"'"'top_p'"'"': 0.95, '"'"'reasoning_effort'"'"': '"'"'high'"'"', '"'"'stop'"'"': ['"'"'<eot>'"'"'], '"'"'temperature'"'"': 0.1}, '"'"'max_tokens'"'"')" &&
	gen --task scale --base-url "$URL/v1" --model m --max-tokens-field none --out "$TMP/pr" >/dev/null &&
	test "$(body max_completion_tokens max_tokens)" = "[None, None]" &&
	gen --task scale --api anthropic --base-url "$URL/v1" --model m --max-tokens 66 --out "$TMP/pr" >/dev/null &&
	test "$(json_eval "$TMP/pr.log" "recs[-1][\"path\"]")" = /v1/messages &&
	test "$(body max_tokens max_completion_tokens)" = "[66, None]" &&
	expect_status 2 gen --base-url http://x --model m --param model=other 2>"$TMP/e" &&
	grep -q "'"'"'model'"'"' cannot be set" "$TMP/e" &&
	expect_status 2 gen --base-url http://x --model m --param top_p 2>"$TMP/e" &&
	grep -q "expected KEY=VALUE" "$TMP/e"
'

export KGB_STORE=$TMP/twice.db
test_expect_success 'an evaluation the store already held costs the run no evaluation time' '
	gen --task scale --base-url "$PR_URL/v1" --model m --out "$TMP/twice1" --json >"$TMP/twice1.json" &&
	gen --task scale --base-url "$PR_URL/v1" --model m --out "$TMP/twice2" --json >"$TMP/twice2.json" &&
	json_eval "$TMP/twice1.json" "recs[-1][\"eval_s\"] > 0" | grep -qx True &&
	test "$(json_eval "$TMP/twice2.json" "recs[-1][\"eval_s\"]")" = 0.0 &&
	test "$(rows "select group_concat(eval_ms) from (select eval_ms from generations order by run_id)" | cut -d, -f2)" = 0.0
'

script down '[{"match": "implement", "replies": [{"status": 401, "body": "{\"error\": {\"message\": \"invalid key\"}}"}]}]'
serve down
export KGB_STORE=$TMP/down.db
test_expect_success 'a run whose every request fails exits 4 and says why, in the table, --json and -v' '
	expect_status 4 gen --base-url "$URL/v1" --model m --out "$TMP/down" >"$TMP/down.out" 2>"$TMP/e" &&
	cat "$TMP/down.out" "$TMP/e" &&
	grep -q "no request got a reply (2 sent); the first error: POST $URL/v1/chat/completions: HTTP 401: .*invalid key" "$TMP/e" &&
	grep -q "^aten/scale .*1 of 1 requests failed" "$TMP/down.out" &&
	grep -q "^  aten/shift: 1 x POST $URL/v1/chat/completions: HTTP 401: .*invalid key" "$TMP/down.out" &&
	grep -q "^requests: 2 sent: 0 replied (0 with code), 2 failed (HTTP 401: 2), 0 not sent (budget)" "$TMP/down.out" &&
	expect_status 4 gen --task scale --base-url "$URL/v1" --model m --out "$TMP/down" --json >"$TMP/down.json" 2>/dev/null &&
	test "$(json_eval "$TMP/down.json" "recs[0][\"errors\"][0][\"kind\"], recs[0][\"requests\"][\"failed\"], recs[-1][\"requests\"][\"failed_by_kind\"]")" = \
		"('"'"'HTTP 401'"'"', 1, {'"'"'HTTP 401'"'"': 1})" &&
	expect_status 4 "$KGB" -v --tasks "$TASKS" generate --platform interpreter --task scale --base-url "$URL/v1" \
		--model m --out "$TMP/down" >/dev/null 2>"$TMP/e" &&
	grep -q "^kgb generate: aten/scale sample 0 round 0: POST .*HTTP 401" "$TMP/e"
'

script some '[{"match": "implement `scale`", "replies": [{"code": good}, {"status": 500}, {"code": good}, {"status": 500}]}]'
serve some
export KGB_STORE=$TMP/some.db
test_expect_success 'a request failing among good ones: exit 0, or 1 with --fail-on-error' '
	gen --task scale --base-url "$URL/v1" --model m --samples 2 --concurrency 1 --retries 0 \
		--out "$TMP/some" >"$TMP/some.out" &&
	grep -q "1 of 2 requests failed" "$TMP/some.out" &&
	expect_status 1 gen --task scale --base-url "$URL/v1" --model m --samples 2 --concurrency 1 \
		--retries 0 --fail-on-error --out "$TMP/some" >/dev/null 2>"$TMP/e" &&
	grep -q "1 of 2 requests failed (--fail-on-error)" "$TMP/e"
'

# The sample-track run of the first case, printed again from its store.
test_expect_success 'kgb report shows a generation run: table and --json, as generate printed it' '
	"$KGB" --tasks "$TASKS" report --store "$TMP/oa.db" >"$TMP/rep.out" &&
	cat "$TMP/rep.out" &&
	grep -q "^generate run 1 (interpreter) in $TMP/oa.db" "$TMP/rep.out" &&
	grep -q "^aten/scale  *2  *2  *0.500 " "$TMP/rep.out" &&
	grep -q "^solved: 2/2 tasks  pass@1 0.750  pass@2 1.000" "$TMP/rep.out" &&
	grep -q "^requests: 5 sent: 5 replied (5 with code), 0 failed, 0 not sent (budget)" "$TMP/rep.out" &&
	"$KGB" --tasks "$TASKS" report --store "$TMP/oa.db" --run 1 --json >"$TMP/rep.json" &&
	for k in pass_at_k prompt_tokens completion_tokens cached_tokens tokens_per_success solved requests; do
		test "$(json_eval "$TMP/rep.json" "recs[-1][\"$k\"]")" = "$(json_eval "$TMP/oa.out" "recs[-1][\"$k\"]")" || return 1
	done &&
	test "$(json_eval "$TMP/rep.json" "[r[\"outcomes\"] for r in recs[:-1]]")" = \
		"[{'"'"'mismatch'"'"': 1, '"'"'pass'"'"': 2}, {'"'"'pass'"'"': 2}]" &&
	expect_status 3 "$KGB" --tasks "$TASKS" compare "$TMP/oa.db" "$TMP/oa.db" 2>"$TMP/e" &&
	grep -q "run 1 of .*oa.db. is a kgb generate run: compare compares evaluation runs" "$TMP/e"
'

export KGB_STORE=$TMP/none.db
test_expect_success 'bad input: clear errors, nothing stored' '
	expect_status 2 gen --api bogus --base-url http://x --model m 2>"$TMP/e" && grep -q "expected openai or anthropic" "$TMP/e" &&
	expect_status 2 gen --base-url http://x 2>"$TMP/e" && grep -q "model and --base-url are required" "$TMP/e" &&
	expect_status 2 gen --base-url http://x --model m --budget-usd 1 2>"$TMP/e" && grep -q "needs --prices" "$TMP/e" &&
	expect_status 2 gen --track external 2>"$TMP/e" && grep -q "needs --agent-cmd" "$TMP/e" &&
	for t in 0.0004 1e300 0 -1 nan; do
		expect_status 2 gen --base-url http://x --model m --request-timeout $t 2>"$TMP/e" &&
		grep -q "request-timeout: expected seconds from 0.001 to 1000000" "$TMP/e" || return 1
	done &&
	printf "{\"m\": {\"input\": 1,}}" >"$TMP/badprices.json" &&
	expect_status 3 gen --base-url http://x --model m --prices "$TMP/badprices.json" 2>"$TMP/e" &&
	grep -q "badprices.json:1:" "$TMP/e" &&
	expect_status 3 gen --base-url http://x --model m --prices "$TMP/nope.json" 2>"$TMP/e" &&
	grep -q "nope.json: unable to open .*No such file" "$TMP/e" && ! grep -q ":-1:" "$TMP/e" &&
	printf "{\"m\": {\"input\": -1, \"output\": 1}}" >"$TMP/neg.json" &&
	expect_status 3 gen --base-url http://x --model m --prices "$TMP/neg.json" 2>"$TMP/e" &&
	grep -q "m.input: expected a non-negative number" "$TMP/e" &&
	expect_status 3 gen --base-url http://x --model m --task nosuch 2>"$TMP/e" && grep -q "no such task" "$TMP/e" &&
	test ! -e "$TMP/none.db"
'

test_done
