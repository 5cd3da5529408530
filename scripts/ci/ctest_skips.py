#!/usr/bin/env python3
"""Prints why each skipped test skipped, from a CTest JUnit file (ctest --output-junit).

CTest reports a skip (SKIP_RETURN_CODE) without the test's output; the reason a test
printed (no PMU, not root, ...) is what a reader of a CI log or a hardware report needs.
usage: ctest_skips.py JUNIT_XML
"""
import sys
import xml.etree.ElementTree as ET


def reason(output):
    lines = [l.strip() for l in (output or "").splitlines() if l.strip()]
    said = [l for l in lines if "skip" in l.lower()]
    return (said or lines or ["(the test printed nothing)"])[-1]


def main(path):
    cases = ET.parse(path).getroot().iter("testcase")
    skipped = [(c.get("name"), reason(c.findtext("system-out"))) for c in cases
               if c.find("skipped") is not None]
    for name, why in skipped:
        print(f"skipped: {name}: {why}")
    print(f"{len(skipped)} test(s) skipped")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
