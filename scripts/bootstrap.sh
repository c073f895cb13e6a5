#!/usr/bin/env bash
# Set up everything kgb needs on a Debian machine, idempotently.
#
# 1. Debian packages (C toolchain and -dev libraries, sqlite3 CLI, python venv);
#    installed only when `dpkg -s` says one is missing, so a second run makes
#    no network call.
# 2. A project-local Python virtual environment in .venv with the pinned
#    runtime packages; re-done only when requirements.txt changes (a stamp file
#    holds the hash of the requirements it was built from).
# 3. The methods' libraries (FlagGems, Liger-Kernel: docs/methods.md) in
#    build/methods, beside the .venv and without touching it (scripts/methods.sh;
#    re-done only when a table's package, version or requirements change).
#
# Usage: scripts/bootstrap.sh [--no-apt] [--no-venv] [--no-methods]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

do_apt=1
do_venv=1
do_methods=1
for arg in "$@"; do
	case "$arg" in
	--no-apt) do_apt=0 ;;
	--no-venv) do_venv=0 ;;
	--no-methods) do_methods=0 ;;
	-h | --help)
		sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "bootstrap: unknown option '$arg'" >&2
		exit 2
		;;
	esac
done

# Keep this list in sync with README.md ("Dependencies").
debian_packages=(
	build-essential pkg-config
	libsqlite3-dev libjansson-dev libssl-dev libcurl4-openssl-dev
	libcmocka-dev libseccomp-dev libmicrohttpd-dev
	clang libclang-rt-dev
	sqlite3 python3 python3-venv
	munge slurmctld slurmd slurm-client
	chromium
)

if [ "$do_apt" = 1 ]; then
	missing=()
	for p in "${debian_packages[@]}"; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		echo "bootstrap: installing Debian packages: ${missing[*]}" >&2
		sudo=""
		[ "$(id -u)" = 0 ] || sudo=sudo
		$sudo apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
fi

if [ "$do_venv" = 1 ]; then
	py=${KGB_BOOTSTRAP_PYTHON:-python3}
	want=$(sha256sum requirements.txt | cut -d' ' -f1)
	stamp=.venv/.kgb-requirements
	if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
		echo "bootstrap: creating .venv (torch CPU, triton, numpy, pytest, mypy)" >&2
		[ -x .venv/bin/python ] || "$py" -m venv .venv
		.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
		echo "$want" >"$stamp"
	fi
fi

if [ "$do_methods" = 1 ] && [ -x .venv/bin/python ]; then
	scripts/methods.sh
fi
