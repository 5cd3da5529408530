#!/usr/bin/env python3
"""kpc stat's elapsed time starts before the command is released (issue 17, section 4.1).

A single-threaded command cannot use more CPU time than the wall time it lived, whatever
the machine's load: elapsed >= its task-clock, and >= the CPU time it reports itself. kpc's
clock used to start after the command was let go, so a short command could finish most of
its life before the clock started ("1.17 CPUs utilized" for `true`). Every kind of run is
checked: plain, -r, -p PID CMD and -a CMD. No bound on time here is a wall-clock bound: each
compares two clocks of the same run.

Run one test:   python3 test_kpc_elapsed.py --kpc PATH --workload PATH --busy-static PATH name
"""

import os
import subprocess
import unittest

import test_kpc
from test_kpc import Kpc, event, parse_key_values

RUNS = 25  # the old defect showed in most runs of `true`; 25 leave it no chance to hide


class ElapsedTest(unittest.TestCase):

    def require_counting(self):
        reason = test_kpc.software_counting_blocked()
        if reason:
            self.skipTest(reason)

    def commands(self):
        if not test_kpc.BUSY_STATIC:
            self.fail("--busy-static PATH is required (CTest passes it)")
        return (["true"], [test_kpc.BUSY_STATIC, "200000"])

    def test_stat_elapsed_covers_task_clock_csv(self):
        """-x: task-clock's "CPUs utilized" is task-clock over elapsed: at most 1 for one thread."""
        self.require_counting()
        for command in self.commands():
            for _ in range(RUNS):
                p = Kpc.run(["stat", "-x,", "-e", "task-clock", "--"] + command)
                self.assertEqual(p.returncode, 0, p.stderr)
                fields = p.stderr.strip().split(",")
                self.assertEqual(fields[2:3] + fields[6:7], ["task-clock", "CPUs utilized"], p.stderr)
                # Printed with 3 decimals: a ratio of 0.9996 prints 1.000.
                self.assertLessEqual(float(fields[5]), 1.0, "%s: %s" % (command, p.stderr))

    def test_stat_elapsed_covers_task_clock_json(self):
        """JSON, -r: every run's elapsed_ns is at least that run's task-clock."""
        self.require_counting()
        for command in self.commands():
            p, r = Kpc.stat_json(["-r", str(RUNS), "-e", "task-clock", "--"] + command)
            self.assertEqual(p.returncode, 0, p.stderr)
            elapsed = r["elapsed_ns"]["values"]
            clock = event(r, "task-clock")["raw_values"]
            self.assertEqual((len(elapsed), len(clock)), (RUNS, RUNS))
            for e, c in zip(elapsed, clock):
                self.assertGreaterEqual(e, c, "%s: elapsed %s, task-clock %s" % (command, elapsed, clock))

    def attached_runs(self, options):
        """Elapsed against the command's own CPU time (`workload spin 0` prints it at its
        end, from its process clock, which began at its fork) for -p/-a with a command."""
        for _ in range(RUNS):
            p, r = Kpc.stat_json(options + ["-e", "task-clock", "--", test_kpc.WORKLOAD, "spin", "0"])
            self.assertEqual(p.returncode, 0, p.stderr)
            own = parse_key_values(p.stdout)["cpu_ns"][0]
            elapsed = r["elapsed_ns"]["values"]
            self.assertEqual(len(elapsed), 1)
            self.assertGreaterEqual(elapsed[0], own, "%s: elapsed %s, the command's CPU time %d ns"
                                    % (options, elapsed, own))

    def test_stat_elapsed_attached_with_command(self):
        self.require_counting()
        sleeper = subprocess.Popen(["sleep", "600"])
        try:
            self.attached_runs(["-p", str(sleeper.pid)])
        finally:
            sleeper.kill()
            sleeper.wait()

    def test_stat_elapsed_system_wide_with_command(self):
        self.require_counting()
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = int(f.read())
        if os.geteuid() != 0 and paranoid > 0:
            self.skipTest("-a needs root or kernel.perf_event_paranoid <= 0 (it is %d)" % paranoid)
        self.attached_runs(["-a"])


if __name__ == "__main__":
    test_kpc.main(ElapsedTest)
