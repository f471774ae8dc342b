#!/bin/bash
# dsxor conformance as a Slurm array: one shard per task, one seed for all.
#   sbatch --export=ALL,DSXOR_SEED=$RANDOM$RANDOM examples/ci/slurm-array.sh
# then merge once every task is done:
#   sbatch --dependency=afterany:<jobid> --wrap \
#     'dsxor merge results/*-shard*of8.json --out merged.json --junit merged.xml'
#SBATCH --job-name=dsxor
#SBATCH --array=0-7
#SBATCH --gres=gpu:1
#SBATCH --time=01:00:00
#SBATCH --output=dsxor-%A_%a.log
set -euo pipefail

N=8   # keep equal to the size of --array above
: "${DSXOR_SEED:?set DSXOR_SEED: every shard of one run needs the same seed}"

# Slurm confines the task to its GPU through the device cgroup and sets
# ROCR_VISIBLE_DEVICES; dsxor's device 0 is that GPU.
dsxor info --require-device --device 0
dsxor run --backend hip --device 0 --seed "$DSXOR_SEED" \
  --shard "$((SLURM_ARRAY_TASK_ID + 1))/$N" \
  --out results --junit "results/junit-$SLURM_ARRAY_TASK_ID.xml"
