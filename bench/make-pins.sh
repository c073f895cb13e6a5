#!/usr/bin/env bash
# Builds the pins bench/gpu-pins.sh carries: for each NAME=REV, out/pin-NAME.tar holds a
# `git archive` of REV plus the build/kgb built from it (in a temporary worktree under the
# repository's build/, not /tmp: nothing there is hidden from a worker's sandbox that the
# build needs). REV "HEAD" is built in place.
#
#   bash bench/make-pins.sh split=a67a71e w47=47fdea8 new=HEAD
#
# Then: run(command="OUT=$OUT bash bench/gpu-pins.sh split:add:1 new:add:1",
#           carry=["out/pin-split.tar", "out/pin-new.tar"])
set -euo pipefail
top=$(git rev-parse --show-toplevel)
cd "$top"
mkdir -p out build
for spec in "$@"; do
	name=${spec%%=*} rev=${spec#*=}
	[ -n "$name" ] && [ -n "$rev" ] && [ "$name" != "$spec" ] ||
		{ echo "make-pins: expected NAME=REV, got '$spec'" >&2; exit 2; }
	if [ "$rev" = HEAD ]; then
		dir=$top
		rm -f build/kgb && make --no-print-directory build/kgb >/dev/null
	else
		dir=$top/build/pin-$name
		git worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
		git worktree add -f --detach "$dir" "$rev" >/dev/null
		make --no-print-directory -C "$dir" build/kgb >/dev/null
	fi
	(cd "$dir" && git archive -o "$top/out/pin-$name.tar" HEAD && tar -rf "$top/out/pin-$name.tar" build/kgb)
	echo "out/pin-$name.tar: $("$dir/build/kgb" --version)"
	[ "$dir" = "$top" ] || git worktree remove --force "$dir"
done
