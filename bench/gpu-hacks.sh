#!/usr/bin/env bash
# The hack corpus on the GPU (issue 4: "on the H200 every hack is caught, recorded").
#
# Run on the GPU machine through the device tool, with build/kgb carried:
#   run(command="bash bench/gpu-hacks.sh", carry=["build/kgb"])
# Evaluates every tests/hacks/scale/*.py beside the honest fixture candidate on the fixture task
# `scale`, on cuda (KGB_PLATFORM=interpreter runs it here: 4 min on 2 cores), once on the public
# grid and once with held-out cases; checks each verdict
# against its file's first line with tests/hacks/check.py. Writes under $OUT (or ./out):
# hacks.jsonl, hacks-heldout.jsonl (the records), hacks.txt (the table and the checks), and the
# store hacks.db.
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
export KGB_PYTHON=${KGB_PYTHON:-python3}
sol=$(mktemp -d)
mkdir -p "$sol/scale"
cp tests/hacks/scale/*.py "$sol/scale/"
cp tests/cli/fixtures/candidates/scale/good.py "$sol/scale/good.py"
ev() { build/kgb --tasks tests/cli/fixtures/tasks eval --platform "${KGB_PLATFORM:-cuda}" --timeout 120 \
	--store "$out/hacks.db" --solutions "$sol" "$@"; }
{
	date -u +%FT%TZ
	build/kgb --version
	ev --json >"$out/hacks.jsonl" 2>"$out/hacks-stderr.txt"
	echo "eval exit status: $?"
	ev 2>/dev/null
	echo "== the corpus, public grid"
	$KGB_PYTHON tests/hacks/check.py "$out/hacks.jsonl" tests/hacks/scale
	echo "check exit status: $?"
	ev --heldout --seed 4242 --json >"$out/hacks-heldout.jsonl" 2>>"$out/hacks-stderr.txt"
	echo "== the held-out-only files, with held-out cases"
	$KGB_PYTHON - "$out/hacks-heldout.jsonl" <<'PY'
import json, pathlib, sys
held = [p.stem for p in pathlib.Path("tests/hacks/scale").glob("*.py")
        if p.read_text().startswith("# expect: mismatch heldout")]
recs = [r for r in map(json.loads, open(sys.argv[1])) if r.get("sample") in held]
bad = [f"{r['sample']}: {r['verdict']}" for r in recs if r["verdict"] != "mismatch"]
print("\n".join(bad) if bad or not recs else f"all {len(recs)} held-out-only files caught")
PY
	echo "honest candidate: $(grep -o '"sample":"good"[^}]*"verdict":"[a-z_]*"' "$out/hacks.jsonl" | grep -o 'verdict":"[a-z_]*')"
} 2>&1 | tee "$out/hacks.txt"
rm -rf "$sol"
