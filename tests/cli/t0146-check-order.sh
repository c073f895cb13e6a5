#!/usr/bin/env bash
# Checking jobs start longest first: a task's longest stored wall time where the store has one
# (else a guess from its cases), so the slowest candidates do not start last and hold the
# phase open while the other slots idle.
. "$(dirname "$0")/lib.sh"

# Prints the tasks in the order their checking jobs ended (one slot: the order they started).
# $1: the store (default o.db); more arguments go to kgb eval.
order() {
	local db=${1:-$TMP/o.db}
	[ $# -eq 0 ] || shift
	"$KGB" -v eval --platform interpreter -j 1 --force --store "$db" "$@" \
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
test_expect_success '--history: another store'"'"'s wall times order a store without any' '
	set_wall item 1000 && set_wall empty_strided 90000 &&
	rm -f "$TMP/fresh.db" &&
	test "$(order "$TMP/fresh.db" --history "$TMP/o.db")" = "empty_strided item " &&
	set_wall item 90000 && set_wall empty_strided 1000 &&
	rm -f "$TMP/fresh.db" &&
	test "$(order "$TMP/fresh.db" --history "$TMP/o.db")" = "item empty_strided "
'
test_expect_success '--history is read, never written' '
	sum=$(cksum <"$TMP/o.db") &&
	rm -f "$TMP/fresh.db" && order "$TMP/fresh.db" --history "$TMP/o.db" >/dev/null &&
	test "$(cksum <"$TMP/o.db")" = "$sum"
'
test_expect_success '--history: a missing file or one that is not a store is an error' '
	expect_status 2 "$KGB" eval --platform interpreter --task aten/item --store "$TMP/x.db" \
		--history "$TMP/none.db" 2>"$TMP/e1" &&
	grep -q "kgb eval: --history: cannot open store .*none.db" "$TMP/e1" &&
	echo "not sqlite" >"$TMP/junk.db" &&
	expect_status 3 "$KGB" eval --platform interpreter --task aten/item --store "$TMP/x.db" \
		--history "$TMP/junk.db" 2>"$TMP/e2" &&
	grep -q "kgb eval: --history: .*junk.db. is not a kgb store" "$TMP/e2"
'
test_expect_success '--history: a store of another schema is an error, as for --store' '
	cp "$TMP/o.db" "$TMP/old.db" &&
	sqlite3 "$TMP/old.db" "update meta set value = 999 where key = \"schema\"" &&
	expect_status 3 "$KGB" eval --platform interpreter --task aten/item --store "$TMP/x.db" \
		--history "$TMP/old.db" 2>"$TMP/e3" &&
	grep -q "kgb eval: --history: store .*old.db. has schema 999, this kgb reads" "$TMP/e3" &&
	expect_status 3 "$KGB" eval --platform interpreter --task aten/item --store "$TMP/old.db" \
		2>"$TMP/e4" &&
	grep -q "store .*old.db. has schema 999, this kgb reads" "$TMP/e4"
'
test_done
