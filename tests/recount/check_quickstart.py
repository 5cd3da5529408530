#!/usr/bin/env python3
"""Runs examples/quickstart.c (unchanged) on the recount backend over the simulated
libSystem and checks what it prints: cycles and instructions were counted, and follow the
simulator's model exactly (tests/recount_sim/README.md: 2 instructions per cycle, so the
difference of two samples keeps that ratio).

usage: check_quickstart.py QUICKSTART
"""
import re
import subprocess
import sys

run = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
sys.stdout.write(run.stdout)
sys.stderr.write(run.stderr)
if run.returncode != 0:
    sys.exit("quickstart exited with status %d" % run.returncode)
counts = {m.group(1): int(m.group(2))
          for m in re.finditer(r"^(\S+) +(\d+)( ns)?$", run.stdout, re.MULTILINE)}
for name in ("cycles", "instructions", "task-clock"):
    if counts.get(name, 0) <= 0:
        sys.exit("quickstart printed no positive %s count: %s" % (name, counts))
if counts["instructions"] != 2 * counts["cycles"]:
    sys.exit("instructions %d are not 2 x cycles %d (the simulator's model)" %
             (counts["instructions"], counts["cycles"]))
print("recount: cycles %d, instructions %d = 2 x cycles, task-clock %d ns" %
      (counts["cycles"], counts["instructions"], counts["task-clock"]))
