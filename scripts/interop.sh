#!/usr/bin/env bash
# Install the third-party server of the interoperability test of `kgb generate`
# (tests/cli/t0212-generate-interop.sh): the litellm proxy, at the version pinned in
# tests/interop/requirements.txt, into a venv of its own, build/interop/venv. Never the .venv:
# litellm's hundred-odd dependencies must not move the workers' pins (requirements.txt). About
# 760 MB and a minute on two cores. `make check` runs it (tests/check.sh), `make interop` too;
# `make run` does not need it.
# Idempotent: a stamp holds what was installed; a second run makes no network call. When the
# install fails (no PyPI), build/interop/failed says why, and t0212 prints that when it skips.
#
# Usage: scripts/interop.sh          install unless current
#        scripts/interop.sh --check  exit 0 when installed and current; else say why, exit 1
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
req=tests/interop/requirements.txt
dir=build/interop
venv=$dir/venv
stamp=$dir/.kgb-installed
failed=$dir/failed

# What an install of the current requirements holds: the pins and the Python that runs them.
want() {
	grep -v '^[[:space:]]*\(#\|$\)' "$req"
	python3 -c 'import sys; print("python", sys.version.split()[0])'
}
current() {
	[ -x "$venv/bin/litellm" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(want)" ]
}

if [ "${1:-}" = --check ]; then
	current && exit 0
	if [ -s "$failed" ]; then
		cat "$failed"
	elif [ -f "$stamp" ]; then
		echo "build/interop holds another litellm than $req pins: run scripts/interop.sh"
	else
		echo "litellm is not installed: run scripts/interop.sh (make interop; make check runs it)"
	fi
	exit 1
fi

current && exit 0
pins=$(grep -v '^[[:space:]]*\(#\|$\)' "$req" | tr '\n' ' ')
echo "interop: installing ${pins% } into $venv (about 760 MB)" >&2
rm -rf "$venv" "$stamp" "$failed"
mkdir -p "$dir"
log=$dir/install.log
if ! { python3 -m venv "$venv" &&
	"$venv/bin/pip" install -q --disable-pip-version-check --retries 2 --timeout 30 -r "$req"; } \
	>"$log" 2>&1; then
	why=$(grep '^ERROR:' "$log" | tail -1)
	[ -n "$why" ] || why=$(tail -1 "$log")
	if grep -q "NewConnectionError\|name resolution\|Network is unreachable" "$log"; then
		why="PyPI unreachable: $why"
	fi
	echo "installing ${pins% } failed: ${why:-no output} (see $log)" >"$failed"
	echo "interop: $(cat "$failed")" >&2
	exit 1
fi
want >"$stamp"
