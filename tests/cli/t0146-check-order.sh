#!/usr/bin/env bash
# Checking jobs start longest first: a task's longest stored wall time where the store has one
# (else a guess from its cases), so the slowest candidates do not start last and hold the
# phase open while the other slots idle.
. "$(dirname "$0")/lib.sh"

# Prints the tasks in the order their checking jobs ended (one slot: the order they started).
order() {
	"$KGB" -v eval --platform interpreter -j 1 --force --store "$TMP/o.db" \
		--task aten/item --task aten/empty_strided 2>&1 >/dev/null |
		sed -n "s/^\[[0-9]*\/2 [^]]*\] aten\/\([a-z_]*\) .*/\1/p" | tr "\n" " "
}
set_wall() { # $1: task, $2: ms
	sqlite3 "$TMP/o.db" "update evaluations set wall_ms = $2 where task = \"$1\""
}

test_expect_success 'the task that took longest before is checked first' '
	order >/dev/null &&
	set_wall item 90000 && set_wall empty_strided 1000 &&
	test "$(order)" = "item empty_strided " &&
	set_wall item 1000 && set_wall empty_strided 90000 &&
	test "$(order)" = "empty_strided item "
'
test_done
