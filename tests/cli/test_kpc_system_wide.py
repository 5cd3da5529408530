#!/usr/bin/env python3
"""kpc stat -a (every CPU, while a command runs or until Ctrl-C) and kpc stat --per-thread
(-p's counts thread by thread), on workloads the tests start, next to perf stat where perf
runs here.

Run one test:   python3 test_kpc_system_wide.py --kpc PATH --workload PATH test_name
CTest registers every `def test_*` below as cli.<name>, like test_kpc.py, whose helpers
and runner this file uses.
"""

import json
import os
import signal
import subprocess
import tempfile
import time
import unittest

import test_kpc
import test_kpc_perf_habits
from test_kpc import PERF, Kpc, event, parse_key_values


def paranoid():
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        return int(f.read().strip())


def cpus():
    return os.cpu_count() or 1


def kpc_popen(args, **kw):
    return subprocess.Popen([test_kpc.KPC] + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kw)


def threads_workload(n, ms):
    """`workload threads n ms`, returned once all its threads exist."""
    w = subprocess.Popen([test_kpc.WORKLOAD, "threads", str(n), str(ms)], stdout=subprocess.PIPE,
                         text=True)
    task = "/proc/%d/task" % w.pid
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if len(os.listdir(task)) >= n + 1:
                return w
        except FileNotFoundError:
            break
        time.sleep(0.005)
    w.kill()
    raise AssertionError("the workload's %d threads did not start" % n)


class KpcSystemWideTest(unittest.TestCase):
    maxDiff = None

    def require_all_cpus(self):
        reason = test_kpc.software_counting_blocked()
        if reason:
            self.skipTest(reason)
        if os.geteuid() != 0 and paranoid() > 0:
            self.skipTest("counting every CPU needs root, CAP_PERFMON or perf_event_paranoid <= 0 "
                          "(it is %d)" % paranoid())

    # ---- -a ---------------------------------------------------------------------------

    def test_stat_all_cpus_counts_what_else_runs(self):
        """-a while `sleep` runs counts another process's page faults and every CPU's clock."""
        self.require_all_cpus()
        other = subprocess.Popen(["sh", "-c", "sleep 0.1; exec %s touch 4000" % test_kpc.WORKLOAD],
                                 stdout=subprocess.PIPE, text=True)
        try:
            p, r = Kpc.stat_json(["-a", "-e", "page-faults,task-clock", "--", "sleep", "0.5"])
        finally:
            other.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(r["scope"], "system")
        self.assertEqual(r["command"], ["sleep", "0.5"])
        self.assertEqual(r["pids"], [])
        faults, clock = event(r, "page-faults"), event(r, "task-clock")
        self.assertEqual((faults["status"], faults["source"]), ("counted", "system"))
        # The other process faulted 4000 pages; sleep itself faults a few hundred at most.
        self.assertGreaterEqual(faults["value"]["mean"], 4000)
        elapsed = r["elapsed_ns"]["mean"]
        utilized = clock["value"]["mean"] / elapsed
        print("-a: %.0f page faults, %.2f CPUs utilized on %d CPUs" % (faults["value"]["mean"], utilized, cpus()))
        self.assertGreater(utilized, 0.8 * cpus())
        self.assertLess(utilized, 1.2 * cpus())
        p = Kpc.run(["stat", "-a", "-e", "task-clock", "--", "sleep", "0.1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Performance counter stats for 'system wide':", p.stderr)
        self.assertNotIn("cannot count one process", p.stderr)  # -a asked for every CPU

    def test_stat_all_cpus_agrees_with_perf(self):
        """The same -x fields as perf stat -a -x, and the same CPUs utilized."""
        self.require_all_cpus()
        t = test_kpc_perf_habits.KpcPerfHabitsTest
        args = ["-a", "-e", "task-clock,context-switches,page-faults", "sleep", "0.3"]
        theirs = t.perf_csv(self, args)
        _, ours, _ = t.kpc_csv(self, args)
        t.assertSameShape(self, ours, theirs, 1)
        k, q = float(ours[0][5]), float(theirs[0][5])  # task-clock's "CPUs utilized"
        print("-a CPUs utilized: kpc %.3f, perf %.3f" % (k, q))
        self.assertLess(abs(k - q), 0.15 * q)

    def test_stat_all_cpus_until_ctrl_c_with_intervals(self):
        self.require_all_cpus()
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            k = kpc_popen(["stat", "-a", "-I", "100", "-j", "-o", out, "-e", "task-clock"])
            time.sleep(0.55)
            k.send_signal(signal.SIGINT)
            _, err = k.communicate(timeout=10)
            self.assertEqual(k.returncode, 0, err)
            with open(out) as f:
                r = json.load(f)
        self.assertTrue(r["interrupted"])
        self.assertEqual(r["command"], [])
        self.assertGreaterEqual(len(r["intervals"]), 3, r["intervals"])
        for iv in r["intervals"][:3]:  # each 100 ms interval: about every CPU's 100 ms
            v = iv["values"]["task-clock"]
            self.assertGreater(v, 0.7 * cpus() * 100e6, iv)
            self.assertLess(v, 1.3 * cpus() * 100e6, iv)
        # Text, without -I: the header perf prints, marked interrupted.
        k = kpc_popen(["stat", "-a", "-e", "task-clock"])
        time.sleep(0.3)
        k.send_signal(signal.SIGINT)
        _, err = k.communicate(timeout=10)
        self.assertEqual(k.returncode, 0, err)
        self.assertIn("Performance counter stats for 'system wide' (interrupted):", err)
        self.assertRegex(err, r"msec task-clock")

    def test_stat_all_cpus_passes_sigterm_to_its_command(self):
        """-a CMD: kpc started CMD, so SIGTERM goes on to it (as for a counted command)."""
        self.require_all_cpus()
        with tempfile.TemporaryDirectory() as d:
            marker = os.path.join(d, "pid")
            k = kpc_popen(["stat", "-a", "-e", "task-clock", "--", "sh", "-c",
                           "echo $$ > %s; exec sleep 30" % marker])
            deadline = time.monotonic() + 10
            while not os.path.exists(marker) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.05)
            with open(marker) as f:
                child = int(f.read())
            k.send_signal(signal.SIGTERM)
            _, err = k.communicate(timeout=10)
        self.assertEqual(k.returncode, 128 + signal.SIGTERM, err)
        self.assertIn("passed it on to 'sh'", err)
        self.assertIn("'system wide' (interrupted)", err)
        with self.assertRaises(ProcessLookupError):  # the command is gone, and was reaped
            os.kill(child, 0)

    def test_stat_all_cpus_refused_without_privilege(self):
        """Unprivileged with perf_event_paranoid > 0: exit 125, naming the setting to change."""
        if paranoid() <= 0:
            self.skipTest("perf_event_paranoid %d lets everyone count every CPU" % paranoid())
        if os.geteuid() == 0:
            drop = lambda: (os.setgid(65534), os.setuid(65534))
        else:
            drop = None
        p = subprocess.run([test_kpc.KPC, "stat", "-a", "-e", "task-clock", "--", "true"],
                           capture_output=True, text=True, timeout=60, preexec_fn=drop)
        self.assertEqual(p.returncode, 125, p.stderr)
        self.assertIn("cannot count every CPU", p.stderr)
        self.assertIn("perf_event_paranoid", p.stderr)
        self.assertIn("CAP_PERFMON", p.stderr)

    # ---- --per-thread -----------------------------------------------------------------

    def test_stat_per_thread_rows_add_up(self):
        reason = test_kpc.software_counting_blocked()
        if reason:
            self.skipTest(reason)
        w = threads_workload(2, 600)
        try:
            p, r = Kpc.stat_json(["--per-thread", "-e", "task-clock,page-faults", "-p", str(w.pid)])
        finally:
            out, _ = w.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = r["threads"]
        self.assertEqual(len(rows), 3, rows)  # the main thread and its two
        self.assertEqual(len({t["tid"] for t in rows}), 3)
        self.assertEqual({t["pid"] for t in rows}, {w.pid})
        self.assertIn(w.pid, {t["tid"] for t in rows})
        self.assertEqual({t["comm"] for t in rows}, {"workload"})
        # The process had ended when kpc read: totals and rows are final, and add up exactly.
        for name in ("task-clock", "page-faults"):
            self.assertEqual(sum(t["values"][name] for t in rows), event(r, name)["raw_values"][0], name)
        burned = parse_key_values(out)["thread_cpu_ns"]
        burned = [int(v) for v in (burned if isinstance(burned, list) else [burned])]
        busy = sorted(t["values"]["task-clock"] for t in rows)[1:]
        print("per thread: burned %s ns, counted from the attach %s ns" % (burned, busy))
        for b in busy:  # each spinning thread: most of its 600 ms, never much more
            self.assertGreater(b, 0.3 * 600e6)
            # Loose: task-clock also counts time a VM's host takes from the CPU, which the
            # thread's CPU clock leaves out.
            self.assertLess(b, 1.10 * max(burned) + 20e6)
        # Text and CSV: one line per thread and event, led by comm-tid.
        w = threads_workload(2, 300)
        try:
            _, csv_rows, text = test_kpc_perf_habits.KpcPerfHabitsTest.kpc_csv(
                self, ["--per-thread", "-e", "task-clock", "-p", str(w.pid)])
        finally:
            w.communicate(timeout=60)
        self.assertEqual(len(csv_rows), 3, text)
        for row in csv_rows:
            self.assertRegex(row[0], r"^workload-\d+$")
            self.assertEqual((row[2], row[3]), ("msec", "task-clock"))

    def test_stat_per_thread_agrees_with_perf(self):
        reason = test_kpc.software_counting_blocked()
        if reason:
            self.skipTest(reason)
        if not os.access(PERF, os.X_OK):
            self.skipTest("%s is not installed (apt-get install linux-perf)" % PERF)
        w = threads_workload(2, 800)
        with tempfile.TemporaryDirectory() as d:
            perf_out = os.path.join(d, "perf.csv")
            try:
                perf = subprocess.Popen([PERF, "stat", "--per-thread", "-x,", "-o", perf_out, "-e",
                                         "task-clock", "-p", str(w.pid)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True)
                p, r = Kpc.stat_json(["--per-thread", "-e", "task-clock", "-p", str(w.pid)])
            finally:
                w.communicate(timeout=60)
            _, perf_err = perf.communicate(timeout=60)
            if perf.returncode != 0:
                self.skipTest("perf stat --per-thread does not run here (exit %d): %s"
                              % (perf.returncode, perf_err.strip()))
            with open(perf_out) as f:
                theirs = [l.strip().split(",") for l in f if l.strip() and not l.startswith("#")]
        self.assertEqual(p.returncode, 0, p.stderr)
        perf_threads = {}
        for row in theirs:
            comm, tid = row[0].rsplit("-", 1)
            perf_threads[int(tid)] = float(row[1]) * 1e6 if not row[1].startswith("<") else 0.0
        ours = {t["tid"]: t["values"]["task-clock"] for t in r["threads"]}
        print("per thread task-clock ns: kpc %s, perf %s" % (ours, perf_threads))
        self.assertEqual(set(ours), set(perf_threads))  # the same threads
        # kpc starts after perf, so each thread's count is at most perf's (10% + 20 ms for two
        # readings of task-clock) and misses only what the thread ran while kpc started. A
        # thread counted twice or given another's time is over; half of it lost is under.
        for tid, v in ours.items():
            self.assertLessEqual(v, 1.10 * perf_threads[tid] + 20e6, tid)
            self.assertGreaterEqual(v, 0.75 * perf_threads[tid] - 20e6, tid)

    def test_stat_all_cpus_and_per_thread_usage_errors(self):
        for args, words in ((["-a", "-p", "1"], "give one of them"),
                            (["--per-thread", "--", "true"], "add -p PID"),
                            (["--per-thread", "-I", "100", "-p", "1"], "cannot be combined with -I"),
                            (["-a", "-r", "2"], "counts until Ctrl-C, once")):
            p = Kpc.run(["stat"] + args)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertIn(words, p.stderr, args)


if __name__ == "__main__":
    test_kpc.main(KpcSystemWideTest)
