#!/usr/bin/env python3
"""Runs kpc-criterion's examples/page_faults.rs and fails unless Criterion reports about N
page faults per iteration of touching N fresh pages: each of its three estimates (lower
bound, estimate, upper bound) must lie in [N, 1.15 N].

usage: check_page_faults_example.py N COMMAND...   (COMMAND runs the example; KPC_PAGES=N)
"""
import os
import re
import subprocess
import sys

# Criterion 0.3 prints "<id>  time:   [64.000 faults 64.000 faults 64.000 faults]".
ESTIMATES = re.compile(r"time:\s*\[([0-9.]+) (k?)faults ([0-9.]+) (k?)faults ([0-9.]+) (k?)faults\]")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    pages, command = int(argv[1]), argv[2:]
    env = dict(os.environ, KPC_PAGES=str(pages))
    print("+ KPC_PAGES=%d %s" % (pages, " ".join(command)), flush=True)
    run = subprocess.run(command, env=env, stdout=subprocess.PIPE, universal_newlines=True)
    sys.stdout.write(run.stdout)
    if run.returncode != 0:
        sys.exit("the example failed (exit status %d)" % run.returncode)
    found = ESTIMATES.search(run.stdout)
    if not found:
        sys.exit("no 'time: [... faults ... faults ... faults]' line in the example's output")
    groups = found.groups()
    estimates = [float(groups[i]) * (1000 if groups[i + 1] == "k" else 1) for i in (0, 2, 4)]
    low, high = pages, pages * 1.15
    if not all(low <= e <= high for e in estimates):
        sys.exit("page faults per iteration %s: expected each in [%d, %.1f] for %d fresh pages"
                 % (estimates, low, high, pages))
    print("page faults per iteration %s for %d fresh pages: OK" % (estimates, pages))


if __name__ == "__main__":
    main(sys.argv)
