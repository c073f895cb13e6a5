#!/usr/bin/env bash
# Methods (docs/methods.md): a library's kernels judged as candidates, on the interpreter.
# Liger-Kernel's embedding passes aten/embedding (its grid cut to 8 cases) through every check;
# FlagGems is reached in its runner and does not import there, for the reason its table notes;
# the library's import is allowed to kgb's own method candidates only: a --solutions copy of
# one (which must not reuse the method's stored pass) and a candidate importing flag_gems are
# L1 hacks, and the workers of other runs do not see the libraries at all.
. "$(dirname "$0")/lib.sh"

M=$ROOT/build/methods
mkdir -p "$TMP/cat/aten" "$TMP/sol/embedding"
cp -r "$ROOT/tasks/aten/embedding" "$ROOT/tasks/aten/cosh" "$TMP/cat/aten/"
# The real tasks, each axis cut to a few values: the same entries, reference and checks.
"$ROOT/.venv/bin/python" - "$TMP/cat/aten" <<'PY'
import json, sys
keep = {"dtype": ["float32", "float16"], "layout": ["contiguous", "transposed"],
        "index_dtype": ["int64"]}
for op in ("embedding", "cosh"):
    path = f"{sys.argv[1]}/{op}/task.json"
    t = json.load(open(path))
    for axes in [t.get("axes") or {}] + [e.get("axes") or {} for e in t["entries"]]:
        for k, v in axes.items():
            axes[k] = keep.get(k, v[:2] if op == "embedding" else v[:1])
    json.dump(t, open(path, "w"), indent=1)
PY
ev() { "$KGB" --tasks "$TMP/cat" eval --platform interpreter -j 2 --timeout 120 --json "$@"; }
# The field $2 of each candidate's record in $1, space-separated.
field() {
	json_eval "$1" "' '.join(str(r[\"$2\"]) for r in recs if r[\"schema\"] == \"kgb.eval.v1\")"
}

test_expect_success 'the methods libraries are installed (scripts/methods.sh)' '
	test -d "$M/liger/lib/liger_kernel" && test -d "$M/flaggems/lib/flag_gems"
'
test_expect_success 'kgb methods: each method, its installed version and coverage' '
	"$KGB" methods >"$TMP/m" &&
	grep -E "^flaggems +flag-gems 5\.0\.2 +5\.0\.2 .* interpreter$" "$TMP/m" &&
	grep -E "^liger +liger-kernel 0\.8\.5 +0\.8\.5 " "$TMP/m" &&
	"$KGB" methods --json >"$TMP/mj" &&
	test "$(json_eval "$TMP/mj" "[r[\"covered\"][\"aten\"] for r in recs if r[\"method\"] == \"liger\"]")" = "[2]"
'
test_expect_success 'kgb methods NAME: what each task calls, or why not' '
	"$KGB" methods liger >"$TMP/l" &&
	grep -E "^aten/embedding +yes +embedding: return liger\.LigerEmbeddingFunction" "$TMP/l" &&
	grep -E "^aten/_softmax +no +half_to_float=True" "$TMP/l" &&
	grep -E "^  vllm/rms_norm, interpreter: .*eps\.to" "$TMP/l" &&
	"$KGB" methods flaggems --source aten --json >"$TMP/fj" &&
	test "$(json_eval "$TMP/fj" "len(recs)")" = 110 &&
	json_eval "$TMP/fj" "[r[\"why\"] for r in recs if r[\"task\"] == \"aten/add\"][0]" |
		grep -q "registers no kernel for add.out, add.Scalar"
'
test_expect_success 'unknown method and --method with --solutions are usage errors' '
	expect_status 2 "$KGB" methods nosuch &&
	expect_status 2 "$KGB" eval --method nosuch --platform interpreter &&
	expect_status 2 "$KGB" eval --method liger --solutions "$TMP/sol"
'
test_expect_success 'Liger-Kernel passes aten/embedding: its kernel, judged like a candidate' '
	ev --method liger >"$TMP/r" 2>"$TMP/e" &&
	grep -q "method liger (liger-kernel 0.8.5) covers 1 of the 2 selected tasks" "$TMP/e" &&
	test "$(field "$TMP/r" verdict)" = pass &&
	test "$(field "$TMP/r" sample)" = liger &&
	test "$(field "$TMP/r" cases_passed)" = 8 &&
	grep -q "^import liger_kernel.ops as liger$" "$M/liger/candidates/aten/embedding/liger.py"
'
test_expect_success 'the run is labelled with the method in reports' '
	"$KGB" export --format csv >"$TMP/csv" &&
	grep -q ",liger (liger-kernel 0.8.5),interpreter,aten,embedding,liger,pass," "$TMP/csv"
'
test_expect_success 'FlagGems is reached and does not import under the interpreter' '
	ev --method flaggems >"$TMP/f" 2>"$TMP/e" &&
	test "$(field "$TMP/f" verdict)" = "import_error import_error" &&
	field "$TMP/f" detail | grep -q "has no attribute .fn." &&
	"$KGB" methods flaggems | grep -q "every task, interpreter: .*LibEntry"
'
test_expect_success 'a --solutions copy of the method candidate is an L1 hack, not the stored pass' '
	cp "$M/liger/candidates/aten/embedding/liger.py" "$TMP/sol/embedding/copy.py" &&
	printf "import flag_gems\n\n\ndef cosh(self):\n    return flag_gems.cosh(self)\n" \
		>"$TMP/sol/cosh.py" &&
	ev --solutions "$TMP/sol" >"$TMP/s" &&
	test "$(field "$TMP/s" verdict)" = "hack hack" &&
	field "$TMP/s" detail | grep -q "import of .flag_gems." &&
	field "$TMP/s" detail | grep -q "import of .liger_kernel.ops." &&
	test "$(json_eval "$TMP/s" "recs[-1][\"reused\"]")" = 0
'
test_expect_success 'the workers of other runs do not see the libraries' '
	expect_fail "$KGB" sandbox-exec -- test -e "$M/liger/lib/liger_kernel/__init__.py" &&
	"$KGB" sandbox-exec -- test -e "$ROOT/runtime/runner.py"
'
test_done
