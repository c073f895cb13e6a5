#!/usr/bin/env bash
# Containment (issue 31; docs/security.md): what a candidate that got past the static scan tried
# and must not reach. Each property first on its own through `kgb sandbox-exec` and the
# stand-in interpreter's actions, each also with its facility left out (KGB_SANDBOX_SKIP) or
# without kgb, to show that the check can fail: the controlling terminal (setsid), the host's
# /dev (min_dev), memory that RLIMIT_AS does not see (memcg), the Triton cache's size
# (cache_cap), Unix sockets of the host (unix_sockets), files it has no business reading
# (hidden_paths), kgb's environment (clean_env). Then one eval run where each is a candidate
# next to an honest one, and candidates whose names and messages carry terminal escapes: no
# raw control character reaches the terminal, the JSON records, the CSV and JSON-lines exports
# or the HTML report, and CSV cells that a spreadsheet would run are neutralised.
. "$(dirname "$0")/lib.sh"

PY=$ROOT/.venv/bin/python
SFX=$ROOT/tests/cli/fixtures/sandbox
sx() { "$KGB" sandbox-exec "$@"; }

# in_pty CMD...: runs CMD with a new pseudo-terminal as its controlling terminal and stdio;
# prints what it wrote there, exits as it did.
in_pty() {
	"$PY" -c '
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
sys.exit(os.waitstatus_to_exitcode(st))' "$@"
}
# Opens /dev/tty and pushes a keystroke into it (TIOCSTI), then into its stdin's terminal.
tty_try='import fcntl, os, termios
r = []
try:
    fd = os.open("/dev/tty", os.O_RDWR)
    r.append("tty=open")
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b" ")
        r.append("sti=done")
    except OSError as e:
        r.append("sti=" + e.strerror)
except OSError as e:
    r.append("tty=" + e.strerror)
try:
    fcntl.ioctl(0, termios.TIOCSTI, b" ")
    r.append("stdin_sti=done")
except OSError as e:
    r.append("stdin_sti=" + e.strerror)
print(" ".join(r))'

test_expect_success 'terminal: no controlling terminal, no /dev/tty, no TIOCSTI' '
	in_pty "$PY" -c "$tty_try" >"$TMP/o" && cat "$TMP/o" &&
	if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 1 ]; then
		grep -q "tty=open sti=done stdin_sti=done$" "$TMP/o"
	else
		grep -q "tty=open " "$TMP/o"
	fi &&
	in_pty "$KGB" sandbox-exec -- "$PY" -c "$tty_try" >"$TMP/o" && cat "$TMP/o" &&
	grep -q "^tty=No such file or directory stdin_sti=Operation not permitted$" "$TMP/o" &&
	in_pty env KGB_SANDBOX_SKIP=min_dev "$KGB" sandbox-exec -- "$PY" -c "$tty_try" >"$TMP/o" &&
	grep -q "^tty=No such device or address stdin_sti=Operation not permitted$" "$TMP/o" &&
	# Off: still a session of its own (only a root worker with every capability pushes
	# keystrokes into a terminal that is not its own; echoed, they start the line).
	in_pty "$KGB" sandbox-exec --sandbox=off -- "$PY" -c "$tty_try" >"$TMP/o" &&
	grep -q "tty=No such device or address " "$TMP/o"
'

test_expect_success 'min_dev: /dev has the few nodes a worker needs, and works' '
	sx --report "$TMP/rep.json" -- ls -A /dev >"$TMP/o" &&
	test "$(tr "\n" " " <"$TMP/o")" = "fd full null random shm stderr stdin stdout urandom zero " &&
	test "$(json_eval "$TMP/rep.json" "recs[0][\"min_dev\"]")" = applied &&
	sx -- sh -c "head -c 16 /dev/urandom | wc -c; echo x >/dev/null; head -c 3 /dev/zero | wc -c;
		! echo x 2>/dev/null >/dev/full; test -e /dev/fd/1; echo y >/dev/shm/f; cat /dev/shm/f;
		! touch /dev/new 2>/dev/null" >"$TMP/o" &&
	test "$(tr "\n" " " <"$TMP/o")" = "16 3 y " &&
	# The list is data: KGB_SANDBOX_DEV adds to it.
	KGB_SANDBOX_DEV=loop-control sx -- ls /dev/loop-control
'
test_expect_success 'min_dev: the host kernel log and loop devices are out of reach' '
	expect_fail sx -- sh -c "test -e /dev/kmsg || test -e /dev/loop0 || : >>/dev/kmsg" &&
	expect_fail sx -- "$PY" -c "import os; os.open(\"/dev/kmsg\", os.O_WRONLY)" 2>"$TMP/e" &&
	grep -q "No such file" "$TMP/e" &&
	# Without it, both open for writing (nothing is written).
	KGB_SANDBOX_SKIP=min_dev sx -- sh -c ": >>/dev/kmsg" &&
	if [ -e /dev/loop0 ]; then KGB_SANDBOX_SKIP=min_dev sx -- sh -c ": >>/dev/loop0"; fi
'

memfd_cmd='import os, sys
chunk = b"x" * (64 << 20)
for i in range(16):
    if i % 4 == 0:  # RLIMIT_FSIZE bounds each file
        fd = os.memfd_create("kgb-t0161")
    os.write(fd, chunk)
print("wrote", (i + 1) * 64, "MiB")'
test_expect_success 'memcg: memfd pages past RLIMIT_AS are stopped by the memory cgroup' '
	sx --memory 512 --report "$TMP/rep.json" -- true &&
	if ! json_eval "$TMP/rep.json" "recs[0][\"memcg\"]" | grep -q "^applied"; then
		say "skipped: no memory cgroup here"; exit 0
	fi &&
	expect_status 137 sx --memory 512 -- "$PY" -c "$memfd_cmd" >"$TMP/o" 2>"$TMP/e" &&
	cat "$TMP/e" &&
	grep -q "killed by signal 9 (SIGKILL): memory cgroup limit 512 MiB" "$TMP/e" &&
	! grep -q wrote "$TMP/o" &&
	KGB_SANDBOX_SKIP=memcg sx --memory 512 -- "$PY" -c "$memfd_cmd" >"$TMP/o" &&
	grep -q "wrote 1024 MiB" "$TMP/o"
'
test_expect_success 'memcg: so are tmpfs pages (the scratch directory)' '
	if ! json_eval "$TMP/rep.json" "recs[0][\"memcg\"]" | grep -q "^applied"; then
		say "skipped: no memory cgroup here"; exit 0
	fi &&
	expect_status 137 sx --memory 256 -- dd if=/dev/zero of=big bs=1M count=512 \
		2>"$TMP/e" &&
	grep -q "memory cgroup limit 256 MiB" "$TMP/e" &&
	KGB_SANDBOX_SKIP=memcg sx --memory 256 -- dd if=/dev/zero of=big bs=1M count=512
'

test_expect_success 'memcg: none to be made: said on stderr, recorded, the worker runs' '
	if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
		say "skipped: needs root and unshare(1)"; exit 0
	fi
	# Every cgroup file system read-only, in a mount namespace of its own.
	unshare -m --propagation private sh -c '"'"'
		for m in $(awk "\$3 ~ /^cgroup2?\$/ { print \$2 }" /proc/self/mounts); do
			mount -o remount,bind,ro "$m" || exit 9
		done
		exec "$@"'"'"' sh "$KGB" sandbox-exec --memory 512 --report "$TMP/nomemcg.json" -- true \
		2>"$TMP/e" &&
	cat "$TMP/e" &&
	grep -q "^kgb: sandbox: memcg unavailable: cannot create a memory cgroup in .*: Read-only file system; continuing without it$" "$TMP/e" &&
	json_eval "$TMP/nomemcg.json" "recs[0][\"memcg\"]" | grep -q "^unavailable: cannot create a memory cgroup"
'

test_expect_success 'cache_cap: a Triton cache over its cap kills the worker (exit 125)' '
	start=$(date +%s) &&
	expect_status 125 sx --cache-size 16 -- sh -c \
		"dd if=/dev/zero of=\"\$TRITON_CACHE_DIR/big\" bs=1M count=64 2>/dev/null; sleep 20" \
		2>"$TMP/e" &&
	cat "$TMP/e" && test $(($(date +%s) - start)) -lt 15 &&
	grep -q "Triton cache over its cap: more than 16 MiB" "$TMP/e" &&
	# Written just before it ends: found at the end.
	expect_status 125 sx --cache-size 16 -- dd if=/dev/zero of=../triton-exec/big bs=1M \
		count=32 2>"$TMP/e" &&
	grep -q "Triton cache over its cap" "$TMP/e" &&
	# Many small files count too (a block and an inode each, at least).
	expect_status 125 sx --cache-size 1 -- sh -c \
		"cd \"\$TRITON_CACHE_DIR\" && i=0; while [ \$i -lt 600 ]; do : >f\$i; i=\$((i+1)); done" &&
	sx --cache-size 16 -- dd if=/dev/zero of=../triton-exec/ok bs=1M count=8 2>/dev/null &&
	KGB_SANDBOX_SKIP=cache_cap sx --cache-size 16 -- dd if=/dev/zero of=../triton-exec/big \
		bs=1M count=32 2>/dev/null
'

# A Unix socket listener of the host, by path and by abstract name, counting connections.
"$PY" -c '
import os, socket, sys, threading
n = 0
def serve(s):
    global n
    while True:
        c, _ = s.accept()
        n += 1
        with open(sys.argv[2] + ".tmp", "w") as f:
            f.write(str(n))
        os.rename(sys.argv[2] + ".tmp", sys.argv[2])
        c.close()
for addr in (sys.argv[1], "\0" + sys.argv[3]):
    s = socket.socket(socket.AF_UNIX)
    s.bind(addr)
    s.listen(8)
    threading.Thread(target=serve, args=(s,), daemon=True).start()
open(sys.argv[2], "w").write("0")
threading.Event().wait()
' "$TMP/host.sock" "$TMP/unix-accepted" "kgb-t0161-$$" &
listener=$!
for _ in $(seq 1 100); do [ -S "$TMP/host.sock" ] && [ -s "$TMP/unix-accepted" ] && break; sleep 0.1; done
uaccepted() { cat "$TMP/unix-accepted"; }
unix_cmd='import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1].replace("@", "\0"))
    print("connected")
except OSError as e:
    print("refused:", e.strerror)'
test_expect_success 'unix_sockets: no connection to a host Unix socket' '
	test "$(uaccepted)" = 0 &&
	# Its path visible to the worker: the filter alone stops it.
	KGB_SANDBOX_VISIBLE=$TMP sx -- "$PY" -c "$unix_cmd" "$TMP/host.sock" >"$TMP/o" &&
	test "$(cat "$TMP/o")" = "refused: No such file or directory" && test "$(uaccepted)" = 0 &&
	# Hidden as well, by default (below /tmp).
	sx -- "$PY" -c "$unix_cmd" "$TMP/host.sock" >"$TMP/o" &&
	test "$(cat "$TMP/o")" = "refused: No such file or directory" && test "$(uaccepted)" = 0 &&
	# The abstract name too (the host'"'"'s netns is not the worker'"'"'s in any case).
	KGB_SANDBOX_SKIP=netns sx -- "$PY" -c "$unix_cmd" "@kgb-t0161-$$" >"$TMP/o" &&
	test "$(cat "$TMP/o")" = "refused: No such file or directory" && test "$(uaccepted)" = 0 &&
	KGB_SANDBOX_SKIP=unix_sockets sx -- "$PY" -c "$unix_cmd" "$TMP/host.sock" >"$TMP/o" &&
	test "$(cat "$TMP/o")" = "refused: No such file or directory" && test "$(uaccepted)" = 0 &&
	KGB_SANDBOX_VISIBLE=$TMP KGB_SANDBOX_SKIP=unix_sockets \
		sx -- "$PY" -c "$unix_cmd" "$TMP/host.sock" >"$TMP/o" &&
	test "$(cat "$TMP/o")" = connected && test "$(uaccepted)" = 1
'
test_expect_success 'unix_sockets: abstract names are the network namespace'"'"'s; no datagrams' '
	KGB_SANDBOX_SKIP=unix_sockets sx -- "$PY" -c "$unix_cmd" "@kgb-t0161-$$" >"$TMP/o" &&
	test "$(cat "$TMP/o")" = "refused: Connection refused" && test "$(uaccepted)" = 1 &&
	sx --sandbox=off -- "$PY" -c "$unix_cmd" "@kgb-t0161-$$" >"$TMP/o" &&
	test "$(cat "$TMP/o")" = connected && test "$(uaccepted)" = 2 &&
	sx -- "$PY" -c "
import socket
a, b = socket.socketpair()
a.send(b\"x\"); assert b.recv(1) == b\"x\"
for t in (socket.SOCK_DGRAM, socket.SOCK_RAW):
    try:
        socket.socket(socket.AF_UNIX, t)
        print(\"made\", t)
    except OSError as e:
        print(e.strerror)" >"$TMP/o" &&
	test "$(cat "$TMP/o" | tr "\n" " ")" = "Operation not permitted Operation not permitted " &&
	# Listeners of its own (CUDA binds an abstract name): bound, and unreachable, even from
	# the worker itself.
	sx -- "$PY" -c "
import socket
for a in (\"\\0kgb-t0161-own\", \"own.sock\"):
    s = socket.socket(socket.AF_UNIX)
    s.bind(a)
    s.listen(1)
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(a)
        print(\"connected\")
    except OSError as e:
        print(\"bound, connect:\", e.strerror)" >"$TMP/o" &&
	test "$(cat "$TMP/o" | tr "\n" " ")" = \
		"bound, connect: No such file or directory bound, connect: No such file or directory " &&
	KGB_SANDBOX_SKIP=unix_sockets sx -- "$PY" -c "
import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)"
'
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null

test_expect_success 'hidden_paths: password hashes, homes, /tmp; Python stays visible' '
	sx --report "$TMP/rep.json" -- sh -c "cat /etc/shadow" >"$TMP/o" 2>"$TMP/e" ||
		true &&
	test "$(json_eval "$TMP/rep.json" "recs[0][\"hidden_paths\"]")" = applied &&
	! grep -q "^root:" "$TMP/o" &&
	KGB_SANDBOX_SKIP=hidden_paths sx -- cat /etc/shadow >"$TMP/o" && grep -q "^root:" "$TMP/o" &&
	sx -- ls -A /home >"$TMP/o" && test ! -s "$TMP/o" &&
	if [ -n "$(ls -A /home)" ]; then
		KGB_SANDBOX_SKIP=hidden_paths sx -- ls -A /home >"$TMP/o" && test -s "$TMP/o"
	fi &&
	# /tmp: nothing but the way to the worker'"'"'s own scratch.
	mkdir -p "$TMP/mine" && echo secret >"$TMP/mine/f" &&
	expect_fail sx -- cat "$TMP/mine/f" &&
	sx -- ls -A /tmp >"$TMP/o" && grep -Eq "^kgb-[0-9]+$" "$TMP/o" && test "$(wc -l <"$TMP/o")" = 1 &&
	KGB_SANDBOX_SKIP=hidden_paths sx -- cat "$TMP/mine/f" &&
	# The Python the workers run is found, wherever it lives (here: below /root).
	sx -- "$PY" -c "import torch, triton" &&
	# /root shows only the way to it.
	if [ -r /root ] && [ -n "$(ls -A /root)" ]; then
		sx -- ls -A /root >"$TMP/o" &&
		test "$(wc -l <"$TMP/o")" -lt "$(ls -A /root | wc -l)"
	fi
'
test_expect_success 'hidden_paths: the lists are data (KGB_SANDBOX_HIDE, KGB_SANDBOX_VISIBLE)' '
	mkdir -p "$TMP/pub/sub" && echo a >"$TMP/pub/a" && echo b >"$TMP/pub/sub/b" &&
	KGB_SANDBOX_VISIBLE=$TMP/pub sx -- cat "$TMP/pub/a" >"$TMP/o" && test "$(cat "$TMP/o")" = a &&
	KGB_SANDBOX_VISIBLE=$TMP/pub KGB_SANDBOX_HIDE=$TMP/pub/sub \
		sx -- sh -c "cat \"$TMP/pub/a\"; ls -A \"$TMP/pub/sub\"; ! echo x 2>/dev/null >\"$TMP/pub/c\"" \
		>"$TMP/o" &&
	test "$(cat "$TMP/o")" = a &&
	# A hidden file reads as nothing.
	KGB_SANDBOX_VISIBLE=$TMP/pub KGB_SANDBOX_HIDE=$TMP/pub/a \
		sx -- sh -c "cat \"$TMP/pub/a\" 2>/dev/null; cat \"$TMP/pub/sub/b\"" >"$TMP/o" &&
	test "$(cat "$TMP/o")" = b
'

test_expect_success 'clean_env: only what Python, Triton and CUDA read; HOME is the scratch' '
	KGB_T0161_TOKEN=sk-secret OPENAI_API_KEY=sk-secret2 sx --report "$TMP/rep.json" -- env \
		>"$TMP/o" &&
	test "$(json_eval "$TMP/rep.json" "recs[0][\"clean_env\"]")" = applied &&
	! grep -q sk-secret "$TMP/o" && grep -q "^PATH=" "$TMP/o" && grep -q "^TRITON_CACHE_DIR=" "$TMP/o" &&
	! grep -q "^KGB_STORE=" "$TMP/o" &&
	sx -- sh -c "test \"\$HOME\" = \"\$PWD\" && test \"\$TMPDIR\" = \"\$PWD\" && echo ok" >"$TMP/o" &&
	test "$(cat "$TMP/o")" = ok &&
	KGB_T0161_TOKEN=sk-secret KGB_SANDBOX_SKIP=clean_env sx -- env >"$TMP/o" &&
	grep -q "^KGB_T0161_TOKEN=sk-secret$" "$TMP/o" && grep -q "^KGB_STORE=" "$TMP/o" &&
	KGB_T0161_TOKEN=sk-secret KGB_SANDBOX_ENV="KGB_T0161_*" sx -- env >"$TMP/o" &&
	grep -q "^KGB_T0161_TOKEN=sk-secret$" "$TMP/o"
'

# The eval run. Candidates in $TMP/cands/scale: the honest one, one per attempt above (done by
# the stand-in interpreter), and real candidates whose names and messages carry escapes.
C=$TMP/cands/scale
mkdir -p "$C" "$TMP/skipcands/scale"
# A catalog of its own, with a file beside the task (what other tasks' held-out shapes and
# shipped solutions are to a worker): below /tmp, so hidden but for the job's task directory.
mkdir -p "$TMP/cat" && cp -r "$FIXTURES/tasks/aten" "$TMP/cat/" && echo notes >"$TMP/cat/aten/notes"
cp "$SFX/candidates/scale/good.py" "$C/good.py"
for a in memfd_hog fill_cache read_secrets stderr_escape; do
	printf '# fake-worker: %s\nimport torch\n\n\ndef scale(self: torch.Tensor) -> torch.Tensor:\n    return self * 2\n' \
		"$a" >"$C/$a.py"
done
cp "$C/memfd_hog.py" "$C/fill_cache.py" "$C/read_secrets.py" "$TMP/skipcands/scale/"
esc_name=$(printf 'esc\033[31m\302\233red')
raiser='import torch


def scale(self: torch.Tensor) -> torch.Tensor:
    raise RuntimeError("boom \x1b]0;pwned\x07\x1b[2J\u009b31m\u202e end")
'
# Different bytes: the same ones twice are evaluated once.
printf '# one\n%s' "$raiser" >"$C/$esc_name.py"
printf '# two\n%s' "$raiser" >"$C/=HYPERLINK(1).py"
export KGB_T0160_PYTHON=$PY KGB_T0161_STORE=$KGB_STORE KGB_T0161_TOKEN=sk-t0161-token
# Where the stand-in runner looks for the task (kgb never tells a runner).
export KGB_T0161_CATALOG=$TMP/cat
export KGB_SANDBOX_ENV='KGB_T0160_*,KGB_T0161_STORE,KGB_T0161_CATALOG'
# The store's directory ($TMP) visible, so that the store itself must be hidden.
export KGB_SANDBOX_VISIBLE=$TMP/pub

run_eval() {
	local cands=$1
	shift
	TMPDIR="$TMP/scratch" "$KGB" -v --tasks "$TMP/cat" eval --platform interpreter -j 2 \
		--timeout 60 --python "$SFX/fake-python" --solutions "$cands" "$@"
}
verdict() { json_eval "$1" "[r[\"verdict\"] for r in recs if r.get(\"sample\") == \"$2\"][0]"; }
detail() { json_eval "$1" "[r[\"detail\"] for r in recs if r.get(\"sample\") == \"$2\"][0]"; }
mkdir -p "$TMP/scratch"

test_expect_success 'the eval run completes; the honest candidate passes' '
	KGB_T0160_HOG_MIB=3072 run_eval "$TMP/cands" --memory-limit 2048 --cache-limit 64 \
		>"$TMP/table" 2>"$TMP/progress" || { cat "$TMP/progress"; false; } &&
	"$KGB" report --json >"$TMP/r" &&
	cat "$TMP/table" &&
	test "$(verdict "$TMP/r" good)" = pass &&
	test "$(json_eval "$TMP/r" "sorted(k for k, v in recs[-1][\"sandbox\"].items() if k != \"mode\" and not v.startswith(\"applied\"))")" = "[]"
'
test_expect_success 'memory in a memfd: crash at the memory cgroup limit' '
	test "$(verdict "$TMP/r" memfd_hog)" = crash &&
	detail "$TMP/r" memfd_hog | grep -q "memory cgroup limit 2048 MiB"
'
test_expect_success 'filling the Triton cache: crash at its cap, the cache removed' '
	test "$(verdict "$TMP/r" fill_cache)" = crash &&
	detail "$TMP/r" fill_cache | grep -q "Triton cache over its cap of 64 MiB" &&
	test -z "$(find "$TMP/scratch" -name "fill*" 2>/dev/null)"
'
test_expect_success 'reading secrets: shadow, the store, the other candidates, the catalog, the environment' '
	detail "$TMP/r" read_secrets >"$TMP/d" && cat "$TMP/d" &&
	grep -q "secrets: shadow=denied store=denied own=read home=\[\] siblings=\[read_secrets.py\] token=unset catalog=\[\] reference=denied$" "$TMP/d"
'
test_expect_success 'the facilities left out, the same attempts succeed' '
	KGB_SANDBOX_SKIP=memcg,cache_cap,hidden_paths,clean_env KGB_SANDBOX_ENV="KGB_T0160_*,KGB_T0161_*" \
		KGB_T0160_HOG_MIB=2560 KGB_T0160_FILL_FILES=8 KGB_STORE=$TMP/skip.db KGB_T0161_STORE=$TMP/skip.db \
		run_eval "$TMP/skipcands" --memory-limit 2048 --cache-limit 64 --json >"$TMP/s" 2>"$TMP/s.err" ||
		{ cat "$TMP/s.err"; false; } &&
	detail "$TMP/s" memfd_hog | grep -q "memfd hog: wrote 2560 MiB" &&
	detail "$TMP/s" fill_cache | grep -q "fill cache: 8 files of 16 MiB written" &&
	detail "$TMP/s" read_secrets >"$TMP/d" && cat "$TMP/d" &&
	grep -q "secrets: shadow=read store=read own=read home=\[.*\] siblings=\[fill_cache.py memfd_hog.py read_secrets.py\] token=sk-t0161-token catalog=\[notes scale\] reference=read$" "$TMP/d"
'

# No byte that a terminal, a browser or a spreadsheet acts on: C0 controls but TAB, LF and CR,
# DEL, C1 controls, bidi overrides, and bytes that are not UTF-8.
no_raw_controls() {
	"$PY" - "$@" <<-'PY'
	import re, sys
	bad = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")
	ok = True
	for path in sys.argv[1:]:
	    try:
	        text = open(path, "rb").read().decode("utf-8")
	    except UnicodeDecodeError as e:
	        print(path, "not UTF-8:", e); ok = False; continue
	    for m in bad.finditer(text):
	        print(path, "raw", repr(m.group()), "at", m.start()); ok = False; break
	sys.exit(0 if ok else 1)
	PY
}
test_expect_success 'escapes: the worker'"'"'s messages reached kgb raw (the check can fail)' '
	test "$(verdict "$TMP/r" stderr_escape)" = crash &&
	test "$(sqlite3 "$KGB_STORE" "select count(*) from run_evals where sample like '"'"'esc%'"'"'")" = 1 &&
	sqlite3 "$KGB_STORE" "select detail from evaluations where detail like '"'"'%boom%'"'"'" >"$TMP/raw" &&
	! no_raw_controls "$TMP/raw" &&
	test "$(ls "$C" | grep -c "$(printf "\033")")" = 1 && ! no_raw_controls <(ls "$C")
'
test_expect_success 'escapes: none on the terminal (table, progress), in eval --json or report' '
	no_raw_controls "$TMP/table" "$TMP/progress" "$TMP/r" &&
	grep -q "esc\\\\x1b\[31m\\\\u009bred" "$TMP/table" &&
	grep -q "esc\\\\x1b\[31m\\\\u009bred" "$TMP/progress" &&
	detail "$TMP/r" "=HYPERLINK(1)" | grep -Fq "boom \x1b]0;pwned\x07\x1b[2J\u009b31m\u202e end" &&
	detail "$TMP/r" stderr_escape | grep -Fq "boom \x1b]0;pwned\x07 \x1b[2J \u009b31m \u202e \xff end"
'
test_expect_success 'escapes: none in the CSV and JSON-lines exports or the HTML report' '
	"$KGB" export --format csv >"$TMP/x.csv" && "$KGB" export --format csv --cases >"$TMP/c.csv" &&
	"$KGB" export --format jsonl >"$TMP/x.jsonl" && "$KGB" report -o "$TMP/r.html" &&
	no_raw_controls "$TMP/x.csv" "$TMP/c.csv" "$TMP/x.jsonl" "$TMP/r.html" &&
	"$PY" - "$TMP/x.csv" <<-'PY'
	import csv, sys
	rows = list(csv.DictReader(open(sys.argv[1], newline="")))
	samples = sorted(r["sample"] for r in rows)
	# OWASP: a cell that a spreadsheet would evaluate starts with a quote.
	assert "\x27=HYPERLINK(1)" in samples, samples
	assert not any(r[k][:1] in ("=", "+", "-", "@") for r in rows for k in r), rows
	PY
'
test_expect_success 'no process, mount or cgroup left behind' '
	! pgrep -f kgb-t0161 &&
	! grep -F "$TMP" /proc/self/mountinfo &&
	test -z "$(dead_cgroups)"
'
test_done
