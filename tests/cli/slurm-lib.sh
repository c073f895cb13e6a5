# Sourced, after lib.sh, by the tests that need a real Slurm cluster (needs:slurm: t0240,
# t0245): start_slurm starts a single-node cluster on this machine (scripts/slurm-local.sh:
# munged, slurmctld, slurmd, as root) under $TMP/slurm and exports SLURM_CONF, or ends the
# test: outside CI it skips when Slurm cannot start, in CI ($CI set) that is a failure.
# stop_slurm (also run on exit) cancels the test's jobs (named kgb-run) and stops the daemons.

SL=$TMP/slurm
slurm_started=0

stop_slurm() {
	# Only while this test's controller runs (a case may have stopped it already).
	if [ "$slurm_started" = 1 ] &&
		kill -0 "$(cat "$SL/slurmctld.pid" 2>/dev/null)" 2>/dev/null; then
		# Jobs still queued or running (a failed case) end first: slurmstepd outlives slurmd.
		scancel --name="kgb-run" >/dev/null 2>&1 || true
		for _ in $(seq 1 40); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.5
		done
	fi
	if [ "$slurm_started" = 1 ]; then
		"$ROOT/scripts/slurm-local.sh" stop "$SL" >/dev/null 2>&1 || true
		slurm_started=0
	fi
}
no_slurm() {
	if [ -n "${CI:-}" ]; then
		say "not ok - Slurm: $1 (CI must run this test: scripts/bootstrap.sh installs Slurm)"
		failed=$((failed + 1))
		stop_slurm
		test_done
		exit 1
	fi
	say "skip - Slurm: $1"
	stop_slurm
	test_done
	exit 0
}
# test_done removes $TMP, and the daemons' pid files with it: stop them first (and on any exit).
trap stop_slurm EXIT

# start_slurm [PORT_SALT]: a port of its own (from the pid, plus the salt), so that two
# checkouts' or two tests' clusters do not meet; four CPUs declared on any machine
# (config_overrides), so that four shards run at once.
start_slurm() {
	for b in munged slurmctld slurmd sbatch squeue scancel; do
		command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] ||
			no_slurm "'$b' is not installed (apt-get install munge slurmctld slurmd slurm-client)"
	done
	[ "$(id -u)" = 0 ] || no_slurm "the local cluster's daemons need root"
	export KGB_SLURM_PORT=$((20000 + ($$ + ${1:-0}) % 20000)) KGB_SLURM_CPUS=4
	slurm_started=1
	if ! "$ROOT/scripts/slurm-local.sh" start "$SL" >"$TMP/slurm.env" 2>"$TMP/slurm.err"; then
		cat "$TMP/slurm.err"
		no_slurm "the local cluster did not start"
	fi
	export SLURM_CONF=$SL/slurm.conf
}

# wait_status SECONDS PYTHON-EXPR: polls `kgb status --json $RUN` until the expression over its
# records (recs: the shards, then the summary) holds; on a timeout prints the status and the
# shards' logs.
wait_status() {
	local i
	for i in $(seq 1 "$(($1 * 2))"); do
		"$KGB" status --json "$RUN" >"$TMP/st.json" 2>"$TMP/st.err" || return 1
		[ "$(json_eval "$TMP/st.json" "$2")" = True ] && return 0
		sleep 0.5
	done
	say "timed out waiting for: $2" && cat "$TMP/st.json" && "$KGB" status "$RUN"
	tail -n 20 "$RUN"/logs/*.out 2>/dev/null
	return 1
}
