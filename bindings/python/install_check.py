#!/usr/bin/env python3
"""The pip-installed package works on its own: wheel and source install, fresh venvs.

1. `pip wheel PACKAGE_DIR` builds the wheel (scikit-build-core from PyPI, libkpc from the
   repository's CMake) into a temporary directory.
2. A fresh `python3 -m venv` installs it (`libkpc[test]`, which brings pytest), then:
   - libkpc is the wheel's copy, inside that venv, and the only libkpc in the process;
   - touching N fresh pages counts N to N + SLACK page faults;
   - pytest loads the plugin through its entry point and a tiny test using the
     kpc_counters fixture passes.
3. A second fresh venv installs from source (`pip install PACKAGE_DIR`) and does the same.
   It reuses step 1's CMake build directory: the compile is step 1's; this step proves the
   install-from-source path (build isolation, the backend, the install).

Everything runs outside the source tree with KPC_LIBRARY, LD_LIBRARY_PATH and PYTHONPATH
removed, so nothing from a build tree can be found. Needs PyPI (scikit-build-core, pytest)
and Python's venv module (Debian: python3-venv); either missing fails with the cause.

usage: install_check.py PACKAGE_DIR
"""
import glob
import os
import subprocess
import sys
import tempfile
import time

PAGES = 128  # 512 KiB: smaller than a transparent huge page, so every page faults alone
SLACK = 16   # measured: exactly PAGES on Linux; code faulted in on the first call stays small

PROBE = f"""
import mmap, os, sys, libkpc
path = libkpc.library_path()
print("libkpc loaded from", path)
assert path == os.path.join(os.path.dirname(libkpc.__file__), "_lib", "libkpc.so.0"), path
assert path.startswith(sys.prefix + os.sep), (path, sys.prefix)
with open("/proc/self/maps") as f:
    mapped = {{line.split()[-1] for line in f if "libkpc" in line.split()[-1]}}
assert mapped == {{os.path.realpath(path)}}, mapped  # no other libkpc in the process
with libkpc.Sampler(libkpc.Backend.PERF_EVENT) as s, s.counters("page-faults") as c:
    with c.measure() as m:
        with mmap.mmap(-1, {PAGES} * mmap.PAGESIZE) as r:
            for i in range({PAGES}):
                r[i * mmap.PAGESIZE] = 1
faults = m.counts[0]
print("page-faults for {PAGES} fresh pages:", faults)
assert {PAGES} <= faults <= {PAGES + SLACK}, faults
"""

TINY_TEST = f"""
import mmap

import pytest


@pytest.mark.kpc("page-faults")
def test_fresh_pages(kpc_counters):
    with kpc_counters.measure():
        with mmap.mmap(-1, {PAGES} * mmap.PAGESIZE) as r:
            for i in range({PAGES}):
                r[i * mmap.PAGESIZE] = 1
    assert {PAGES} <= kpc_counters.per_iteration()["page-faults"] <= {PAGES + SLACK}
"""

package_dir = os.path.abspath(sys.argv[1])
start = time.monotonic()
env = {k: v for k, v in os.environ.items()
       if k not in ("KPC_LIBRARY", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHOME",
                    "VIRTUAL_ENV", "PIP_TARGET", "PIP_PREFIX", "PIP_USER")}


def run(cmd, cwd, why):
    shown = " ".join("<script>" if "\n" in a else a for a in cmd)
    print(f"+ [{time.monotonic() - start:5.1f}s] {shown}", flush=True)
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        print(r.stdout)
        sys.exit(f"FAILED ({why}): {shown} exited with {r.returncode}")
    return r.stdout


def fresh_venv(path):
    out = subprocess.run([sys.executable, "-m", "venv", path], env=env, capture_output=True,
                         text=True)
    if out.returncode != 0:
        sys.exit(f"cannot create a virtual environment with {sys.executable} -m venv:\n"
                 f"{out.stdout}{out.stderr}Fix: apt-get install python3-venv "
                 "(or run scripts/install-deps.sh)")
    return os.path.join(path, "bin", "python")


def pip(python, args, cwd, why):
    return run([python, "-m", "pip", "--disable-pip-version-check", *args], cwd, why)


def check_installed(python, tmp, label):
    print(run([python, "-c", PROBE], tmp, f"{label}: libkpc in the venv counts page faults"),
          end="")
    test_file = os.path.join(tmp, f"test_tiny_{label}.py")
    with open(test_file, "w") as f:
        f.write(TINY_TEST)
    # No -p: the plugin must load through the installed entry point (pytest11).
    out = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file], tmp,
              f"{label}: the pytest plugin's kpc_counters fixture")
    print(out.strip().splitlines()[-1])
    if "1 passed" not in out:
        print(out)
        sys.exit(f"FAILED ({label}): pytest did not report the tiny test as passed")


with tempfile.TemporaryDirectory(prefix="kpc-wheel-") as tmp:
    if os.path.commonpath([tmp, package_dir]) == package_dir:
        sys.exit(f"the temporary directory {tmp} is inside the package: set TMPDIR elsewhere")
    build_dir = os.path.join(tmp, "cmake-build")
    no_proxy_hint = "PyPI must answer (scikit-build-core, pytest); see /etc/pip.conf and the proxy"

    py = fresh_venv(os.path.join(tmp, "venv-wheel"))
    pip(py, ["wheel", "--no-deps", "-w", os.path.join(tmp, "dist"),
             f"--config-settings=build-dir={build_dir}", package_dir], tmp,
        f"building the wheel; {no_proxy_hint}")
    wheels = glob.glob(os.path.join(tmp, "dist", "libkpc-*.whl"))
    assert len(wheels) == 1, wheels
    print("built", os.path.basename(wheels[0]))
    pip(py, ["install", "--quiet", wheels[0] + "[test]"], tmp,
        f"installing the wheel into a fresh venv; {no_proxy_hint}")
    check_installed(py, tmp, "wheel")

    py = fresh_venv(os.path.join(tmp, "venv-source"))
    pip(py, ["install", "--quiet", f"--config-settings=build-dir={build_dir}",
             package_dir + "[test]"], tmp,
        f"pip install from source into a fresh venv; {no_proxy_hint}")
    check_installed(py, tmp, "source")

print(f"wheel and source install: the package carries libkpc, counts and runs its pytest plugin "
      f"({time.monotonic() - start:.0f}s)")
