#!/usr/bin/env python3
"""Runs a page-touching example and fails unless every line it prints of the form

    pages=N: page-faults/op X ...

has X within TOLERANCE (a fraction, e.g. 0.2) of N, and at least two such lines appear.
The Java and Swift examples (TouchPages) print that line for each N they try; a fresh page
written once faults once, so X must be about N.

usage: per_op_check.py TOLERANCE COMMAND [ARGS...]
"""
import re
import subprocess
import sys

LINE = re.compile(r"^pages=(\d+): page-faults/op ([0-9.]+)")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    tolerance = float(argv[1])
    run = subprocess.run(argv[2:], stdout=subprocess.PIPE, text=True)
    sys.stdout.write(run.stdout)
    if run.returncode != 0:
        sys.exit(f"the example exited with status {run.returncode}")
    checked = 0
    for line in run.stdout.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        pages, per_op = int(m.group(1)), float(m.group(2))
        if abs(per_op - pages) > tolerance * pages:
            sys.exit(f"pages={pages}: page-faults/op is {per_op}, "
                     f"not within {tolerance:.0%} of {pages}")
        checked += 1
    if checked < 2:
        sys.exit(f"expected at least 2 'pages=N: page-faults/op X' lines, got {checked}")
    print(f"{checked} lines report page-faults/op within {tolerance:.0%} of their page count")


if __name__ == "__main__":
    main(sys.argv)
