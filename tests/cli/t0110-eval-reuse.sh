#!/usr/bin/env bash
# Results are content-addressed: a second identical run reuses them and says so; a changed
# candidate is evaluated again; --force re-evaluates.
. "$(dirname "$0")/lib.sh"

ev() { "$KGB" --tasks "$FIXTURES/tasks" eval --platform interpreter -j 2 "$@"; }

test_expect_success 'first run evaluates' '
	ev --json >"$TMP/a" &&
	test "$(json_eval "$TMP/a" "recs[-1][\"evaluated\"], recs[-1][\"reused\"]")" = "(1, 0)"
'
test_expect_success 'second run reuses the stored result and says so' '
	ev --json >"$TMP/b" &&
	test "$(json_eval "$TMP/b" "recs[-1][\"evaluated\"], recs[-1][\"reused\"]")" = "(0, 1)" &&
	test "$(json_eval "$TMP/a" "recs[0][\"key\"]")" = "$(json_eval "$TMP/b" "recs[0][\"key\"]")" &&
	ev >"$TMP/t" && grep -q "\[stored\]" "$TMP/t" && grep -q "1 reused from the store" "$TMP/t"
'
test_expect_success 'a changed candidate is evaluated again' '
	mkdir -p "$TMP/sol" && cp "$FIXTURES/tasks/aten/scale/solution.py" "$TMP/sol/scale.py" &&
	ev --solutions "$TMP/sol" --json >"$TMP/c" &&
	echo "# changed" >>"$TMP/sol/scale.py" &&
	ev --solutions "$TMP/sol" --json >"$TMP/d" &&
	test "$(json_eval "$TMP/d" "recs[-1][\"evaluated\"]")" = 1
'
test_expect_success 'another seed is another result' '
	ev --seed 7 --json >"$TMP/e" && test "$(json_eval "$TMP/e" "recs[-1][\"evaluated\"]")" = 1
'
test_expect_success '--force re-evaluates' '
	ev --force --json >"$TMP/f" && test "$(json_eval "$TMP/f" "recs[-1][\"evaluated\"]")" = 1
'
test_expect_success 'the store holds one evaluation row per key and its cases' '
	test "$(sqlite3 "$KGB_STORE" "select count(*) from evaluations where task = \"scale\"")" = 3 &&
	test "$(sqlite3 "$KGB_STORE" "select count(distinct eval_key) from cases")" = 3
'
test_expect_success 'two samples with the same bytes are one evaluation but two samples' '
	mkdir -p "$TMP/dup/scale" &&
	cp "$FIXTURES/tasks/aten/scale/solution.py" "$TMP/dup/scale/a.py" &&
	cp "$FIXTURES/tasks/aten/scale/solution.py" "$TMP/dup/scale/b.py" &&
	ev --solutions "$TMP/dup" --seed 11 --json >"$TMP/g" &&
	test "$(json_eval "$TMP/g" "\",\".join(r[\"sample\"] for r in recs[:-1])")" = "a,b" &&
	test "$(json_eval "$TMP/g" "recs[-1][\"total\"], recs[-1][\"evaluated\"], recs[-1][\"reused\"]")" = "(2, 1, 1)"
'
test_expect_success '--heldout adds the held-out cases and is a separate result' '
	ev --seed 5 --json >"$TMP/h0" &&
	ev --seed 5 --heldout --json >"$TMP/h1" &&
	test "$(json_eval "$TMP/h0" "recs[0][\"cases_total\"]")" = 28 &&
	test "$(json_eval "$TMP/h1" "recs[0][\"cases_total\"]")" = 38 &&
	test "$(json_eval "$TMP/h1" "recs[0][\"verdict\"]")" = pass &&
	test "$(json_eval "$TMP/h1" "recs[-1][\"evaluated\"]")" = 1
'
test_done
