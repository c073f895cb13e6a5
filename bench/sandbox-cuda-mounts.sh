#!/usr/bin/env bash
# Which read-only mount breaks CUDA (bench/sandbox-cuda.sh found that readonly_fs does).
#
# As root on the GPU machine, for each mount point outside /dev (the sandbox leaves /dev
# alone), a private mount namespace (util-linux unshare) remounts that one mount read-only and
# runs the torch-on-CUDA probe. Appends to $OUT/sandbox-cuda.txt; stops after $1 seconds
# (default 120).
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
py=${KGB_PYTHON:-python3}
limit=${1:-120}
probe='import torch; x = torch.ones(8, device="cuda"); print("ok", float(x.sum()))'
log="$out/sandbox-cuda.txt"
echo "== one mount read-only at a time (unshare -m; mount -o remount,bind,ro)" >>"$log"
start=$SECONDS
awk '{ print $5 }' /proc/self/mountinfo | grep -v '^/dev\(/\|$\)' | sort -u | while read -r m; do
	if [ $((SECONDS - start)) -gt "$limit" ]; then
		echo "stopped after ${limit}s" >>"$log"
		break
	fi
	r=$(unshare -m --propagation private sh -c 'mount -o remount,bind,ro "$1" && exec "$2" -c "$3"' \
		sh "$m" "$py" "$probe" 2>&1 | tail -1)
	printf '%-50s %s\n' "$m" "${r:0:160}" >>"$log"
done
