#!/usr/bin/env python3
"""Runs a kpc-criterion exact_count bench (cargo bench, without --noplot) on an exact count,
the page faults of touching N fresh pages: every sample is N per iteration.

usage: check_exact_count_bench.py exact N COMMAND...
       check_exact_count_bench.py panic N COMMAND...

exact: benches/exact_count.rs (kpc_criterion's path) must complete and report N, N, N; run
       again with N + 1 pages it must report N + 1 and a regression of exactly 100/N %
       (N = 200: 0.5 %, below Criterion's default 1 % noise threshold); run a third time
       unchanged, "No change in performance detected".
panic: benches/exact_count_default.rs (Criterion's defaults) must panic in its plots with
       criterion.rs #887's assertion. If this starts passing, Criterion no longer panics.

Either way the samples Criterion saved must all be exactly N per iteration, else the run
did not test an exact count. Each run gets a fresh CRITERION_HOME.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

# Criterion 0.3 prints "<id>  time:   [16.000 faults 16.000 faults 16.000 faults]" and,
# against a saved baseline, "change: [+0.5000% +0.5000% +0.5000%] (p = 0.00 < 0.05)".
ESTIMATES = re.compile(r"time:\s*\[([0-9.]+) faults ([0-9.]+) faults ([0-9.]+) faults\]")
CHANGE = re.compile(r"change:\s*\[([-+0-9.]+)% ([-+0-9.]+)% ([-+0-9.]+)%\]")
PANIC = "assertion failed: slice.len() > 1 && slice.iter().all(|x| !x.is_nan())"


def run(command, pages, home):
    env = dict(os.environ, KPC_PAGES=str(pages), CRITERION_HOME=home, RUST_BACKTRACE="1")
    print("+ KPC_PAGES=%d CRITERION_HOME=%s %s" % (pages, home, " ".join(command)), flush=True)
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    sys.stdout.write(done.stdout)
    sys.stdout.write(done.stderr)
    return done


def check_samples_exact(home, pages):
    """The premise: every sample Criterion saved is exactly `pages` faults per iteration."""
    files = glob.glob(os.path.join(home, "*", "new", "sample.json"))
    if len(files) != 1:
        sys.exit("expected one saved sample under %s, found %s" % (home, files))
    with open(files[0]) as f:
        sample = json.load(f)
    per_iteration = sorted(set(t / i for i, t in zip(sample["iters"], sample["times"])))
    if len(sample["iters"]) < 10 or per_iteration != [float(pages)]:
        sys.exit("samples were not all exactly %d faults per iteration (%d samples, values %s):"
                 " this run did not measure an exact count" %
                 (pages, len(sample["iters"]), per_iteration[:5]))


def check_estimates(stdout, pages):
    found = ESTIMATES.search(stdout)
    if not found:
        sys.exit("no 'time: [... faults ... faults ... faults]' line in the bench's output")
    estimates = [float(g) for g in found.groups()]
    if estimates != [float(pages)] * 3:
        sys.exit("estimates %s: expected exactly %d faults per iteration" % (estimates, pages))


def check_change(stdout, percent, verdict):
    found = CHANGE.search(stdout)
    if not found:
        sys.exit("no 'change: [...]' line: Criterion did not compare with the saved baseline")
    change = [float(g) for g in found.groups()]
    if any(abs(c - percent) > 1e-3 for c in change) or verdict not in stdout:
        sys.exit("change %s%%: expected exactly %+.4f%% and '%s'" % (change, percent, verdict))


def exact(command, pages, home):
    runs = ((pages, None, None),
            (pages + 1, 100.0 / pages, "Performance has regressed."),
            (pages + 1, 0.0, "No change in performance detected."))
    for n, percent, verdict in runs:
        done = run(command, n, home)
        if done.returncode != 0:
            sys.exit("the bench failed (exit status %d) with %d pages" % (done.returncode, n))
        check_samples_exact(home, n)
        check_estimates(done.stdout, n)
        if verdict:
            check_change(done.stdout, percent, verdict)
    print("exact count: %d then %d faults per iteration, regression and no change: OK"
          % (pages, pages + 1))


def panic(command, pages, home):
    done = run(command, pages, home)
    check_samples_exact(home, pages)
    if done.returncode == 0:
        sys.exit("Criterion's default config did not panic on an exact count: criterion.rs "
                 "#887 may be fixed in this Criterion; kpc_criterion's workaround is then "
                 "optional (update bindings/rust/README.md)")
    if PANIC not in done.stderr or "criterion::plot::" not in done.stderr:
        sys.exit("the bench failed (exit status %d), but not with #887's panic in "
                 "criterion::plot" % done.returncode)
    print("Criterion's default config panics in its plots on an exact count, as expected")


def main(argv):
    if len(argv) < 4 or argv[1] not in ("exact", "panic"):
        sys.exit(__doc__)
    mode, pages, command = argv[1], int(argv[2]), argv[3:]
    with tempfile.TemporaryDirectory(prefix="kpc-criterion-") as home:
        (exact if mode == "exact" else panic)(command, pages, home)


if __name__ == "__main__":
    main(sys.argv)
