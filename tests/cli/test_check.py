#!/usr/bin/env python3
"""Black-box tests of `kpc check` on the Linux perf_event backend.

Run one test:   python3 test_check.py --kpc PATH --workload PATH test_check_json
Run them all:   python3 test_check.py --kpc PATH --workload PATH
CTest registers every `def test_*` below as cli.<name> (see CMakeLists.txt). A test that
cannot run here skips with its reason and exits 77 (CTest: skipped, never passed).

What the machine can count is asked of the machine itself (sysfs, perf, a raw
perf_event_open), never of kpc, so a kpc bug cannot turn into an expected verdict.
The same tests against the kperf simulator are in tests/kperf/check_sim_test.py.
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_kpc  # noqa: E402  (Kpc.run, and the machine probes)
from test_kpc import Kpc, has_hardware_pmu, software_counting_blocked  # noqa: E402

# Every check kpc check runs, per generic event (docs/cli.md, "kpc check").
PLAN = {
    "cycles": ["nonzero", "linearity", "ghz"],
    "instructions": ["nonzero", "exact", "linearity"],
    "branches": ["nonzero", "exact", "linearity"],
    "branch-misses": ["nonzero", "random-branches"],
    "cache-misses": ["nonzero", "working-set"],
    "l1d-load-misses": ["nonzero", "working-set"],
    "task-clock": ["nonzero", "cpu-time", "linearity"],
    "page-faults": ["nonzero", "touch"],
}
HARDWARE = ["cycles", "instructions", "branches", "branch-misses", "cache-misses",
            "l1d-load-misses"]
EXIT_FOR = {"pass": 0, "fail": 3, "cannot-count": 4}


def expected_exit(checks):
    verdicts = {c["verdict"] for c in checks}
    if "fail" in verdicts:
        return 3
    return 0 if "pass" in verdicts else 4


class CheckTest(unittest.TestCase):
    maxDiff = None
    _report = None

    def require_counting(self):
        reason = software_counting_blocked()
        if reason:
            self.skipTest(reason)

    def report(self):
        """One `kpc check --quick --json` per process: (completed process, parsed report)."""
        if CheckTest._report is None:
            p = Kpc.run(["check", "--quick", "--json"])
            self.assertEqual(p.stderr, "", "kpc check wrote to stderr")
            CheckTest._report = (p, json.loads(p.stdout))
        return CheckTest._report

    def check(self, report, event, name):
        for c in report["checks"]:
            if c["event"] == event and c["check"] == name:
                return c
        self.fail("check %s.%s missing" % (event, name))

    def test_check_json(self):
        p, r = self.report()
        self.assertEqual(r["schema"], "kpc-check/1")
        self.assertEqual(r["backend"], "perf_event")
        for k in ("id", "name", "pmu"):
            self.assertTrue(r["cpu"][k], k)
        env = r["environment"]
        uname = os.uname()
        self.assertEqual(env["os"]["name"], uname.sysname)
        self.assertEqual(env["os"]["version"], uname.release)
        self.assertEqual(env["os"]["machine"], uname.machine)
        self.assertIsNone(env["kperf"], "the kperf section is for the kperf backend only")
        info = json.loads(Kpc.run(["info", "--json"]).stdout)
        self.assertEqual(env["counters"], info["counters"])
        self.assertEqual(env["access"]["allowed"], info["access"]["allowed"])
        self.assertEqual(env["access"]["status"], info["access"]["status"])
        # Exactly the documented checks, in order, each with every field.
        got = [(c["event"], c["check"]) for c in r["checks"]]
        self.assertEqual(got, [(e, c) for e, cs in PLAN.items() for c in cs])
        for c in r["checks"]:
            self.assertEqual(set(c), {"event", "check", "verdict", "counts_kernel", "message",
                                      "values"})
            self.assertIn(c["verdict"], EXIT_FOR)
            self.assertTrue(c["message"], c)
        summary = r["summary"]
        for verdict, key in (("pass", "pass"), ("fail", "fail"), ("cannot-count", "cannot_count")):
            self.assertEqual(summary[key], sum(c["verdict"] == verdict for c in r["checks"]))
        self.assertEqual(summary["exit_status"], p.returncode)
        self.assertEqual(p.returncode, expected_exit(r["checks"]))

    def test_check_software_events_pass(self):
        self.require_counting()
        p, r = self.report()
        for event, checks in (("task-clock", PLAN["task-clock"]), ("page-faults", PLAN["page-faults"])):
            for name in checks:
                c = self.check(r, event, name)
                self.assertEqual(c["verdict"], "pass", c)
                self.assertTrue(c["counts_kernel"] in (True, False), c)
        # The numbers behind the verdicts, judged here again independently.
        touch = self.check(r, "page-faults", "touch")["values"]
        self.assertGreaterEqual(touch["pages_touched"], 1000)
        self.assertLessEqual(abs(touch["faults"] - touch["pages_touched"]),
                             0.05 * touch["pages_touched"] + 8, touch)
        cpu = self.check(r, "task-clock", "cpu-time")["values"]
        self.assertGreater(cpu["thread_cpu_ns"], 10e6)
        self.assertLessEqual(abs(cpu["task_clock_ns"] - cpu["thread_cpu_ns"]),
                             0.05 * cpu["thread_cpu_ns"] + 0.5e6, cpu)
        lin = self.check(r, "task-clock", "linearity")["values"]
        self.assertLessEqual(lin["max_relative_deviation"], 0.10)
        self.assertGreater(lin["slope"], 0)
        # Software passed and nothing failed here: exit 0, whatever hardware can do.
        if all(c["verdict"] != "fail" for c in r["checks"]):
            self.assertEqual(p.returncode, 0)

    def test_check_hardware_events(self):
        self.require_counting()
        p, r = self.report()
        for event in HARDWARE:
            # Asked of the kernel, not of kpc: can this process open the event at all?
            refused = test_kpc.kernel_refuses(*test_kpc.KERNEL_ENCODING[event], event)
            for name in PLAN[event]:
                c = self.check(r, event, name)
                if refused is None:
                    # The kernel counts this event here: the known workload must pass.
                    self.assertEqual(c["verdict"], "pass", c)
                else:
                    # Hardware events do not count here: cannot count, with libkpc's reason.
                    self.assertEqual(c["verdict"], "cannot-count", (refused, c))
                    self.assertEqual(c["values"], {}, c)
                    self.assertTrue(c["message"], c)
                    if not has_hardware_pmu():
                        # No PMU (a VM like this one): kpc says so.
                        self.assertIn("not supported on this machine", c["message"], c)
                        self.assertIsNone(c["counts_kernel"], c)

    def test_check_text(self):
        self.require_counting()
        p = Kpc.run(["check", "--quick"])
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0], "Environment")
        self.assertIn("Checks", lines)
        self.assertRegex(p.stdout, r"(?m)^  backend:\s+perf_event$")
        self.assertRegex(p.stdout, r"(?m)^  os:\s+%s %s " % (os.uname().sysname, os.uname().release))
        self.assertRegex(p.stdout, r"(?m)^  PASS  page-faults\s+touch\s+\d+ faults for \d+ fresh pages")
        self.assertRegex(p.stdout, r"(?m)^  PASS  task-clock\s+cpu-time\s+task-clock ")
        if not has_hardware_pmu():
            # One line per event that cannot count, with libkpc's reason.
            self.assertRegex(p.stdout, r"(?m)^  N/A   cycles\s+\(all checks\)\s+cannot count here: .*"
                                       r"not supported on this machine")
        self.assertRegex(lines[-1], r"^\d+ passed, \d+ failed, \d+ cannot count here: .* \(exit %d\)$"
                         % p.returncode)

    def test_check_exit_codes_and_usage(self):
        p = Kpc.run(["check", "--bogus"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("usage: kpc check", p.stderr)
        p = Kpc.run(["check", "extra"])
        self.assertEqual(p.returncode, 2)
        # No session at all is a kpc error (1), not a verdict.
        p = Kpc.run(["check", "--quick"], env={"KPC_BACKEND": "bogus"})
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("KPC_BACKEND", p.stderr)
        for args in (["check", "--help"], ["help", "check"]):
            p = Kpc.run(args)
            self.assertEqual(p.returncode, 0)
            self.assertTrue(p.stdout.startswith("usage: kpc check"), p.stdout)
            self.assertIn("3 if a check failed, 4 if nothing could be counted here", p.stdout)
        p = Kpc.run(["--help"])
        self.assertIn("  check [--quick] [--json]", p.stdout)


if __name__ == "__main__":
    test_kpc.main(CheckTest)
