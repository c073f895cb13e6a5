#!/usr/bin/env bash
# The main job of `make run`: evaluate the shipped solutions on this machine's platform, then
# write the HTML report of the run and say where it is.
#
# On a GPU every task runs (the benchmark). On Triton's CPU interpreter (correctness only, and
# slow: every shipped solution takes about 11 minutes on a quiet 2-core machine) the demo runs
# instead: the tasks listed in tasks/demo.txt, a few minutes across the three sources. --all
# (`make run-all`) runs every task on any platform.
#
# Usage: scripts/run.sh [--all] [EXTRA kgb eval OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."

all=0
if [ "${1:-}" = --all ]; then
	all=1
	shift
fi
kgb=build/kgb
store=${KGB_STORE:-kgb-results.db}
report=${KGB_REPORT:-build/report.html}

# One line per finished task when nobody sees the live progress bar (a log, CI, a pipe).
verbose=()
[ -t 2 ] || verbose=(-v)

runtime=$("$kgb" platforms --detect --json | sed -n 's/.*"runtime": *"\([a-z]*\)".*/\1/p' | head -1)
select=()
if [ "$all" = 0 ] && [ "$runtime" = interpreter ]; then
	while read -r task _; do
		case $task in '' | '#'*) continue ;; esac
		select+=(--task "$task")
	done <tasks/demo.txt
	echo "kgb: the demo, $((${#select[@]} / 2)) tasks of the three sources on Triton's CPU" \
		"interpreter (tasks/demo.txt; \`make run-all\` runs all of them)" >&2
fi

rc=0
"$kgb" "${verbose[@]}" eval --store "$store" "${select[@]}" "$@" || rc=$?
if [ "$rc" -le 1 ]; then
	"$kgb" report --store "$store" -o "$report"
	echo "kgb: the report of this run: $report (store: $store)" >&2
fi
exit "$rc"
