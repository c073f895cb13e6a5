#!/usr/bin/env bash
# Does the catalog of this tree keep every regular case of the catalog at commit REV?
#
#   bash bench/grid-superset.sh REV
#
# Prints the counts and, per task, the cases of REV that are gone; exit 0 when none are (the
# mutant kill tables recorded against REV then still hold: a mutant is killed when one of its
# task's cases fails it, and each of those cases is still there), 1 when some are.
set -euo pipefail
rev=${1:?usage: grid-superset.sh REV}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here"
# shellcheck disable=SC2046 # pkg-config's flags are word lists
cc -std=c11 -D_GNU_SOURCE -O1 -iquote src -o "$work/grid-cases" bench/grid-cases.c \
	$(ls src/*.c src/util/*.c | grep -v '^src/main\.c$') \
	$(pkg-config --cflags --libs sqlite3 jansson libcrypto libseccomp libcurl) -lm
mkdir "$work/old"
git archive "$rev" tasks | tar -x -C "$work/old"
"$work/grid-cases" "$work/old/tasks" | sort -u >"$work/old.tsv"
"$work/grid-cases" tasks | sort -u >"$work/new.tsv"
comm -23 "$work/old.tsv" "$work/new.tsv" >"$work/gone.tsv"
echo "cases at $rev: $(wc -l <"$work/old.tsv"); here: $(wc -l <"$work/new.tsv"); gone: $(wc -l <"$work/gone.tsv")"
cut -f1 "$work/gone.tsv" | sort | uniq -c
[ ! -s "$work/gone.tsv" ]
