#!/usr/bin/env python3
"""Checks that every place the version lives agrees:

  - CMake's PROJECT_VERSION and KP_SOVERSION (passed in by tests/abi/CMakeLists.txt),
  - the macros in include/kpc/version.h, read as text and as compiled (version_probe),
  - kp_version_number() / kp_version_string() of the library the probe loaded,
  - the library's SONAME (libkpc.so.<SOVERSION>) and real file name (libkpc.so.<VERSION>).

usage: check_version.py --project-version X.Y.Z --soversion N --version-header FILE
                        --probe EXE [--lib REAL_FILE --readelf READELF]
"""
import argparse
import pathlib
import re
import subprocess
import sys


def header_macros(path):
    text = path.read_text(encoding="utf-8")
    macros = {}
    for name in ("KP_VERSION_MAJOR", "KP_VERSION_MINOR", "KP_VERSION_PATCH", "KP_SOVERSION"):
        m = re.search(rf"^#define {name} (\d+)\s*$", text, flags=re.M)
        if not m:
            sys.exit(f"{path}: no '#define {name} <number>' line")
        macros[name] = int(m.group(1))
    m = re.search(r'^#define KP_VERSION_STRING "([^"]*)"', text, flags=re.M)
    if not m:
        sys.exit(f"{path}: no '#define KP_VERSION_STRING \"...\"' line")
    macros["KP_VERSION_STRING"] = m.group(1)
    return macros


def run_probe(probe):
    try:
        out = subprocess.run([str(probe)], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"version probe {probe} failed: {e}")
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def soname(readelf, lib):
    try:
        out = subprocess.run([readelf, "-d", str(lib)], check=True, capture_output=True,
                             text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"cannot read the dynamic section of {lib} with {readelf}: {e}")
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
    return m.group(1) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--project-version", required=True)
    ap.add_argument("--soversion", required=True)
    ap.add_argument("--version-header", required=True, type=pathlib.Path)
    ap.add_argument("--probe", required=True, type=pathlib.Path)
    ap.add_argument("--lib", type=pathlib.Path, help="the real shared-object file (ELF)")
    ap.add_argument("--readelf", default="readelf")
    args = ap.parse_args()

    problems = []

    def expect(what, got, want):
        if str(got) != str(want):
            problems.append(f"{what} is {got!r}, expected {want!r}")

    major, minor, patch = (int(p) for p in args.project_version.split("."))
    number = major * 10000 + minor * 100 + patch

    text = header_macros(args.version_header)
    expect("version.h KP_VERSION_MAJOR", text["KP_VERSION_MAJOR"], major)
    expect("version.h KP_VERSION_MINOR", text["KP_VERSION_MINOR"], minor)
    expect("version.h KP_VERSION_PATCH", text["KP_VERSION_PATCH"], patch)
    expect("version.h KP_VERSION_STRING", text["KP_VERSION_STRING"], args.project_version)
    expect("version.h KP_SOVERSION", text["KP_SOVERSION"], args.soversion)

    probe = run_probe(args.probe)
    expect("compiled KP_VERSION_MAJOR", probe.get("header_major"), major)
    expect("compiled KP_VERSION_MINOR", probe.get("header_minor"), minor)
    expect("compiled KP_VERSION_PATCH", probe.get("header_patch"), patch)
    expect("compiled KP_VERSION_STRING", probe.get("header_string"), args.project_version)
    expect("compiled KP_VERSION_NUMBER", probe.get("header_number"), number)
    expect("compiled KP_SOVERSION", probe.get("header_soversion"), args.soversion)
    expect("kp_version_number()", probe.get("runtime_number"), number)
    expect("kp_version_string()", probe.get("runtime_string"), args.project_version)
    expect("KP_VERSION_CHECK(this version)", probe.get("check_current"), 1)
    expect("KP_VERSION_CHECK(next patch)", probe.get("check_next_patch"), 0)
    expect("KP_VERSION_CHECK(0,0,0)", probe.get("check_zero"), 1)

    if args.lib:
        expect("SONAME of " + args.lib.name, soname(args.readelf, args.lib), f"libkpc.so.{args.soversion}")
        expect("real file name", args.lib.name, f"libkpc.so.{args.project_version}")
    else:
        print("note: no --lib given, SONAME not checked (not an ELF platform)")

    if problems:
        print("version check failed; version.h is the single source (CMake reads it), so "
              "something else drifted:")
        for p in problems:
            print("  " + p)
        return 1
    print(f"version {args.project_version} (SOVERSION {args.soversion}) agrees across CMake, "
          f"version.h, the compiled macros, the runtime functions and the SONAME")
    return 0


if __name__ == "__main__":
    sys.exit(main())
