#!/usr/bin/env python3
"""Runs examples/gbench_page_faults.cpp with JSON output and fails unless each
BM_touch_pages/N reports page-faults within 20 % of N per iteration.

usage: check_page_faults.py EXAMPLE [ARGS...]
"""
import json
import subprocess
import sys


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    run = subprocess.run(argv[1:] + ["--benchmark_format=json"], stdout=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit("the example exited with status %d" % run.returncode)
    results = json.loads(run.stdout)["benchmarks"]
    checked = 0
    for b in results:
        pages = int(b["name"].split("/")[1])
        if "error_message" in b:
            sys.exit("%s: %s" % (b["name"], b["error_message"]))
        faults = b.get("page-faults")
        if faults is None:
            sys.exit("%s reports no page-faults counter: %s" % (b["name"], sorted(b)))
        print("%s: page-faults/iteration %.2f" % (b["name"], faults))
        if abs(faults - pages) > 0.2 * pages:
            sys.exit("%s: page-faults per iteration is %.2f, not within 20%% of %d" % (b["name"], faults, pages))
        checked += 1
    if checked < 2:
        sys.exit("expected 2 benchmarks, got %d" % checked)


if __name__ == "__main__":
    main(sys.argv)
