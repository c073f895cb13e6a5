#!/usr/bin/env bash
# Proves the README's two commands on a machine that has nothing installed: builds a clean
# Debian 12 root filesystem from Debian's packages (mmdebstrap), copies a clean clone of this
# repository into it, and runs `make run` and then `make check` inside it (a mount namespace
# whose root it is), each timed, with their logs and a summary under the output directory.
#
# Usage (as root): scripts/fresh-check.sh [--keep] [--only run|check] [OUTDIR]
#   OUTDIR   where the logs and summary go (default ./out/fresh-check); the root filesystem is
#            built in $KGB_FRESH_ROOT (default /var/tmp/kgb-fresh-root) and removed afterwards
#            unless --keep.
#
# The root filesystem holds Debian 12's "minbase" and, as any Debian machine one works on
# has them, make, git and ca-certificates; everything else comes from the project's own
# bootstrap inside it. The host's network is used (apt and pip). Where pip on the host is
# configured to find wheels in local directories (PIP_FIND_LINKS, /etc/pip.conf's find-links,
# as on this project's CI machines, whose torch 2.13.0 CPU wheel lies on disk), those
# directories are bound read-only into the root and the same configuration is passed in.
set -euo pipefail

keep=0
only=
while [ $# -gt 0 ]; do
	case $1 in
	--keep) keep=1 ;;
	--only) only=$2; shift ;;
	-h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fresh-check: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$top/out/fresh-check}" && cd "${1:-$top/out/fresh-check}" && pwd)
root=${KGB_FRESH_ROOT:-/var/tmp/kgb-fresh-root}
[ "$(id -u)" = 0 ] || { echo "fresh-check: run as root (mounts, pivot_root)" >&2; exit 2; }
command -v mmdebstrap >/dev/null || {
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
}

mounts=()
cleanup() {
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
	[ "$keep" = 1 ] || rm -rf "$root"
}
trap cleanup EXIT
bind() { # bind SRC DST [ro]
	mkdir -p "$2"
	mount --bind "$1" "$2"
	[ "${3:-}" = ro ] && mount -o remount,bind,ro "$2"
	mounts+=("$2")
}

summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

rm -rf "$root"
start=$SECONDS
mmdebstrap --variant=minbase --include=make,git,ca-certificates bookworm "$root" \
	>"$out/mmdebstrap.log" 2>&1
say "root filesystem: Debian $(cat "$root/etc/debian_version") minbase + make git ca-certificates, $((SECONDS - start)) s"
git clone -q --no-hardlinks "$top" "$root/root/kgb"
say "clone: $(git -C "$root/root/kgb" log --oneline -1)"
# The root is a mount point of its own, with the machine's /proc, /sys (its cgroup file
# systems included), /dev and a fresh /tmp below it; `inside` makes it the root of a mount
# namespace with pivot_root, not chroot: Linux refuses user namespaces to a chrooted process,
# and kgb's sandbox makes one per worker.
bind "$root" "$root"
bind /proc "$root/proc"
mkdir -p "$root/sys" && mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys" &&
	mounts+=("$root/sys")
bind /dev "$root/dev"
bind /dev/pts "$root/dev/pts"
mount -t tmpfs tmpfs "$root/tmp" && mounts+=("$root/tmp")
cp /etc/resolv.conf "$root/etc/resolv.conf"

# The host's local wheel directories and pip configuration, when pip has them.
pipenv=()
links=${PIP_FIND_LINKS:-$(pip config get global.find-links 2>/dev/null || true)}
index=${PIP_EXTRA_INDEX_URL:-$(pip config get global.extra-index-url 2>/dev/null || true)}
# A local index's pages point at files beside them (…/simple/x/ -> …/files/x.whl): its parent.
for d in $links $(echo "$index" | tr ' ' '\n' | sed -n 's|^file://\(.*\)/simple/*$|\1|p'); do
	[ -d "$d" ] && bind "$d" "$root$d" ro
done
[ -n "$links" ] && pipenv+=("PIP_FIND_LINKS=$links")
[ -n "$index" ] && pipenv+=("PIP_EXTRA_INDEX_URL=$index")
constraint=$(pip config get global.constraint 2>/dev/null || true)
if [ -n "$constraint" ] && [ -f "$constraint" ]; then
	mkdir -p "$root$(dirname "$constraint")" && cp "$constraint" "$root$constraint"
	pipenv+=("PIP_CONSTRAINT=$constraint")
fi
# The host's certificate authorities, where pip is told to use them (a proxy's own CA).
cert=${PIP_CERT:-$(pip config get global.cert 2>/dev/null || true)}
if [ -n "$cert" ] && [ -f "$cert" ]; then
	cp "$cert" "$root/etc/ssl/host-ca.crt"
	pipenv+=("PIP_CERT=/etc/ssl/host-ca.crt")
fi
[ ${#pipenv[@]} -gt 0 ] && say "pip: ${pipenv[*]}"

inside() { # inside NAME COMMAND: run it in the root as a fresh login would, logged and timed
	local name=$1 rc=0 t0=$SECONDS
	shift
	unshare --mount --propagation private -- /bin/sh -c '
		cd "$1" && mkdir -p .old-root && pivot_root . .old-root && cd / &&
		umount -l /.old-root && rmdir /.old-root && shift && exec "$@"' sh "$root" \
		/usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${pipenv[@]}" \
		bash -c "set -o pipefail; cd /root/kgb && $*" >"$out/$name.log" 2>&1 || rc=$?
	say "$name: \`$*\` exit $rc in $((SECONDS - t0)) s"
	return "$rc"
}

rc=0
if [ "$only" != check ]; then
	inside make-run "make run </dev/null | cat" || rc=1
	tail -n 8 "$out/make-run.log" | sed 's/^/    /' | tee -a "$summary"
fi
if [ "$only" != run ]; then
	inside make-check "make check </dev/null | cat" || rc=1
	grep -E "^=== |^check: " "$out/make-check.log" | sed 's/^/    /' | tee -a "$summary"
fi
say "fresh-check: $([ "$rc" = 0 ] && echo passed || echo FAILED)"
exit "$rc"
