#!/usr/bin/env python3
"""kpc stat -p PID[,PID...] (count running processes until they end or Ctrl-C) and
kpc stat -I MSEC (a line per interval while counting), on workloads the tests start, and
next to perf stat -p where perf runs here.

Run one test:   python3 test_kpc_attach.py --kpc PATH --workload PATH test_name
CTest registers every `def test_*` below as cli.<name>, like test_kpc.py, whose helpers
and runner this file uses.
"""

import json
import os
import re
import signal
import subprocess
import tempfile
import time
import unittest

import test_kpc
from test_kpc import PERF, Kpc, event, parse_key_values


def spin(ms):
    """A workload burning `ms` of CPU time; its stdout says how much it used (cpu_ns)."""
    return subprocess.Popen([test_kpc.WORKLOAD, "spin", str(ms)], stdout=subprocess.PIPE, text=True)


def cpu_ns(workload):
    out, _ = workload.communicate(timeout=60)
    value = parse_key_values(out)["cpu_ns"]
    return int(value[0] if isinstance(value, list) else value)


def ran_ns(pid):
    """The CPU time process `pid` has run so far, in ns (/proc/PID/schedstat's first field)."""
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0])


def kpc_popen(args):
    return subprocess.Popen([test_kpc.KPC] + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def unused_pid():
    pid = 4194000
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            pass
        pid -= 1


class KpcAttachTest(unittest.TestCase):
    maxDiff = None

    def require_counting(self):
        reason = test_kpc.software_counting_blocked()
        if reason:
            self.skipTest(reason)

    def test_stat_pid_counts_a_running_process(self):
        self.require_counting()
        w = spin(2000)
        try:
            time.sleep(0.3)  # running, and already some CPU time before kpc attaches
            before = ran_ns(w.pid)
            p, r = Kpc.stat_json(["-e", "task-clock,page-faults", "-p", str(w.pid)])
        finally:
            used = cpu_ns(w)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(r["pids"], [w.pid])
        self.assertEqual(r["command"], [])
        self.assertIsNone(r["user_ns"])  # not kpc's child: no rusage
        self.assertFalse(r["interrupted"])
        clock = event(r, "task-clock")
        self.assertEqual((clock["status"], clock["source"]), ("counted", "process"))
        counted = clock["value"]["mean"]
        left = used - before  # CPU time the process ran after kpc was started
        print("workload cpu %.0f ms, %.0f ms of it after kpc started, counted %.0f ms"
              % (used / 1e6, left / 1e6, counted / 1e6))
        # From the attach on: what was left after kpc started, less kpc's own start-up
        # (tests/README.md: task-clock within 90% below, 10% + 20 ms above a CPU clock). Time
        # counted twice, or from the process's start, is over; half of it lost is under.
        self.assertLessEqual(counted, left * 1.10 + 20e6)
        self.assertGreaterEqual(counted, left * 0.75)
        # kpc returned because the process ended (a zombie, until this test reaps it).
        self.assertGreaterEqual(r["elapsed_ns"]["mean"], counted * 0.5)

    def test_stat_pid_sums_several_processes(self):
        self.require_counting()
        a, b = spin(1200), spin(1200)
        try:
            time.sleep(0.2)
            before = ran_ns(a.pid) + ran_ns(b.pid)
            p, r = Kpc.stat_json(["-e", "task-clock", "-p", "%d,%d" % (a.pid, b.pid)])
        finally:
            used = cpu_ns(a) + cpu_ns(b)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(r["pids"], [a.pid, b.pid])
        counted = event(r, "task-clock")["value"]["mean"]
        left = used - before
        print("both workloads: %.0f ms after kpc started, counted %.0f ms" % (left / 1e6, counted / 1e6))
        # As above; one of the two processes lost is half of it.
        self.assertLessEqual(counted, left * 1.10 + 20e6)
        self.assertGreaterEqual(counted, left * 0.75)

    def test_stat_pid_ctrl_c_reports_and_leaves_the_process(self):
        self.require_counting()
        w = spin(60000)
        try:
            k = kpc_popen(["stat", "-e", "task-clock", "-p", str(w.pid)])
            time.sleep(0.5)
            k.send_signal(signal.SIGINT)
            _, err = k.communicate(timeout=10)
            self.assertEqual(k.returncode, 0, err)
            self.assertIn("Performance counter stats for process id '%d' (interrupted)" % w.pid, err)
            self.assertRegex(err, r"msec task-clock")
            self.assertIsNone(w.poll(), "the counted process must run on")
            # SIGTERM: reported, exit 128+15, and not passed on to a process kpc did not start.
            k = kpc_popen(["stat", "-e", "task-clock", "-p", str(w.pid)])
            time.sleep(0.5)
            k.send_signal(signal.SIGTERM)
            _, err = k.communicate(timeout=10)
            self.assertEqual(k.returncode, 128 + signal.SIGTERM, err)
            self.assertIn("stopped counting", err)
            self.assertIsNone(w.poll(), "SIGTERM must not reach the counted process")
        finally:
            w.kill()
            w.wait()

    def test_stat_pid_agrees_with_perf_stat(self):
        self.require_counting()
        if not os.access(PERF, os.X_OK):
            self.skipTest("%s is not installed (apt-get install linux-perf)" % PERF)
        w = spin(1500)
        with tempfile.TemporaryDirectory() as d:
            perf_out = os.path.join(d, "perf.csv")
            try:
                time.sleep(0.2)
                perf = subprocess.Popen([PERF, "stat", "-x,", "-o", perf_out, "-e", "task-clock",
                                         "-p", str(w.pid)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True)
                p, r = Kpc.stat_json(["-e", "task-clock", "-p", str(w.pid)])
            finally:
                cpu_ns(w)  # reaped: perf stat -p, unlike kpc, waits for a zombie to go
            _, perf_err = perf.communicate(timeout=60)
            if perf.returncode != 0:
                self.skipTest("perf stat -p does not run here (exit %d): %s" % (perf.returncode, perf_err.strip()))
            with open(perf_out) as f:
                rows = [l.strip().split(",") for l in f if l.strip() and not l.startswith("#")]
        self.assertEqual(p.returncode, 0, p.stderr)
        theirs = float(rows[0][0]) * 1e6  # msec
        ours = event(r, "task-clock")["value"]["mean"]
        print("task-clock -p: kpc %.1f ms, perf %.1f ms" % (ours / 1e6, theirs / 1e6))
        # Both count the same spinning process to its end; kpc starts after perf, so it counts
        # at most what perf did (10% + 20 ms for two readings of task-clock), and misses only
        # what the process ran while kpc started. Counted twice is 2x; half lost is 0.5x.
        self.assertLessEqual(ours, 1.10 * theirs + 20e6)
        self.assertGreaterEqual(ours, 0.75 * theirs)

    def test_stat_pid_while_a_command_runs(self):
        """perf's -p PID CMD: PID is counted while CMD runs; CMD's exit status is kpc's."""
        self.require_counting()
        w = spin(5000)
        try:
            time.sleep(0.2)
            before = ran_ns(w.pid)
            p, r = Kpc.stat_json(["-e", "task-clock", "-p", str(w.pid), "--", "sh", "-c", "sleep 0.4; exit 3"])
            ran = ran_ns(w.pid) - before  # while kpc ran: a little longer than CMD did
            self.assertIsNone(w.poll(), "the counted process runs on after CMD")
        finally:
            w.kill()
            w.wait()
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertEqual((r["pids"], r["command"]), ([w.pid], ["sh", "-c", "sleep 0.4; exit 3"]))
        self.assertIsNone(r["user_ns"])  # CMD's times are not what was counted
        counted = event(r, "task-clock")["value"]["mean"]
        print("-p with CMD: %.0f ms of the spinning process over %.0f ms; it ran %.0f ms meanwhile"
              % (counted / 1e6, r["elapsed_ns"]["mean"] / 1e6, ran / 1e6))
        # Counted while CMD's 0.4 s ran: most of what the spinning process ran during kpc's
        # whole run (a busy machine gives it less CPU, both numbers alike), never longer than
        # CMD ran. task-clock also counts time a VM's host takes, hence the slack.
        self.assertGreater(counted, 0.5 * ran)
        self.assertLess(counted, ran * 1.10 + 20e6)
        self.assertLess(counted, r["elapsed_ns"]["mean"] * 1.05 + 20e6)
        p = Kpc.run(["stat", "-e", "task-clock", "-p", str(os.getpid()), "--", "true"])
        self.assertIn("Performance counter stats for process id '%d'" % os.getpid(), p.stderr)

    def test_stat_pid_usage_errors(self):
        for bad in ("0", "abc", "12,", "-3"):
            p = Kpc.run(["stat", "-p", bad])
            self.assertEqual(p.returncode, 2, (bad, p.stderr))
            self.assertIn("-p needs process ids", p.stderr)
        p = Kpc.run(["stat", "-r", "2", "-p", "1"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.require_counting()
        pid = unused_pid()
        p = Kpc.run(["stat", "-e", "task-clock", "-p", str(pid)])
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("cannot count process %d" % pid, p.stderr)

    def test_stat_interval_json_text_and_csv(self):
        self.require_counting()
        spin_args = ["--", test_kpc.WORKLOAD, "spin", "1000"]
        p, r = Kpc.stat_json(["-I", "200", "-e", "task-clock,cycles"] + spin_args)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(r["interval_ms"], 200)
        times = [iv["time_ns"] for iv in r["intervals"]]
        self.assertGreaterEqual(len(times), 3, r["intervals"])
        self.assertEqual(times, sorted(times))
        for k, t in enumerate(times, 1):  # a tick every 200 ms, give or take the machine's load
            self.assertGreater(t, k * 200e6 * 0.9, times)
        clock = [iv["values"]["task-clock"] for iv in r["intervals"]]
        total = event(r, "task-clock")["value"]["mean"]
        print("intervals: %s ms of %.0f ms" % (["%.0f" % (c / 1e6) for c in clock], total / 1e6))
        self.assertTrue(all(c > 0 for c in clock), clock)
        # The intervals cover the run up to the last tick: less than the total, most of it.
        self.assertLessEqual(sum(clock), total * 1.001)
        self.assertGreaterEqual(sum(clock), total * 0.4)
        if event(r, "cycles")["status"] != "counted":
            self.assertEqual([iv["values"]["cycles"] for iv in r["intervals"]], [None] * len(times))
        # Text: perf's header, then time-stamped event lines, then the usual report.
        text = Kpc.run(["stat", "-I", "200", "-e", "task-clock"] + spin_args)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("#           time             counts unit events", text.stderr)
        stamps = [float(m) for m in re.findall(r"(?m)^\s+(\d+\.\d{9})\s+[\d.]+ msec task-clock", text.stderr)]
        self.assertGreaterEqual(len(stamps), 3, text.stderr)
        self.assertEqual(stamps, sorted(stamps))
        self.assertIn("Performance counter stats for", text.stderr)
        # CSV: perf -I -x's fields, the time first; then the final lines without it.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.csv")
            csv = Kpc.run(["stat", "-I", "200", "-x", ";", "-o", path, "-e", "task-clock"] + spin_args)
            self.assertEqual(csv.returncode, 0, csv.stderr)
            with open(path) as f:
                rows = [line.rstrip("\n").split(";") for line in f if line.strip()]
        timed = [row for row in rows if len(row) == 8]
        self.assertGreaterEqual(len(timed), 3, rows)
        for row in timed:
            self.assertRegex(row[0], r"^\d+\.\d{9}$")
            self.assertEqual(row[2:4], ["msec", "task-clock"])
        self.assertEqual(len(rows[-1]), 7, rows)  # the whole run's line
        self.assertEqual(rows[-1][1:3], ["msec", "task-clock"])

    def test_stat_interval_csv_agrees_with_perf(self):
        """-I -x next to perf stat -I -x: the same fields per line, and the same 200 ms each."""
        self.require_counting()
        if not os.access(PERF, os.X_OK):
            self.skipTest("%s is not installed (apt-get install linux-perf)" % PERF)
        args = ["-I", "200", "-e", "task-clock,page-faults", "--", test_kpc.WORKLOAD, "spin", "700"]
        with tempfile.TemporaryDirectory() as d:
            perf_path, kpc_path = os.path.join(d, "perf.csv"), os.path.join(d, "kpc.csv")
            perf = subprocess.run([PERF, "stat", "-x,", "-o", perf_path] + args, capture_output=True,
                                  text=True, timeout=120)
            if perf.returncode != 0:
                self.skipTest("perf stat -I does not run here (exit %d): %s" % (perf.returncode, perf.stderr.strip()))
            p = Kpc.run(["stat", "-x", ",", "-o", kpc_path] + args)
            self.assertEqual(p.returncode, 0, p.stderr)
            read = lambda path: [l.strip().split(",") for l in open(path) if l.strip() and not l.startswith("#")]
            theirs, ours = read(perf_path), read(kpc_path)
        # perf ends with the last, partial interval; kpc leaves it to the whole run's lines.
        last = theirs[-1][0]
        theirs_full = [row for row in theirs if row[0] != last]
        ours_timed = [row for row in ours if len(row) == 8]
        print("perf intervals %s; kpc intervals %s" % ([r[1] for r in theirs], [r[1] for r in ours_timed]))
        # Whole intervals: the spin takes 700 ms of CPU time, so at least 3 on each side. How
        # many more depends on how long each run waited for a CPU (two runs, each with its
        # own share of a busy machine), so the first 3 ticks are compared line by line.
        rows_per_tick, ticks = 2, 3
        self.assertGreaterEqual(len(ours_timed), ticks * rows_per_tick, ours)
        self.assertGreaterEqual(len(theirs_full), ticks * rows_per_tick, theirs)
        for k, q in zip(ours_timed[:ticks * rows_per_tick], theirs_full):
            self.assertEqual(len(k), len(q), (k, q))
            self.assertEqual(k[2:4], q[2:4])  # unit and event, in -e's order
            self.assertEqual(k[5], q[5])      # % counted: 100.00 for software events
            self.assertEqual(k[7], q[7])      # metric unit
            self.assertAlmostEqual(float(k[0]), float(q[0]), delta=0.1)  # the tick's time
        # A spinning process: at most 200 ms of CPU per 200 ms interval (one thread), and
        # on a quiet machine about that in both tools; on a busy one both get less, each
        # in its own run, so the values are bounded rather than compared.
        for row in ours_timed:
            if row[3] == "task-clock":
                self.assertLessEqual(float(row[1]), 1.1 * 200 + 5, row)
                self.assertGreater(float(row[1]), 0, row)

    def test_stat_interval_with_pid(self):
        self.require_counting()
        w = spin(1000)
        try:
            time.sleep(0.1)
            p, r = Kpc.stat_json(["-I", "200", "-e", "task-clock", "-p", str(w.pid)])
        finally:
            cpu_ns(w)
        self.assertEqual(p.returncode, 0, p.stderr)
        clock = [iv["values"]["task-clock"] for iv in r["intervals"]]
        self.assertGreaterEqual(len(clock), 2, r["intervals"])
        self.assertTrue(all(c > 0 for c in clock), clock)
        self.assertLessEqual(sum(clock), event(r, "task-clock")["value"]["mean"] * 1.001)

    def test_stat_interval_late_tick_is_not_followed_by_empty_ones(self):
        # kpc stopped for 5 intervals (SIGSTOP, as a loaded machine may hold it back): the
        # interval that ends late is longer, and the next ones keep the grid. Catching up
        # instead printed the missed ticks back to back, intervals of next to no time.
        self.require_counting()
        w = spin(1500)
        try:
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "report.json")
                k = kpc_popen(["stat", "--json", "-o", path, "-I", "100", "-e", "task-clock",
                               "-p", str(w.pid)])
                time.sleep(0.35)
                os.kill(k.pid, signal.SIGSTOP)
                time.sleep(0.5)
                os.kill(k.pid, signal.SIGCONT)
                _, err = k.communicate(timeout=60)
                self.assertEqual(k.returncode, 0, err)
                with open(path) as f:
                    r = json.load(f)
        finally:
            cpu_ns(w)
        times = [iv["time_ns"] for iv in r["intervals"]]
        self.assertGreaterEqual(len(times), 4, times)
        gaps = [b - a for a, b in zip(times, times[1:])]
        self.assertTrue(all(g >= 50e6 for g in gaps), gaps)  # none shorter than half of -I 100
        self.assertTrue(any(g >= 400e6 for g in gaps), gaps)  # the stop made one long

    def test_stat_interval_usage_errors(self):
        for args in (["-I", "5"], ["-I", "abc"], ["-I", "100", "-r", "2"]):
            p = Kpc.run(["stat"] + args + ["--", "true"])
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertIn("-I", p.stderr)


if __name__ == "__main__":
    test_kpc.main(KpcAttachTest)
