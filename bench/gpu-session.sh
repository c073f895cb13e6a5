#!/usr/bin/env bash
# One device-tool call of a GPU session, the same command every time, whether the machine is
# still warm from the previous call or a fresh one (bench/results/h200-2026-12-03d: a machine
# held 30 s after a call was gone by the next one, and a command that assumed it was there
# failed). Run from the repository root of the device tool's copy, carrying out/pin.tar (this
# tree's `git archive` plus build/kgb, see bench/results/README.md) and, when there is one,
# the previous call's store as out/resume.db:
#
#   run(command="bash bench/gpu-session.sh eval", carry=["out/pin.tar", "out/resume.db"])
#
# Steps (one or more arguments, run in order in the same call, so that a warm-cache run follows
# the cold one on the same machine: a machine idle for 30 s between calls is handed back and
# its Triton cache lost, as happened to call 4 of bench/results/h200-2026-12-04b), each writing
# under $OUT/r/<step>, all packed into $OUT/all.tgz (the tool returns only a few files):
#   eval     bench/gpu-eval.sh on every task, resumed from the warm machine's store
#            (/tmp/keep/gpu.db) or else the carried out/resume.db; the store is kept in
#            /tmp/keep for the next call and returned in all.tgz.
#   again    the same suite into a second, fresh store with the Triton cache now warm (the
#            warm-cache suite time, and the second store for bench/precision.py).
#   faults   bench/gpu-faults.sh.
#   method   bench/gpu-method.sh.
#   oom      bench/gpu-oom.sh.
# KGB_GPU_JOBS and the other bench/gpu-eval.sh variables pass through; the budget is what is
# left of the call's 600 s.
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: gpu-session.sh eval|again|faults|method..." >&2; exit 2; }
out=${OUT:-out}
keep=/tmp/keep
here=$PWD
# A warm machine keeps /tmp/p from the previous call: unpack again when the pin changed (a
# stale tree once answered "no such task" for tasks committed after it).
pin_sum=$(cksum <"$here/out/pin.tar")
if [ ! -x /tmp/p/build/kgb ] || [ "$(cat /tmp/p/.pin-sum 2>/dev/null)" != "$pin_sum" ]; then
	rm -rf /tmp/p && mkdir -p /tmp/p && tar -xf "$here/out/pin.tar" -C /tmp/p || exit 2
	echo "$pin_sum" >/tmp/p/.pin-sum
fi
mkdir -p "$keep"
cd /tmp/p || exit 2
# Checking slots: kgb's default (at most 8 per GPU) unless KGB_GPU_JOBS says otherwise. 16
# slots held on the H200 while one process per job had CUDA; with a judge, a runner and an L2
# replay runner per job they ran an 80 GiB H100 out of device memory
# (bench/results/h100-2026-12-06).
export KGB_GPU_CACHE=${KGB_GPU_CACHE:-/tmp/kgbcache}
for step in "$@"; do
	r=$out/r/$step
	mkdir -p "$r"
	left=$((${KGB_CALL_S:-588} - SECONDS - 15)) # KGB_CALL_S: the call's timeout_s, if below 600
	[ "$left" -ge 60 ] || { echo "step $step: skipped, $left s left"; continue; }
	case "$step" in
	eval)
		resume=$keep/gpu.db
		[ -f "$resume" ] || resume=$here/out/resume.db
		# out/history.db, when carried: an earlier session's store, for the jobs' order.
		[ -f "$here/out/history.db" ] && export KGB_GPU_HISTORY=$here/out/history.db
		RESUME_DB=$resume KGB_GPU_BUDGET=$left OUT=$r bash bench/gpu-eval.sh
		cp "$r/gpu.db" "$keep/gpu.db"
		;;
	again)
		# The eval step's store gives the order (its wall times), the results stay apart.
		[ -f "$keep/gpu.db" ] && export KGB_GPU_HISTORY=$keep/gpu.db
		KGB_GPU_BUDGET=$left OUT=$r RESUME_DB=$keep/again.db bash bench/gpu-eval.sh
		cp "$r/gpu.db" "$keep/again.db"
		;;
	faults) OUT=$r timeout "$left" bash bench/gpu-faults.sh >"$r/stdout.txt" 2>&1 ;;
	method) OUT=$r timeout "$left" bash bench/gpu-method.sh >"$r/stdout.txt" 2>&1 ;;
	oom) OUT=$r KGB_GPU_BUDGET=$((left - 10)) bash bench/gpu-oom.sh ;;
	*)
		echo "gpu-session.sh: unknown step '$step'" >&2
		exit 2
		;;
	esac
	echo "step $step: done at $SECONDS s" | tee -a "$out/r/steps.txt"
done
cd "$out" && tar czf all.tgz r && rm -rf r
