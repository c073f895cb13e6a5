# serve-lib.sh - helpers of the `kgb serve` tests (sourced after lib.sh).
#
# serve_start [ARGS...]: starts `kgb serve` on a free loopback port with the fixture catalog
# and the interpreter, in the background; once it listens, its pid is in $TMP/serve.pid and
# its URL in $TMP/serve.url (files: test cases run in subshells). serve_pid prints the pid.
# http METHOD PATH [BODY_FILE] [TOKEN]: one request; the status goes to $TMP/status, the body
# to $TMP/body, the headers to $TMP/headers; returns 0 whatever the status.

PY=$ROOT/.venv/bin/python

serve_start() {
	: >"$TMP/serve.log"
	"$KGB" --tasks "$FIXTURES/tasks" serve --listen 127.0.0.1:0 --platform interpreter \
		--store "$TMP/serve.db" --timeout 30 -j 2 "$@" 2>>"$TMP/serve.log" &
	echo $! >"$TMP/serve.pid"
	for _ in $(seq 1 100); do
		sed -n 's/^kgb serve: listening on \(http:[^ ]*\) .*/\1/p' "$TMP/serve.log" \
			>"$TMP/serve.url"
		[ -s "$TMP/serve.url" ] && return 0
		kill -0 "$(serve_pid)" 2>/dev/null || break
		sleep 0.1
	done
	cat "$TMP/serve.log" >&2
	return 1
}

serve_pid() { cat "$TMP/serve.pid"; }

# serve_kill SIGNAL: signals the server and waits (up to 60 s) until it is gone.
serve_kill() {
	local pid
	pid=$(serve_pid)
	kill "-$1" "$pid" || return 1
	for _ in $(seq 1 600); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

http() {
	"$PY" - "$(cat "$TMP/serve.url")" "$@" <<-'EOF'
	import sys, urllib.request, urllib.error
	url, method, path = sys.argv[1], sys.argv[2], sys.argv[3]
	body = open(sys.argv[4], "rb").read() if len(sys.argv) > 4 and sys.argv[4] else None
	req = urllib.request.Request(url + path, data=body, method=method)
	if len(sys.argv) > 5 and sys.argv[5]:
	    req.add_header("Authorization", "Bearer " + sys.argv[5])
	if body is not None:
	    req.add_header("Content-Type", "application/json")
	tmp = __import__("os").environ["TMP"]
	try:
	    with urllib.request.urlopen(req, timeout=120) as r:
	        status, data, headers = r.status, r.read(), r.headers
	except urllib.error.HTTPError as e:
	    status, data, headers = e.code, e.read(), e.headers
	open(tmp + "/status", "w").write(str(status))
	open(tmp + "/body", "wb").write(data)
	open(tmp + "/headers", "w").write(str(headers))
	EOF
}

# body_get EXPR: a Python expression over the last response's JSON body, bound to `b`.
body_get() {
	"$PY" -c 'import json, sys; b = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
		"$TMP/body" "$1"
}

# submission FILE TASK CODE_FILE [EXTRA_JSON_FIELDS]: writes a submission body to FILE.
submission() {
	"$PY" -c 'import json, sys
d = {"task": sys.argv[2], "code": open(sys.argv[3]).read()}
d.update(json.loads(sys.argv[4]) if len(sys.argv) > 4 else {})
open(sys.argv[1], "w").write(json.dumps(d))' "$@"
}

export TMP
