#!/bin/bash
# Run a streamtwin sweep as a Slurm job array: task i of n runs --shard i/n
# into its own folder; merge them when all tasks are done. From the
# repository root (bin/streamtwin built, or streamtwin on the PATH):
#   mkdir -p runs    # Slurm opens the log below before this script runs:
#                    # without the folder every task fails (exit 0:53), no log
#   sbatch deploy/slurm-array.sh scenarios/sweeps/recovery-vs-ci.yaml
#   bin/streamtwin results merge --out runs/merged runs/shard-*
# n is the array's size: --array on the sbatch command line overrides the
# line below (sbatch --array=0-3 ... for 4 shards). An optional second
# argument OUT writes OUT-0 … OUT-(n-1) instead of runs/shard-*.
# A requeued task (scontrol requeue, a node failure) skips the runs it
# finished (--resume), reruns the one it was killed in, and appends to its
# log. To rerun only some tasks, keep n:
#   STREAMTWIN_SHARDS=8 sbatch --array=3,5 deploy/slurm-array.sh SWEEP.yaml
#SBATCH --job-name=streamtwin-sweep
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=01:00:00
#SBATCH --output=runs/slurm-%A_%a.log
#SBATCH --open-mode=append
set -euo pipefail
SWEEP=${1:?usage: sbatch deploy/slurm-array.sh SWEEP.yaml [OUT]}
OUT=${2:-runs/shard}
: "${SLURM_ARRAY_TASK_ID:?not a Slurm array task: submit with sbatch deploy/slurm-array.sh SWEEP.yaml}"

# Slurm runs a copy of this script from its spool folder, in the submit
# folder (or --chdir): paths are relative to that, not to this file.
BIN=${STREAMTWIN:-bin/streamtwin}
if [[ ! -x $BIN ]]; then
	BIN=$(command -v streamtwin) || {
		echo "no ${STREAMTWIN:-bin/streamtwin} in $PWD and no streamtwin on the PATH: build it (make build) or set STREAMTWIN" >&2
		exit 2
	}
fi

# The shard count must be the same for every task of a sweep, or runs are
# lost or doubled: derive it only from an array 0..n-1 (a resubmitted
# subset such as --array=3,5 would give another n).
if [[ -n ${STREAMTWIN_SHARDS:-} ]]; then
	SHARDS=$STREAMTWIN_SHARDS
else
	SHARDS=$((SLURM_ARRAY_TASK_MAX + 1))
	if ((${SLURM_ARRAY_TASK_MIN:-0} != 0 || ${SLURM_ARRAY_TASK_COUNT:-SHARDS} != SHARDS)); then
		echo "the array is not 0-$((SHARDS - 1)) (min ${SLURM_ARRAY_TASK_MIN:-0}, ${SLURM_ARRAY_TASK_COUNT:-?} tasks): set STREAMTWIN_SHARDS to the sweep's shard count" >&2
		exit 2
	fi
fi

exec "$BIN" sweep "$SWEEP" \
	--shard "${SLURM_ARRAY_TASK_ID}/${SHARDS}" \
	--workers "${SLURM_CPUS_PER_TASK:-1}" --resume \
	--out "${OUT}-${SLURM_ARRAY_TASK_ID}"
