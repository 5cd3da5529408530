#!/usr/bin/env python3
"""Prints why each skipped test skipped, from a CTest JUnit file (ctest --output-junit).

CTest reports a skip (SKIP_RETURN_CODE) without the test's output; the reason a test
printed (no PMU, not root, ...) is what a reader of a CI log or a hardware report needs.
usage: ctest_skips.py JUNIT_XML
"""
import re
import sys
import xml.etree.ElementTree as ET

# GoogleTest prints a GTEST_SKIP() as "file:line: Skipped", the streamed message, then
# "[  SKIPPED ] Suite.Name (N ms)".
GTEST_SKIPPED_AT = re.compile(r":\d+: Skipped$")
GTEST_SKIPPED_END = re.compile(r"^\[  SKIPPED \] (\S+) \(\d+ ms\)$")


def gtest_reasons(lines):
    """Each GoogleTest skip's message ("Suite.Name: message" when there are several)."""
    found, message, at = [], None, None
    for line in lines:
        end = GTEST_SKIPPED_END.match(line)
        if end and message is not None:
            found.append((end.group(1), " ".join(message) or at))
            message = None
        elif GTEST_SKIPPED_AT.search(line):
            message, at = [], line
        elif message is not None:
            message.append(line)
    if len(found) == 1:
        return found[0][1]
    return "; ".join(f"{name}: {why}" for name, why in found)


def reason(output):
    lines = [l.strip() for l in (output or "").splitlines() if l.strip()]
    said = gtest_reasons(lines)
    if said:
        return said
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
