#!/usr/bin/env python3
"""The kpc tool uses libkpc like any user (issue 11 section 2): its sources include only
their own headers ("cli/...") and libkpc's public ones ("kpc/..."), and its CMakeLists links
the library instead of compiling libkpc's objects into itself.

Usage: check_public_includes.py <src/cli directory>
Exit 1 listing every offending line; 0 when clean. It first checks itself on a planted
offender, so a checker that sees nothing cannot pass.
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
ALLOWED = ("cli/", "kpc/")


def problems(cli_dir):
    found = []
    for name in sorted(os.listdir(cli_dir)):
        path = os.path.join(cli_dir, name)
        if name == "CMakeLists.txt":
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if "kpc_objects" in line.split("#")[0]:
                        found.append(f"{path}:{n}: compiles libkpc's objects; link the kpc target")
            continue
        if not name.endswith((".cpp", ".hpp", ".h", ".c")):
            continue
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if m and not m.group(1).startswith(ALLOWED):
                    found.append(f"{path}:{n}: includes \"{m.group(1)}\"; only \"cli/...\" "
                                 "and the public \"kpc/...\" headers are allowed")
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "planted.cpp"), "w") as f:
            f.write('#include "cli/args.hpp"\n#include "kpc/kpc.h"\n#include "core/backend.hpp"\n')
        with open(os.path.join(d, "CMakeLists.txt"), "w") as f:
            f.write("add_executable(x $<TARGET_OBJECTS:kpc_objects>)\n")
        planted = problems(d)
        if len(planted) != 2:
            sys.exit(f"self-check: expected the 2 planted offences, found {planted}")
    found = problems(sys.argv[1])
    for p in found:
        print(p)
    if found:
        sys.exit(1)
    count = sum(1 for n in os.listdir(sys.argv[1]) if n.endswith((".cpp", ".hpp")))
    print(f"{count} files of {sys.argv[1]} include only cli/ and the public kpc/ headers")


if __name__ == "__main__":
    main()
