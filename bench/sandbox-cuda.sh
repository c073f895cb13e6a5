#!/usr/bin/env bash
# Which sandbox facility breaks CUDA on this machine (bench/results/<date>/sandbox-cuda.txt).
#
# Runs a small torch-on-CUDA probe through `kgb sandbox-exec --platform cuda` with the whole
# sandbox, with each facility left out in turn (KGB_SANDBOX_SKIP), and with --sandbox=off;
# writes the table to $OUT/sandbox-cuda.txt and the smallest skip list that works (empty when
# the full sandbox works, "off" when nothing short of off does) to $OUT/sandbox-cuda-skip.
# Run on the GPU machine: run(command="bash bench/sandbox-cuda.sh", carry=["build/kgb"]).
set -uo pipefail
out=${OUT:-out}
mkdir -p "$out"
py=${KGB_PYTHON:-python3}
probe='import torch; n = torch.cuda.device_count(); x = torch.ones(1024, device="cuda"); print("ok", n, float((x * 2).sum()))'
facilities="userns netns mntns pidns readonly_fs private_scratch nproc rlimits caps no_new_privs seccomp"
log="$out/sandbox-cuda.txt"
{
	date -u +%FT%TZ
	build/kgb --version
	uname -r
	id
	ls -l /dev/nvidia* 2>&1
	echo "unprivileged_userns_clone: $(cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null || echo n/a)"
} >"$log"
try() { # $1: label, $2: the skip list, $3: the mode
	local label=$1 r
	r=$(KGB_SANDBOX_SKIP=$2 build/kgb sandbox-exec --sandbox="$3" --platform cuda --timeout 120 --report "$out/report.json" \
		-- "$py" -c "$probe" 2>&1 | tail -3 | tr '\n' ' ')
	printf '%-22s %s\n      report: %s\n' "$label" "${r:0:400}" "$(cat "$out/report.json" 2>/dev/null)" >>"$log"
	rm -f "$out/report.json"
	case $r in *"ok "*) return 0 ;; esac
	return 1
}
try "off" "" off; off_ok=$?
skip=off
if try "full" "" auto; then
	skip=
else
	for f in $facilities; do
		if try "skip $f" "$f" auto && [ "$skip" = off ]; then skip=$f; fi
	done
	if [ "$skip" = off ] && try "skip userns,seccomp" userns,seccomp auto; then
		skip=userns,seccomp
	fi
fi
echo "off works: $([ $off_ok -eq 0 ] && echo yes || echo no); smallest skip that works: '${skip}'" >>"$log"
printf '%s' "$skip" >"$out/sandbox-cuda-skip"
cat "$log"
