#!/bin/bash
# Slurm HealthCheckProgram (slurm.conf) or job prolog: `dsxor gate` checks
# every GPU of this node; a bad GPU drains the node with dsxor's reason,
# and a node dsxor drained returns to service once the gate passes again.
# Drains set by anyone else are left alone.
#   slurm.conf:  HealthCheckProgram=/usr/local/sbin/dsxor-healthcheck
#                HealthCheckInterval=300
#                HealthCheckNodeState=IDLE
# DSXOR (the binary, default `dsxor` on PATH) and DSXOR_GATE_BUDGET
# (default 60s) may be set in the environment.
set -uo pipefail

dsxor=${DSXOR:-dsxor}
node=${SLURMD_NODENAME:-$(hostname -s)}
verdict=$(mktemp)
trap 'rm -f "$verdict"' EXIT

# The verdict (JSON) on stdout, its one-line reason on stderr.
reason=$("$dsxor" gate --budget "${DSXOR_GATE_BUDGET:-60s}" 2>&1 >"$verdict")
code=$?

if [ "$code" -eq 0 ]; then
  if scontrol show node "$node" | grep -q 'Reason=dsxor gate'; then
    scontrol update NodeName="$node" State=RESUME
  fi
  exit 0
fi
# 1: a GPU failed; 3 (or anything else): the GPUs could not be checked.
# Either way the node should take no jobs until someone looks.
[ -n "$reason" ] || reason="dsxor gate: exit $code"
scontrol update NodeName="$node" State=DRAIN Reason="${reason:0:250}"
exit 0
