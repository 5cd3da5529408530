#!/usr/bin/env python3
"""Enforces the header rules of docs/api-stability.md that a script can see:

  - every enumerator of every public enum has an explicit value (values are ABI);
  - every public struct with a body (outside the raw layer) is a versioned options
    struct: its first member is `unsigned int version`, a KP_<NAME>_VERSION macro gives
    the current version, and a KP_API kp_<name>_init(kp_<name>_t *, unsigned int) fills it.

Headers are found automatically (include/kpc/**/*.h), so new headers are covered.

usage: check_header_policy.py --include-dir DIR
"""
import argparse
import pathlib
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
from abi_policy import RAW_HEADERS  # noqa: E402



def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def strip_directives(text):
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)


def check_enums(name, code, problems):
    for m in re.finditer(r"\benum\s+(\w+)?\s*\{([^}]*)\}", code):
        enum = m.group(1) or "<anonymous>"
        for item in m.group(2).split(","):
            item = item.strip()
            if item and "=" not in item:
                problems.append(f"{name}: enum {enum}: {item} has no explicit value; "
                                f"write '{item} = <value>' (values are part of the ABI)")


def check_structs(name, code, text, all_code, problems):
    for m in re.finditer(r"\bstruct\s+(\w+)\s*\{([^}]*)\}", code):
        struct, body = m.group(1), m.group(2)
        members = [s.strip() for s in body.split(";") if s.strip()]
        if not members or not re.fullmatch(r"unsigned\s+int\s+version", members[0]):
            problems.append(f"{name}: struct {struct}: a public struct must be a versioned "
                            f"options struct whose first member is 'unsigned int version' "
                            f"(or keep the type opaque)")
            continue
        base = struct[3:] if struct.startswith("kp_") else struct
        macro = f"KP_{base.upper()}_VERSION"
        if not re.search(rf"^\s*#\s*define\s+{macro}\s+\d+", text, flags=re.M):
            problems.append(f"{name}: struct {struct} needs '#define {macro} <n>'")
        init = f"kp_{base}_init"
        if not re.search(rf"\bKP_API\b[^;]*\b{init}\s*\(\s*(?:struct\s+)?\w+\s*\*\s*\w*\s*,"
                         rf"\s*unsigned\s+int\b", all_code):
            problems.append(f"{name}: struct {struct} needs 'KP_API int {init}({struct}_t "
                            f"*opts, unsigned int version)' (bindings cannot use INIT macros)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--include-dir", required=True, type=pathlib.Path)
    args = ap.parse_args()
    headers = sorted((args.include_dir / "kpc").rglob("*.h"))
    if not headers:
        sys.exit(f"no headers under {args.include_dir / 'kpc'}")
    texts = {h.name: strip_comments(h.read_text(encoding="utf-8")) for h in headers}
    all_code = "\n".join(strip_directives(t) for t in texts.values())
    problems = []
    for name, text in texts.items():
        code = strip_directives(text)
        check_enums(name, code, problems)
        if name not in RAW_HEADERS:
            check_structs(name, code, text, all_code, problems)
    if problems:
        print("public header policy (docs/api-stability.md) violated:")
        for p in problems:
            print("  " + p)
        return 1
    print(f"{len(headers)} public headers follow the enum and options-struct rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
