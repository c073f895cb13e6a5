#!/usr/bin/env bash
# The same tasks under several builds of kgb on one GPU machine, in one call: where a change
# made checking slower or faster (per-task wall times and phases, compile included), measured
# on the same card. Each build is a pin: out/pin-NAME.tar, a `git archive` of the commit plus
# its build/kgb (bench/make-pins.sh NAME=REV... builds them). Each argument is one run:
#
# KGB_PINS_PLATFORM=interpreter tries it on a CPU.
#
#   NAME:TASKS:JOBS[:FLAG...]   TASKS comma-separated; JOBS checking slots; FLAGs:
#     sample   workers under bench/pysample (a sampling profiler; --sandbox=off, which it
#              needs), the pin's report in NAME.../pysample.txt
#     warm     keep the Triton cache of the previous run of the same pin (default: cold)
#     force    --force (re-evaluate what the store already has: with warm, a warm re-run)
#     cap=S    this run stops after S seconds (at most what the call's budget has left), so
#              that a slow first run leaves the next ones their time
#
#   run(command="OUT=$OUT bash bench/gpu-pins.sh old:add:1 new:add:1 new:add:1:warm:force",
#       carry=["out/pin-old.tar", "out/pin-new.tar"])
#
# Writes $OUT/<n>-NAME/ for the n-th run: progress.txt (kgb -v), phases.txt (bench/phases.py of
# this tree on the run's store), wall.txt, vmstat.txt (the machine's CPU use every 2 s), the
# store gpu.db; env.txt once. KGB_PINS_BUDGET
# (default 560) s bounds the whole call: a run that would start with under 30 s left is skipped.
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$PWD
budget=${KGB_PINS_BUDGET:-560}
{
	date -u +%FT%TZ
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
	python3 -m runtime.platform
} >"$out/env.txt" 2>&1
n=0
for spec in "$@"; do
	n=$((n + 1))
	IFS=: read -r -a f <<<"$spec"
	name=${f[0]} tasks=${f[1]} jobs=${f[2]}
	flags=" ${f[*]:3} "
	r=$out/$n-$name
	mkdir -p "$r"
	left=$((budget - SECONDS))
	[ "$left" -ge 30 ] || { echo "$spec: skipped, $left s left" | tee "$r/wall.txt"; continue; }
	for fl in $flags; do
		case $fl in cap=*) [ "${fl#cap=}" -lt "$left" ] && left=${fl#cap=} ;; esac
	done
	p=/tmp/pins/$name
	if [ ! -x "$p/build/kgb" ]; then
		mkdir -p "$p" && tar -xf "$here/out/pin-$name.tar" -C "$p" || exit 2
	fi
	[[ $flags == *" warm "* ]] || rm -rf "/tmp/pins/cache-$name"
	args=(-v eval --platform "${KGB_PINS_PLATFORM:-cuda}" -j "$jobs" --store "$r/gpu.db" --cache-root "/tmp/pins/cache-$name")
	[[ $flags == *" force "* ]] && args+=(--force)
	IFS=, read -r -a ts <<<"$tasks"
	for t in "${ts[@]}"; do args+=(--task "$t"); done
	envs=(KGB_PYTHON=python3)
	if [[ $flags == *" sample "* ]]; then
		mkdir -p "$r/samples"
		envs=(KGB_PYTHON="$here/bench/pysample/python.sh" KGB_SAMPLE_DIR="$r/samples")
		args+=(--sandbox=off)
	fi
	# A warm re-run reads the previous run's store so that --force re-evaluates its tasks.
	if [[ $flags == *" force "* ]] && [ "$n" -gt 1 ] && [ -f "$out/$((n - 1))-$name/gpu.db" ]; then
		cp "$out/$((n - 1))-$name/gpu.db" "$r/gpu.db"
	fi
	t0=$SECONDS
	vmstat -n 2 >"$r/vmstat.txt" 2>&1 &
	vm=$!
	(cd "$p" && env "${envs[@]}" timeout "$left" build/kgb "${args[@]}") >"$r/progress.txt" 2>&1
	rc=$?
	kill "$vm" 2>/dev/null
	echo "$spec: rc $rc, $((SECONDS - t0)) s ($(cd "$p" && build/kgb --version))" | tee "$r/wall.txt"
	python3 bench/phases.py "$r/gpu.db" >"$r/phases.txt" 2>&1
	if [ -d "$r/samples" ]; then
		python3 bench/pysample/report.py "$r/samples" 40 >"$r/pysample.txt" 2>&1
		tar czf "$r/samples.tgz" -C "$r" samples && rm -rf "$r/samples"
	fi
done
