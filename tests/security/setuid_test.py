#!/usr/bin/env python3
"""A setuid program ignores the KPC_* variables that choose code; the same program honours
them when it is not setuid.

Each test copies the probe (probe.c), the kpc tool and the kperf simulator into a fresh
world-readable directory, makes a setuid-root copy of the program and a plain one, and runs
both as `nobody` through setpriv, with KPC_BACKEND=kperf and KPC_KPERF_PATH /
KPC_KPERFDATA_PATH naming the simulator copies. Needs root (to make a setuid-root file and
to switch to nobody); without root or setpriv a test prints why and exits 77 (skipped).

CTest runs them all as security.setuid. Run one:
  python3 setuid_test.py --probe P --kpc K --kperf L --kperfdata D test_name
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SKIP_EXIT = 77
PATHS = {}
IGNORED_ALL = "KPC_BACKEND, KPC_KPERF_PATH, KPC_KPERFDATA_PATH ignored (setuid process)"


def skip_reason():
    if os.geteuid() != 0:
        return "needs root, to make a setuid-root copy of the program and run it as nobody"
    if shutil.which("setpriv") is None:
        return "needs setpriv (Debian package util-linux)"
    return None


class SetuidEnvironment(unittest.TestCase):
    def setUp(self):
        reason = skip_reason()
        if reason:
            self.skipTest(reason)
        self.dir = tempfile.mkdtemp(prefix="kpc-security-")
        self.addCleanup(shutil.rmtree, self.dir)
        os.chmod(self.dir, 0o755)  # nobody must reach the copies
        self.kperf = self.copy_readable(PATHS["kperf"])
        self.kperfdata = self.copy_readable(PATHS["kperfdata"])
        self.env = {
            "PATH": "/usr/bin:/bin",
            "KPC_BACKEND": "kperf",
            "KPC_KPERF_PATH": self.kperf,
            "KPC_KPERFDATA_PATH": self.kperfdata,
        }

    def copy_readable(self, path):
        dst = os.path.join(self.dir, os.path.basename(path))
        shutil.copy(path, dst)
        os.chmod(dst, 0o755)
        return dst

    def copies(self, program):
        """A plain and a setuid-root copy of `program` in the test directory."""
        plain = os.path.join(self.dir, "plain-" + os.path.basename(program))
        setuid = os.path.join(self.dir, "setuid-" + os.path.basename(program))
        for path, mode in ((plain, 0o755), (setuid, 0o4755)):
            shutil.copy(program, path)
            os.chown(path, 0, 0)
            os.chmod(path, mode)  # after chown, which clears the setuid bit
        return plain, setuid

    def run_as_nobody(self, argv, env=None):
        cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + argv
        r = subprocess.run(cmd, env=env or self.env, cwd=self.dir, capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(r.returncode, 0, f"{cmd} failed:\n{r.stdout}\n{r.stderr}")
        return r.stdout

    def probe(self, program, *args):
        out = self.run_as_nobody([program] + list(args)).splitlines()
        self.assertEqual(len(out), 2, out)
        return out[0], out[1]

    def assert_ids(self, ids, setuid):
        # The test means something only if the kernel really ran the copy setuid.
        nobody = subprocess.run(["id", "-u", "nobody"], capture_output=True, text=True,
                                check=True).stdout.strip()
        euid = "0" if setuid else nobody
        self.assertEqual(ids, f"uid={nobody} euid={euid}")

    def test_setuid_program_ignores_environment_backend_and_paths(self):
        plain, setuid = self.copies(PATHS["probe"])
        ids, new = self.probe(plain, "env")
        self.assert_ids(ids, setuid=False)
        self.assertEqual(new, "new=0 backend=kperf")  # the environment chose the simulator
        ids, new = self.probe(setuid, "env")
        self.assert_ids(ids, setuid=True)
        self.assertEqual(new, "new=0 backend=perf_event")  # KPC_BACKEND ignored

    def test_setuid_program_does_not_load_environment_framework(self):
        # The kperf backend chosen in code: only the paths come from the environment.
        plain, setuid = self.copies(PATHS["probe"])
        _, new = self.probe(plain, "kperf")
        self.assertEqual(new, "new=0 backend=kperf")
        ids, new = self.probe(setuid, "kperf")
        self.assert_ids(ids, setuid=True)
        self.assertTrue(new.startswith("new=-4 "), new)  # KP_ELOAD: the default framework
        self.assertIn("/System/Library/PrivateFrameworks/kperf.framework/kperf", new)
        self.assertIn("KPC_KPERF_PATH, KPC_KPERFDATA_PATH ignored (setuid process)", new)
        self.assertNotIn(self.kperf, new)

    def test_setuid_program_keeps_paths_given_in_code(self):
        _, setuid = self.copies(PATHS["probe"])
        ids, new = self.probe(setuid, "kperf", self.kperf, self.kperfdata)
        self.assert_ids(ids, setuid=True)
        self.assertEqual(new, "new=0 backend=kperf")

    def test_kpc_info_says_environment_was_ignored(self):
        plain, setuid = self.copies(PATHS["kpc"])
        out = self.run_as_nobody([plain, "info"])
        self.assertRegex(out, r"(?m)^backend:\s+kperf$")
        self.assertNotIn("environment:", out)
        out = self.run_as_nobody([setuid, "info"])
        self.assertRegex(out, r"(?m)^backend:\s+perf_event$")
        self.assertRegex(out, r"(?m)^environment:\s+" + IGNORED_ALL.replace("(", r"\(")
                         .replace(")", r"\)") + "$")

    def test_setuid_program_ignores_libsystem_path(self):
        # The recount backend's libSystem (a simulator here) is code chosen by a path too.
        if not PATHS.get("libsystem"):
            self.skipTest("no --libsystem (the recount simulator) given")
        env = dict(self.env, KPC_BACKEND="recount",
                   KPC_LIBSYSTEM_PATH=self.copy_readable(PATHS["libsystem"]))
        plain, setuid = self.copies(PATHS["probe"])
        out = self.run_as_nobody([plain, "env"], env=env).splitlines()
        self.assertEqual(out[1], "new=0 backend=recount", out)  # loaded the simulator
        out = self.run_as_nobody([setuid, "env"], env=env).splitlines()
        self.assert_ids(out[0], setuid=True)
        self.assertEqual(out[1], "new=0 backend=perf_event", out)  # both variables ignored

    def test_relative_path_is_refused(self):
        plain, _ = self.copies(PATHS["probe"])
        env = dict(self.env, KPC_KPERF_PATH=os.path.basename(self.kperf))
        out = self.run_as_nobody([plain, "env"], env=env).splitlines()
        self.assertTrue(out[1].startswith("new=-2 KPC_KPERF_PATH='"), out)  # KP_EINVAL
        self.assertIn("set it to the library's absolute path", out[1])


def main():
    parser = argparse.ArgumentParser()
    for name in ("probe", "kpc", "kperf", "kperfdata"):
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--libsystem", help="the recount simulator (librecount_sim.so)")
    args, rest = parser.parse_known_args()
    PATHS.update({k: os.path.abspath(v) for k, v in vars(args).items() if v})
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for name in rest or loader.getTestCaseNames(SetuidEnvironment):
        suite.addTest(SetuidEnvironment(name))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        return 1
    if result.skipped and len(result.skipped) == result.testsRun:
        for reason in sorted({reason for _, reason in result.skipped}):
            print(f"SKIPPED: {reason}")
        return SKIP_EXIT
    return 0


if __name__ == "__main__":
    sys.exit(main())
