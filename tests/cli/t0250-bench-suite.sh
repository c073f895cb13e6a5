#!/usr/bin/env bash
# bench/suite.sh, issue 5's benchmarks 1 and 2 in one command: the selection cold, then warm
# from the kept Triton caches into a fresh store, each run split by phase, then the precision
# comparison (which on the interpreter has no speedups to compare).
. "$(dirname "$0")/lib.sh"

test_expect_success 'bench/suite.sh: a cold and a warm run, each split by phase' '
	KGB="$KGB" OUT="$TMP/suite" bash "$ROOT/bench/suite.sh" --task aten/zeros >"$TMP/out" &&
	cat "$TMP/out" &&
	grep -q "^cold: kgb eval exit status 0, [0-9]* s$" "$TMP/out" &&
	grep -q "^warm: kgb eval exit status 0, [0-9]* s$" "$TMP/out" &&
	test "$(grep -c "^chunk 1: 1 tasks checked in" "$TMP/out")" = 2 &&
	test "$(grep -c "^checked-only cases: [1-9]" "$TMP/out")" = 2 &&
	grep -q "^no task with a speedup in both stores$" "$TMP/out" &&
	grep -Eq "^aten/zeros +shipped +pass" "$TMP/suite/eval-cold.txt" &&
	grep -Eq "^aten/zeros +shipped +pass" "$TMP/suite/eval-warm.txt" &&
	ls "$TMP/suite/cache" | grep -Eq "^triton-[0-9a-f]{64}$"
'
test_expect_success 'a failing kgb stops it with kgb'"'"'s status' '
	expect_status 2 env KGB="$KGB" OUT="$TMP/suite2" bash "$ROOT/bench/suite.sh" --no-such-option &&
	grep -q "^cold: kgb eval exit status 2" "$TMP/suite2/summary.txt"
'

test_done
