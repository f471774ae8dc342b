#!/bin/bash
# Slurm HealthCheckProgram (slurm.conf) or job prolog: `dsxor gate` checks
# every GPU of this node; a bad GPU drains the node with dsxor's reason,
# and a node dsxor drained returns to service once the gate passes again.
# Drains set by anyone else are left alone.
#   slurm.conf:  HealthCheckProgram=/usr/local/sbin/dsxor-healthcheck
#                HealthCheckInterval=300
#                HealthCheckNodeState=IDLE
# DSXOR (the binary, default `dsxor` on PATH), DSXOR_GATE_BUDGET (default
# 45s) and DSXOR_GATE_LOCK (default /run/lock/dsxor-gate.lock) may be set in
# the environment.
#
# The budget stays under 60 s: slurmd kills a HealthCheckProgram that has
# not ended within 60 seconds (slurm.conf(5), HealthCheckProgram), and a
# killed script drains nothing. 45 s leaves the rest for scontrol.
set -uo pipefail

dsxor=${DSXOR:-dsxor}
node=${SLURMD_NODENAME:-$(hostname -s)}

# One gate per node at a time: a health check and a prolog (or two health
# checks, when one runs long) must not test the GPUs side by side, where
# each would slow the other past its budget. A gate already running
# answers for this one too (policy `gate-one-at-a-time`, guide/fleet.md).
lock=${DSXOR_GATE_LOCK:-/run/lock/dsxor-gate.lock}
if { exec 9>>"$lock"; } 2>/dev/null; then
  flock -n 9 || exit 0
else
  echo "dsxor-healthcheck: cannot open $lock; checking without the lock" >&2
fi

verdict=$(mktemp)
trap 'rm -f "$verdict"' EXIT

# The verdict (JSON) on stdout, its one-line reason on stderr.
reason=$("$dsxor" gate --budget "${DSXOR_GATE_BUDGET:-45s}" 2>&1 >"$verdict")
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
