#!/usr/bin/env python3
"""`pip install ./bindings/python` works, with and without a bundled libkpc.

Copies the package source to a temporary directory (pip builds in place), puts LIBKPC
into src/libkpc/_lib/ for the bundled case, installs with
`pip install --no-build-isolation --no-index --target DIR` (offline, Debian's setuptools),
then imports the installed package in a clean environment (no KPC_LIBRARY, no
PYTHONPATH but DIR) and checks where libkpc was loaded from and that it counts.

usage: install_check.py PACKAGE_DIR LIBKPC
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

package_dir, libkpc = sys.argv[1:3]

CHECK = """
import importlib.metadata, os, sys, libkpc
path = libkpc.library_path()
print("loaded", path)
assert os.path.dirname(path) == os.path.join(os.path.dirname(libkpc.__file__), "_lib"), path
with libkpc.Sampler(libkpc.Backend.PERF_EVENT) as s, s.counters("page-faults") as c:
    import mmap
    with c.measure() as m:
        with mmap.mmap(-1, 32 * mmap.PAGESIZE) as r:
            for i in range(32):
                r[i * mmap.PAGESIZE] = 1
    assert m.counts[0] >= 32, m.counts
plugins = [ep.value for ep in importlib.metadata.entry_points(group="pytest11")
           if ep.value.startswith("libkpc")]
assert plugins == ["libkpc.pytest_plugin"], plugins
print("page-faults", m.counts[0], "plugin", plugins[0])
"""


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


for module, package in (("pip", "python3-pip"), ("setuptools", "python3-setuptools"),
                        ("wheel", "python3-wheel")):
    if importlib.util.find_spec(module) is None:
        sys.exit(f"{sys.executable} has no {module}, which an offline pip install needs: "
                 f"apt-get install {package} (or run scripts/install-deps.sh)")

with tempfile.TemporaryDirectory(prefix="kpc-pip-") as tmp:
    src = os.path.join(tmp, "src-copy")
    shutil.copytree(package_dir, src, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", "_lib"))
    lib_dir = os.path.join(src, "src", "libkpc", "_lib")
    os.makedirs(lib_dir)
    shutil.copy(libkpc, os.path.join(lib_dir, "libkpc.so.0"))
    target = os.path.join(tmp, "site")
    run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-index",
         "--no-deps", "--quiet", "--target", target, src])
    env = {k: v for k, v in os.environ.items()
           if k not in ("KPC_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = target
    run([sys.executable, "-c", CHECK], env=env, cwd=tmp)
print("pip install: the package installs, finds its bundled libkpc and counts")
