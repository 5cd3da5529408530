#!/usr/bin/env python3
"""An optional part never breaks the configure of the library (cmake/OptionalPart.cmake).

1. A headless JDK (openjdk-*-jdk-headless: jni.h, no AWT headers) configures, and the Java
   binding is built: FindJNI without components asks for AWT, and its NOTFOUND include
   path once stopped the whole configure on a fresh Debian.
2. A part that is missing with AUTO gives one status line and the configure goes on; with ON
   the configure stops and names what is missing and how to install it.

usage: optional_parts_test.py SOURCE_DIR WORK_DIR
"""
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def run(cmd, cwd=None):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def headless_jdk(work):
    """A copy of this machine's JDK headers without AWT's, as the headless package has."""
    javac = shutil.which("javac")
    if not javac:
        fail("javac not found: install openjdk-17-jdk-headless (scripts/install-deps.sh)")
    home = pathlib.Path(os.path.realpath(javac)).parent.parent
    fake = work / "headless-jdk"
    shutil.rmtree(fake, ignore_errors=True)
    shutil.copytree(home / "include", fake / "include")
    for awt in fake.rglob("jawt*.h"):
        awt.unlink()
    if not (fake / "include" / "jni.h").exists():
        fail(f"{home}/include has no jni.h")
    return fake


def check_headless_jdk(src, work):
    jdk = headless_jdk(work)
    build = work / "build-headless-jdk"
    shutil.rmtree(build, ignore_errors=True)
    r = run(["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja",
             f"-DJAVA_HOME={jdk}", "-DKPC_BUILD_JAVA=ON", "-DKPC_BUILD_GO=OFF",
             "-DKPC_TEST_SWIFT=OFF", "-DKPC_BUILD_TESTS=OFF", "-DKPC_BUILD_BENCH=OFF"])
    if r.returncode != 0:
        fail("configure with a headless JDK (no jawt.h) failed:\n" + r.stdout + r.stderr)
    cache = (build / "CMakeCache.txt").read_text()
    if f"JAVA_INCLUDE_PATH:PATH={jdk}/include" not in cache:
        fail("the configure did not use the headless JDK's headers; CMakeCache.txt has:\n" +
             "\n".join(l for l in cache.splitlines() if l.startswith("JAVA_")))
    if not (build / "build.ninja").exists() or "kpc_java" not in (build / "build.ninja").read_text():
        fail("the Java binding was not configured with a headless JDK")
    print("ok: a headless JDK configures and builds the Java binding")


def check_missing_part(work):
    script = work / "missing_part.cmake"
    module = pathlib.Path(__file__).resolve().parents[2] / "cmake" / "OptionalPart.cmake"
    script.write_text(textwrap.dedent(f"""\
        include({module})
        set(KPC_BUILD_DEMO "${{VALUE}}")
        kpc_part_off(KPC_BUILD_DEMO _off)
        if(_off)
          message(STATUS "off")
          return()
        endif()
        kpc_part_missing(KPC_BUILD_DEMO "the demo binding" "demo-tool" "Install demo-pkg")
        message(STATUS "configure goes on")
        """))
    def cmake_p(value):
        return run(["cmake", f"-DVALUE={value}", "-P", str(script)])

    auto = cmake_p("AUTO")
    out = auto.stdout + auto.stderr
    if auto.returncode != 0 or "configure goes on" not in out:
        fail(f"AUTO with a missing tool stopped the configure:\n{out}")
    said = [l for l in out.splitlines() if "demo-tool" in l]
    if len(said) != 1 or "Install demo-pkg" not in said[0] or "-DKPC_BUILD_DEMO=OFF" not in said[0]:
        fail(f"AUTO must say in one line what is missing and how to install it:\n{out}")
    for value in ("ON", "on", "TRUE", "1"):
        on = cmake_p(value)
        out = on.stdout + on.stderr
        if on.returncode == 0 or "configure goes on" in out:
            fail(f"{value} with a missing tool did not stop the configure:\n{out}")
        if "demo-tool" not in out or "Install demo-pkg" not in out:
            fail(f"{value}: the error must name the missing tool and the fix:\n{out}")
    for value in ("OFF", "0", "FALSE", "no"):
        off = cmake_p(value)
        if off.returncode != 0 or "-- off" not in off.stdout:
            fail(f"{value} did not switch the part off:\n{off.stdout}{off.stderr}")
    print("ok: AUTO says one line and goes on, ON stops and names the fix, OFF switches off")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src = pathlib.Path(sys.argv[1]).resolve()
    work = pathlib.Path(sys.argv[2]).resolve()
    work.mkdir(parents=True, exist_ok=True)
    check_missing_part(work)
    check_headless_jdk(src, work)


if __name__ == "__main__":
    main()
