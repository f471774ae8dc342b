#!/bin/bash
# dsxor conformance as a Slurm array: one shard per task, one GPU per task,
# one seed for all.
#   sbatch --export=ALL,DSXOR_SEED=$RANDOM$RANDOM examples/ci/slurm-array.sh
# then, once every task is done, merge the shards into one run and read
# them as a fleet (a verdict per GPU, a table per node):
#   sbatch --dependency=afterany:<jobid> --wrap \
#     'dsxor merge results/*-shard*of8.json --out merged.json --junit merged.xml;
#      dsxor fleet results/*-shard*of8.json --markdown fleet.md --svg fleet.svg'
#SBATCH --job-name=dsxor
#SBATCH --array=0-7
#SBATCH --gres=gpu:1
#SBATCH --time=01:00:00
#SBATCH --output=dsxor-%A_%a.log
set -euo pipefail

# The shard count is the array's size (sbatch --array on the command line
# overrides the line above).
N=${SLURM_ARRAY_TASK_COUNT:?run me as a Slurm array job}
: "${DSXOR_SEED:?set DSXOR_SEED: every shard of one run needs the same seed}"

# Slurm's gres/gpu gives the task its GPU as ROCR_VISIBLE_DEVICES (and
# confines it through the device cgroup where ConstrainDevices=yes), so
# dsxor's device 0 is that GPU. It sets CUDA_VISIBLE_DEVICES to the same
# index too; ROCm's HIP reads that as HIP_VISIBLE_DEVICES when the latter
# is unset (ROCm/clr rocclr/device/rocm/rocdevice.cpp, Device::init) and
# would index the one GPU ROCr already picked: unset it.
unset CUDA_VISIBLE_DEVICES
dsxor info --require-device --device 0
# DSXOR_CASES, when set, sizes the run (default: dsxor run's own).
dsxor run --backend hip --device 0 --seed "$DSXOR_SEED" ${DSXOR_CASES:+--cases "$DSXOR_CASES"} \
  --shard "$((SLURM_ARRAY_TASK_ID + 1))/$N" \
  --out results --junit "results/junit-$SLURM_ARRAY_TASK_ID.xml"
