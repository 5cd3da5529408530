#!/usr/bin/env python3
"""Compares three views of libkpc's exported API; they must agree exactly.

  1. the built library's dynamic symbol table   (nm -D --defined-only LIB)
  2. the KP_API declarations in the public headers (every INCLUDE_DIR/kpc/**/*.h)
  3. docs/symbols.txt, the committed list with the version that added each symbol

Failures: a symbol exported but not declared or not listed; declared but not exported;
listed but not exported; an internal-looking name exported; symbols.txt malformed,
unsorted, listing a version newer than the project, or disagreeing with the header about
KP_DEPRECATED or the raw layer. The format of symbols.txt is described at its top and in
docs/api-stability.md.

usage: check_symbols.py --lib LIB --include-dir DIR --symbols FILE --version X.Y.Z [--nm NM]
"""
import argparse
import pathlib
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
from abi_policy import RAW_HEADERS  # noqa: E402


VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")


def parse_version(text):
    return tuple(int(p) for p in text.split("."))


def strip_comments_and_directives(text):
    """Removes C comments and preprocessor lines (with continuations), keeping code."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    return text


def header_declarations(include_dir):
    """{symbol: (header name, deprecated?)} for every KP_API declaration."""
    decls = {}
    headers = sorted((include_dir / "kpc").rglob("*.h"))
    if not headers:
        sys.exit(f"no headers under {include_dir / 'kpc'}: wrong --include-dir?")
    for header in headers:
        code = strip_comments_and_directives(header.read_text(encoding="utf-8"))
        # One declaration runs from KP_API to the next ';'. Its name is the first kp_*
        # identifier followed by '(' (function) or, for a variable, the last identifier.
        for m in re.finditer(r"\bKP_API\b([^;]*);", code):
            body = m.group(1)
            fn = re.search(r"\b(kp_[A-Za-z0-9_]*)\s*\(", body)
            if fn:
                name = fn.group(1)
            else:
                ids = re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\]\s*)*$", body.strip())
                if not ids:
                    sys.exit(f"{header.name}: cannot find the name in 'KP_API{body};'")
                name = ids[-1]
            if name in decls:
                sys.exit(f"{name} is declared KP_API twice ({decls[name][0]} and {header.name})")
            decls[name] = (header.name, "KP_DEPRECATED" in body)
    return decls


def exported_symbols(nm, lib):
    try:
        out = subprocess.run([nm, "-D", "--defined-only", str(lib)], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"cannot read the dynamic symbols of {lib} with {nm}: {e}")
    symbols = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        if kind == "A":
            continue  # version-node names from a linker version script, not symbols
        symbols.add(name.split("@")[0])
    if not symbols:
        sys.exit(f"{nm} found no dynamic symbols in {lib}")
    return symbols


def read_symbols_file(path, project_version):
    """{symbol: (since, flags)}; exits on format errors with the line number."""
    listed = {}
    order = []
    errors = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        where = f"{path.name}:{number}"
        if len(fields) < 2:
            errors.append(f"{where}: expected '<symbol> <version> [flags]', got {raw!r}")
            continue
        name, since, flags = fields[0], fields[1], fields[2:]
        if not VERSION_RE.match(since):
            errors.append(f"{where}: version {since!r} is not X.Y.Z")
            continue
        if parse_version(since) > parse_version(project_version):
            errors.append(f"{where}: {name} added in {since}, after the project version {project_version}")
        for flag in flags:
            if flag == "raw":
                continue
            if flag.startswith("deprecated=") and VERSION_RE.match(flag[len("deprecated="):]):
                continue
            errors.append(f"{where}: unknown flag {flag!r} (known: raw, deprecated=X.Y.Z)")
        if name in listed:
            errors.append(f"{where}: {name} listed twice")
        listed[name] = (since, flags)
        order.append(name)
    if order != sorted(order):
        errors.append(f"{path.name}: symbols are not in sorted order (keep it sorted: `LC_ALL=C sort`)")
    if errors:
        sys.exit("\n".join(errors))
    return listed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, type=pathlib.Path)
    ap.add_argument("--include-dir", required=True, type=pathlib.Path)
    ap.add_argument("--symbols", required=True, type=pathlib.Path)
    ap.add_argument("--version", required=True, help="the project version (CMake's PROJECT_VERSION)")
    ap.add_argument("--nm", default="nm")
    args = ap.parse_args()

    exported = exported_symbols(args.nm, args.lib)
    declared = header_declarations(args.include_dir)
    listed = read_symbols_file(args.symbols, args.version)

    problems = []
    for name in sorted(exported - set(declared)):
        problems.append(f"{name}: exported by {args.lib.name} but not declared KP_API in any "
                        f"public header (hide it, or declare and document it)")
    for name in sorted(exported - set(listed)):
        if name in declared:
            problems.append(f"{name}: exported but missing from {args.symbols.name}; add "
                            f"'{name} {args.version}' (the version that adds it)")
    for name in sorted(set(declared) - exported):
        problems.append(f"{name}: declared KP_API in {declared[name][0]} but not exported "
                        f"(not defined in libkpc, or hidden by src/libkpc.map)")
    for name in sorted(set(listed) - exported):
        problems.append(f"{name}: listed in {args.symbols.name} but not exported; removing a "
                        f"released symbol breaks the ABI (docs/api-stability.md)")
    for name in sorted(exported):
        if not name.startswith("kp_") or "__" in name:
            problems.append(f"{name}: exported names are kp_<module>_<verb>; kp_x__y helpers "
                            f"are internal and never exported")
    for name, (header, deprecated) in sorted(declared.items()):
        if name not in listed:
            continue
        flags = listed[name][1]
        is_raw = "raw" in flags
        if (header in RAW_HEADERS) != is_raw:
            problems.append(f"{name}: declared in {header}, so {args.symbols.name} must "
                            f"{'mark' if header in RAW_HEADERS else 'not mark'} it 'raw'")
        listed_deprecated = any(f.startswith("deprecated=") for f in flags)
        if deprecated != listed_deprecated:
            problems.append(f"{name}: KP_DEPRECATED in the header and 'deprecated=' in "
                            f"{args.symbols.name} must go together")

    if problems:
        print(f"ABI symbol check failed ({len(problems)} problem(s)):")
        for p in problems:
            print("  " + p)
        return 1
    print(f"{len(exported)} exported symbols match {len(declared)} KP_API declarations "
          f"and {args.symbols.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
