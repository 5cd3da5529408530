#!/usr/bin/env python3
"""Checks that libkpc's licence is stated the same way everywhere it is stated:

  - LICENSE names the licence with an SPDX-License-Identifier line; LICENSE-MIT and
    LICENSE-APACHE hold the texts it points at;
  - bindings/go/LICENSE (a Go module carries its own) has the same identifier and both
    texts verbatim;
  - every public header starts with the identifier as a comment;
  - the package metadata that has a licence field says the same: kpc.pc, the Homebrew
    formula, the Rust crate, the Java jar's manifest; Package.swift (no field) names it in
    a comment.

usage: check_license.py SOURCE_DIR
"""
import pathlib
import re
import sys

problems = []


def read(root, rel):
    path = root / rel
    if not path.is_file():
        problems.append(f"{rel} is missing")
        return ""
    return path.read_text(encoding="utf-8")


def expect(rel, text, pattern, what):
    if text and not re.search(pattern, text, flags=re.M):
        problems.append(f"{rel}: {what}")


def main():
    root = pathlib.Path(sys.argv[1])
    top = read(root, "LICENSE")
    m = re.search(r"SPDX-License-Identifier: *(.+?) *$", top, flags=re.M)
    if not m:
        print("FAILED: LICENSE has no 'SPDX-License-Identifier: <expression>' line")
        return 1
    spdx = m.group(1)
    ids = re.split(r" (?:OR|AND) ", spdx)
    texts = {"MIT": read(root, "LICENSE-MIT"), "Apache-2.0": read(root, "LICENSE-APACHE")}
    expect("LICENSE-MIT", texts["MIT"], r"^Permission is hereby granted, free of charge", "not the MIT text")
    expect("LICENSE-APACHE", texts["Apache-2.0"], r"^ +Version 2\.0, January 2004$", "not the Apache-2.0 text")
    for i in ids:
        if i not in texts:
            problems.append(f"LICENSE names {i}, which has no text file here (LICENSE-MIT, LICENSE-APACHE)")

    go = read(root, "bindings/go/LICENSE")
    expect("bindings/go/LICENSE", go, rf"^SPDX-License-Identifier: {re.escape(spdx)}$",
           f"no 'SPDX-License-Identifier: {spdx}' line")
    for name, text in texts.items():
        if go and text and text not in go:
            problems.append(f"bindings/go/LICENSE does not hold the {name} text of the root; "
                            f"copy it again from LICENSE-{'MIT' if name == 'MIT' else 'APACHE'}")

    spdx_comment = f"/* SPDX-License-Identifier: {spdx} */"
    for header in sorted((root / "include" / "kpc").glob("*.h")):
        first = header.read_text(encoding="utf-8").split("\n", 1)[0]
        if first != spdx_comment:
            problems.append(f"include/kpc/{header.name}: first line must be '{spdx_comment}'")

    esc = re.escape(spdx)
    expect("pkgconfig/kpc.pc.in", read(root, "pkgconfig/kpc.pc.in"), rf"^License: {esc}$",
           f"no 'License: {spdx}' field")
    expect("tests/rust/Cargo.toml", read(root, "tests/rust/Cargo.toml"), rf'^license = "{esc}"$',
           f"no 'license = \"{spdx}\"'")
    brew = " *, *".join(f'"{re.escape(i)}"' for i in ids)
    brew_op = "any_of" if " OR " in spdx else "all_of"
    expect("packaging/homebrew/kpc.rb", read(root, "packaging/homebrew/kpc.rb"),
           rf"^  license {brew_op}: \[{brew}\]$" if len(ids) > 1 else rf'^  license "{esc}"$',
           "its license line does not match LICENSE")
    expect("bindings/java/CMakeLists.txt", read(root, "bindings/java/CMakeLists.txt"),
           rf'"Bundle-License: {esc}\\n"', f"the jar manifest has no 'Bundle-License: {spdx}'")
    expect("Package.swift", read(root, "Package.swift"), rf"^// SPDX-License-Identifier: {esc}$",
           f"no '// SPDX-License-Identifier: {spdx}' comment")

    if problems:
        print("FAILED: the licence is stated differently in places:")
        for p in problems:
            print("  " + p)
        return 1
    print(f"licence {spdx}: LICENSE, texts, Go module, headers and package metadata agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
