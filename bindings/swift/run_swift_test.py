#!/usr/bin/env python3
"""Runs `swift test` on an already built package for CTest and maps XCTest results.

XCTest has a "skipped" result (XCTSkip) but `swift test` exits 0 when tests skip, so CTest
would count a skipped test as passed. This runner streams swift's output, collects the
"Test Case '...' passed|failed|skipped" lines XCTest prints (swift-corelibs-xctest on Linux,
Xcode's XCTest on macOS), and then:
  - swift failed, or any test case failed     -> swift's exit code (never 77), CTest "failed";
  - no test case ran (the filter matched none) -> 1, so a typo cannot pass silently;
  - some test case skipped                    -> prints each skip with its reason, exits
                                                 SKIP_CODE, CTest "skipped" (the passing cases
                                                 of the same run are then not counted either);
  - otherwise                                 -> 0.

usage: run_swift_test.py SWIFT PACKAGE_PATH SCRATCH_PATH [swift test arguments...]
"""
import re
import subprocess
import sys

SKIP_CODE = 77  # SKIP_RETURN_CODE in bindings/swift/CMakeLists.txt

# Linux: "Test Case 'Suite.testName' passed (0.001 seconds)"
# macOS: "Test Case '-[Module.Suite testName]' passed (0.001 seconds)."
CASE_RE = re.compile(r"^Test Case '(?P<name>[^']+)' (?P<result>passed|failed|skipped) \(")
# Linux: "/path/File.swift:16: Suite.testName : Test skipped - reason"
# macOS: "/path/File.swift:16: -[Module.Suite testName] : Test skipped: reason"
SKIP_RE = re.compile(r"^.*?:\d+: (?P<name>.+?) : Test skipped(?: - |: )?(?P<reason>.*)$")


def normalise(name):
    """'-[Module.Suite test]' and 'Suite.test' both become 'Suite.test'."""
    m = re.match(r"^-\[(?:[\w]+\.)?(\w+) (\w+)\]$", name)
    return f"{m.group(1)}.{m.group(2)}" if m else name


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    swift, package_path, scratch_path = argv[1:4]
    cmd = [swift, "test", "--skip-build", "--package-path", package_path,
           "--scratch-path", scratch_path] + argv[4:]
    print("+ " + " ".join(cmd), flush=True)
    results = {}
    reasons = {}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace")
    for line in proc.stdout:
        sys.stdout.write(line)
        line = line.rstrip("\n")
        m = CASE_RE.match(line)
        if m:
            results[normalise(m.group("name"))] = m.group("result")
            continue
        m = SKIP_RE.match(line)
        if m:
            reasons[normalise(m.group("name"))] = m.group("reason").strip()
    rc = proc.wait()
    sys.stdout.flush()

    failed = sorted(n for n, r in results.items() if r == "failed")
    skipped = sorted(n for n, r in results.items() if r == "skipped")
    passed = sorted(n for n, r in results.items() if r == "passed")
    print(f"\nswift test: {len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped "
          f"(exit code {rc})")
    if rc != 0 or failed:
        for n in failed:
            print(f"  FAILED {n}")
        return rc if rc not in (0, SKIP_CODE) else 1
    if not results:
        print("no XCTest case ran: check the --filter/--skip arguments")
        return 1
    if skipped:
        print("these tests could not run here and were skipped:")
        for n in skipped:
            print(f"  SKIPPED {n}: {reasons.get(n, 'no reason printed')}")
        return SKIP_CODE
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
