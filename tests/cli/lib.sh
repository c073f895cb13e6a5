# lib.sh - a small git-style test library for kgb's CLI tests.
#
# A test script sources this, then runs test_expect_success "title" 'commands'. Each case runs
# in a subshell with `set -e`-like &&-chaining left to the script; a case passes when its
# commands exit 0. expect_fail CMD... passes only when CMD exits non-zero *without* dying from a
# signal (a crash is never the expected failure). The script ends with test_done, which prints
# "N passed, N failed" and exits non-zero on any failure.
#
# Environment: KGB (binary under test, default build/kgb-san), ROOT (project root), TMP (a fresh
# directory per script, removed at the end unless KGB_KEEP_TMP is set).

set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KGB=${KGB:-$ROOT/build/kgb-san}
FIXTURES=$ROOT/tests/cli/fixtures
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kgb-cli.XXXXXX")
export KGB_ROOT=$ROOT KGB_STORE=$TMP/store.db
# ASan's leak checker stays on; UBSan stops at the first report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
passed=0
failed=0

say() { printf '%s\n' "$*"; }

test_expect_success() {
	local title=$1 body=$2
	if (eval "$body") >"$TMP/out.log" 2>&1; then
		passed=$((passed + 1))
		say "ok - $title"
	else
		failed=$((failed + 1))
		say "not ok - $title"
		sed 's/^/    /' "$TMP/out.log" | tail -40
	fi
}

# Passes when the command fails normally (exit 1..125), not by a signal or "not found".
expect_fail() {
	local rc=0
	"$@" || rc=$?
	if [ "$rc" -eq 0 ]; then
		say "expect_fail: '$*' succeeded" >&2
		return 1
	elif [ "$rc" -gt 125 ]; then
		say "expect_fail: '$*' died with status $rc" >&2
		return 1
	fi
	return 0
}

# expect_status N CMD...: passes when CMD exits exactly N.
expect_status() {
	local want=$1 rc=0
	shift
	"$@" || rc=$?
	if [ "$rc" -ne "$want" ]; then
		say "expect_status: '$*' exited $rc, expected $want" >&2
		return 1
	fi
}

# json_field FILE FILTER: evaluate a Python expression over the list of JSON lines in FILE,
# bound to `recs`; prints the result. Uses the project's Python (no jq dependency).
json_eval() {
	"$ROOT/.venv/bin/python" -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(eval(sys.argv[2]))' "$1" "$2"
}

# The workers' cgroups ("kgb-<kgb pid>-<n>") of kgb processes that have ended, in the cgroups
# this shell is in (kgb makes them there). Other cgroups of the machine are not ours to judge: a
# kgb killed with -9 in another job leaves its own, which the next kgb of that job removes.
dead_cgroups() {
	find /sys/fs/cgroup -maxdepth 5 -type d -name "kgb-[0-9]*-*" 2>/dev/null |
		while read -r d; do
			grep -qx "$$" "${d%/*}/cgroup.procs" 2>/dev/null || continue
			p=${d##*/kgb-}
			kill -0 "${p%%-*}" 2>/dev/null || echo "$d"
		done
}

test_done() {
	if [ -z "${KGB_KEEP_TMP:-}" ]; then rm -rf "$TMP"; fi
	say "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
