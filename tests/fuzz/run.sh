#!/usr/bin/env bash
# Runs every built harness (build/fuzz/fuzz-*) for SECONDS each (default 20), one after another,
# from its seed corpus tests/fuzz/corpus/<name>/ (read only: new inputs go to build/fuzz/corpus/,
# emptied first) with its dictionary tests/fuzz/<name>.dict when there is one. A harness passes
# when libFuzzer finds no crash, leak, sanitizer report, broken contract or timeout in that time;
# a failing one's report lines are shown and the reproducer lies in build/fuzz/artifacts/. Ends
# with "fuzz: N passed, N failed" (tests/check.sh counts it).
#
# Usage: tests/fuzz/run.sh [SECONDS]      (make check-fuzz builds the harnesses first)
set -u
cd "$(dirname "$0")/../.."
secs=${1:-20}
pass=0
fail=0
mkdir -p build/fuzz/artifacts build/fuzz/logs
for bin in build/fuzz/fuzz-*; do
	[ -x "$bin" ] || continue
	name=${bin#build/fuzz/fuzz-}
	log=build/fuzz/logs/$name.log
	dict=()
	[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
	# A fresh corpus each time: replaying a grown one would eat into (and past) the time.
	rm -rf "build/fuzz/corpus/$name"
	mkdir -p "build/fuzz/corpus/$name"
	# TMPDIR: fuzz-catalog keeps its tasks directory there; a crash leaves it behind.
	tmp=$(mktemp -d)
	if TMPDIR=$tmp "$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$name-" "${dict[@]}" \
		"build/fuzz/corpus/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1; then
		pass=$((pass + 1))
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "ok   $name: ${runs:-?} runs in ${secs} s"
	else
		fail=$((fail + 1))
		echo "FAIL $name (log: $log)"
		{
			grep -m 3 -E 'contract broken|ERROR: |runtime error|SUMMARY' "$log"
			grep -A 3 '^MS: ' "$log"
		} | sed 's/^/    /'
	fi
	rm -rf "$tmp"
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
