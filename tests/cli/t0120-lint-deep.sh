#!/usr/bin/env bash
# lint --deep: an honest task kills every mutant and has an informative reference; a task with
# a degenerate reference is reported, and its zeroing mutant survives.
. "$(dirname "$0")/lib.sh"

test_expect_success 'the fixture task kills every mutant' '
	"$KGB" --tasks "$FIXTURES/tasks" lint --deep --json >"$TMP/d" &&
	json_eval "$TMP/d" "recs" &&
	test "$(json_eval "$TMP/d" "[r for r in recs if r.get(\"schema\") == \"kgb.lint.deep.v1\"][0][\"killed\"]")" = 6 &&
	test "$(json_eval "$TMP/d" "[r for r in recs if r.get(\"schema\") == \"kgb.lint.deep.v1\"][0][\"base\"]")" = pass &&
	test "$(json_eval "$TMP/d" "[r for r in recs if r.get(\"schema\") == \"kgb.lint.deep.v1\"][0][\"validity\"][\"degenerate\"]")" = 0
'
test_expect_success 'a degenerate reference is a finding and lets the zero mutant survive' '
	expect_status 1 "$KGB" --tasks "$FIXTURES/degenerate" lint --deep >"$TMP/o" &&
	grep -q "degenerate reference in" "$TMP/o" &&
	grep -q "mutant .zero. survives" "$TMP/o"
'
test_expect_success 'an exemption with a reason silences a check' '
	mkdir -p "$TMP/ex/aten" && cp -r "$FIXTURES/degenerate/aten/scale" "$TMP/ex/aten/" &&
	sed -i "s/\"schema\": 1,/\"schema\": 1, \"exempt\": {\"validity\": \"the fixture is constant on purpose\", \"zero\": \"the output is all zeros by definition\"},/" "$TMP/ex/aten/scale/task.json" &&
	"$KGB" --tasks "$TMP/ex" lint --deep >"$TMP/o2" &&
	grep -q " E " "$TMP/o2"
'
test_expect_success 'an exemption needs a known check and a reason' '
	mkdir -p "$TMP/ex2/aten" && cp -r "$FIXTURES/tasks/aten/scale" "$TMP/ex2/aten/" &&
	sed -i "s/\"schema\": 1,/\"schema\": 1, \"exempt\": {\"bogus\": \"x\"},/" "$TMP/ex2/aten/scale/task.json" &&
	expect_status 1 "$KGB" --tasks "$TMP/ex2" lint >"$TMP/o3" &&
	grep -q "exempt: unknown check .bogus." "$TMP/o3"
'
# Two entries: `scale` (y = 2x, checkable) and `zeros` (degenerate: its reference and solution
# give zeros). Mutants are judged per entry, so the zero mutant survives in `zeros` even though
# `scale` kills it, until that entry says why.
two_entries() { # two_entries DIR ZEROS_EXTRA: the task, with ZEROS_EXTRA in the zeros entry
	local d=$1/aten/scale
	mkdir -p "$d" && cp "$FIXTURES"/tasks/aten/scale/prompt.md "$d"/ &&
	cat "$FIXTURES"/tasks/aten/scale/reference.py >"$d/reference.py" &&
	printf '\n\ndef zeros(self):\n    return torch.zeros_like(self)\n' >>"$d/reference.py" &&
	sed "s/^def scale(/def zeros(/; /^import/d" "$FIXTURES"/degenerate/aten/scale/solution.py >"$d/z.py" &&
	cat "$FIXTURES"/tasks/aten/scale/solution.py "$d/z.py" >"$d/solution.py" && rm "$d/z.py" &&
	cat >"$d/task.json" <<-EOF
	{"schema": 1, "op": "scale", "source": "aten",
	 "axes": {"shape": [[7], [1000], [33, 65], [0], [3, 1]], "dtype": ["float32"], "layout": ["strided"]},
	 "heldout": {"shape": [[11, 13]]},
	 "entries": [
	  {"name": "scale", "signature": "scale(Tensor self) -> Tensor",
	   "args": [{"name": "self", "tensor": {"shape": "\$shape", "dtype": "\$dtype", "layout": "\$layout"}}]},
	  {"name": "zeros", "signature": "zeros(Tensor self) -> Tensor",
	   "args": [{"name": "self", "tensor": {"shape": "\$shape", "dtype": "\$dtype"}}]$2}]}
	EOF
}
test_expect_success 'mutants and validity are judged per entry' '
	two_entries "$TMP/pe" "" &&
	expect_status 1 "$KGB" --tasks "$TMP/pe" lint --deep >"$TMP/o4" &&
	grep -q "mutant .zero. survives in zeros:" "$TMP/o4" &&
	grep -q "no informative case in zeros" "$TMP/o4" &&
	! grep -q "mutant .tail. survives" "$TMP/o4"
'
# With the exemption the zero mutant counts as killed (scale kills it, zeros need not), and the
# zeros cases are skipped by the validity check instead of judged degenerate (5, with scale's
# empty case: 6).
test_expect_success 'an entry exemption silences a check for that entry' '
	two_entries "$TMP/pe2" ", \"exempt\": {\"zero\": \"the output is zeros by definition\", \"validity\": \"the output is zeros whatever the input\"}" &&
	"$KGB" --tasks "$TMP/pe2" lint --deep --json >"$TMP/d2" &&
	rec="[r for r in recs if r.get(\"schema\") == \"kgb.lint.deep.v1\"][0]" &&
	test "$(json_eval "$TMP/d2" "$rec[\"mutants\"][\"zero\"]")" = killed &&
	test "$(json_eval "$TMP/d2" "$rec[\"killed\"]")" = 6 &&
	test "$(json_eval "$TMP/d2" "($rec[\"validity\"][\"degenerate\"], $rec[\"validity\"][\"skipped\"])")" = "(0, 6)" &&
	! grep -q "finding" "$TMP/d2"
'
# lint --deep runs shipped solutions in eval's workers: the runner sees neither the catalog nor
# the task's reference (the task below lets its solution use os; it answers wrong, and says so
# on stderr, when it can see its reference.py).
test_expect_success 'a shipped solution run by lint --deep cannot see its task directory' '
	d=$TMP/peek/aten/scale && mkdir -p "$TMP/peek/aten" && cp -r "$FIXTURES/tasks/aten/scale" "$TMP/peek/aten/" &&
	sed -i "s/\"schema\": 1,/\"schema\": 1, \"allow\": [\"os\", \"path\", \"exists\", \"print\"],/" "$d/task.json" &&
	sed -i "s/^import torch$/import os\nimport torch/; s/x \* 2, mask/x * FACTOR, mask/" "$d/solution.py" &&
	sed -i "s/^def scale(self: torch.Tensor) -> torch.Tensor:$/&\n    seen = os.path.exists(\"$(echo "$d" | sed "s/[\/&]/\\\\&/g")\/reference.py\")\n    print(\"peek: reference.py\", \"visible\" if seen else \"hidden\")/" "$d/solution.py" &&
	sed -i "s/^        _scale\[(triton.cdiv(x.numel(), 256),)\](x, y, x.numel(), BLOCK=256)$/        _scale[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256, FACTOR=3 if seen else 2)/; s/BLOCK: tl.constexpr):/BLOCK: tl.constexpr, FACTOR: tl.constexpr):/" "$d/solution.py" &&
	"$KGB" -vv --tasks "$TMP/peek" lint --deep --json >"$TMP/d3" 2>"$TMP/e3" &&
	test "$(json_eval "$TMP/d3" "[r for r in recs if r.get(\"schema\") == \"kgb.lint.deep.v1\"][0][\"base\"]")" = pass
'
# On cuda, lint --deep takes eval's slots and a GPU per slot from the platform probe (src/platform.h
# platform_check_slots, unit-tested in tests/unit/t-platform.c); where the probe sees no GPU it
# stops with an environment error instead of starting workers that cannot run.
test_expect_success 'lint --deep on cuda without a GPU: exit 4, the probe says why' '
	if "$ROOT/.venv/bin/python" -m runtime.platform 2>/dev/null | grep -q "\"cuda\": true"; then
		echo "a GPU is present: nothing to check here"; return 0
	fi
	expect_status 4 "$KGB" lint --deep --platform cuda add 2>"$TMP/e4" &&
	grep -q "platform cuda: the probe sees no CUDA device" "$TMP/e4"
'
test_done
