#!/usr/bin/env python3
"""`kpc stat` on the kperf backend with proc_pid_rusage available (issue 10 §3).

Usage: cli_own_totals_test.py KPC_BINARY LIBKPERF_SIM LIBKPERFDATA_SIM LIBRECOUNT_SIM

Both simulators at once: kperf (tests/kperf_sim) and libSystem (tests/recount_sim, through
KPC_LIBSYSTEM_PATH). The fixed counters' events, cycles and instructions, must come from
the command's own totals (JSON source "proc_pid_rusage") and follow its CPU time as the
libSystem simulator's model says (3 cycles per ns, 2 instructions per cycle); the other
events stay system-wide (source "system") and are flagged. Exits non-zero on the first failure.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sim_cli  # noqa: E402
from sim_cli import check  # noqa: E402

KPC, KPERF, KPERFDATA, RCSIM = sys.argv[1:5]
WORK = ["sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"]


def stat(events, libsystem=RCSIM, json_report=True, **sim):
    args = ["stat"] + (["--json"] if json_report else []) + ["-e", ",".join(events), "--"] + WORK
    return sim_cli.run(KPC, KPERF, KPERFDATA, args, libsystem=libsystem, **sim)


def report(p):
    check(p.returncode == 0, "kpc stat", p)
    doc = json.loads(p.stderr[p.stderr.index("{"):])
    return doc, {e["name"]: e for e in doc["events"]}


def value(e):
    return e["raw_values"][0]


# Mixed: cycles and instructions are the command's own; branches is system-wide.
p = stat(["cycles", "instructions", "branches"])
doc, ev = report(p)
for name in ev:
    check(ev[name]["status"] == "counted", f"{name} counted", p)
check(ev["cycles"]["source"] == "proc_pid_rusage", "cycles from proc_pid_rusage", p)
check(ev["instructions"]["source"] == "proc_pid_rusage", "instructions from proc_pid_rusage", p)
check(ev["branches"]["source"] == "system", "branches system-wide", p)
check(doc["scope"] == "system", "the run is flagged as (partly) system-wide", p)
cpu_ns = doc["user_ns"]["values"][0] + doc["sys_ns"]["values"][0]  # from wait4
check(cpu_ns > 50e6, f"the command used CPU time ({cpu_ns} ns)", p)
cycles = value(ev["cycles"])
# Both sides come from the kernel's tick-granular process times: allow 20 ms and 10 %.
check(abs(cycles / 3 - cpu_ns) <= 20e6 + 0.1 * cpu_ns,
      f"cycles {cycles} = 3 x the command's CPU time {cpu_ns} ns", p)
check(value(ev["instructions"]) == 2 * cycles, "instructions = 2 x cycles", p)

# The text report says per event where the number came from.
p = stat(["cycles", "instructions", "branches"], json_report=False)
check(p.returncode == 0, "kpc stat (text)", p)
check("system-wide counts (of branches)" in p.stderr, "the text flags branches as system-wide", p)
check("proc_pid_rusage" in p.stderr and "(of cycles, instructions)" in p.stderr,
      "the text names proc_pid_rusage for cycles and instructions", p)

# Only fixed events: nothing system-wide.
doc, ev = report(stat(["cycles", "instructions"]))
check(doc["scope"] != "system" and all(e["source"] == "proc_pid_rusage" for e in ev.values()),
      "cycles and instructions alone: all the command's own", p)

# Without libSystem (Linux, no KPC_LIBSYSTEM_PATH): system-wide, as before.
p = stat(["cycles", "branches"], libsystem=None)
doc, ev = report(p)
check(doc["scope"] == "system" and all(e["source"] == "system" for e in ev.values()),
      "without libSystem everything is system-wide", p)

# A kernel that keeps no counts (a VM): system-wide rather than zeros.
os.environ["RCSIM_VM"] = "1"  # kept by sim_cli.run for the simulated libSystem
p = stat(["cycles"])
del os.environ["RCSIM_VM"]
doc, ev = report(p)
check(ev["cycles"]["source"] == "system" and value(ev["cycles"]) > 0,
      "no kernel counts: cycles system-wide, not 0", p)

# The kperf backend still needs root, whatever the source.
p = stat(["cycles"], json_report=False, ROOT=0)
check(p.returncode == 125 and "sudo" in p.stderr, "without root kpc stat fails naming sudo", p)

print("kpc stat on kperf with proc_pid_rusage, against both simulators: ok")
