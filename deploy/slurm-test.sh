#!/usr/bin/env bash
# make slurm-test: run deploy/slurm-array.sh on a real single-node Slurm
# cluster started here (munged, slurmctld and slurmd as plain processes with
# their config, state, logs and munge key in a temporary folder), as a
# 4-task job array; kill one task with SIGKILL in the middle of its runs,
# requeue it, merge the shards and check that the merged runs.parquet is
# byte-identical to an unsharded sweep's. Every process it started is
# stopped on exit, also on failure. Needs root (Slurm runs as SlurmUser=root).
#   deploy/slurm-test.sh [SWEEP.yaml]     (default scenarios/sweeps/slurm-64.yaml)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SWEEP=${1:-scenarios/sweeps/slurm-64.yaml}
TASKS=4
OUT=runs/slurm-test # shards, merged and unsharded results, job logs: kept for a look
BIN=bin/streamtwin
T0=$SECONDS

log() { printf '[slurm-test %3ds] %s\n' $((SECONDS - T0)) "$*"; }
die() {
	log "FAIL: $*"
	exit 1
}

[[ $EUID -eq 0 ]] || die "run as root: the test cluster's daemons and jobs run as root"
[[ -x $BIN ]] || die "$BIN missing: make build"

# --- Slurm and munge from Debian, if missing --------------------------------
bash deploy/install-packages.sh slurm || die "Slurm and munge are needed"
log "$(slurmctld -V), $(munged -V 2>&1 | awk '{print $1; exit}')"

# --- cleanup: whatever happens, stop everything this test started -----------
# Processes already running that match the final pgrep are not ours.
before=" $(pgrep 'slurm|munge' | tr '\n' ' ' || true) "
CL=$(mktemp -d "${TMPDIR:-/tmp}/streamtwin-slurm.XXXXXX")
CONF=$CL/slurm.conf
MUNGE_SOCKET=$CL/run/munge.socket
# Every process of this cluster (daemons, slurmstepd, job scripts, the
# sweeps) carries SLURM_CONF=$CONF in its environment, and this shell does
# not: that finds the stragglers of a failed run by pid, not by name.
sl() { SLURM_CONF=$CONF "$@"; }
ours() {
	local p
	for p in /proc/[0-9]*; do
		grep -qzxF "SLURM_CONF=$CONF" "$p/environ" 2>/dev/null && echo "${p#/proc/}"
	done
	return 0
}
DAEMONS=()
# Alive and not a zombie (the daemons are this shell's children: reaped
# only by the wait at the end).
alive() { [[ $(ps -o stat= -p "$1" 2>/dev/null) == [^Z]* ]]; }
cleanup() {
	local rc=$? p left i
	set +e
	trap - EXIT INT TERM
	if [[ -n ${SLURMCTLD_PID:-} ]] && kill -0 "$SLURMCTLD_PID" 2>/dev/null; then
		sl scancel --user=root 2>/dev/null
		for ((i = 0; i < 50; i++)); do
			[[ -z $(sl squeue -h -o %i 2>/dev/null | head -1) ]] && break
			sleep 0.2
		done
		sl scontrol shutdown >/dev/null 2>&1 # slurmctld tells slurmd to stop too
	fi
	for ((i = 0; i < 50; i++)); do
		left=0
		for p in ${SLURMCTLD_PID:-} ${SLURMD_PID:-}; do alive "$p" && left=1; done
		((left)) || break
		sleep 0.2
	done
	# Anything left (munged, a stuck daemon, a job's processes): TERM, then KILL.
	for sig in TERM KILL; do
		for p in $(ours) "${DAEMONS[@]}"; do kill -"$sig" "$p" 2>/dev/null; done
		for ((i = 0; i < 25; i++)); do
			left=$(ours)
			for p in "${DAEMONS[@]}"; do alive "$p" && left+=" $p"; done
			[[ -z $left ]] && break
			sleep 0.2
		done
	done
	for p in "${DAEMONS[@]}"; do wait "$p" 2>/dev/null; done # reap our children
	left=
	for p in $(pgrep 'slurm|munge'); do [[ $before == *" $p "* ]] || left+="$(ps -o pid=,args= -p "$p")"$'\n'; done
	if [[ -n $left ]]; then
		log "FAIL: processes left behind:"
		printf '%s' "$left"
		rc=1
	else
		log "stopped munged, slurmctld and slurmd; no slurm or munge process of this test is left (pgrep)"
	fi
	if ((rc != 0)); then
		for f in "$CL"/log/*.log; do
			[[ -s $f ]] && { echo "--- $f (last 25 lines)"; tail -n 25 "$f"; }
		done
		for f in "$OUT"/logs/*.log; do
			[[ -s $f ]] && { echo "--- $f (last 5 lines)"; tail -n 5 "$f"; }
		done
	fi
	rm -rf "$CL"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- configuration --------------------------------------------------------
port_free() {
	if command -v ss >/dev/null; then
		[[ -z $(ss -Hltn "sport = :$1") ]]
	else
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 1; fi
	fi
}
# Slurm's default ports when free, else the next free ones.
CTLD_PORT=6817
while ! port_free $CTLD_PORT; do CTLD_PORT=$((CTLD_PORT + 1)); done
SLURMD_PORT=$((CTLD_PORT + 1))
while ! port_free $SLURMD_PORT; do SLURMD_PORT=$((SLURMD_PORT + 1)); done

HOST=$(hostname -s)
# The node as slurmd sees it (CPUs, sockets, cores, RealMemory): a config
# that claims more would have the node drained.
NODE=$(slurmd -C | head -n 1)
[[ $NODE == "NodeName=$HOST "* ]] || die "slurmd -C says '$NODE', expected NodeName=$HOST"
mkdir -p "$CL"/{munge,run,state,spool,log}
# munged wants its key private and its socket's folders open to all (any
# user's job may ask it for a credential).
chmod 755 "$CL" "$CL/run"
chmod 700 "$CL/munge"
# Loopback only: the controller and the node talk over 127.0.0.1.
cat >"$CONF" <<EOF
ClusterName=streamtwin-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# cred_expire is also how long a requeued job waits before it may start
# again (default 120 s).
AuthInfo=socket=$MUNGE_SOCKET,cred_expire=10
CredType=cred/munge
StateSaveLocation=$CL/state
SlurmdSpoolDir=$CL/spool
SlurmctldPidFile=$CL/slurmctld.pid
SlurmdPidFile=$CL/slurmd.pid
SlurmctldLogFile=$CL/log/slurmctld.log
SlurmdLogFile=$CL/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups here (no systemd, maybe a container): track a job's processes
# through /proc and do no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
# Scheduling passes every 2 s, so a requeued task starts soon after it is
# eligible again, not at the next pass a minute later.
SchedulerParameters=sched_interval=2,bf_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MaxArraySize=10001
JobRequeue=1
# Finished jobs stay visible to scontrol for the checks after the array.
MinJobAge=600
SlurmdTimeout=20
SlurmctldTimeout=20
InactiveLimit=0
KillWait=5
$NODE NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF

# --- start munged, slurmctld, slurmd --------------------------------------
# In the foreground of background jobs, so that $! is the daemon's own pid.
wait_for() { # SECONDS WHAT COMMAND...: poll until COMMAND succeeds
	local n=$(($1 * 5)) what=$2
	shift 2
	until "$@" >/dev/null 2>&1; do
		((--n > 0)) || die "timed out waiting for $what"
		sleep 0.2
	done
}
sl mungekey --create --keyfile="$CL/munge/munge.key"
SLURM_CONF=$CONF munged --foreground --key-file="$CL/munge/munge.key" --socket="$MUNGE_SOCKET" \
	--pid-file="$CL/munge/munged.pid" --log-file="$CL/log/munged.log" --seed-file="$CL/munge/munged.seed" >"$CL/log/munged.stdout" 2>&1 &
DAEMONS+=($!)
wait_for 10 munged bash -c "munge -n -S '$MUNGE_SOCKET' | unmunge -S '$MUNGE_SOCKET'"
SLURM_CONF=$CONF slurmctld -D -c -i >"$CL/log/slurmctld.stdout" 2>&1 &
SLURMCTLD_PID=$!
DAEMONS+=($!)
wait_for 30 slurmctld sl scontrol ping
SLURM_CONF=$CONF slurmd -D >"$CL/log/slurmd.stdout" 2>&1 &
SLURMD_PID=$!
DAEMONS+=($!)
node_idle() { [[ $(sl sinfo -h -N -n "$HOST" -o %t) == idle ]]; }
wait_for 60 "node $HOST to be idle" node_idle
log "cluster up: munged $((DAEMONS[0])), slurmctld $SLURMCTLD_PID (port $CTLD_PORT), slurmd $SLURMD_PID (port $SLURMD_PORT), node $HOST: $(sl sinfo -h -N -o '%c CPUs, %m MB, %t')"

# --- the array ------------------------------------------------------------
rm -rf "$OUT"
mkdir -p "$OUT/logs"
# As a user would submit it, from the repository root; --array overrides
# the script's #SBATCH --array (4 shards), one CPU a task so two run at a
# time on 2 cores, the logs and shards under $OUT.
submit=(sbatch --parsable --array=0-$((TASKS - 1)) --cpus-per-task=1 --output="$OUT/logs/slurm-%A_%a.log"
	deploy/slurm-array.sh "$SWEEP" "$OUT/shard")
JOB=$(sl "${submit[@]}")
JOB=${JOB%%;*}
log "submitted: sbatch ${submit[*]:2} → job array $JOB"

state() { sl scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2 || true; }
finished() { find "$OUT/shard-$1/runs" -mindepth 2 -maxdepth 2 -name params.json -not -path '*.streamtwin-tmp/*' 2>/dev/null | wc -l || true; }
# Kill the first task seen running with at least one run finished: its
# later runs are then still to do (a run takes ≈0.5 s, a task 16 of them).
K=
for ((i = 0; i < 1200; i++)); do
	for ((t = 0; t < TASKS; t++)); do
		if [[ $(state "${JOB}_$t") == RUNNING ]] && (($(finished $t) >= 1)); then
			K=$t
			break 2
		fi
	done
	sleep 0.1
done
[[ -n $K ]] || die "no task of $JOB got to its first finished run in 120 s"
# Slurm 22.05 treats `scancel --signal=KILL JOB` (even with --full) as a
# plain cancel: SIGTERM first, which the sweep survives cleanly. --batch
# makes slurmstepd deliver the SIGKILL itself, to the batch step, i.e. the
# sweep (the script execs it): a hard kill in the middle of a run.
sl scancel --batch --signal=KILL "${JOB}_$K"
log "KILL: scancel --batch --signal=KILL ${JOB}_$K (task $K, $(finished "$K") of its runs finished)"
for ((i = 0; i < 150; i++)); do
	s=$(state "${JOB}_$K")
	[[ $s == RUNNING || $s == COMPLETING ]] || break
	sleep 0.2
done
info=$(sl scontrol -o show job "${JOB}_$K" | grep -oE '(JobState|Reason|ExitCode)=[^ ]*' | xargs)
log "task $K ended: $info"
[[ $s == FAILED && $info == *ExitCode=0:9* ]] || die "task $K did not die of SIGKILL"
stale=$(find "$OUT/shard-$K/runs" -maxdepth 1 \( -name '*.tmp-*' -o -name '*.lock' \) -printf '%f\n' | sort | xargs)
log "shard-$K after the kill: $(finished "$K") finished runs, left by the run it was killed in: ${stale:-nothing}, runs.parquet: $([[ -e $OUT/shard-$K/runs.parquet ]] && echo yes || echo none)"

sl scontrol requeue "${JOB}_$K"
log "REQUEUE: scontrol requeue ${JOB}_$K → $(sl scontrol -o show job "${JOB}_$K" | grep -oE '(JobState|Restarts|EligibleTime)=[^ ]*' | xargs)"

# --- wait for the array ---------------------------------------------------
for ((i = 0; i < 1200; i++)); do
	[[ -z $(sl squeue -h -j "$JOB" -o %i) ]] && break
	sleep 0.2
done
[[ -z $(sl squeue -h -j "$JOB" -o %i) ]] || die "job array $JOB still running after 240 s"
for ((t = 0; t < TASKS; t++)); do
	info=$(sl scontrol -o show job "${JOB}_$t" | grep -oE '(JobState|ExitCode|Restarts)=[^ ]*' | xargs)
	tail1=$(tail -n 1 "$OUT/logs/slurm-${JOB}_$t.log" 2>/dev/null)
	log "task $t: $info | ${tail1#*: }"
	[[ $info == *JobState=COMPLETED* ]] || die "task $t did not complete"
done
[[ $(sl scontrol -o show job "${JOB}_$K") == *Restarts=1* ]] || die "task $K was not restarted once"
# The requeued task resumed: it skipped the runs finished before the kill.
grep -qE ", ([1-9][0-9]*) already complete" "$OUT/logs/slurm-${JOB}_$K.log" ||
	die "the requeued task $K did not resume (no 'already complete' runs in its log)"
stale=$(find "$OUT"/shard-* \( -name '*.tmp-*' -o -name '*.lock' \) | wc -l)
((stale == 0)) || die "$stale .tmp-*/.lock leftovers in the shard folders after the array"

# --- merge and compare with the unsharded sweep ---------------------------
shards=()
for ((t = 0; t < TASKS; t++)); do shards+=("$OUT/shard-$t"); done
merged=$("$BIN" results merge --out "$OUT/merged" "${shards[@]}")
log "merge: $merged"
whole=$("$BIN" sweep "$SWEEP" --workers 2 --out "$OUT/unsharded")
log "unsharded: $whole"
n_merged=$(awk '{print $1; exit}' <<<"$merged")
n_whole=$(sed -nE 's/.*: ([0-9]+) runs \(shard 0\/1\).*/\1/p' <<<"$whole")
# Each run id in exactly one shard, and as many as the unsharded sweep has.
ids=$(for s in "${shards[@]}"; do ls "$s/runs"; done | sort)
n_ids=$(wc -l <<<"$ids")
dups=$(uniq -d <<<"$ids" | wc -l)
log "runs: merged runs.parquet $n_merged, unsharded sweep $n_whole, run folders in the shards $n_ids ($dups in more than one shard)"
[[ -n $n_whole && $n_merged == "$n_whole" && $n_ids == "$n_whole" && $dups == 0 ]] || die "run counts differ"
((n_whole >= 64)) || die "only $n_whole runs: the test needs at least 64"
h_merged=$(sha256sum "$OUT/merged/runs.parquet" | cut -d' ' -f1)
h_whole=$(sha256sum "$OUT/unsharded/runs.parquet" | cut -d' ' -f1)
log "sha256 $h_merged  $OUT/merged/runs.parquet"
log "sha256 $h_whole  $OUT/unsharded/runs.parquet"
cmp "$OUT/merged/runs.parquet" "$OUT/unsharded/runs.parquet" || die "merged runs.parquet differs from the unsharded sweep's"
log "OK: merged runs.parquet is byte-identical to the unsharded sweep's ($n_whole runs, task $K killed and requeued)"
