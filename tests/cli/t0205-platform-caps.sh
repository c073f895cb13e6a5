#!/usr/bin/env bash
# Honest kernels never fail for the platform's bugs: on Triton's CPU interpreter, whose profile
# says bf16 false, bfloat16 cases are not run (counted apart, not failed), and a multi-config
# @triton.autotune kernel runs with its first config. The fixture multiplies in the inputs' own
# dtype and is autotuned (tests/cli/fixtures/platform-caps/mul/native_autotuned.py).
. "$(dirname "$0")/lib.sh"

SOL=$FIXTURES/platform-caps
# The task mul as shipped (spec, reference, prompt), its grid cut to the small shapes and two
# layouts, so that the test costs seconds: what it shows does not depend on the sizes.
mkdir -p "$TMP/cat/aten"
cp -r "$ROOT/tasks/aten/mul" "$TMP/cat/aten/"
"$ROOT/.venv/bin/python" - "$TMP/cat/aten/mul/task.json" <<'PY'
import json, math, sys
t = json.load(open(sys.argv[1]))
t["axes"]["layout"] = t["axes"]["layout"][:2]
small = lambda v: math.prod(v) < 50000 if isinstance(v, list) and all(
    isinstance(x, int) for x in v) else all(small(x) for x in v.values())
for e in t["entries"]:
    for k in ("shapes", "shape"):
        if k in e.get("axes", {}):
            e["axes"][k] = [v for v in e["axes"][k] if small(v)]
json.dump(t, open(sys.argv[1], "w"))
PY

test_expect_success 'on the interpreter it passes, its bfloat16 cases counted as not run' '
	"$KGB" --tasks "$TMP/cat" eval --platform interpreter --task mul --solutions "$SOL" --json >"$TMP/r" &&
	test "$(json_eval "$TMP/r" "recs[0][\"verdict\"]")" = pass &&
	test "$(json_eval "$TMP/r" "recs[0][\"cases_skipped\"] > 0 and recs[0][\"cases_passed\"] == recs[0][\"cases_total\"]")" = True &&
	test "$(json_eval "$TMP/r" "recs[-1][\"cases_skipped\"] == recs[0][\"cases_skipped\"]")" = True &&
	json_eval "$TMP/r" "recs[0][\"detail\"]" | grep -q "bfloat16 cases not run"
'
test_expect_success 'no case of the run has a bfloat16 argument' '
	sqlite3 "$KGB_STORE" "select count(*) from cases where axes like \"%bfloat16%\"" >"$TMP/n" &&
	test "$(cat "$TMP/n")" = 0
'
test_expect_success 'the table counts them apart, and kgb report shows the same' '
	"$KGB" --tasks "$TMP/cat" report >"$TMP/t" &&
	grep "native_autotuned" "$TMP/t" | grep -q "pass .* +[0-9]" &&
	grep -q "cases not run: the platform cannot judge them" "$TMP/t"
'
test_expect_success 'the interpreter prompt tells the model' '
	"$KGB" show mul --platform interpreter >"$TMP/p" &&
	grep -q "bfloat16 cases are not run here" "$TMP/p" &&
	grep -q "first config only" "$TMP/p"
'
# A root of its own (a copy, not links: the workers see only what lies below the visible
# paths, and a link's target below /root or /home is hidden from them).
test_expect_success 'with bf16 declared supported, the same kernel fails its bfloat16 cases only' '
	R=$TMP/root && mkdir -p "$R/platforms" &&
	cp -r "$ROOT/runtime" "$R/" &&
	cp "$ROOT"/platforms/*.json "$R/platforms/" &&
	sed -i "s/\"bf16\": false/\"bf16\": true/" "$R/platforms/interpreter.json" &&
	KGB_ROOT=$R KGB_PYTHON=$ROOT/.venv/bin/python "$KGB" --tasks "$TMP/cat" eval \
		--platform interpreter --task mul --solutions "$SOL" \
		--store "$TMP/bf16.db" --json >"$TMP/b" &&
	test "$(json_eval "$TMP/b" "recs[0][\"verdict\"]")" = mismatch &&
	sqlite3 "$TMP/bf16.db" "select axes from cases where verdict != \"pass\"" >"$TMP/bad" &&
	test -s "$TMP/bad" && ! grep -v bfloat16 "$TMP/bad"
'
test_expect_success 'a store of schema 1 (no cases_skipped) is migrated in place when opened' '
	cp "$KGB_STORE" "$TMP/old.db" &&
	sqlite3 "$TMP/old.db" "alter table evaluations drop column cases_skipped;
		update meta set value = 1 where key = \"schema\"" &&
	"$KGB" report --store "$TMP/old.db" --json >"$TMP/o" &&
	test "$(json_eval "$TMP/o" "recs[0][\"cases_skipped\"]")" = 0 &&
	test "$(sqlite3 "$TMP/old.db" "select value from meta where key = \"schema\"")" = 2 &&
	"$KGB" --tasks "$TMP/cat" eval --platform interpreter --task mul --solutions "$SOL" --store "$TMP/old.db" \
		--history "$TMP/old.db" --json >/dev/null
'
test_done
