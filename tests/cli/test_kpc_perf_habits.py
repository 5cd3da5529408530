#!/usr/bin/env python3
"""kpc stat with the habits people bring from perf stat: -x CSV and {event groups} in -e,
each checked on the test workload and, where perf runs here, field by field next to perf.

Run one test:   python3 test_kpc_perf_habits.py --kpc PATH --workload PATH test_name
CTest registers every `def test_*` below as cli.<name>, like test_kpc.py, whose helpers
and runner this file uses.
"""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

import test_kpc
from test_kpc import PERF, Kpc, event, has_hardware_pmu, parse_key_values

# A value field as perf -x prints it: a count, msec with 2 decimals, or a status label.
VALUE = re.compile(r"^(\d+|\d+\.\d\d|<not supported>|<not counted>)$")


def csv_lines(text, sep=","):
    return [line.split(sep) for line in text.splitlines() if line]


class KpcPerfHabitsTest(unittest.TestCase):
    maxDiff = None

    def require_counting(self):
        reason = test_kpc.software_counting_blocked()
        if reason:
            self.skipTest(reason)

    def kpc_csv(self, args, sep=","):
        """kpc stat -x SEP with the report in a file: (process, rows split at SEP, raw text)."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "kpc.csv")
            p = Kpc.run(["stat", "-x", sep, "-o", path] + list(args))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stderr, "")  # the report went to the file, nothing else to stderr
            with open(path) as f:
                text = f.read()
        return p, csv_lines(text, sep), text

    def perf_csv(self, args):
        """perf stat -x, rows (its '# started on' header dropped); skips if perf cannot run."""
        if not os.access(PERF, os.X_OK):
            self.skipTest("%s is not installed (apt-get install linux-perf)" % PERF)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "perf.csv")
            p = subprocess.run([PERF, "stat", "-x,", "-o", path] + list(args), capture_output=True,
                               text=True, timeout=120)
            if p.returncode != 0:
                self.skipTest("perf stat does not run here (exit %d): %s" % (p.returncode, p.stderr.strip()))
            with open(path) as f:
                return [line.strip().split(",") for line in f if line.strip() and not line.startswith("#")]

    def assertCloseCount(self, ours, theirs, what, rel=0.10, absolute=50):
        self.assertLessEqual(abs(ours - theirs), max(rel * theirs, absolute),
                             "%s: kpc %s, perf %s" % (what, ours, theirs))

    def assertSameShape(self, ours, theirs, runs):
        """kpc's -x rows against perf's for the same -e list, field by field."""
        self.assertEqual(len(ours), len(theirs), (ours, theirs))
        width = 8 if runs > 1 else 7
        for k, p in zip(ours, theirs):
            self.assertEqual(len(k), width, k)
            self.assertEqual(len(p), width, p)
            self.assertEqual(k[2], p[2])  # event name, in the order of -e
            self.assertEqual(k[1], p[1], k)  # unit: msec or empty
            self.assertRegex(k[0], VALUE)
            # Counted by both, or the same label from both.
            self.assertEqual(k[0].startswith("<"), p[0].startswith("<"), (k, p))
            if k[0].startswith("<"):
                self.assertEqual(k[0], p[0])
            rest = 3
            if runs > 1:
                self.assertRegex(k[3], r"^\d+\.\d\d%$")
                self.assertRegex(p[3], r"^\d+\.\d\d%$")
                rest = 4
            run_ns, pct = k[rest], k[rest + 1]
            self.assertRegex(run_ns, r"^\d+$")
            self.assertRegex(pct, r"^\d+\.\d\d$")
            self.assertEqual(pct, p[rest + 1], (k, p))  # software events: 100.00 on both sides
            # Metric: present on both sides or on neither, with the same unit (K/M/G may
            # differ when the two rates fall either side of a power of 1000).
            self.assertEqual(k[rest + 2] == "", p[rest + 2] == "", (k, p))
            strip = lambda u: re.sub(r"^[KMG](?=/sec$)", "", u)
            self.assertEqual(strip(k[rest + 3]), strip(p[rest + 3]), (k, p))

    # ---- -x: CSV ------------------------------------------------------------------

    def test_stat_csv_fields_match_perf(self):
        self.require_counting()
        events = "page-faults,task-clock,cycles"
        touch = [test_kpc.WORKLOAD, "touch", "3000"]
        for runs in (1, 3):
            theirs = self.perf_csv(["-r", str(runs), "-e", events, "--"] + touch)
            p, ours, _ = self.kpc_csv(["-r", str(runs), "-e", events, "--"] + touch)
            self.assertEqual(p.stdout.count("pages=3000"), runs)
            self.assertSameShape(ours, theirs, runs)
            faults = [float(r[0]) for r in (ours[0], theirs[0])]
            self.assertGreaterEqual(faults[0], 3000)
            self.assertCloseCount(faults[0], faults[1], "page-faults")
            self.assertEqual(ours[1][1], "msec")
            if not has_hardware_pmu():
                self.assertEqual(ours[2][0], "<not supported>")
                self.assertEqual(ours[2][3:], (["0.00%"] if runs > 1 else []) + ["0", "100.00", "", ""])

    def test_stat_csv_numbers(self):
        self.require_counting()
        p, rows, text = self.kpc_csv(["-e", "task-clock,page-faults", "--", test_kpc.WORKLOAD, "spin", "100"])
        own_ns = parse_key_values(p.stdout)["cpu_ns"][0]
        self.assertEqual(len(rows), 2, text)  # one line per event: no header, no notes
        clock, faults = rows
        self.assertEqual(clock[:3], [clock[0], "msec", "task-clock"])
        clock_ns = float(clock[0]) * 1e6
        self.assertGreaterEqual(clock_ns, 0.95 * own_ns)
        self.assertLessEqual(clock_ns, own_ns + 100e6)
        # task-clock counts exactly while it runs: its run time is its own value.
        self.assertLess(abs(int(clock[3]) - clock_ns), 0.01 * clock_ns + 20e3, clock)
        self.assertEqual(clock[4], "100.00")
        # CPUs utilized: task-clock over elapsed time, at most one CPU for this one thread.
        self.assertEqual(clock[6], "CPUs utilized")
        self.assertGreater(float(clock[5]), 0.05)
        self.assertLessEqual(float(clock[5]), 1.05)
        self.assertEqual(faults[1:3], ["", "page-faults"])
        self.assertTrue(faults[6].endswith("/sec"), faults)
        # The rate is the count per second of task-clock.
        scale = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[faults[6][:-4]]
        rate = float(faults[5]) * scale
        expected = float(faults[0]) / (clock_ns / 1e9)
        self.assertLess(abs(rate - expected), 0.01 * expected, (faults, clock))

    def test_stat_csv_separators_and_repeat(self):
        self.require_counting()
        for sep in (";", "::", "\t"):
            _, rows, text = self.kpc_csv(["-r", "2", "-e", "page-faults,task-clock", "--", "true"], sep)
            self.assertEqual([len(r) for r in rows], [8, 8], text)
            self.assertEqual([r[2] for r in rows], ["page-faults", "task-clock"])
            for r in rows:
                self.assertRegex(r[3], r"^\d+\.\d\d%$")  # the spread over the 2 runs
        # Without -o the CSV goes to stderr, the command's output stays on stdout.
        p = Kpc.run(["stat", "-x,", "-e", "page-faults", "--", test_kpc.WORKLOAD, "touch", "10"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("pages=10", p.stdout)
        rows = csv_lines(p.stderr)
        self.assertEqual(len(rows), 1, p.stderr)
        self.assertGreaterEqual(int(rows[0][0]), 10)

    def test_stat_csv_usage_errors(self):
        for args, message in ((["-x,", "--json"], "-x (CSV) and --json"),
                              (["--json", "-x", ";"], "-x (CSV) and --json"),
                              (["-j", "-x,"], "-x (CSV) and --json"),
                              (["-x", ""], "-x needs a separator"),
                              (["--field-separator="], "-x needs a separator")):
            p = Kpc.run(["stat"] + args + ["--", "true"])
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertTrue(p.stderr.startswith("kpc: "), p.stderr)
            self.assertIn(message, p.stderr)
            self.assertIn("usage: kpc stat", p.stderr)
        p = Kpc.run(["stat", "-x"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("option -x needs a value", p.stderr)

    # ---- {groups} in -e ------------------------------------------------------------

    def test_stat_group_json_and_text(self):
        self.require_counting()
        spec = ["-e", "{task-clock,page-faults},context-switches", "-e", "{minor-faults}"]
        touch = [test_kpc.WORKLOAD, "touch", "2000"]
        p, r = Kpc.stat_json(spec + ["--"] + touch)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([(e["name"], e["group"]) for e in r["events"]],
                         [("task-clock", 0), ("page-faults", 0), ("context-switches", None),
                          ("minor-faults", 1)])
        for e in r["events"]:
            self.assertEqual(e["status"], "counted", e)
        self.assertGreaterEqual(event(r, "page-faults")["value"]["mean"], 2000)
        self.assertGreaterEqual(event(r, "minor-faults")["value"]["mean"], 2000)
        text = Kpc.run(["stat"] + spec + ["--"] + touch)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("counted as groups", text.stderr)
        self.assertIn("{task-clock,page-faults} {minor-faults}", text.stderr)
        # Without braces, no group and no note.
        p, r = Kpc.stat_json(["-e", "task-clock", "--", "true"])
        self.assertIsNone(event(r, "task-clock")["group"])
        self.assertNotIn("groups", Kpc.run(["stat", "-e", "task-clock", "--", "true"]).stderr)

    def test_stat_group_counts_all_threads(self):
        """A group is inherited like single events: every thread's time is in it."""
        self.require_counting()
        p, r = Kpc.stat_json(["-e", "{task-clock,context-switches}", "--", test_kpc.WORKLOAD,
                              "threads", "2", "100"])
        self.assertEqual(p.returncode, 0, p.stderr)
        threads = parse_key_values(p.stdout)["thread_cpu_ns"]
        self.assertEqual(len(threads), 2)
        clock = event(r, "task-clock")
        self.assertEqual(clock["group"], 0)
        self.assertGreaterEqual(clock["value"]["mean"], 0.95 * sum(threads))
        self.assertGreater(clock["value"]["mean"], 1.5 * max(threads))
        # Counted over the same time: both were enabled and running for exactly as long.
        switches = event(r, "context-switches")
        self.assertEqual(switches["status"], "counted")
        self.assertEqual(switches["time_enabled_ns"], clock["time_enabled_ns"])
        self.assertEqual(switches["time_running_ns"], clock["time_running_ns"])

    def test_stat_group_is_one_perf_event_group(self):
        """On perf_event a group is one kernel group: members name their leader's fd."""
        self.require_counting()
        strace = shutil.which("strace")
        if not strace:
            self.skipTest("strace is not installed (apt-get install strace)")
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "strace.txt")
            p = subprocess.run([strace, "-e", "trace=perf_event_open", "-o", log, test_kpc.KPC, "stat",
                                "--backend", "perf_event", "-e",
                                "{task-clock,page-faults},context-switches,{minor-faults,major-faults}",
                                "--", "true"], capture_output=True, text=True, timeout=60)
            if p.returncode != 0 and "ptrace" in p.stderr:
                self.skipTest("strace cannot trace here: %s" % p.stderr.strip())
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(log) as f:
                trace = f.read()
        # The child's counters: perf_event_open(attr, <child pid>, cpu -1, group_fd, flags) = fd;
        # the probes kpc makes on itself (pid 0) are left out.
        calls = re.findall(r"perf_event_open\(\{[^{}]*?config=PERF_COUNT_SW_(\w+),([^{}]*)\}, "
                           r"([1-9]\d*), -1, (-?\d+), \w+\) = (\d+)", trace)
        self.assertEqual([c[0] for c in calls],
                         ["TASK_CLOCK", "PAGE_FAULTS", "CONTEXT_SWITCHES", "PAGE_FAULTS_MIN",
                          "PAGE_FAULTS_MAJ"], trace)
        fd = {c[0]: c[4] for c in calls}
        group_fd = {c[0]: c[3] for c in calls}
        self.assertEqual(group_fd["TASK_CLOCK"], "-1")
        self.assertEqual(group_fd["PAGE_FAULTS"], fd["TASK_CLOCK"])
        self.assertEqual(group_fd["CONTEXT_SWITCHES"], "-1")
        self.assertEqual(group_fd["PAGE_FAULTS_MIN"], "-1")
        self.assertEqual(group_fd["PAGE_FAULTS_MAJ"], fd["PAGE_FAULTS_MIN"])
        # All start at the exec, where the kernel enables them in one pass: a group starts whole.
        for c in calls:
            self.assertIn("enable_on_exec=1", c[1], c)
        self.assertEqual(len({c[2] for c in calls}), 1)  # all on the one child

    # Linux's encoding of each generic hardware event (include/uapi/linux/perf_event.h), as
    # strace decodes perf_event_attr: what perf stat opens for the same name.
    KERNEL_ENCODINGS = {
        "cycles": "PERF_TYPE_HARDWARE/PERF_COUNT_HW_CPU_CYCLES",
        "instructions": "PERF_TYPE_HARDWARE/PERF_COUNT_HW_INSTRUCTIONS",
        "branches": "PERF_TYPE_HARDWARE/PERF_COUNT_HW_BRANCH_INSTRUCTIONS",
        "branch-misses": "PERF_TYPE_HARDWARE/PERF_COUNT_HW_BRANCH_MISSES",
        "cache-references": "PERF_TYPE_HARDWARE/PERF_COUNT_HW_CACHE_REFERENCES",
        "cache-misses": "PERF_TYPE_HARDWARE/PERF_COUNT_HW_CACHE_MISSES",
        "stalled-cycles-frontend": "PERF_TYPE_HARDWARE/PERF_COUNT_HW_STALLED_CYCLES_FRONTEND",
        "stalled-cycles-backend": "PERF_TYPE_HARDWARE/PERF_COUNT_HW_STALLED_CYCLES_BACKEND",
        "ref-cycles": "PERF_TYPE_HARDWARE/PERF_COUNT_HW_REF_CPU_CYCLES",
        "l1d-load-misses": "PERF_TYPE_HW_CACHE/PERF_COUNT_HW_CACHE_RESULT_MISS<<16|"
                           "PERF_COUNT_HW_CACHE_OP_READ<<8|PERF_COUNT_HW_CACHE_L1D",
        "l1d-store-misses": "PERF_TYPE_HW_CACHE/PERF_COUNT_HW_CACHE_RESULT_MISS<<16|"
                            "PERF_COUNT_HW_CACHE_OP_WRITE<<8|PERF_COUNT_HW_CACHE_L1D",
        "l1i-load-misses": "PERF_TYPE_HW_CACHE/PERF_COUNT_HW_CACHE_RESULT_MISS<<16|"
                           "PERF_COUNT_HW_CACHE_OP_READ<<8|PERF_COUNT_HW_CACHE_L1I",
        "dtlb-load-misses": "PERF_TYPE_HW_CACHE/PERF_COUNT_HW_CACHE_RESULT_MISS<<16|"
                            "PERF_COUNT_HW_CACHE_OP_READ<<8|PERF_COUNT_HW_CACHE_DTLB",
        "itlb-load-misses": "PERF_TYPE_HW_CACHE/PERF_COUNT_HW_CACHE_RESULT_MISS<<16|"
                            "PERF_COUNT_HW_CACHE_OP_READ<<8|PERF_COUNT_HW_CACHE_ITLB",
    }

    def test_stat_opens_the_kernels_encoding_of_each_generic_event(self):
        """Each generic hardware event reaches the kernel as perf's encoding of that name.

        Seen in the perf_event_open calls themselves (strace), so it holds with or without a
        PMU: an event opened with another's encoding (branches as branch-misses) would count
        the wrong thing on every machine."""
        self.require_counting()
        strace = shutil.which("strace")
        if not strace:
            self.skipTest("strace is not installed (apt-get install strace)")
        names = list(self.KERNEL_ENCODINGS)
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "strace.txt")
            p = subprocess.run([strace, "-f", "-e", "trace=perf_event_open", "-o", log, test_kpc.KPC,
                                "stat", "--backend", "perf_event", "-e", ",".join(names), "--", "true"],
                               capture_output=True, text=True, timeout=60)
            if p.returncode != 0 and "ptrace" in p.stderr:
                self.skipTest("strace cannot trace here: %s" % p.stderr.strip())
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(log) as f:
                trace = f.read()
        opened = {"%s/%s" % m for m in
                  re.findall(r"perf_event_open\(\{type=(PERF_TYPE_HW_CACHE|PERF_TYPE_HARDWARE), "
                             r"size=\w+, config=([\w<|]+)", trace)}
        missing = {n: e for n, e in self.KERNEL_ENCODINGS.items() if e not in opened}
        self.assertEqual(missing, {}, "never opened with the kernel's encoding of its name; "
                         "opened instead: %s" % sorted(opened))

    def test_stat_group_counted_whole_like_perf(self):
        """A group with an event the machine cannot count is not counted at all, as in perf."""
        self.require_counting()
        if has_hardware_pmu():
            self.skipTest("needs an event this machine cannot count; cycles counts here")
        p, r = Kpc.stat_json(["-e", "{page-faults,cycles},task-clock", "--", "true"])
        self.assertEqual(p.returncode, 0, p.stderr)
        pf, cycles, clock = (event(r, n) for n in ("page-faults", "cycles", "task-clock"))
        self.assertEqual(cycles["status"], "not_supported")
        self.assertEqual(pf["status"], "not_counted")
        self.assertIn("'cycles'", pf["reason"])
        self.assertIsNone(pf["value"])
        self.assertEqual(clock["status"], "counted")  # outside the group: unaffected
        # Outside braces page-faults counts, so the group alone is the cause.
        p, r = Kpc.stat_json(["-e", "page-faults,cycles", "--", "true"])
        self.assertEqual(event(r, "page-faults")["status"], "counted")
        # perf stat: the same labels for the same group.
        _, ours, _ = self.kpc_csv(["-e", "{page-faults,cycles}", "--", "true"])
        theirs = self.perf_csv(["-e", "{page-faults,cycles}", "--", "true"])
        self.assertEqual([r[0] for r in theirs], ["<not counted>", "<not supported>"], theirs)
        self.assertEqual([r[0] for r in ours], ["<not counted>", "<not supported>"], ours)

    def test_stat_group_agrees_with_perf(self):
        self.require_counting()
        spec = "{task-clock,page-faults},minor-faults"
        touch = [test_kpc.WORKLOAD, "touch", "4000"]
        theirs = self.perf_csv(["-r", "3", "-e", spec, "--"] + touch)
        _, ours, _ = self.kpc_csv(["-r", "3", "-e", spec, "--"] + touch)
        self.assertSameShape(ours, theirs, 3)
        for k, p in zip(ours[1:], theirs[1:]):
            self.assertGreaterEqual(float(k[0]), 4000)
            self.assertCloseCount(float(k[0]), float(p[0]), k[2])

    def test_stat_group_usage_errors(self):
        for spec, message in (("{a,{b}}", "groups cannot be nested"),
                              ("{a,b", "without its closing '}'"),
                              ("a,b}", "'}' without a '{'"),
                              ("{}", "empty group"),
                              ("{a,b}:u", "after a group's '}'"),
                              ("x{a}", "'{' inside the event name 'x'"),
                              ("{a,,b}", "empty event name")):
            p = Kpc.run(["stat", "-e", spec, "--", "true"])
            self.assertEqual(p.returncode, 2, (spec, p.stderr))
            self.assertTrue(p.stderr.startswith("kpc: -e '%s' " % spec), p.stderr)
            self.assertIn(message, p.stderr)
            self.assertIn("usage: kpc stat", p.stderr)


if __name__ == "__main__":
    test_kpc.main(KpcPerfHabitsTest)
