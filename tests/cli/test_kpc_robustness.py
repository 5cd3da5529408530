#!/usr/bin/env python3
"""Black-box tests of how kpc fails: unwritable stdout, signals to kpc stat, JSON errors.

Run one test:   python3 test_kpc_robustness.py --kpc PATH --workload PATH test_name
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
from test_kpc import Kpc, event


def kpc_env():
    return {k: v for k, v in os.environ.items() if k not in test_kpc.KPC_ENV}


def default_signals():
    """In the child: the dispositions kpc would get from a shell, whatever the runner's."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class KpcRobustnessTest(unittest.TestCase):
    maxDiff = None

    # ---- stdout that cannot be written (issue 8, section 1, item 5) -------------------

    COMMANDS_WRITING_STDOUT = (["list"], ["list", "--json"], ["info"], ["info", "--json"],
                               ["-V"], ["--version"], ["--help"], ["help", "stat"])

    def assertStdoutError(self, p, args, cause):
        self.assertEqual(p.returncode, 1, "kpc %s: %s" % (args, p.stderr))
        message = "cannot write to standard output: " + cause
        if "--json" in args:
            self.assertIn(message, json.loads(p.stderr)["message"], args)
        else:
            self.assertIn("kpc: " + message, p.stderr, args)

    def test_stdout_full(self):
        for args in self.COMMANDS_WRITING_STDOUT:
            with open("/dev/full", "w") as full:
                p = subprocess.run([test_kpc.KPC] + args, stdout=full, stderr=subprocess.PIPE,
                                   text=True, env=kpc_env(), timeout=60)
            self.assertStdoutError(p, args, os.strerror(28))  # ENOSPC

    def test_stdout_closed(self):
        for args in self.COMMANDS_WRITING_STDOUT:
            p = subprocess.run([test_kpc.KPC] + args, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env=kpc_env(), timeout=60,
                               preexec_fn=lambda: os.close(1))
            self.assertStdoutError(p, args, os.strerror(9))  # EBADF

    def test_stdout_writable_still_exits_0(self):
        # The control: the same commands succeed when stdout works.
        for args in self.COMMANDS_WRITING_STDOUT:
            p = Kpc.run(args)
            self.assertEqual(p.returncode, 0, "kpc %s: %s" % (args, p.stderr))
            self.assertTrue(p.stdout, args)

    # ---- signals to kpc stat (item 6) ---------------------------------------------------

    def stat_until_signalled(self, sig, extra_args):
        """kpc stat on a shell that records its pid and sleeps; `sig` goes to kpc alone.

        Returns (kpc's exit status, its stderr, the command's pid).
        """
        with tempfile.TemporaryDirectory() as d:
            pid_file = os.path.join(d, "pid")
            script = 'echo $$ > %s.tmp && mv %s.tmp %s && exec sleep 30' % (pid_file, pid_file, pid_file)
            kpc = subprocess.Popen([test_kpc.KPC, "stat", "-e", "task-clock"] + extra_args +
                                   ["--", "sh", "-c", script], stderr=subprocess.PIPE, text=True,
                                   env=kpc_env(), preexec_fn=default_signals)
            child = None
            try:
                deadline = time.monotonic() + 20
                while child is None and time.monotonic() < deadline:
                    if os.path.exists(pid_file):
                        child = int(open(pid_file).read())
                    else:
                        time.sleep(0.05)
                self.assertIsNotNone(child, "the command never started")
                kpc.send_signal(sig)
                status = kpc.wait(timeout=20)
                # kpc reaped the command before exiting: no orphan left running (which would
                # also hold kpc's stderr open).
                self.assertFalse(pid_alive(child), "kpc (exit %d) left its command %d running, orphaned"
                                 % (status, child))
                return status, kpc.stderr.read(), child
            finally:
                if kpc.poll() is None:
                    kpc.kill()
                    kpc.wait()
                if child is not None and pid_alive(child):
                    os.kill(child, signal.SIGKILL)

    def check_forwarded_text(self, sig):
        status, err, _ = self.stat_until_signalled(sig, [])
        self.assertEqual(status, 128 + sig, err)
        self.assertIn("Performance counter stats for 'sh -c", err)
        self.assertIn("(interrupted)", err)
        self.assertRegex(err, r"(?m)^\s+\S+ msec task-clock|<not (supported|counted)>\s+task-clock")
        self.assertIn("kpc received signal %d" % sig, err)
        self.assertIn("'sh' was killed by signal %d" % sig, err)

    def check_forwarded_json(self, sig):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "report.json")
            status, err, _ = self.stat_until_signalled(sig, ["--json", "-o", out])
            self.assertEqual(status, 128 + sig, err)
            with open(out) as f:
                r = json.load(f)
        self.assertIs(r["interrupted"], True)
        self.assertEqual((r["runs"], r["runs_requested"]), (1, 1))
        self.assertEqual(r["exit_status"], 128 + sig)
        self.assertEqual(r["signal"], sig)  # the command died of the signal kpc passed on
        tc = event(r, "task-clock")
        if test_kpc.software_counting_blocked() is None:
            self.assertEqual(tc["status"], "counted", tc)
            self.assertGreater(tc["value"]["mean"], 0)

    def test_stat_sigterm_is_passed_on(self):
        self.check_forwarded_text(signal.SIGTERM)

    def test_stat_sighup_is_passed_on(self):
        self.check_forwarded_text(signal.SIGHUP)

    def test_stat_sigterm_is_passed_on_json(self):
        self.check_forwarded_json(signal.SIGTERM)

    def test_stat_sighup_is_passed_on_json(self):
        self.check_forwarded_json(signal.SIGHUP)

    def test_stat_interrupted_single_run_json(self):
        # Ctrl-C reaches the whole process group; here the command interrupts itself.
        p, r = Kpc.stat_json(["-e", "task-clock", "--", "sh", "-c", "kill -INT $$"])
        self.assertEqual(p.returncode, 128 + signal.SIGINT, p.stderr)
        self.assertIs(r["interrupted"], True)
        self.assertEqual((r["runs"], r["signal"]), (1, signal.SIGINT))
        p = Kpc.run(["stat", "-e", "task-clock", "--", "sh", "-c", "kill -INT $$"])
        self.assertIn("(interrupted):", p.stderr)
        # A command that ends normally is not interrupted.
        p, r = Kpc.stat_json(["-e", "task-clock", "--", "true"])
        self.assertIs(r["interrupted"], False)

    # ---- errors under --json -------------------------------------------------------------

    def assertJsonError(self, args, env, exit_status, status, in_message):
        p = Kpc.run(args, env=env)
        self.assertEqual(p.returncode, exit_status, p.stderr)
        try:
            err = json.loads(p.stderr)
        except ValueError:
            self.fail("kpc %s: stderr is not one JSON object: %r" % (args, p.stderr))
        self.assertEqual(set(err), {"schema", "kpc_version", "message", "exit_status", "status", "code"})
        self.assertEqual(err["schema"], "kpc-error/1")
        self.assertEqual(err["exit_status"], exit_status)
        self.assertEqual(err["status"], status)
        self.assertIsInstance(err["code"], int)
        self.assertLess(err["code"], 0)
        self.assertIn(in_message, err["message"])
        # The text form carries the same message.
        text = Kpc.run([a for a in args if a != "--json"], env=env)
        self.assertEqual(text.stderr, "kpc: %s\n" % err["message"])

    def test_json_errors(self):
        bogus = {"KPC_BACKEND": "bogus"}
        self.assertJsonError(["stat", "--json", "--", "true"], bogus, 125, "KP_EINVAL", "KPC_BACKEND='bogus'")
        self.assertJsonError(["info", "--json"], bogus, 1, "KP_EINVAL", "KPC_BACKEND='bogus'")
        self.assertJsonError(["list", "--json"], bogus, 1, "KP_EINVAL", "KPC_BACKEND='bogus'")
        self.assertJsonError(["stat", "--json", "-e", "no-such-event", "--", "true"], None, 125,
                             "KP_EUNKNOWN_EVENT", "no-such-event")
        # A failure that is not the library's: null status and code.
        p = Kpc.run(["stat", "--json", "--", "/nonexistent/kpc-test-command"])
        self.assertEqual(p.returncode, 127, p.stderr)
        err = json.loads(p.stderr)
        self.assertEqual((err["exit_status"], err["status"], err["code"]), (127, None, None))
        self.assertIn("/nonexistent/kpc-test-command", err["message"])


if __name__ == "__main__":
    test_kpc.main(KpcRobustnessTest)
