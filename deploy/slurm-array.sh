#!/bin/bash
# Run a streamtwin sweep as a Slurm job array: task i of n runs --shard i/n
# into its own folder; merge them when all tasks are done:
#   sbatch deploy/slurm-array.sh scenarios/sweeps/recovery-vs-ci.yaml
#   streamtwin results merge --out runs/merged runs/shard-*
# A requeued task skips its finished runs (--resume).
#SBATCH --job-name=streamtwin-sweep
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=01:00:00
#SBATCH --output=runs/slurm-%A_%a.log
set -euo pipefail
SWEEP=${1:?usage: sbatch deploy/slurm-array.sh SWEEP.yaml}
SHARDS=$(( SLURM_ARRAY_TASK_MAX + 1 ))
exec bin/streamtwin sweep "$SWEEP" \
  --shard "${SLURM_ARRAY_TASK_ID}/${SHARDS}" \
  --workers "${SLURM_CPUS_PER_TASK}" --resume \
  --out "runs/shard-${SLURM_ARRAY_TASK_ID}"
