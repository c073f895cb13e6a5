#!/usr/bin/env bash
# Issue 5's benchmarks 1 and 2 in one command, on a machine with nothing limiting a command's
# length (the device tool's 600 s calls need bench/gpu-session.sh instead):
#
#   bash bench/suite.sh [kgb eval selection, default --source aten]
#
# Evaluates the selection twice: cold (an empty Triton cache directory, store cold.db) and warm
# (the same cache, a fresh store warm.db). Each run's progress lines go to progress-cold.txt and
# progress-warm.txt with its wall time; then bench/throughput.py splits each run by phase and
# bench/precision.py compares the two runs' speedups (on a GPU; the interpreter has none).
# Writes under $OUT (default out/suite), replacing what an earlier call left there.
# KGB_PYTHON, KGB_SUITE_JOBS (checking slots) and KGB_SUITE_ARGS (more eval options) pass through;
# KGB_SUITE_HISTORY=DB orders the cold run's checking jobs by an earlier store's wall times (kgb
# eval --history; the warm run always takes the cold run's).
set -uo pipefail
out=${OUT:-out/suite}
here=$(cd "$(dirname "$0")/.." && pwd)
kgb=${KGB:-$here/build/kgb}
py=${KGB_PYTHON:-python3}
[ $# -gt 0 ] || set -- --source aten
rm -rf "$out" && mkdir -p "$out/cache" || exit 2
jobs=${KGB_SUITE_JOBS:+--jobs $KGB_SUITE_JOBS}
history=${KGB_SUITE_HISTORY:+--history $KGB_SUITE_HISTORY}
for run in cold warm; do
	start=$(date +%s)
	# shellcheck disable=SC2086 # the option lists are word lists
	"$kgb" -v eval --store "$out/$run.db" --cache-root "$out/cache" $jobs $history \
		${KGB_SUITE_ARGS:-} "$@" \
		>"$out/eval-$run.txt" 2>"$out/progress-$run.txt"
	st=$?
	echo "$run: kgb eval exit status $st, $(($(date +%s) - start)) s" | tee -a "$out/summary.txt"
	[ "$st" -le 1 ] || exit "$st"
	history="--history $out/cold.db" # the warm run's jobs in the cold run's order
done
for run in cold warm; do
	echo "# $run" >>"$out/summary.txt"
	"$py" "$here/bench/throughput.py" "$out/progress-$run.txt" "$out/$run.db" >>"$out/summary.txt"
done
echo "# precision (cold vs warm)" >>"$out/summary.txt"
"$py" "$here/bench/precision.py" "$out/cold.db" "$out/warm.db" >>"$out/summary.txt"
cat "$out/summary.txt"
