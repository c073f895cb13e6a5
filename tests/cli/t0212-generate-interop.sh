#!/usr/bin/env bash
# `kgb generate` against a real third-party server rather than our own scripted one (t0210): the
# litellm proxy from PyPI (pinned in tests/interop/requirements.txt, installed into
# build/interop/venv by scripts/interop.sh, which `make check` runs) in mock mode, started here on
# loopback: no network, no model. Each model name of its config answers one way (a correct
# kernel, prose, a 429, a 500, a 400); the proxy checks the key (its master key). What kgb stores
# is compared with what the proxy answers the same request sent directly: the token counts
# exactly, the HTTP statuses, and the attempts the proxy logged. Both APIs: OpenAI's chat
# completions, plain and streamed, and Anthropic's Messages (the proxy answers a streamed
# Messages request with one JSON body, not server-sent events: kgb must say so, not retry, and
# keep the tokens). Without the install the test says `skipped:` and why; under $CI it fails.
. "$(dirname "$0")/lib.sh"

PY=$ROOT/.venv/bin/python
LITELLM=$ROOT/build/interop/venv/bin/litellm
TASKS=$FIXTURES/gen-tasks
GOOD=$TASKS/aten/scale/solution.py

if ! why=$("$ROOT/scripts/interop.sh" --check); then
	if [ -n "${CI:-}" ]; then
		say "not ok - litellm proxy: $why (CI must run this test: make check installs it)"
		failed=$((failed + 1))
		test_done
		exit 1
	fi
	say "skipped: litellm proxy: $why"
	test_done
	exit 0
fi

KEY=sk-kgb-interop-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
export OPENAI_API_KEY=$KEY ANTHROPIC_API_KEY=$KEY WRONG_KEY=sk-kgb-interop-wrong
P=$TMP/proxy
mkdir -p "$P"

# The config (JSON is YAML): one model per behaviour. mock_response strings naming a litellm
# exception raise it (litellm/main.py, _handle_mock_potential_exceptions): RateLimitError 429,
# InternalServerError 500, ContextWindowExceededError 400. No retries inside the proxy.
"$PY" - "$P/config.yaml" "$GOOD" <<-'PY'
import json, sys
good = open(sys.argv[2]).read()
def model(name, reply):
    return {"model_name": name, "litellm_params": {"model": "openai/" + name, "mock_response": reply}}
json.dump({"model_list": [
    model("mock-ok", "Here is the kernel.\n\n```python\n" + good + "```\n"),
    model("mock-prose", "I would explain the idea in words rather than write the code."),
    model("mock-429", "litellm.RateLimitError"),
    model("mock-500", "litellm.InternalServerError"),
    model("mock-400", "litellm.ContextWindowExceededError")],
    "litellm_settings": {"num_retries": 0}, "router_settings": {"num_retries": 0}},
    open(sys.argv[1], "w"), indent=1)
PY

# start_proxy: on a free loopback port (a new one if another process took it meanwhile), in
# its own directory; sets URL once /health/liveliness answers. The cost map from the package
# (LITELLM_LOCAL_MODEL_COST_MAP), not fetched from GitHub; the log unbuffered (access lines).
# stop_proxy (on exit): SIGTERM, and wait until it is gone (it shuts down gracefully, in about
# a second), so that no proxy outlives the test.
PROXY_PID=
stop_proxy() {
	[ -n "$PROXY_PID" ] || return 0
	kill "$PROXY_PID" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$PROXY_PID" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$PROXY_PID" 2>/dev/null
	wait "$PROXY_PID" 2>/dev/null
	PROXY_PID=
}
trap stop_proxy EXIT
start_proxy() {
	local port
	for _ in 1 2 3; do
		port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		(cd "$P" && LITELLM_MASTER_KEY=$KEY LITELLM_LOCAL_MODEL_COST_MAP=True PYTHONUNBUFFERED=1 \
			exec "$LITELLM" --config config.yaml --host 127.0.0.1 --port "$port" \
			>"$P/log" 2>&1 </dev/null) &
		PROXY_PID=$!
		URL=http://127.0.0.1:$port
		if "$PY" - "$URL/health/liveliness" "$PROXY_PID" <<-'PY'; then return 0; fi
		import os, sys, time, urllib.request
		for _ in range(1200):
		    try:
		        with urllib.request.urlopen(sys.argv[1], timeout=2) as r:
		            sys.exit(0 if r.status == 200 else 1)
		    except OSError:
		        pass
		    try:
		        os.kill(int(sys.argv[2]), 0)
		    except OSError:
		        sys.exit(1)
		    time.sleep(0.1)
		sys.exit(1)
		PY
		kill "$PROXY_PID" 2>/dev/null
		wait "$PROXY_PID" 2>/dev/null
		PROXY_PID=
		grep -qi "address already in use" "$P/log" || break
	done
	tail -20 "$P/log" >&2
	return 1
}

# direct API STREAM MODEL [KEY]: the request kgb sends (the prompt `kgb show` prints, nothing
# else), sent by Python; prints the proxy's usage as "PROMPT COMPLETION", or "HTTP <status>".
# A stream's usage is that of its events, or of its body when the reply is one JSON object
# ("json PROMPT COMPLETION": no events).
direct() {
	"$KGB" --tasks "$TASKS" show --platform interpreter scale >"$TMP/prompt.txt" &&
		"$PY" - "$URL" "$TMP/prompt.txt" "$@" <<-'PY'
	import json, os, sys, urllib.error, urllib.request
	url, prompt, api, stream, model = sys.argv[1:6]
	key = sys.argv[6] if len(sys.argv) > 6 else os.environ["OPENAI_API_KEY"]
	body = {"model": model, "messages": [{"role": "user", "content": open(prompt).read()}]}
	if api == "openai":
	    path, headers = "/v1/chat/completions", {"Authorization": "Bearer " + key}
	    body["max_completion_tokens"] = 8192
	    if stream == "stream":
	        body["stream_options"] = {"include_usage": True}
	else:
	    path, headers = "/v1/messages", {"x-api-key": key, "anthropic-version": "2023-06-01"}
	    body["max_tokens"] = 8192
	if stream == "stream":
	    body["stream"] = True
	headers["Content-Type"] = "application/json"
	req = urllib.request.Request(url + path, json.dumps(body).encode(), headers)
	try:
	    data = urllib.request.urlopen(req, timeout=60).read().decode()
	except urllib.error.HTTPError as e:
	    print("HTTP", e.code)
	    sys.exit(0)
	def counts(u):
	    return (u.get("prompt_tokens", u.get("input_tokens")), u.get("completion_tokens", u.get("output_tokens")))
	if data.lstrip().startswith("{"):
	    p, c = counts(json.loads(data)["usage"])
	    print(("json " if stream == "stream" else "") + f"{p} {c}")
	    sys.exit(0)
	p = c = None
	for line in data.splitlines():
	    if not line.startswith("data:") or line[5:].strip() == "[DONE]":
	        continue
	    ev = json.loads(line[5:])
	    u = ev.get("usage") or (ev.get("message") or {}).get("usage")
	    if u:
	        q, d = counts(u)
	        p, c = q if q is not None else p, d if d is not None else c
	print(p, c)
	PY
}

# served STATUS: the requests the proxy logged with that status (uvicorn's access lines).
served() { grep -c "\"POST /v1/[a-z/]* HTTP/1.1\" $1 " "$P/log" || :; }

gen() { "$KGB" --tasks "$TASKS" generate --platform interpreter --task scale --backoff 0 "$@"; }
rows() { sqlite3 "$KGB_STORE" "$1"; }

# Started here, not in a case (a case is a subshell): the trap above must know its pid.
start=$SECONDS
start_proxy 2>"$TMP/start.err"
took=$((SECONDS - start))
test_expect_success "the litellm proxy ($(grep -o "^litellm.*" "$ROOT/tests/interop/requirements.txt")) starts on loopback in mock mode" '
	cat "$TMP/start.err" && test -n "$PROXY_PID" && echo "started in $took s"
'
[ -n "$PROXY_PID" ] || { test_done; exit 1; }

export KGB_STORE=$TMP/ok.db
test_expect_success 'OpenAI API, not streamed: the kernel passes, the proxy'"'"'s usage stored exactly' '
	want=$(direct openai plain mock-ok) && echo "proxy: $want" && test "${want#HTTP}" = "$want" &&
	gen --base-url "$URL/v1" --model mock-ok --out "$TMP/ok" --json >"$TMP/ok.out" &&
	test "$(rows "select outcome, prompt_tokens || \" \" || completion_tokens, http_attempts from generations")" = "pass|$want|1" &&
	test "$(json_eval "$TMP/ok.out" "\"%d %d\" % (recs[-1][\"prompt_tokens\"], recs[-1][\"completion_tokens\"])")" = "$want" &&
	test "$(json_eval "$TMP/ok.out" "recs[0][\"solved\"]")" = True &&
	! grep -rq "$KEY" "$KGB_STORE" "$TMP/ok.out" "$TMP/ok"
'

export KGB_STORE=$TMP/stream.db
test_expect_success 'OpenAI API, streamed: the kernel passes, the streamed usage counted exactly' '
	want=$(direct openai stream mock-ok) && echo "proxy: $want" &&
	test "${want#HTTP}" = "$want" && test "${want#json}" = "$want" && test "${want%% *}" -gt 0 &&
	gen --base-url "$URL/v1" --model mock-ok --stream --out "$TMP/stream" --json >"$TMP/stream.out" &&
	test "$(rows "select outcome, prompt_tokens || \" \" || completion_tokens, http_attempts from generations")" = "pass|$want|1" &&
	test "$(json_eval "$TMP/stream.out" "\"%d %d\" % (recs[-1][\"prompt_tokens\"], recs[-1][\"completion_tokens\"])")" = "$want"
'

export KGB_STORE=$TMP/prose.db
test_expect_success 'a reply of prose only: no_code, its reason and tokens stored' '
	want=$(direct openai plain mock-prose) && echo "proxy: $want" &&
	gen --base-url "$URL/v1" --model mock-prose --out "$TMP/prose" >/dev/null &&
	test "$(rows "select outcome, error, prompt_tokens || \" \" || completion_tokens from generations")" = \
		"no_code|the reply has no fenced Python code block|$want"
'

# no_reply MODEL STATUS ATTEMPTS [gen options]: the proxy answers STATUS to the direct request
# and to each of kgb's ATTEMPTS (its access log); kgb stores no_reply with the status, and a
# run where no request got a reply exits 4 saying why.
no_reply() {
	local model=$1 status=$2 attempts=$3 before rc
	shift 3
	test "$(direct openai plain "$model" "${KEY_SENT:-$KEY}")" = "HTTP $status" &&
		before=$(served "$status") &&
		rc=0 && { gen --base-url "$URL/v1" --model "$model" --retries 1 --out "$TMP/$model" "$@" \
			>/dev/null 2>"$TMP/$model.err" || rc=$?; } &&
		cat "$TMP/$model.err" && echo "exit status $rc" && test "$rc" = 4 &&
		grep -q "^kgb generate: no request got a reply (1 sent); the first error: POST $URL/v1/chat/completions: HTTP $status: " "$TMP/$model.err" &&
		rows "select outcome, http_attempts, error from generations" >"$TMP/$model.row" &&
		cat "$TMP/$model.row" &&
		grep -q "^no_reply|$attempts|POST $URL/v1/chat/completions: HTTP $status: " "$TMP/$model.row" &&
		if [ "$attempts" -gt 1 ]; then grep -q "(after $attempts attempts)$" "$TMP/$model.row"; fi &&
		for _ in $(seq 20); do
			[ "$(served "$status")" -eq $((before + attempts)) ] && break
			sleep 0.1
		done &&
		test "$(served "$status")" -eq $((before + attempts)) &&
		test "$(rows "select prompt_tokens + completion_tokens from generations")" = 0
}

export KGB_STORE=$TMP/429.db
test_expect_success 'HTTP 429 from the proxy: retried (--retries 1: two attempts), then no_reply' '
	no_reply mock-429 429 2
'
export KGB_STORE=$TMP/500.db
test_expect_success 'HTTP 500 from the proxy: retried, then no_reply' '
	no_reply mock-500 500 2
'
export KGB_STORE=$TMP/400.db
test_expect_success 'HTTP 400 from the proxy: not retried, no_reply' '
	no_reply mock-400 400 1
'
# The proxy refuses a key that is not its master key. Without a database (this one has none)
# litellm answers that with 400 "No connected db." rather than 401 (litellm/proxy/auth/
# user_api_key_auth.py): the status is the proxy's, asked directly; kgb must not retry it.
export KGB_STORE=$TMP/key.db
test_expect_success 'a wrong key: refused by the proxy with a 4xx, not retried, no_reply' '
	status=$(direct openai plain mock-ok "$WRONG_KEY") && echo "proxy: $status" &&
	status=${status#HTTP } && test "$status" -ge 400 && test "$status" -lt 500 && test "$status" != 429 &&
	KEY_SENT=$WRONG_KEY no_reply mock-ok "$status" 1 --key-env WRONG_KEY &&
	if [ "$status" = 400 ]; then grep -q "No connected db" "$TMP/mock-ok.row"; fi &&
	! grep -q "$WRONG_KEY" "$TMP/mock-ok.row"
'

export KGB_STORE=$TMP/an.db
test_expect_success 'Anthropic Messages API, not streamed: the kernel passes, usage stored exactly' '
	want=$(direct anthropic plain mock-ok) && echo "proxy: $want" && test "${want#HTTP}" = "$want" &&
	gen --api anthropic --base-url "$URL" --model mock-ok --out "$TMP/an" --json >"$TMP/an.out" &&
	test "$(rows "select outcome, prompt_tokens || \" \" || completion_tokens, http_attempts from generations")" = "pass|$want|1" &&
	test "$(json_eval "$TMP/an.out" "\"%d %d\" % (recs[-1][\"prompt_tokens\"], recs[-1][\"completion_tokens\"])")" = "$want" &&
	! grep -rq "$KEY" "$KGB_STORE" "$TMP/an.out" "$TMP/an"
'

# litellm answers a streamed Messages request with one JSON body: kgb says it was not
# server-sent events, does not retry (the same request would get the same answer) and keeps
# the body's tokens. Should a later litellm stream this API, the kernel must pass instead.
export KGB_STORE=$TMP/ans.db
test_expect_success 'Anthropic API, streamed, answered without events: a clear error, not retried, tokens kept' '
	want=$(direct anthropic stream mock-ok) && echo "proxy: $want" && test "${want#HTTP}" = "$want" &&
	rc=0 && { gen --api anthropic --base-url "$URL" --model mock-ok --stream --retries 2 --out "$TMP/ans" \
		--json >"$TMP/ans.out" 2>"$TMP/ans.err" || rc=$?; } &&
	cat "$TMP/ans.err" && echo "exit status $rc" &&
	rows "select outcome, http_attempts, prompt_tokens || \" \" || completion_tokens, error from generations" >"$TMP/ans.row" &&
	cat "$TMP/ans.row" &&
	if [ "${want#json }" != "$want" ]; then
		test "$rc" = 4 && grep -qi "no request got a reply.*server-sent" "$TMP/ans.err" &&
		grep -qi "^no_reply|1|${want#json }|POST $URL/v1/messages: .*server-sent" "$TMP/ans.row" &&
		test "$(json_eval "$TMP/ans.out" "\"%d %d\" % (recs[-1][\"prompt_tokens\"], recs[-1][\"completion_tokens\"])")" = "${want#json }"
	else
		test "$rc" = 0 && grep -q "^pass|1|$want|" "$TMP/ans.row"
	fi
'

test_done
