#!/usr/bin/env bash
# Install the libraries of kgb's methods (docs/methods.md): for each methods/<name>.json that
# names a package, that package at the table's version, and the other packages it imports
# (the table's `requires`; not torch or triton), into build/methods/<name>/lib with
# `pip install --no-deps --target`. The .venv is not touched: its pins (numpy 2.2.6 against
# flag-gems's numpy==1.26.4, for one) stay what requirements.txt says, and the workers find a
# library's directory after their own paths, so a package both have comes from the .venv (or
# from the GPU machines' own Python, which runs the workers there).
# Idempotent: a stamp holds what was installed; a second run makes no network call.
#
# Usage: scripts/methods.sh [NAME...]   (default: every method with a package)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
py=.venv/bin/python
[ -x "$py" ] || { echo "methods: no .venv; run scripts/bootstrap.sh first" >&2; exit 4; }

# The table's install line: "package==version requirement...", empty for a method without one.
spec() {
	"$py" - "$1" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
if t.get("package"):
    print(" ".join([f"{t['package']}=={t['version']}"] + list(t.get("requires", []))))
EOF
}

names=("$@")
if [ "${#names[@]}" -eq 0 ]; then
	for f in methods/*.json; do
		names+=("$(basename "$f" .json)")
	done
fi
for name in "${names[@]}"; do
	table=methods/$name.json
	[ -f "$table" ] || { echo "methods: no table $table" >&2; exit 2; }
	want=$(spec "$table")
	[ -n "$want" ] || continue
	dir=build/methods/$name
	stamp=$dir/.kgb-installed
	if [ -d "$dir/lib" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		continue
	fi
	echo "methods: installing $want into $dir/lib" >&2
	rm -rf "$dir/lib.tmp"
	mkdir -p "$dir"
	# shellcheck disable=SC2086 # $want is a list of requirement specifiers
	"$py" -m pip install -q --disable-pip-version-check --no-deps --target "$dir/lib.tmp" $want
	# Bytecode now: the workers read the library through a read-only file system.
	"$py" -m compileall -q "$dir/lib.tmp" >/dev/null || true
	rm -rf "$dir/lib"
	mv "$dir/lib.tmp" "$dir/lib"
	echo "$want" >"$stamp"
done
