#!/usr/bin/env bash
# The trust boundary on the GPU (issue 30), in one device-tool call:
#
#   run(command="bash bench/gpu-boundary.sh", carry=["build/kgb"], timeout_s=560)
#
# 1. boundary: tests/hacks/boundary (forged protocol lines, a forged environment error, a
#    replaced checker, zeroed data, the honest control) and tests/hacks/boundary-gpu
#    (forged times) on the fixture task `scale`, given a timed 16384x16384 case and the
#    allowances that let the attacks past L1; each attack must fail, the control pass.
#    Then tests/cli/fixtures/platform-caps (an autotuned kernel multiplying in bfloat16) on
#    the real task mul: every case must pass on the GPU.
# 2. suite: the shipped solutions of tasks/demo.txt and the heavier ATen tasks of
#    KGB_BOUNDARY_MORE, checked and timed through judge and runner; their speedups beside the
#    last recorded ones (bench/results/h200-2026-12-04e, one process per job), and the harness
#    overhead (bench/throughput.py).
# Everything under $OUT: boundary.jsonl, boundary.txt, suite.jsonl, suite.db, suite.txt (the
# table, the comparison, the overhead), progress.txt. KGB_BOUNDARY_SUITE=0 stops after step 1
# (the suite then runs whole, through bench/gpu-session.sh).
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
export KGB_PYTHON=${KGB_PYTHON:-python3} PYTHONUNBUFFERED=1
budget=${KGB_CALL_S:-540}
log() { echo "[$SECONDS s] $*" | tee -a "$out/boundary.txt"; }
{
	date -u +%FT%TZ
	build/kgb --version
	nvidia-smi -L
} >>"$out/boundary.txt" 2>&1

# 1. The attacks.
cat=$(mktemp -d) sol=$(mktemp -d)
mkdir -p "$cat/aten" "$sol/scale"
cp -r tests/cli/fixtures/tasks/aten/scale "$cat/aten/"
cp tests/hacks/boundary/*.py tests/hacks/boundary-gpu/*.py "$sol/scale/"
$KGB_PYTHON - "$cat/aten/scale/task.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["allow"] = ["os", "sys", "gc", "os.write", "os._exit", "print", "range", "getattr", "setattr",
              "hasattr", "type", "list", "isinstance", "len", "zero_", "zeros_like", "values",
              "startswith", "get_objects", "modules", "numel", "is_floating_point", "get",
              "module-cache", "dunder", "attribute", "private-attr", "introspection"]
t["entries"][0]["perf"] = {"shape": [[16384, 16384]], "layout": ["contiguous"],
                           "dtype": ["float32"]}
json.dump(t, open(sys.argv[1], "w"), indent=1)
PY
log "boundary: start"
timeout 150 build/kgb -vv --tasks "$cat" eval --platform cuda --timeout 120 \
	--store "$out/boundary.db" --solutions "$sol" --json >"$out/boundary.jsonl" \
	2>"$out/boundary-stderr.txt"
log "boundary: exit $?"
$KGB_PYTHON - "$out/boundary.jsonl" tests/hacks/boundary tests/hacks/boundary-gpu \
	>>"$out/boundary.txt" 2>&1 <<'PY'
import json, pathlib, sys
recs = {r["sample"]: r for r in map(json.loads, open(sys.argv[1])) if "sample" in r}
bad = 0
for d in sys.argv[2:]:
    for p in sorted(pathlib.Path(d).glob("*.py")):
        want = p.read_text().splitlines()[0].removeprefix("# expect: ")
        r = recs.get(p.stem)
        got = r and r["verdict"]
        ok = got == "pass" if want == "pass" else (got is not None and got != "pass"
                                                    and (not want.startswith("hack")
                                                         or got == "hack"))
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {p.stem}: {got} (expected {want}) "
              f"{(r or {}).get('detail', '')[:300]}")
print(f"boundary: {bad} unexpected")
PY
grep "boundary attack ran" "$out/boundary-stderr.txt" | sort | uniq -c >>"$out/boundary.txt"

# 1b. The honest autotuned kernel that computes in bfloat16 (issue 29): every case on the GPU.
log "platform caps: start"
timeout 120 build/kgb eval --platform cuda --task mul --solutions tests/cli/fixtures/platform-caps \
	--store "$out/boundary.db" --json >"$out/caps.jsonl" 2>>"$out/boundary-stderr.txt"
log "platform caps: exit $? $(grep -o '"verdict":"[a-z_]*","detail":"[^"]*","cases_total":[0-9]*,"cases_passed":[0-9]*' "$out/caps.jsonl")"

# 2. The suite subset, judge and runner, with timing.
if [ "${KGB_BOUNDARY_SUITE:-1}" = 0 ]; then
	log "done (no suite: KGB_BOUNDARY_SUITE=0)"
	exit 0
fi
sel=()
while read -r t _; do case $t in '' | '#'*) continue ;; esac; sel+=(--task "$t"); done <tasks/demo.txt
for t in ${KGB_BOUNDARY_MORE:-add mul sum softmax mm bmm clone copy_ mean div}; do sel+=(--task "$t"); done
left=$((budget - SECONDS - 40))
log "suite: start, $left s left"
timeout "$left" build/kgb -v eval --platform cuda --timeout 300 --store "$out/suite.db" \
	"${sel[@]}" --json >"$out/suite.jsonl" 2>"$out/progress.txt"
log "suite: exit $?"
{
	build/kgb report --store "$out/suite.db"
	echo "== speedups beside h200-2026-12-04e (warm store, one process per job)"
	$KGB_PYTHON - "$out/suite.jsonl" bench/results/h200-2026-12-04e/eval-warm.jsonl <<'PY'
import json, math, sys
new = {r["task"]: r for r in map(json.loads, open(sys.argv[1])) if "sample" in r}
old = {r["task"]: r for r in map(json.loads, open(sys.argv[2])) if "sample" in r}
both = [t for t in new if t in old and new[t]["speedup"] and old[t]["speedup"]]
for t in sorted(both):
    print(f"{t:28s} {old[t]['speedup']:8.3f} {new[t]['speedup']:8.3f} "
          f"{new[t]['speedup'] / old[t]['speedup']:6.3f}")
if both:
    g = lambda rs: math.exp(sum(math.log(r["speedup"]) for r in rs) / len(rs))
    print(f"geomean over {len(both)} tasks: old {g([old[t] for t in both]):.3f} "
          f"new {g([new[t] for t in both]):.3f}")
print("verdicts:", sorted((r["task"], r["verdict"]) for r in new.values()
                          if r["verdict"] != "pass"))
PY
	echo "== overhead"
	$KGB_PYTHON bench/throughput.py "$out/progress.txt" "$out/suite.db"
} >"$out/suite.txt" 2>&1
log "done"
