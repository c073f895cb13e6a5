#!/usr/bin/env bash
# Platform profiles from the command line (docs/platforms.md): listing, detection on simulated
# machines, per-platform prompts and task filters, bad --platform values; and `kgb compare`, the
# task x platform matrix, against hand-computed retention and speedup ratios.
. "$(dirname "$0")/lib.sh"

probe() { printf '%s' "$1" >"$TMP/probe.json" && "$KGB" platforms --detect --probe "$TMP/probe.json"; }

test_expect_success 'platforms lists every profile, verified or not' '
	"$KGB" platforms >"$TMP/p" &&
	for n in nvidia-ampere nvidia-hopper nvidia-blackwell amd-cdna3 intel-xpu interpreter \
		huawei-ascend moore-threads-musa hygon-dcu iluvatar-corex metax-maca; do
		grep -q "^$n " "$TMP/p" || return 1
	done &&
	grep -q "^nvidia-hopper .*verified .*(default)" "$TMP/p" &&
	"$KGB" platforms --json >"$TMP/pj" &&
	test "$(json_eval "$TMP/pj" "sorted(r[\"name\"] for r in recs if r[\"runnable\"])")" = "['"'"'iluvatar-corex'"'"', '"'"'interpreter'"'"', '"'"'metax-maca'"'"', '"'"'nvidia-ampere'"'"', '"'"'nvidia-blackwell'"'"', '"'"'nvidia-hopper'"'"']" &&
	test "$(json_eval "$TMP/pj" "sum(not r[\"verified\"] for r in recs)")" = 9
'
test_expect_success 'detection on simulated machines' '
	probe "{\"backend\": \"cuda\", \"capability\": \"9.0\"}" | grep -q "^nvidia-hopper (runtime cuda, verified)" &&
	probe "{\"backend\": \"cuda\", \"capability\": \"8.6\"}" | grep -q "^nvidia-ampere (runtime cuda, unverified)" &&
	probe "{\"backend\": \"cuda\", \"capability\": \"10.0\"}" | grep -q "^nvidia-blackwell" &&
	probe "{\"backend\": \"hip\", \"arch\": \"gfx942:sramecc+\"}" | grep -q "^amd-cdna3 .*cannot evaluate on it yet" &&
	probe "{\"backend\": \"xpu\"}" | grep -q "^intel-xpu" &&
	probe "{\"backend\": \"cpu\"}" | grep -q "^interpreter" &&
	probe "{\"backend\": \"cuda\", \"capability\": \"9.0\", \"device_name\": \"NVIDIA H200\"}" | grep -q "^nvidia-hopper (runtime cuda, verified)" &&
	probe "{\"backend\": \"npu\", \"device_name\": \"Ascend910B2\"}" | grep -q "^huawei-ascend (runtime npu, unverified; kgb cannot evaluate on it yet)" &&
	probe "{\"backend\": \"musa\"}" | grep -q "^moore-threads-musa (runtime musa, unverified; kgb cannot" &&
	probe "{\"backend\": \"hip\", \"arch\": \"gfx928\", \"device_name\": \"DCU K100_AI\"}" | grep -q "^hygon-dcu (runtime rocm, unverified; kgb cannot" &&
	probe "{\"backend\": \"cuda\", \"capability\": \"8.0\", \"device_name\": \"Iluvatar BI-V150\"}" | grep -q "^iluvatar-corex (runtime cuda, unverified)" &&
	probe "{\"backend\": \"cuda\", \"device_name\": \"MetaX C500\"}" | grep -q "^metax-maca (runtime cuda, unverified)" &&
	expect_status 1 probe "{\"backend\": \"cuda\", \"capability\": \"7.0\"}" >"$TMP/o" &&
	grep -q "no profile matches" "$TMP/o" &&
	printf "{oops" >"$TMP/bad.json" &&
	expect_status 3 "$KGB" platforms --detect --probe "$TMP/bad.json" 2>"$TMP/e" && grep -q "bad.json:1:" "$TMP/e"
'
test_expect_success 'prompts and task lists follow the profile' '
	"$KGB" show --platform amd-cdna3 add >"$TMP/s" && grep -q "## Platform: amd-cdna3" "$TMP/s" &&
	grep -q "wavefront has 64 lanes" "$TMP/s" &&
	"$KGB" show --platform cuda add | grep -q "## Platform: nvidia-hopper" &&
	"$KGB" list --platform intel-xpu --json >"$TMP/l" &&
	test "$(json_eval "$TMP/l" "sorted({r[\"source\"] for r in recs})")" = "['"'"'aten'"'"']" &&
	expect_status 2 "$KGB" show --platform bogus add 2>"$TMP/e" &&
	grep -q "unknown platform .bogus. (profiles: amd-cdna3, huawei-ascend, hygon-dcu, iluvatar-corex, intel-xpu, interpreter, metax-maca, moore-threads-musa, nvidia-ampere" "$TMP/e" &&
	expect_status 4 "$KGB" --tasks "$FIXTURES/tasks" eval --platform amd-cdna3 2>"$TMP/e" &&
	grep -q "platform .amd-cdna3. has no worker runtime in kgb yet" "$TMP/e" &&
	expect_status 4 "$KGB" --tasks "$FIXTURES/tasks" eval --platform huawei-ascend 2>"$TMP/e" &&
	grep -q "platform .huawei-ascend. has no worker runtime in kgb yet (runtime .npu." "$TMP/e" &&
	expect_status 4 "$KGB" --tasks "$FIXTURES/tasks" eval --platform moore-threads-musa 2>"$TMP/e" &&
	grep -q "platform .moore-threads-musa. has no worker runtime in kgb yet (runtime .musa." "$TMP/e" &&
	"$KGB" show --platform metax-maca add | grep -q "A warp has 64 threads" &&
	"$KGB" list --platform huawei-ascend --json >"$TMP/l" &&
	test "$(json_eval "$TMP/l" "sorted({r[\"source\"] for r in recs})")" = "['"'"'aten'"'"']"
'
test_expect_success 'compare: the task x platform matrix and what each platform retains' '
	"$KGB" --tasks "$FIXTURES/gen-tasks" eval --platform interpreter --store "$TMP/a.db" >/dev/null &&
	cp "$TMP/a.db" "$TMP/b.db" &&
	"$ROOT/.venv/bin/python" - "$TMP/a.db" "$TMP/b.db" <<-PY &&
	import json, sqlite3, sys
	a, b = (sqlite3.connect(p) for p in sys.argv[1:3])
	b.execute("UPDATE runs SET platform = ?, env = ?",
	          ("cuda", json.dumps({"profile": {"name": "nvidia-hopper"}})))
	b.execute("UPDATE evaluations SET verdict = ? WHERE task = ?", ("mismatch", "shift"))
	b.execute("UPDATE evaluations SET speedup = 2.0 WHERE task = ?", ("scale",))
	a.execute("UPDATE evaluations SET speedup = 0.5 WHERE task = ?", ("scale",))
	a.commit()
	b.commit()
	PY
	"$KGB" compare "$TMP/a.db" "$TMP/b.db:1" >"$TMP/c" && cat "$TMP/c" &&
	grep -q "^aten/scale .*pass 0.50x .*pass 2.00x" "$TMP/c" &&
	grep -q "^aten/shift .*pass .*mismatch" "$TMP/c" &&
	grep -q "^nvidia-hopper .*of the 2 tasks passing on interpreter and run here, 1 pass (50.0% retained); speedup relative to interpreter: geomean 4.000x over 1 tasks" "$TMP/c" &&
	"$KGB" compare --json "$TMP/a.db" "$TMP/b.db" >"$TMP/cj" &&
	test "$(json_eval "$TMP/cj" "recs[-1][\"retained\"]")" = 0.5 &&
	expect_status 2 "$KGB" compare "$TMP/a.db" 2>"$TMP/e" && grep -q "at least two runs" "$TMP/e" &&
	expect_status 3 "$KGB" compare "$TMP/a.db" "$TMP/a.db:x" 2>"$TMP/e" && grep -q "expected STORE or STORE:RUN" "$TMP/e"
'
test_done
