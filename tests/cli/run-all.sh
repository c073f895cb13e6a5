#!/usr/bin/env bash
# Runs every tests/cli/tNNNN-*.sh and prints one closing "cli: N passed, N failed" line.
#
# KGB_TEST_JOBS scripts run at once (default 1). On the 2-core CI machine two lanes saved
# nothing: the scripts are CPU-bound there (each took about twice as long; 2026-12-07, the first
# 18 scripts in 480 s against 485 s serially), so the default stays serial; on a machine with
# more cores, set it to the cores. With more than one lane the longest scripts start first, by
# the times of the previous run (build/cli-times.txt, written at the end; name order without
# it), so that no long script starts last. Each script's output is printed whole when it ends,
# with its time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jobs=${KGB_TEST_JOBS:-1}
times=$root/build/cli-times.txt
out=$(mktemp -d "${TMPDIR:-/tmp}/kgb-cli-all.XXXXXX")
trap 'rm -rf "$out"' EXIT

# The scripts, longest first by the last recorded times (unknown ones first: they may be long).
mapfile -t scripts < <(
	for t in "$here"/t[0-9][0-9][0-9][0-9]-*.sh; do
		n=$(basename "$t")
		s=$(awk -v n="$n" '$1 == n { print $2 }' "$times" 2>/dev/null)
		[ "$jobs" -gt 1 ] || s=0
		echo "${s:-100000} $t"
	done | sort -k1,1nr -k2,2 | cut -d' ' -f2-)

run_one() { # run_one SCRIPT: its output, status and time into $out/NAME.{out,rc,s}
	local n start rc
	n=$(basename "$1")
	start=$SECONDS
	bash "$1" >"$out/$n.out" 2>&1
	rc=$?
	echo $((SECONDS - start)) >"$out/$n.s"
	echo "$rc" >"$out/$n.rc"
}

total_pass=0
total_fail=0
report() { # report NAME: print a finished script's output and add its counts
	local n=$1 p f rc
	rc=$(cat "$out/$n.rc")
	echo "== $n"
	cat "$out/$n.out"
	# The time of each script: make check must stay well under 30 minutes in CI.
	echo "($n: $(cat "$out/$n.s") s)"
	p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$out/$n.out" | tail -1)
	f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$out/$n.out" | tail -1)
	total_pass=$((total_pass + ${p:-0}))
	total_fail=$((total_fail + ${f:-0}))
	if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		echo "$n exited $rc"
		total_fail=$((total_fail + 1))
	fi
	echo "$n $(cat "$out/$n.s")" >>"$out/times"
}

start=$SECONDS
declare -A running=() # pid -> script name
for t in "${scripts[@]}"; do
	while [ "${#running[@]}" -ge "$jobs" ]; do
		wait -n
		for pid in "${!running[@]}"; do
			if ! kill -0 "$pid" 2>/dev/null; then
				report "${running[$pid]}"
				unset "running[$pid]"
			fi
		done
	done
	run_one "$t" &
	running[$!]=$(basename "$t")
done
wait
for pid in "${!running[@]}"; do report "${running[$pid]}"; done
mkdir -p "$(dirname "$times")" && sort "$out/times" >"$times"
echo "cli: $((SECONDS - start)) s, $jobs scripts at once"
echo "cli: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
