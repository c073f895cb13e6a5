#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine, for tests of `kgb eval --backend slurm`
# (tests/cli/t0240-slurm.sh, docs/cluster.md). No systemd and no cgroups: munged, slurmctld and
# slurmd are started directly, as root, with every file (config, key, sockets, state, logs)
# under one state directory.
#
# Usage: scripts/slurm-local.sh start|stop|status STATE_DIR
#   start   writes STATE_DIR/slurm.conf for this host, starts the daemons, waits until the node
#           is idle; prints `export SLURM_CONF=STATE_DIR/slurm.conf` (clients need it)
#   stop    stops the daemons started by `start` (by their pid files)
#   status  sinfo of the cluster
# Environment: KGB_SLURM_PORT (slurmctld's port, default 6817; slurmd takes the next one),
# KGB_SLURM_CPUS (CPUs the node declares, default the cores here; more than the cores is
# allowed: config_overrides).
set -euo pipefail

cmd=${1:-}
state=${2:-}
if [ -z "$cmd" ] || [ -z "$state" ]; then
	echo "usage: $0 start|stop|status STATE_DIR" >&2
	exit 2
fi
mkdir -p "$state"
state=$(cd "$state" && pwd)
conf=$state/slurm.conf
export SLURM_CONF=$conf

die() {
	echo "slurm-local: $*" >&2
	exit 1
}

stop_pidfile() { # stop_pidfile FILE: TERM the daemon named in FILE, wait up to 10 s
	local f=$1 pid
	[ -s "$f" ] || return 0
	pid=$(cat "$f")
	kill "$pid" 2>/dev/null || return 0
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
}

case $cmd in
start) ;;
stop)
	stop_pidfile "$state/slurmd.pid"
	stop_pidfile "$state/slurmctld.pid"
	stop_pidfile "$state/munged.pid"
	exit 0
	;;
status)
	exec sinfo
	;;
*)
	echo "usage: $0 start|stop|status STATE_DIR" >&2
	exit 2
	;;
esac

for b in munged mungekey slurmctld slurmd sbatch squeue sinfo; do
	command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] ||
		die "'$b' not found: install munge slurmctld slurmd slurm-client (scripts/bootstrap.sh)"
done
[ "$(id -u)" = 0 ] || die "must run as root (the daemons run as root here)"
PATH=$PATH:/usr/sbin

port=${KGB_SLURM_PORT:-6817}
cpus=${KGB_SLURM_CPUS:-$(nproc)}
host=$(hostname -s)
mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
mkdir -p "$state/ctld" "$state/spool" "$state/munge"
chmod 700 "$state/munge"

# munge: a private key and socket, so nothing of the host's munge is touched.
if [ ! -s "$state/munge/munge.key" ]; then
	mungekey --create --keyfile="$state/munge/munge.key" >/dev/null 2>&1 ||
		dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 600 "$state/munge/munge.key"
fi
stop_pidfile "$state/munged.pid"
munged --force --key-file="$state/munge/munge.key" --socket="$state/munge/munge.socket" \
	--pid-file="$state/munged.pid" --log-file="$state/munged.log" \
	--seed-file="$state/munge/munge.seed" ||
	die "munged did not start (see $state/munged.log)"

cat >"$conf" <<EOF
# Written by scripts/slurm-local.sh: a single-node cluster without cgroups or accounting.
ClusterName=kgb-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge/munge.socket
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
# Finished jobs stay visible to squeue -t all this long (s): no accounting database here.
MinJobAge=3600
SchedulerParameters=sched_interval=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=cpuq Nodes=$host MaxTime=INFINITE State=UP
EOF

stop_pidfile "$state/slurmd.pid"
stop_pidfile "$state/slurmctld.pid"
# -i: ignore state left by an earlier cluster in this directory; -c: clear its jobs.
slurmctld -f "$conf" -c -i || die "slurmctld did not start (see $state/slurmctld.log)"
slurmd -f "$conf" -N "$host" || die "slurmd did not start (see $state/slurmd.log)"
for _ in $(seq 1 100); do
	st=$(sinfo -h -n "$host" -o %t 2>/dev/null | head -1 || true)
	case $st in
	idle | mix | alloc)
		echo "export SLURM_CONF=$conf"
		exit 0
		;;
	esac
	sleep 0.2
done
die "the node did not come up (state '${st:-none}'; see $state/slurmctld.log, $state/slurmd.log)"
