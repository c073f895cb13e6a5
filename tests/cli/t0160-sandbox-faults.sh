#!/usr/bin/env bash
# The worker sandbox (docs/security.md). First each property on its own, through
# `kgb sandbox-exec`, which runs a small command exactly as a worker runs (the static scan would
# stop a candidate that tried these before it ran); most checks also run the same command with
# --sandbox=off, to show that the check can fail. Then one eval run where every misbehaviour is
# a candidate next to an honest one: each gets its precise verdict, the honest one passes, and
# the machine is left clean (no process, file, scratch directory, cgroup or mount behind).
. "$(dirname "$0")/lib.sh"

PY=$ROOT/.venv/bin/python
SFX=$ROOT/tests/cli/fixtures/sandbox
sx() { "$KGB" sandbox-exec "$@"; }

# A TCP listener on 127.0.0.1 that counts the connections it accepts.
"$PY" -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
n = 0
while True:
    c, _ = s.accept()
    n += 1
    with open(sys.argv[2], "w") as f:
        f.write(str(n))
    c.close()
' "$TMP/port" "$TMP/accepted" &
listener=$!
for _ in $(seq 1 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
PORT=$(cat "$TMP/port")
accepted() { cat "$TMP/accepted" 2>/dev/null || echo 0; }
connect_cmd="import socket, sys
try:
    socket.create_connection(('127.0.0.1', $PORT), timeout=5)
except OSError as e:
    print('refused:', e)
    sys.exit(4)
print('connected')"

test_expect_success 'every facility applies on this machine' '
	sx --report "$TMP/rep.json" -- true &&
	cat "$TMP/rep.json" &&
	test "$(json_eval "$TMP/rep.json" "sorted(k for k, v in recs[0].items() if k != \"mode\" and not v.startswith(\"applied\"))")" = "[]" &&
	test "$(json_eval "$TMP/rep.json" "recs[0][\"mode\"]")" = auto
'
test_expect_success 'strict mode runs here; off says so on stderr' '
	sx --sandbox=strict -- true &&
	sx --sandbox=off --report "$TMP/off.json" -- true 2>"$TMP/e" &&
	grep -q "kgb: sandbox: off" "$TMP/e" &&
	test "$(json_eval "$TMP/off.json" "recs[0][\"seccomp\"] + \" \" + recs[0][\"userns\"]")" = "off off"
'
test_expect_success 'KGB_SANDBOX_SKIP leaves out what it names, records it, refuses unknown names' '
	sx -- grep "^Seccomp:" /proc/self/status >"$TMP/o" && grep -q "2$" "$TMP/o" &&
	KGB_SANDBOX_SKIP=seccomp,unix_sockets,readonly_fs,hidden_paths sx --report "$TMP/skip.json" -- sh -c \
		"grep ^Seccomp: /proc/self/status; touch $TMP/skipw && echo wrote" >"$TMP/o" &&
	grep -q "0$" "$TMP/o" && grep -q wrote "$TMP/o" && test -e "$TMP/skipw" &&
	! sx -- touch "$TMP/skipw2" 2>/dev/null && test ! -e "$TMP/skipw2" &&
	test "$(json_eval "$TMP/skip.json" "recs[0][\"seccomp\"]")" = "not enforced: skipped on request (KGB_SANDBOX_SKIP)" &&
	test "$(json_eval "$TMP/skip.json" "recs[0][\"userns\"]")" = applied &&
	expect_status 4 env KGB_SANDBOX_SKIP=seccomp,bogus "$KGB" sandbox-exec -- true 2>"$TMP/e" &&
	grep -q "unknown sandbox facility .bogus." "$TMP/e"
'
test_expect_success 'network: a TCP connection to 127.0.0.1 fails inside, works outside' '
	test "$(accepted)" = 0 &&
	expect_status 4 sx -- "$PY" -c "$connect_cmd" >"$TMP/o" &&
	grep -q "Operation not permitted" "$TMP/o" &&
	test "$(accepted)" = 0 &&
	sx --sandbox=off -- "$PY" -c "$connect_cmd" >"$TMP/o" &&
	grep -q connected "$TMP/o" &&
	test "$(accepted)" = 1
'
test_expect_success 'network: no interface but the loopback; no netlink socket' '
	sx -- cat /proc/net/dev >"$TMP/o" &&
	test "$(tail -n +3 "$TMP/o" | wc -l)" = 1 && grep -q "^ *lo:" "$TMP/o" &&
	expect_status 4 sx -- "$PY" -c "
import socket, sys
try:
    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)
except OSError as e:
    print(e); sys.exit(4)" >"$TMP/o" &&
	grep -q "Operation not permitted" "$TMP/o"
'
# (t0161-contain.sh tests the hidden paths: $TMP is below /tmp, which workers do not see.)
test_expect_success 'writes outside the scratch directory and the Triton cache fail' '
	mkdir -p "$TMP/outside" &&
	expect_fail sx -- sh -c "echo x >\"$TMP/outside/f\"" 2>"$TMP/e" &&
	KGB_SANDBOX_SKIP=hidden_paths expect_fail sx -- sh -c "echo x >\"$TMP/outside/f\"" \
		2>"$TMP/e" &&
	grep -q "Read-only file system" "$TMP/e" &&
	expect_fail sx -- sh -c "echo x >\"$HOME/.kgb-t0160-pwned\"" &&
	expect_fail sx -- sh -c "echo x >/tmp/kgb-t0160-pwned" &&
	test ! -e "$TMP/outside/f" && test ! -e "$HOME/.kgb-t0160-pwned" &&
	test ! -e /tmp/kgb-t0160-pwned &&
	sx -- sh -c "echo x >in-scratch && echo y >\"\$TRITON_CACHE_DIR/in-cache\" && echo z >\"\$TMPDIR/tmp\"" &&
	sx --sandbox=off -- sh -c "echo x >\"$TMP/outside/f\"" && test -e "$TMP/outside/f"
'
test_expect_success 'another slot'"'"'s scratch and another candidate'"'"'s cache are hidden' '
	mkdir -p "$TMP/sr/slot1-7" "$TMP/sr/triton-other" &&
	echo secret >"$TMP/sr/slot1-7/secret" && echo secret >"$TMP/sr/triton-other/secret" &&
	expect_fail sx --scratch-root "$TMP/sr" -- cat "$TMP/sr/slot1-7/secret" &&
	expect_fail sx --scratch-root "$TMP/sr" -- cat "$TMP/sr/triton-other/secret" &&
	sx --scratch-root "$TMP/sr" -- ls -A "$TMP/sr" >"$TMP/o" &&
	test "$(tr "\n" " " <"$TMP/o")" = "slot0-exec triton-exec " &&
	sx --sandbox=off --scratch-root "$TMP/sr" -- cat "$TMP/sr/slot1-7/secret" >"$TMP/o" &&
	grep -q secret "$TMP/o" &&
	test "$(ls -A "$TMP/sr" | tr "\n" " ")" = "slot1-7 triton-other "
'
test_expect_success 'the scratch directory is a tmpfs of its size: filling it stops there' '
	mkdir -p "$TMP/sr2" &&
	sx --scratch-root "$TMP/sr2" --scratch-size 32 -- sh -c "
		i=0
		while [ \$i -lt 16 ] && err=\$(dd if=/dev/zero of=f\$i bs=1M count=8 2>&1); do i=\$((i+1)); done
		echo \"files=\$i \$err\"" >"$TMP/o" &&
	cat "$TMP/o" &&
	grep -q "files=[1-4] .*No space left on device" "$TMP/o" &&
	test -z "$(ls -A "$TMP/sr2")"
'
test_expect_success 'a file over the size limit: SIGXFSZ, named' '
	expect_status 153 sx --file-size 1 -- dd if=/dev/zero of=big bs=1M count=2 2>"$TMP/e" &&
	grep -q "killed by signal 25 (SIGXFSZ): file size limit 1 MiB" "$TMP/e"
'
test_expect_success 'CPU time over the limit: SIGXCPU, named' '
	expect_status 152 sx --cpu 1 -- "$PY" -c "while True: pass" 2>"$TMP/e" &&
	grep -q "killed by signal 24 (SIGXCPU): CPU time limit 1 s" "$TMP/e"
'
test_expect_success 'CPU time with SIGXCPU ignored: SIGKILL at the hard limit, named' '
	expect_status 137 sx --cpu 1 -- "$PY" -c "
import signal
signal.signal(signal.SIGXCPU, signal.SIG_IGN)
while True: pass" 2>"$TMP/e" &&
	grep -q "killed by signal 9 (SIGKILL): CPU time limit 1 s (hard limit, [6-9] s used)" "$TMP/e"
'
test_expect_success 'memory over the limit: MemoryError inside, none outside' '
	expect_status 1 sx --memory 512 -- "$PY" -c "x = bytearray(1 << 30)" 2>"$TMP/e" &&
	grep -q MemoryError "$TMP/e" &&
	sx --sandbox=off -- "$PY" -c "x = bytearray(1 << 30)"
'
test_expect_success 'cuda platform: memory by RLIMIT_DATA (heap and mmap refused, addresses not)' '
	sx --platform cuda --memory 512 --report "$TMP/rep-cuda.json" -- "$PY" -c "x = bytearray(1 << 20)" &&
	grep -q "\"memory\":\"applied: RLIMIT_DATA\"" "$TMP/rep-cuda.json" &&
	expect_status 1 sx --platform cuda --memory 512 -- "$PY" -c "x = bytearray(1 << 30)" 2>"$TMP/e" &&
	grep -q MemoryError "$TMP/e" &&
	expect_status 1 sx --platform cuda --memory 512 -- "$PY" -c "
import mmap
m = mmap.mmap(-1, 1 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)" 2>"$TMP/e" &&
	grep -q "Cannot allocate memory" "$TMP/e" &&
	sx --platform cuda --memory 512 -- "$PY" -c "
import mmap  # what CUDA does at start: reserve far more addresses than the limit
m = mmap.mmap(-1, 1 << 36, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=0)
print(len(m))" >"$TMP/o" &&
	grep -q 68719476736 "$TMP/o"
'
test_expect_success 'fork bomb: fork fails at the process limit' '
	expect_status 3 sx --procs 64 -- "$PY" -c "
import os, sys, time  # kgb-t0160-sx-forkbomb
n = 0
while n < 300:
    try:
        pid = os.fork()
    except OSError as e:
        print(\"stopped after\", n, e); sys.exit(3)
    if pid == 0:
        time.sleep(60); os._exit(0)
    n += 1
print(\"not stopped after\", n); sys.exit(3)" >"$TMP/o" &&
	cat "$TMP/o" &&
	n=$(sed -n "s/^stopped after \([0-9]*\) .*/\1/p" "$TMP/o") &&
	test -n "$n" && test "$n" -lt 64 && test "$n" -gt 32 &&
	! pgrep -f kgb-t0160-sx-forkbomb
'
test_expect_success 'a real fork bomb is contained and cleaned up' '
	# Whatever its status, it ends by the timeout and leaves nothing running.
	sx --procs 64 --timeout 10 -- bash -c ": kgb-t0160-bomb; b() { b | b & }; b; sleep 2" \
		>/dev/null 2>&1
	sleep 1 && ! pgrep -f kgb-t0160-bomb
'
test_expect_success 'seccomp and namespaces: no unshare, mount or ptrace inside' '
	expect_fail sx -- unshare -U true 2>"$TMP/e" && grep -q "Operation not permitted" "$TMP/e" &&
	sx --sandbox=off -- unshare -U true &&
	expect_fail sx -- sh -c "mkdir m && mount -t tmpfs none m" &&
	sx -- "$PY" -c "
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
sys.exit(0 if libc.ptrace(0, 0, 0, 0) == -1 and ctypes.get_errno() == 1 else 5)" &&
	sx --sandbox=off -- "$PY" -c "
import ctypes, sys
sys.exit(0 if ctypes.CDLL(None).ptrace(0, 0, 0, 0) == 0 else 5)"
'
test_expect_success 'a system call of another ABI (i386 int 0x80) kills the worker: SIGSYS' '
	if ! command -v cc >/dev/null || [ "$(uname -m)" != x86_64 ]; then
		say "skipped: needs cc on x86_64"; exit 0
	fi
	printf "%s\n" "#include <stdio.h>" \
		"int main(void) { long r; __asm__ volatile(\"int \$0x80\" : \"=a\"(r) : \"a\"(20L));" \
		"printf(\"%ld\\n\", r); return 0; }" >"$TMP/int80.c" &&
	cc -o "$TMP/int80" "$TMP/int80.c" &&
	"$TMP/int80" &&
	KGB_SANDBOX_VISIBLE=$TMP expect_status 159 sx -- "$TMP/int80" 2>"$TMP/e" &&
	grep -q "killed by signal 31 (SIGSYS)" "$TMP/e"
'
test_expect_success 'devices stay usable; /dev/shm is fresh and writable' '
	sx -- sh -c "head -c 16 /dev/urandom >/dev/null && echo x >/dev/null && test -z \"\$(ls -A /dev/shm)\" && echo y >/dev/shm/f"
'
test_expect_success 'pid namespace: the worker is pid 2 and sees only its own processes' '
	# A glob, not ls: no process of its own. Pid 1 is the namespace'"'"'s init.
	sx -- sh -c "echo \$\$ /proc/[0-9]*" >"$TMP/o" &&
	test "$(cat "$TMP/o")" = "2 /proc/1 /proc/2" &&
	sx --sandbox=off -- sh -c "echo \$\$ /proc/[0-9]*" >"$TMP/o" &&
	test "$(cut -d " " -f 1 "$TMP/o")" -gt 2 && test "$(wc -w <"$TMP/o")" -gt 5 &&
	KGB_SANDBOX_SKIP=pidns sx -- sh -c "echo \$\$ /proc/[0-9]*" >"$TMP/o" &&
	test "$(cut -d " " -f 1 "$TMP/o")" -gt 2 && test "$(wc -w <"$TMP/o")" -gt 5
'
test_expect_success 'pid namespace: kill() reaches no process outside it' '
	expect_fail sx -- sh -c "kill -0 $$" 2>"$TMP/e" && grep -q "No such process" "$TMP/e" &&
	sx --sandbox=off -- sh -c "kill -0 $$" &&
	KGB_SANDBOX_SKIP=pidns sx -- sh -c "kill -0 $$"
'
test_expect_success '/proc is fresh and writable for the worker, read-only where it acts on the machine' '
	sx -- sh -c "echo kgb-t0160 >/proc/self/comm && read c </proc/self/comm && echo \$c" >"$TMP/o" &&
	test "$(cat "$TMP/o")" = kgb-t0160 &&
	expect_fail env KGB_SANDBOX_SKIP=pidns "$KGB" sandbox-exec -- sh -c \
		"echo x >/proc/self/comm" 2>"$TMP/e" &&
	grep -q "Read-only file system" "$TMP/e" &&
	# Opened for writing, nothing written: where that succeeds, nothing changes.
	expect_fail sx -- sh -c ": >/proc/sys/kernel/hostname" 2>"$TMP/e" &&
	grep -q "Read-only file system" "$TMP/e" &&
	if [ "$(id -u)" = 0 ]; then sx --sandbox=off -- sh -c ": >/proc/sys/kernel/hostname"; fi &&
	sx -- sh -c "
		for p in /proc/sys /proc/sysrq-trigger /proc/irq /proc/bus /proc/fs /proc/acpi; do
			[ -e \$p ] || continue
			grep -q \" \$p ro,\" /proc/self/mountinfo || { echo \$p not read-only; exit 1; }
			echo \$p
		done
		grep \" /proc rw,nosuid,nodev,noexec\" /proc/self/mountinfo" >"$TMP/o" &&
	cat "$TMP/o" && grep -q "^/proc/sys$" "$TMP/o" && test "$(grep -c " - proc " "$TMP/o")" = 1
'
# kgb sandbox-exec ARGS... in a mount namespace of its own where a directory of /proc is
# covered, as container runtimes cover parts of /proc: the kernel then refuses a new procfs in a
# user namespace (it would uncover them).
sx_covered_proc() {
	local d
	for d in /proc/acpi /proc/tty /proc/driver /proc/fs; do [ -d "$d" ] && break; done
	unshare -m --propagation private sh -c 'mount -t tmpfs -o ro none "$1" && shift && exec "$@"' \
		sh "$d" "$KGB" sandbox-exec "$@"
}
test_expect_success 'no fresh /proc allowed: the host'"'"'s stays read-only, pidns unavailable, strict refuses' '
	if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
		say "skipped: needs root and unshare(1)"; exit 0
	fi
	sx_covered_proc --report "$TMP/nofresh.json" -- sh -c \
		"echo \$\$ && ! echo x 2>/dev/null >/proc/self/comm && test -e /proc/$$" \
		>"$TMP/o" 2>"$TMP/e" &&
	cat "$TMP/e" && test "$(cat "$TMP/o")" = 2 &&
	grep -q "^kgb: sandbox: pidns unavailable: no fresh /proc (the host.s stays): mount -t proc: Operation not permitted; continuing without it" "$TMP/e" &&
	test "$(json_eval "$TMP/nofresh.json" "recs[0][\"readonly_fs\"]")" = applied &&
	expect_status 4 sx_covered_proc --sandbox=strict -- true 2>"$TMP/e" &&
	grep -q "pidns unavailable: no fresh /proc" "$TMP/e"
'
test_expect_success 'exit statuses and signals read as without the pid namespace' '
	expect_status 3 sx -- sh -c "exit 3" &&
	expect_status 139 sx -- sh -c "kill -SEGV \$\$" 2>"$TMP/e" &&
	grep -q "killed by signal 11 (Segmentation fault)" "$TMP/e" &&
	expect_status 137 sx -- sh -c "kill -KILL \$\$" &&
	expect_status 143 sx -- sh -c "trap \"\" USR1; kill -USR1 0; kill -TERM 0; sleep 5" &&
	expect_status 127 sx -- kgb-t0160-no-such-command
'
test_expect_success 'sandbox-exec leaves no scratch directory, cgroup or mount' '
	test -z "$(ls -A "$TMP/sr2")" &&
	! grep -F "$TMP" /proc/self/mountinfo &&
	test -z "$(dead_cgroups)"
'

# The eval run. Stale scratch roots first: two of dead kgb processes (removed at start), one
# of a live process and one that is not a scratch root (both kept).
deadpid=$(sh -c 'echo $$')
mkdir -p "$TMP/scratch/kgb-$deadpid/slot0-1" "$TMP/scratch/kgb-lint-$deadpid" \
	"$TMP/scratch/kgb-$$" "$TMP/scratch/kgb-cli.keep" "$TMP/outside2"
export KGB_T0160_PYTHON=$PY KGB_T0160_PORT=$PORT KGB_T0160_OUTSIDE=$TMP/outside2 KGB_T0160_HOME=$HOME
# The stand-in interpreter reads these; workers keep only the variables they are allowed.
export KGB_SANDBOX_ENV='KGB_T0160_*'
run_faults() {
	(
		TMPDIR="$TMP/scratch" exec "$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter \
			-j 2 --timeout 30 --memory-limit 2048 --python "$SFX/fake-python" \
			--solutions "$SFX/candidates" --json >"$TMP/r" 2>"$TMP/r.err"
	) &
	pid=$! hwm=
	# kgb's peak memory, seen last just before it exits: the floods must not grow it.
	while kill -0 "$pid" 2>/dev/null; do
		h=$(sed -n "s/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/$pid/status 2>/dev/null)
		[ -n "$h" ] && hwm=$h
		sleep 0.2
	done
	echo "$hwm" >"$TMP/hwm"
	wait "$pid"
}
verdict() { json_eval "$TMP/r" "[r[\"verdict\"] for r in recs if r.get(\"sample\") == \"$1\"][0]"; }
detail() { json_eval "$TMP/r" "[r[\"detail\"] for r in recs if r.get(\"sample\") == \"$1\"][0]"; }

test_expect_success 'the fault run completes' 'run_faults || { cat "$TMP/r.err"; false; }'
test_expect_success 'the honest candidate passes, alone' '
	test "$(verdict good)" = pass &&
	test "$(json_eval "$TMP/r" "recs[-1][\"pass\"], recs[-1][\"total\"]")" = "(1, 15)"
'
test_expect_success 'the summary records the sandbox, and so does the run in the store' '
	test "$(json_eval "$TMP/r" "sorted(k for k, v in recs[-1][\"sandbox\"].items() if k != \"mode\" and not v.startswith(\"applied\"))")" = "[]" &&
	"$PY" -c "import json, sqlite3, sys; env = json.loads(sqlite3.connect(sys.argv[1]).execute(\"select env from runs\").fetchone()[0]); sys.exit(env[\"sandbox\"][\"seccomp\"] != \"applied\")" "$KGB_STORE"
'
test_expect_success 'segfault: crash by signal 11' '
	test "$(verdict segfault)" = crash && detail segfault | grep -q "killed by signal 11 (Segmentation fault)"
'
test_expect_success 'abort: crash by signal 6' '
	test "$(verdict abort)" = crash && detail abort | grep -q "killed by signal 6 (Aborted)"
'
test_expect_success 'hang: timeout' 'test "$(verdict hang)" = timeout'
test_expect_success 'print loop: crash at the output limit' '
	test "$(verdict print_flood)" = crash &&
	detail print_flood | grep -q "output limit: more than 64 MiB on stderr"
'
test_expect_success 'a flood on the candidate s stdout never reaches the protocol: output limit' '
	test "$(verdict stdout_flood)" = crash && detail stdout_flood | grep -q "output limit"
'
# The floods are 64 MiB and more each; kgb-san's own peak is about 60-64 MiB (ASan's shadow
# and quarantine; 65,696 kB once on a loaded machine): one flood kept would pass 128 MiB.
test_expect_success 'kgb'"'"'s memory stays bounded under the floods' '
	cat "$TMP/hwm" && test "$(cat "$TMP/hwm")" -lt 98304
'
test_expect_success 'memory hog: crash, memory limit exceeded' '
	test "$(verdict memhog)" = crash &&
	detail memhog | grep -q "memory limit exceeded (2048 MiB of address space): case 0: .*allocate memory"
'
test_expect_success 'infinite recursion: error (RecursionError)' '
	test "$(verdict recursion)" = error && detail recursion | grep -q RecursionError
'
test_expect_success 'fork bomb: stopped at the process limit' '
	test "$(verdict forkbomb)" = crash &&
	n=$(detail forkbomb | sed -n "s/.*fork bomb stopped after \([0-9]*\) processes.*/\1/p") &&
	test -n "$n" && test "$n" -lt 1024
'
test_expect_success 'network: the connection fails and the listener saw none' '
	test "$(verdict network)" = crash &&
	detail network | grep -q "network: \[Errno 1\] Operation not permitted" &&
	test "$(accepted)" = 1
'
test_expect_success 'writes outside: refused, nothing written' '
	test "$(verdict write_outside)" = crash &&
	detail write_outside | grep -Eq "refused: (Read-only file system|No such file or directory)" &&
	test -z "$(ls -A "$TMP/outside2")" && test ! -e "$HOME/.kgb-t0160-pwned"
'
test_expect_success 'another candidate'"'"'s cache and the other slots are invisible' '
	detail plant_secret | grep -q "planted .*/triton-[0-9a-f]*/secret" &&
	detail read_sibling >"$TMP/d" && cat "$TMP/d" &&
	grep -Eq "saw \[(slot[0-9]+-[0-9]+-r[0-9a-f]{8} triton-[0-9a-f]{64}|triton-[0-9a-f]{64} slot[0-9]+-[0-9]+-r[0-9a-f]{8})\] found \[\]" "$TMP/d"
'
test_expect_success 'filling the disk stops at the scratch size (1 GiB)' '
	test "$(verdict fill_disk)" = crash &&
	detail fill_disk | grep -Eq "fill disk: 1[0-6] files of 64 MiB written: .*No space left on device"
'
test_expect_success 'a process that left the process group is killed too (pids cgroup)' '
	test "$(verdict escape_group)" = crash && ! pgrep -f kgb-t0160-escapee
'
test_expect_success 'no process is left behind' '
	! pgrep -f "kgb-t0160-(forkbomb|escapee)" &&
	! pgrep -f "kgb-t0160 stdout flood" &&
	for p in /proc/[0-9]*; do readlink "$p/cwd" 2>/dev/null; done >"$TMP/cwds" &&
	! grep -F "$TMP/scratch" "$TMP/cwds"
'
test_expect_success 'stale scratch roots of dead kgb processes are gone, others kept' '
	test "$(ls -A "$TMP/scratch" | sort | tr "\n" " ")" = "kgb-$$ kgb-cli.keep "
'
test_expect_success 'no mount of the workers is visible here, no cgroup left' '
	! grep -F "$TMP" /proc/self/mountinfo &&
	test -z "$(dead_cgroups)"
'
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
test_done
