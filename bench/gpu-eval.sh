#!/usr/bin/env bash
# Evaluate every shipped solution on the GPU machine and record the output.
#
# Run on the H200 through the device tool, carrying the binary built here:
#   run(command="bash bench/gpu-eval.sh", carry=["build/kgb"])
# It writes under $OUT (or ./out): eval.txt (the table of the first, cold run, with its wall
# time), eval.jsonl (the same run as JSON lines), rerun.txt (a second run of the same command,
# which must reuse every stored result), env.txt (versions), and the store itself.
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
export KGB_PYTHON=${KGB_PYTHON:-python3}
{
	date -u +%FT%TZ
	build/kgb --version
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
	$KGB_PYTHON -m runtime.platform
} >"$out/env.txt" 2>&1
start=$(date +%s.%N)
build/kgb -v eval --store "$out/gpu.db" 2>"$out/progress.txt" | tee "$out/eval.txt"
end=$(date +%s.%N)
echo "wall time: $(awk "BEGIN { print $end - $start }") s" | tee -a "$out/eval.txt"
build/kgb eval --store "$out/gpu.db" --json >"$out/eval.jsonl"
build/kgb eval --store "$out/gpu.db" | tail -4 | tee "$out/rerun.txt"
