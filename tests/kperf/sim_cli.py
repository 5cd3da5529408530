"""Running the kpc tool against the kperf simulator, shared by the simulator's CLI tests.

The tool finds the simulator through KPC_BACKEND=kperf and KPC_KPERF_PATH /
KPC_KPERFDATA_PATH, exactly as a user points it at the real frameworks. KPSIM_* variables
already in the environment are kept: they select the simulator variant a
kperf.variant.* run is testing (tests/kperf/CMakeLists.txt). Keyword arguments set more.
`libsystem` names the simulated libSystem (tests/recount_sim) as KPC_LIBSYSTEM_PATH, where
kpc stat finds proc_pid_rusage; RCSIM_* variables in the environment are kept for it too.
"""
import os
import subprocess
import sys


def run(kpc, kperf, kperfdata, args, libsystem=None, **sim):
    env = {k: v for k, v in os.environ.items() if not k.startswith("KPC_")}
    env.update(KPC_BACKEND="kperf", KPC_KPERF_PATH=kperf, KPC_KPERFDATA_PATH=kperfdata)
    if libsystem:
        env.update(KPC_LIBSYSTEM_PATH=libsystem)
    env.update({"KPSIM_" + k: str(v) for k, v in sim.items()})
    return subprocess.run([kpc] + args, env=env, capture_output=True, text=True, timeout=120)


def variant(name):
    """The value of a KPSIM_<name> variant this run is under, or None."""
    return os.environ.get("KPSIM_" + name)


def check(cond, what, proc=None):
    if not cond:
        detail = "" if proc is None else f"\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        sys.exit(f"FAIL: {what}{detail}")
