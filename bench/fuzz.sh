#!/usr/bin/env bash
# Fuzz every parser of outside data for a while and print a summary (docs/fuzzing.md).
#
# Usage: bench/fuzz.sh [TOTAL_SECONDS] [WORKERS]      (defaults: 1800 and 2)
#
# Builds the harnesses (make fuzz-build), copies them to build/fuzz/bench/bin (so a rebuild
# during the run changes nothing), then runs them one after another, each for an equal share of
# TOTAL_SECONDS, in libFuzzer's fork mode with WORKERS processes (one per core) that go on after
# a crash, a timeout or running out of memory, so one finding does not end the run. The corpus
# grows under build/fuzz/bench/corpus/<name>/ from tests/fuzz/corpus/<name>/ (which is not
# written), findings go to build/fuzz/bench/artifacts/, logs to build/fuzz/bench/logs/.
#
# Summary: one line per harness with the inputs executed (libFuzzer's count), the corpus size
# (inputs and bytes), and the findings (crash, leak, timeout, out-of-memory files), then each
# finding's file with the first report line of its replay. Exit status 1 when anything was found.
set -uo pipefail
cd "$(dirname "$0")/.."
total=${1:-1800}
workers=${2:-2}
if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
	echo "bench/fuzz.sh: ${FUZZ_CC:-clang} not found (scripts/bootstrap.sh installs it)" >&2
	exit 4
fi
make --no-print-directory fuzz-build >/dev/null || exit 4
work=build/fuzz/bench
rm -rf "$work/bin" "$work/artifacts" "$work/logs"
mkdir -p "$work/bin" "$work/artifacts" "$work/logs" "$work/corpus"
cp build/fuzz/fuzz-* "$work/bin/"
names=()
for bin in "$work"/bin/fuzz-*; do
	names+=("${bin##*/fuzz-}")
done
each=$((total / ${#names[@]}))
echo "fuzz: ${#names[@]} harnesses, ${each} s each, ${workers} workers, $(nproc) cores," \
	"$(clang --version | head -1)"
echo "started $(date -u +%FT%TZ)"
found=0
summary=()
for name in "${names[@]}"; do
	log=$work/logs/$name.log
	dict=()
	[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
	mkdir -p "$work/corpus/$name"
	tmp=$(mktemp -d)
	start=$(date +%s)
	TMPDIR=$tmp "$work/bin/fuzz-$name" -fork="$workers" -ignore_crashes=1 -ignore_timeouts=1 \
		-ignore_ooms=1 -max_total_time="$each" -timeout=20 -rss_limit_mb=2048 \
		-artifact_prefix="$work/artifacts/$name-" "${dict[@]}" \
		"$work/corpus/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1
	rc=$?
	rm -rf "$tmp"
	# The last status line: "#RUNS: cov: C ft: F corp: N exec/s E oom/timeout/crash: O/T/C ..."
	last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1)
	runs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
	cov=$(sed -E 's/.* cov: ([0-9]+) .*/\1/' <<<"$last")
	files=$(find "$work/corpus/$name" -type f | wc -l)
	bytes=$(du -sb "$work/corpus/$name" | cut -f1)
	n=0
	for kind in crash leak timeout oom; do
		k=$(find "$work/artifacts" -name "$name-$kind-*" | wc -l)
		n=$((n + k))
		eval "n_$kind=$k"
	done
	found=$((found + n))
	fmt='%-8s %12s runs %6s s  cov %5s  corpus %5s inputs %9s bytes'
	fmt+='  crash %s leak %s timeout %s oom %s  (rc %s)'
	summary+=("$(printf "$fmt" \
		"$name" "${runs:-?}" "$(($(date +%s) - start))" "${cov:-?}" "$files" "$bytes" \
		"$n_crash" "$n_leak" "$n_timeout" "$n_oom" "$rc")")
	echo "${summary[-1]}"
done
echo "finished $(date -u +%FT%TZ)"
echo
echo "summary"
printf '%s\n' "${summary[@]}"
if [ "$found" -gt 0 ]; then
	echo
	echo "findings ($found), each with its first report line when replayed:"
	for f in "$work"/artifacts/*; do
		[ -e "$f" ] || continue
		name=${f##*/}
		name=${name%%-*}
		echo "  $f"
		# Fork mode does not log what the workers saw: replay the input alone.
		tmp=$(mktemp -d)
		TMPDIR=$tmp timeout 120 "$work/bin/fuzz-$name" "$f" 2>&1 |
			grep -m 1 -E 'contract broken|ERROR: |runtime error' | sed 's/^/    /'
		rm -rf "$tmp"
	done
	exit 1
fi
echo "no findings"
