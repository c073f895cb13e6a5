#!/usr/bin/env bash
# Runs every tests/cli/tNNNN-*.sh and prints one closing "N passed, N failed" line.
set -u
here=$(cd "$(dirname "$0")" && pwd)
total_pass=0
total_fail=0
for t in "$here"/t[0-9][0-9][0-9][0-9]-*.sh; do
	echo "== $(basename "$t")"
	start=$SECONDS
	out=$(bash "$t" 2>&1)
	rc=$?
	echo "$out"
	# The time of each script: make check must stay well under 30 minutes in CI.
	echo "($(basename "$t"): $((SECONDS - start)) s)"
	p=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' | tail -1)
	f=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' | tail -1)
	total_pass=$((total_pass + ${p:-0}))
	total_fail=$((total_fail + ${f:-0}))
	if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		echo "$(basename "$t") exited $rc"
		total_fail=$((total_fail + 1))
	fi
done
echo "cli: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
