#!/usr/bin/env bash
# Whether CUDA and Triton start under the containment facilities of issue 31 (docs/security.md:
# min_dev, memcg, unix_sockets, hidden_paths, clean_env, cache_cap), and what they need:
# which device nodes CUDA opens, which Unix sockets it tries, which memory cgroup the machine
# gives. Writes $OUT/sandbox-contain.txt.
#
#  1. the machine: kernel, user, /dev/nvidia*, cgroups (is memory delegated?), strace;
#  2. a probe (torch on CUDA, then a Triton kernel compiled into TRITON_CACHE_DIR and launched)
#     without the sandbox, under strace -f when there is one: every /dev path it opens, every
#     socket, connect and bind; and, from the probe itself, the /dev nodes and sockets it
#     holds open (/proc/self/fd, /proc/self/maps);
#  3. the probe under the whole sandbox (`kgb sandbox-exec --platform cuda`), with each new
#     facility left out in turn (KGB_SANDBOX_SKIP), and with all six left out; then traced
#     under unix_sockets (each AF_UNIX socket(), connect() and bind() and its result);
#  4. a memfd of 1 GiB under --memory 512 (the memory cgroup's OOM kill, where there is one);
#  5. `kgb eval` of one task on cuda: its summary's "sandbox" object says what applied after
#     kgb's own CUDA probe (which leaves out what CUDA does not start with).
#
# Run on the GPU machine: run(command="bash bench/sandbox-contain.sh", carry=["build/kgb"]);
# KGB_PYTHON names the workers' Python (default python3). About 3-5 minutes.
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
py=${KGB_PYTHON:-python3}
log="$out/sandbox-contain.txt"
probe=$(cat <<'PY'
import os, sys
import torch, triton, triton.language as tl

@triton.jit
def _twice(x, y, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y + o, tl.load(x + o, mask=o < n) * 2, mask=o < n)

x = torch.ones(1024, device="cuda")
y = torch.empty_like(x)
_twice[(4,)](x, y, 1024, B=256)
torch.cuda.synchronize()
held = set()
for fd in os.listdir("/proc/self/fd"):
    try:
        t = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        continue
    if t.startswith(("/dev/", "socket:")):
        held.add(t if t.startswith("/dev/") else "socket")
for line in open("/proc/self/maps"):
    p = line.split()[-1]
    if p.startswith("/dev/"):
        held.add(p + " (mapped)")
print("ok", float(y.sum()), "held:", " ".join(sorted(held)))
PY
)
# Triton reads a kernel's source from its file: the probe is written to the current directory
# (in the sandbox, the worker's scratch) and run from there.
launch='import runpy, sys; open("kgb_probe.py", "w").write(sys.argv[1]); runpy.run_path("kgb_probe.py", run_name="__main__")'
{
	date -u +%FT%TZ
	build/kgb --version
	uname -r
	id
	ls -l /dev/nvidia* 2>&1
	echo "== cgroups"
	cat /proc/self/cgroup
	grep cgroup /proc/self/mountinfo
	cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
	echo "own cgroup v2: $cg; subtree_control: $(cat "/sys/fs/cgroup$cg/cgroup.subtree_control" 2>&1)"
	echo "controllers: $(cat "/sys/fs/cgroup$cg/cgroup.controllers" 2>&1)"
	echo "legacy_tiocsti: $(cat /proc/sys/dev/tty/legacy_tiocsti 2>&1)"
	echo "strace: $(command -v strace || echo none)"
	echo "python: $py ($("$py" -c 'import sys, torch, triton; print(sys.version.split()[0], torch.__version__, triton.__version__)' 2>&1))"
} >"$log"

# Without strace (the GPU image has none): an LD_PRELOAD shim that logs the /dev paths the
# process opens through libc and the Unix socket addresses it connects or binds to.
cat >"$out/opentrace.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <errno.h>
/* OPENTRACE=stderr: the lines go to fd 2 (in the sandbox, where no file outside is written). */
static void line(const char *fmt, const char *a, const char *b, int r)
{
	const char *f = getenv("OPENTRACE");
	FILE *o;

	if (!f)
		return;
	if (!strcmp(f, "stderr"))
		dprintf(2, fmt, a, b, r);
	else if ((o = fopen(f, "a"))) {
		fprintf(o, fmt, a, b, r);
		fclose(o);
	}
}
static void note(const char *what, const char *path)
{
	if (path && !strncmp(path, "/dev/", 5))
		line("%s %s\n", what, path, 0);
}
int socket(int domain, int type, int proto)
{
	static int (*real)(int, int, int);
	int r, e;
	char t[32];
	if (!real)
		real = dlsym(RTLD_NEXT, "socket");
	r = real(domain, type, proto);
	e = errno;
	snprintf(t, sizeof(t), "type %d", type & 0xf);
	if (domain == AF_UNIX)
		line("socket unix %s%s -> %d\n", t, "", r < 0 ? -e : 0);
	errno = e;
	return r;
}
#define OPENER(name, ...) \
	int name(__VA_ARGS__, int flags, ...) \
	{ \
		static int (*real)(); \
		va_list ap; \
		mode_t mode; \
		if (!real) \
			real = dlsym(RTLD_NEXT, #name); \
		va_start(ap, flags); \
		mode = va_arg(ap, mode_t); \
		va_end(ap); \
		note("open", p); \
		return ARGS; \
	}
#define ARGS real(p, flags, mode)
OPENER(open, const char *p)
OPENER(open64, const char *p)
#undef ARGS
#define ARGS real(d, p, flags, mode)
OPENER(openat, int d, const char *p)
OPENER(openat64, int d, const char *p)
static void sock(const char *what, const struct sockaddr *a, socklen_t n, int r)
{
	char buf[sizeof(((struct sockaddr_un *)0)->sun_path) + 2] = "@";
	const struct sockaddr_un *u = (const void *)a;

	if (!a || a->sa_family != AF_UNIX || n <= sizeof(sa_family_t))
		return;
	if (u->sun_path[0])
		snprintf(buf, sizeof(buf), "%s", u->sun_path);
	else
		snprintf(buf + 1, sizeof(buf) - 1, "%.*s", (int)(n - sizeof(sa_family_t) - 1), u->sun_path + 1);
	line("%s unix:%s -> %d\n", what, buf, r);
}
#define SOCKCALL(name) \
	int name(int fd, const struct sockaddr *a, socklen_t n) \
	{ \
		static int (*real)(int, const struct sockaddr *, socklen_t); \
		int r, e; \
		if (!real) \
			real = dlsym(RTLD_NEXT, #name); \
		r = real(fd, a, n); \
		e = errno; \
		sock(#name, a, n, r < 0 ? -e : 0); \
		errno = e; \
		return r; \
	}
SOCKCALL(connect)
SOCKCALL(bind)
C
echo "== the probe without the sandbox" >>"$log"
if command -v strace >/dev/null; then
	(cd "$out" && TRITON_CACHE_DIR="$out/triton-strace" strace -f -qq \
		-e trace=open,openat,socket,connect,bind -o "$out/strace.txt" \
		"$py" -c "$launch" "$probe") >>"$log" 2>&1
	echo "-- /dev paths opened (strace):" >>"$log"
	grep -o '"/dev/[^"]*"' "$out/strace.txt" | sort | uniq -c >>"$log"
	echo "-- sockets, connect, bind (strace):" >>"$log"
	grep -E ' (socket|connect|bind)\(' "$out/strace.txt" | sed 's/^[0-9]* *//' | sort | uniq -c |
		head -40 >>"$log"
	rm -rf "$out/triton-strace"
elif cc -shared -fPIC -O1 -o "$out/opentrace.so" "$out/opentrace.c" -ldl 2>>"$log"; then
	rm -f "$out/opens.txt"
	(cd "$out" && OPENTRACE="$out/opens.txt" LD_PRELOAD="$out/opentrace.so" \
		TRITON_CACHE_DIR="$out/triton-plain" "$py" -c "$launch" "$probe") >>"$log" 2>&1
	echo "-- /dev paths opened, Unix sockets connected or bound (LD_PRELOAD shim, libc calls):" >>"$log"
	sort "$out/opens.txt" 2>/dev/null | uniq -c >>"$log"
	rm -rf "$out/triton-plain"
else
	(cd "$out" && TRITON_CACHE_DIR="$out/triton-plain" "$py" -c "$launch" "$probe") >>"$log" 2>&1
	rm -rf "$out/triton-plain"
fi
rm -f "$out/opentrace.c" "$out/kgb_probe.py"

try() { # $1: label, $2: KGB_SANDBOX_SKIP
	local label=$1 r
	r=$(KGB_SANDBOX_SKIP=$2 build/kgb sandbox-exec --platform cuda --timeout 300 \
		--report "$out/report.json" -- "$py" -c "$launch" "$probe" 2>&1 | tail -3 | tr '\n' ' ')
	printf '%-26s %s\n      report: %s\n' "$label" "${r:0:600}" \
		"$(cat "$out/report.json" 2>/dev/null)" >>"$log"
	rm -f "$out/report.json"
}
echo "== the probe in the sandbox (kgb sandbox-exec --platform cuda)" >>"$log"
try "full" ""
for f in min_dev memcg unix_sockets hidden_paths clean_env cache_cap; do
	try "skip $f" "$f"
done
try "skip all six" "min_dev,memcg,unix_sockets,hidden_paths,clean_env,cache_cap"
# unix_sockets applied, with the shim's lines on stderr: which socket call fails, if one does
# (clean_env and hidden_paths left out so that LD_PRELOAD and the shim's path reach Python).
if [ -f "$out/opentrace.so" ]; then
	echo "== the probe in the sandbox, traced (clean_env, hidden_paths left out)" >>"$log"
	LD_PRELOAD="$out/opentrace.so" OPENTRACE=stderr KGB_SANDBOX_SKIP=clean_env,hidden_paths \
		build/kgb sandbox-exec --platform cuda --timeout 300 -- "$py" -c "$launch" "$probe" \
		2>&1 | grep -E 'unix|^ok|rror' | sort | uniq -c | head -40 >>"$log"
	rm -f "$out/opentrace.so"
fi

echo "== a 1 GiB memfd under --memory 512 (memory cgroup)" >>"$log"
r=$(build/kgb sandbox-exec --platform cuda --memory 512 -- "$py" -c '
import os
for i in range(16):
    if i % 4 == 0:
        fd = os.memfd_create("hog")
    os.write(fd, b"x" * (64 << 20))
print("wrote 1024 MiB")' 2>&1 | tail -2 | tr '\n' ' ')
echo "status/output: $r" >>"$log"

echo "== kgb eval --platform cuda --task aten/add" >>"$log"
build/kgb eval --platform cuda --task aten/add -j 1 --store "$out/contain.db" --json \
	>"$out/contain-eval.jsonl" 2>"$out/contain-eval.err"
echo "exit $?; stderr:" >>"$log"
tail -20 "$out/contain-eval.err" >>"$log"
"$py" - "$out/contain-eval.jsonl" >>"$log" 2>&1 <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for r in recs:
    if r.get("schema") == "kgb.eval.v1":
        print("verdict:", r["verdict"], r["detail"][:300])
    elif "sandbox" in r:
        print("sandbox:", json.dumps(r["sandbox"]))
PY
cat "$log"
