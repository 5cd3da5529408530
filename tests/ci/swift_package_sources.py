#!/usr/bin/env python3
"""Package.swift compiles libkpc from src/ by directory; CMake lists each file. Fails when
the two drift apart: a file CMake builds that SwiftPM would not, a .cpp SwiftPM would
compile that CMake leaves out, or a backend directory one of them forgets.

usage: swift_package_sources.py SOURCE_DIR
"""
import pathlib
import re
import sys


def cmake_sources(src):
    """{path relative to src/: linux_only} of the files CMake compiles into libkpc."""
    top = (src / "CMakeLists.txt").read_text()
    objects = re.search(r"add_library\(kpc_objects OBJECT(.*?)\)", top, re.S)
    if not objects:
        sys.exit("src/CMakeLists.txt: no add_library(kpc_objects OBJECT ...) list")
    files = {f: False for f in objects.group(1).split()}
    # include(backends/X/sources.cmake), inside if(... Linux) or not.
    linux_only = False
    for line in top.splitlines():
        stripped = line.strip()
        if stripped.startswith("if(") and "Linux" in stripped:
            linux_only = True
        elif stripped.startswith("endif("):
            linux_only = False
        m = re.match(r"include\((backends/[^)]*sources\.cmake)\)", stripped)
        if m:
            text = (src / m.group(1)).read_text()
            for block in re.findall(r"target_sources\(kpc_objects PRIVATE(.*?)\)", text, re.S):
                for f in block.split():
                    files[f] = linux_only
    return files


def swift_directories(root):
    """(common, linux_only) directories CKpc compiles, relative to src/, and its excludes."""
    text = (root / "Package.swift").read_text()
    def strings(pattern):
        m = re.search(pattern, text, re.S)
        if not m:
            sys.exit(f"Package.swift: cannot find {pattern!r}")
        return re.findall(r'"([^"]+)"', m.group(1))
    linux = strings(r"#if os\(Linux\)\s*let backendDirectories = \[(.*?)\]")
    other = strings(r"#else.*?let backendDirectories = \[(.*?)\]")
    base = strings(r"sources: \[(.*?)\] \+ backendDirectories")
    excludes = strings(r'name: "CKpc".*?exclude: \[(.*?)\]')
    rel = lambda ds: {d.removeprefix("src/") for d in ds}
    return rel(base) | rel(other), rel(linux) - rel(other), set(excludes)


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    src = root / "src"
    cmake = cmake_sources(src)
    common_dirs, linux_dirs, excludes = swift_directories(root)
    problems = []
    swift = {}
    for d, linux_only in [(d, False) for d in common_dirs] + [(d, True) for d in linux_dirs]:
        if not (src / d).is_dir():
            problems.append(f"Package.swift compiles src/{d}, which does not exist")
            continue
        for f in sorted((src / d).rglob("*")):
            rel = f.relative_to(src).as_posix()
            if f.suffix in (".cpp", ".c", ".mm", ".m") and f"src/{rel}" not in excludes:
                swift[rel] = linux_only
            elif f.suffix not in (".hpp", ".h") and f.is_file() and f"src/{rel}" not in excludes:
                problems.append(f"Package.swift: src/{rel} is neither a source nor excluded "
                                "(SwiftPM warns about unhandled files)")
    for f in sorted(set(cmake) - set(swift)):
        problems.append(f"CMake compiles src/{f}; Package.swift does not (add its directory)")
    for f in sorted(set(swift) - set(cmake)):
        problems.append(f"Package.swift compiles src/{f}; CMake does not list it")
    for f in sorted(set(cmake) & set(swift)):
        if cmake[f] != swift[f]:
            where = "on Linux only" if cmake[f] else "everywhere"
            problems.append(f"src/{f}: CMake builds it {where}; Package.swift does not agree")
    for p in problems:
        print("swift_package_sources:", p)
    print(f"swift_package_sources: {len(cmake)} files in CMake, {len(swift)} in Package.swift, "
          f"{len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
