#!/usr/bin/env python3
"""`kpc info` and `kpc stat` on the recount backend, against the simulated libSystem.

Usage: cli_test.py KPC_BINARY LIBRECOUNT_SIM

kpc finds the simulator through KPC_BACKEND=recount and KPC_LIBSYSTEM_PATH, as a user on a
Mac would get the real libSystem; RCSIM_* variables choose the simulated machine. kpc stat
reads the command's own totals with proc_pid_rusage before reaping it, so its cycles must
follow the command's CPU time as the simulator's model says: 3 cycles per ns, 2
instructions per cycle. Exits non-zero on the first failure.
"""
import json
import os
import subprocess
import sys

KPC, RCSIM = sys.argv[1:3]
WORK = ["sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"]


def run(args, **sim):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KPC_", "RCSIM_"))}
    env.update(KPC_BACKEND="recount", KPC_LIBSYSTEM_PATH=RCSIM)
    env.update({"RCSIM_" + k: str(v) for k, v in sim.items()})
    return subprocess.run([KPC] + args, env=env, capture_output=True, text=True, timeout=60)


def check(cond, what, proc=None):
    if not cond:
        detail = "" if proc is None else f"\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        sys.exit(f"FAIL: {what}{detail}")


def stat_json(events, **sim):
    p = run(["stat", "--json", "-e", ",".join(events), "--"] + WORK, **sim)
    check(p.returncode == 0, f"kpc stat -e {events} {sim}", p)
    doc = json.loads(p.stderr[p.stderr.index("{"):])
    return p, doc, {e["name"]: e for e in doc["events"]}


def value(e):
    return e["raw_values"][0]


# kpc info: the backend, why, and that it may count.
p = run(["info", "--json"])
check(p.returncode == 0, "kpc info", p)
info = json.loads(p.stdout)
check(info["backend"] == "recount", "backend is recount", p)
check(info["backend_reason"] == "named by KPC_BACKEND=recount", "reason names KPC_BACKEND", p)
check(info["access"]["allowed"], "recount may count without root", p)
p = run(["info"])
check("chosen because" in p.stdout and "KPC_BACKEND=recount" in p.stdout, "text info says why", p)

# kpc stat: the command's own totals, read before it is reaped.
events = ["cycles", "instructions", "p-cycles", "e-cycles", "task-clock", "user-time"]
p, doc, ev = stat_json(events, P_SHARE="0.75")
for name in events:
    check(ev[name]["status"] == "counted", f"{name} counted", p)
    check(ev[name]["source"] == "proc_pid_rusage", f"{name} comes from proc_pid_rusage", p)
cpu_ns = doc["user_ns"]["values"][0] + doc["sys_ns"]["values"][0]  # from wait4
check(cpu_ns > 50e6, f"the command used CPU time ({cpu_ns} ns)", p)
cycles = value(ev["cycles"])
# Both sides come from the kernel's tick-granular process times: allow 20 ms and 10 %.
check(abs(cycles / 3 - cpu_ns) <= 20e6 + 0.1 * cpu_ns,
      f"cycles {cycles} = 3 x the command's CPU time {cpu_ns} ns", p)
check(abs(value(ev["task-clock"]) - cpu_ns) <= 20e6 + 0.1 * cpu_ns, "task-clock = CPU time", p)
check(value(ev["instructions"]) == 2 * cycles, "instructions = 2 x cycles", p)
check(value(ev["p-cycles"]) + value(ev["e-cycles"]) == cycles, "p + e = cycles", p)
check(abs(value(ev["p-cycles"]) / cycles - 0.75) < 0.01, "P has its share", p)
p = run(["stat", "-e", "cycles", "--"] + WORK)
check(p.returncode == 0 and "proc_pid_rusage" in p.stderr, "the text report names the source", p)

# One perf level: E reads 0.
p, doc, ev = stat_json(["cycles", "p-cycles", "e-cycles"], PERF_LEVELS=1)
check(value(ev["e-cycles"]) == 0 and value(ev["p-cycles"]) == value(ev["cycles"]),
      "one perf level: everything on P", p)

# macOS 12: totals only (RUSAGE_INFO_V4); P/E need 13.0.
p, doc, ev = stat_json(["cycles", "p-cycles"], MACOS="12.6")
check(ev["cycles"]["status"] == "counted" and value(ev["cycles"]) > 0, "macOS 12 counts cycles", p)
check(ev["p-cycles"]["status"] == "not_supported" and "13.0" in ev["p-cycles"]["reason"],
      "macOS 12: p-cycles not supported, needs 13.0", p)

# A VM: no cycles (the kernel keeps none), but CPU time still counts.
p, doc, ev = stat_json(["cycles", "task-clock"], VM=1)
check(ev["cycles"]["status"] == "not_supported" and "virtual machine" in ev["cycles"]["reason"],
      "VM: cycles not supported, and why", p)
check(ev["task-clock"]["status"] == "counted" and value(ev["task-clock"]) > 0, "VM: task-clock counted", p)

# An event only kperf has.
p = run(["stat", "-e", "branches", "--"] + WORK)
check("kperf" in p.stderr and "root" in p.stderr, "branches: the reason names root and kperf", p)

# -p: a running process's own totals from the attach; -a and --per-thread: refused, saying why.
busy = subprocess.Popen(["sh", "-c", "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done"])
try:
    p = run(["stat", "--json", "-e", "cycles,task-clock", "-p", str(busy.pid)])
finally:
    busy.wait()
check(p.returncode == 0, "kpc stat -p on recount", p)
doc = json.loads(p.stderr[p.stderr.index("{"):])
ev = {e["name"]: e for e in doc["events"]}
check(ev["cycles"]["status"] == "counted" and ev["cycles"]["source"] == "proc_pid_rusage",
      "-p: cycles from the process's own totals", p)
check(value(ev["task-clock"]) > 0, "-p: task-clock counted", p)
# A process whose parent reaps it at once: kpc may find it gone at the end, and then keeps
# the totals of its last read (every 100 ms), flagged, never 0 or a made-up final count.
busy = subprocess.Popen(["sh", "-c", "i=0; while [ $i -lt 600000 ]; do i=$((i+1)); done"])
kpc = subprocess.Popen([KPC, "stat", "--json", "-e", "task-clock", "-p", str(busy.pid)],
                       env={**{k: v for k, v in os.environ.items() if not k.startswith(("KPC_", "RCSIM_"))},
                            "KPC_BACKEND": "recount", "KPC_LIBSYSTEM_PATH": RCSIM},
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
t0 = os.times()
busy.wait()  # reaps it the moment it exits
burned = (os.times().children_user + os.times().children_system - t0.children_user - t0.children_system) * 1e9
out, err = kpc.communicate(timeout=60)
check(kpc.returncode == 0, "kpc stat -p of a process reaped at once", subprocess.CompletedProcess([], kpc.returncode, out, err))
clock = [e for e in json.loads(err[err.index("{"):])["events"] if e["name"] == "task-clock"][0]
print("reaped at once: counted %.0f of %.0f ms, cut_short %s" % (value(clock) / 1e6, burned / 1e6, clock["cut_short"]))
check(clock["status"] == "counted" and value(clock) > 0.5 * burned,
      "a process reaped at once: most of its CPU time counted", subprocess.CompletedProcess([], 0, out, err))
p = run(["stat", "-a", "-e", "cycles", "--", "true"])
check(p.returncode == 125 and "cannot count every CPU" in p.stderr and "kperf" in p.stderr,
      "-a on recount: refused, naming kperf", p)
sleeper = subprocess.Popen(["sleep", "5"])
try:
    p = run(["stat", "--per-thread", "-e", "cycles", "-p", str(sleeper.pid)])
finally:
    sleeper.kill()
    sleeper.wait()
check(p.returncode == 125 and "no per-thread counts" in p.stderr, "--per-thread on recount: refused", p)
# recount keeps one total over user and kernel mode: :u alone cannot be honoured.
p = run(["stat", "-e", "cycles:u", "--", "true"])
check(p.returncode == 125 and "no split by mode" in p.stderr, "cycles:u on recount: refused, saying why", p)

print("ok")
