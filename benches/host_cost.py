#!/usr/bin/env python3
"""Host CPU per verified lane-operation of a `dsxor run`, by stage.

Runs one `dsxor run` (by default on the GPU path through the software HIP
runtime), polls /proc/<pid>/task/*/stat of the dsxor parent and of every
descendant every 20 ms (utime + stime, proc(5) fields 14 and 15), and sorts
each thread's CPU into three stages:

- parent: every thread of the `dsxor run` process;
- worker: the worker children's main threads (the protocol, buffer copies);
- worker-other: their other threads but the simulated device's;
- device: threads named `hipsim-stream-*` (/proc/<pid>/task/<tid>/comm), the
  software device's own work (on a GPU, silicon time, not host CPU).

Verified lane-operations come from the run's own `*.cases.jsonl`:
sum of active_lanes * rounds over passed cases.

A script, not a cargo bench: it measures processes from outside (the worker
children are separate `exec`s of the binary), needs no build, and an
interpreted poller that sleeps 20 ms between reads costs the measured run
next to nothing. Run it side by side on two binaries in one sitting:

    python3 benches/host_cost.py --dsxor OLD/release/dsxor --hip-lib OLD/release/libdsxor_hipsim.so
    python3 benches/host_cost.py --dsxor target/release/dsxor --hip-lib target/release/libdsxor_hipsim.so

Extra arguments after `--` go to `dsxor run` (e.g. `-- --jobs 2`).
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

TICK = os.sysconf("SC_CLK_TCK")


def threads(pid):
    """{tid: (comm, utime+stime ticks)} of one process; empty if it is gone."""
    out = {}
    for task in glob.glob(f"/proc/{pid}/task/*"):
        try:
            with open(f"{task}/stat") as f:
                stat = f.read()
            with open(f"{task}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        # comm may hold spaces and parentheses: split after the last ')'.
        fields = stat[stat.rindex(")") + 2 :].split()
        # fields[0] is proc(5) field 3 (state); utime, stime are 14, 15.
        out[int(task.rsplit("/", 1)[1])] = (comm, int(fields[11]) + int(fields[12]))
    return out


def children(pid):
    """Direct children of `pid` (Linux >= 3.5 /proc/<pid>/task/*/children)."""
    kids = []
    for path in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            with open(path) as f:
                kids += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return kids


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dsxor", default="target/release/dsxor")
    ap.add_argument("--hip-lib", default="target/release/libdsxor_hipsim.so")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--cases", default="3000")
    ap.add_argument("--out", help="run directory (default: a fresh temporary one)")
    ap.add_argument("--label", default="")
    ap.add_argument("rest", nargs="*", help="more `dsxor run` arguments, after --")
    a = ap.parse_args()

    out = a.out or tempfile.mkdtemp(prefix="host_cost.")
    cmd = [a.dsxor, "run", "--backend", "hip", "--seed", a.seed, "--cases", a.cases,
           "--minimize-budget", "0s", "--out", out] + a.rest
    env = dict(os.environ, DSXOR_HIP_LIB=os.path.abspath(a.hip_lib))
    wall0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
    parent = proc.pid
    # Last seen ticks per (pid, tid): a thread's CPU counts up to its last poll,
    # so a worker that exits between polls loses at most 20 ms of its CPU.
    seen = {}
    while proc.poll() is None:
        pids = [parent]
        i = 0
        while i < len(pids):
            pids += children(pids[i])
            i += 1
        for pid in pids:
            for tid, (comm, ticks) in threads(pid).items():
                seen[(pid, tid)] = (pid == parent, tid == pid, comm, ticks)
        time.sleep(0.02)
    wall = time.monotonic() - wall0

    stage = {"parent": 0, "worker": 0, "worker-other": 0, "device": 0}
    for is_parent, is_main, comm, ticks in seen.values():
        if comm.startswith("hipsim-stream"):
            stage["device"] += ticks
        elif is_parent:
            stage["parent"] += ticks
        elif is_main:
            stage["worker"] += ticks
        else:
            stage["worker-other"] += ticks

    lane_ops = 0
    passed = total = 0
    files = glob.glob(os.path.join(out, "*.cases.jsonl")) + glob.glob(os.path.join(out, "cases.jsonl"))
    if not files:
        sys.exit(f"no cases.jsonl under {out} (dsxor exited {proc.returncode})")
    for path in files:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                if "passed" not in r:
                    continue  # the header line
                total += 1
                if r.get("passed"):
                    passed += 1
                    lane_ops += r["active_lanes"] * r.get("rounds", 1)
    if lane_ops == 0:
        sys.exit("no verified lane-operations")

    host = stage["parent"] + stage["worker"] + stage["worker-other"]
    print(f"# {a.label} {' '.join(cmd)}")
    print(f"exit {proc.returncode}, wall {wall:.1f} s, cases {passed}/{total} passed, "
          f"{lane_ops} verified lane-ops, out {out}")
    print(f"{'stage':<13} {'CPU s':>8} {'ns/lane-op':>11}")
    rows = [(k, stage[k]) for k in ("parent", "worker", "worker-other")]
    for name, ticks in rows + [("host", host), ("device", stage["device"])]:
        s = ticks / TICK
        print(f"{name:<13} {s:>8.2f} {s * 1e9 / lane_ops:>11.1f}")


if __name__ == "__main__":
    main()
