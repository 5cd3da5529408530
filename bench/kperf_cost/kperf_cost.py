#!/usr/bin/env python3
"""libkpc's own instructions per kp_thread_sample on the kperf backend (issue 3 section 10).

Runs the kperf_cost program under callgrind against the kperf simulator, once with 2 events
and once with 8, collecting only inside its sample loop. Per sample:

    libkpc = Ir inclusive of kp_thread_sample - Ir inclusive of kpc_get_thread_counters

(the second term is the framework call, the simulator's work, which libkpc cannot shorten),
plus the heap allocations counted in the loop. Callgrind counts instructions, not time, so
the figures repeat exactly from run to run on the same build.

The budget (docs/performance.md) is a share: libkpc's instructions per sample at most
--share percent (2) of the framework call's. The simulator stands in for the kernel, so
the framework call cannot be counted here; its cost is --framework-ir, taken from a
published measurement, and the budget is share x framework-ir.

With --check the exit status enforces it: 1 if any figure exceeds its limit or any
allocation happened; 77 (skipped) without valgrind, or for a build the budget does not
apply to (unoptimised or sanitized). The limit of an event set is the budget unless
--limit EVENTS=IR sets another for it (a known shortfall, reported in every run).
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
FRAMEWORK_CALL = "kpc_get_thread_counters"
ENTRY = "kp_thread_sample"
LOOP = "kperf_cost_sample_loop"  # the only function callgrind collects in


class Profile:
    """Self and call-arc costs from one callgrind output file (format version 1)."""

    def __init__(self, path):
        self.self_cost = collections.Counter()  # (object, function) -> Ir
        self.arcs = collections.Counter()       # ((object, fn), (object, fn)) -> inclusive Ir
        names = {"ob": {}, "fl": {}, "fn": {}}
        kind_of = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
                   "cfl": "fl", "fn": "fn", "cfn": "fn"}
        ob = fn = None
        cob = cfn = None
        call_pending = False
        with open(path, encoding="utf-8", errors="replace") as f:
            for raw in f:
                line = raw.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                m = re.match(r"^(ob|cob|fl|fi|fe|cfi|cfl|fn|cfn)=(?:\((\d+)\))?\s*(.*)$", line)
                if m:
                    key, ident, name = m.groups()
                    table = names[kind_of[key]]
                    if ident is not None:
                        if name:
                            table[ident] = name
                        name = table.get(ident, "?" + ident)
                    if key == "ob":
                        ob = name
                    elif key == "fn":
                        fn = (ob, name)
                        cob = cfn = None
                    elif key == "cob":
                        cob = name
                    elif key == "cfn":
                        cfn = name
                    continue
                if line.startswith("calls="):
                    call_pending = True
                    continue
                if not (line[0].isdigit() or line[0] in "+-*"):
                    continue  # headers: version, events, summary, totals, ...
                fields = line.split()
                cost = int(fields[1]) if len(fields) > 1 else 0  # positions: line; events: Ir
                if call_pending:
                    callee = (cob if cob is not None else ob, cfn)
                    self.arcs[(fn, callee)] += cost
                    call_pending = False
                    cob = None  # the callee's object is named again when it differs
                else:
                    self.self_cost[fn] += cost

    def inclusive(self, name):
        return sum(c for (_, callee), c in self.arcs.items() if callee[1] == name)

    def library_breakdown(self, library_marker):
        """Ir of libkpc's functions and of what they call, the framework call excepted."""
        rows = collections.Counter()
        for (obj, name), c in self.self_cost.items():
            if obj and library_marker in os.path.basename(obj):
                rows[name + " (self)"] += c
        for (caller, callee), c in self.arcs.items():
            caller_in = caller and caller[0] and library_marker in os.path.basename(caller[0])
            callee_in = callee[0] and library_marker in os.path.basename(callee[0])
            if caller_in and not callee_in and callee[1] != FRAMEWORK_CALL:
                rows[callee[1] + " (called from libkpc)"] += c
        return rows


def measure(args, events):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KPSIM_", "KPC_"))}
    env.update(KPC_BACKEND="kperf", KPC_KPERF_PATH=args.kperf, KPC_KPERFDATA_PATH=args.kperfdata)
    with tempfile.TemporaryDirectory(prefix="kperf_cost.") as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = [args.valgrind, "--tool=callgrind", "--callgrind-out-file=" + out,
               "--collect-atstart=no", "--toggle-collect=" + LOOP,
               args.bench, "--events", str(events), "--samples", str(args.samples)]
        run = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True)
        if run.returncode != 0:
            sys.stderr.write(run.stderr)
            sys.exit("kperf_cost: %s exited %d under callgrind (output above)"
                     % (args.bench, run.returncode))
        m = re.search(r"allocations=(\d+)", run.stdout)
        if not m:
            sys.exit("kperf_cost: no allocation count in the program's output:\n" + run.stdout)
        prof = Profile(out)
    total = prof.inclusive(ENTRY)
    framework = prof.inclusive(FRAMEWORK_CALL)
    if total == 0 or framework == 0:
        sys.exit("kperf_cost: callgrind recorded no %s or no %s call inside %s; was the "
                 "program built with its symbols?" % (ENTRY, FRAMEWORK_CALL, LOOP))
    n = args.samples
    return {
        "events": events,
        "total": total / n,
        "framework": framework / n,
        "library": (total - framework) / n,
        "allocations": int(m.group(1)) / n,
        "breakdown": [(name, c / n) for name, c in prof.library_breakdown("libkpc").most_common()],
        "extra_output": [l for l in run.stdout.splitlines() if not l.startswith("events=")],
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", required=True, help="path of the kperf_cost program")
    p.add_argument("--kperf", required=True, help="libkperf_sim.so (the kperf framework)")
    p.add_argument("--kperfdata", required=True, help="libkperfdata_sim.so (kperfdata)")
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--framework-ir", type=float, required=True,
                   help="instructions one framework call is taken to cost (published)")
    p.add_argument("--share", type=float, default=2.0,
                   help="libkpc's limit, in percent of --framework-ir")
    p.add_argument("--limit", action="append", default=[], metavar="EVENTS=IR",
                   help="enforce IR instead of the budget for this event set (a known shortfall)")
    p.add_argument("--optimised", type=int, default=1, help="0: a Debug build (budget not enforced)")
    p.add_argument("--sanitize", default="", help="KPC_SANITIZE of the build (skips)")
    p.add_argument("--valgrind", default=shutil.which("valgrind"))
    p.add_argument("--check", action="store_true", help="exit 1 over budget")
    p.add_argument("--breakdown", action="store_true", help="print Ir per libkpc function")
    args = p.parse_args()

    if not args.valgrind:
        print("SKIP: valgrind is not installed (scripts/install-deps.sh installs it); "
              "callgrind counts the instructions this budget is about")
        return SKIP
    if args.sanitize:
        print("SKIP: a sanitizer build (KPC_SANITIZE=%s) adds instrumentation to every sample "
              "and does not run under valgrind; the budget applies to optimised plain builds"
              % args.sanitize)
        return SKIP

    budget = args.share / 100.0 * args.framework_ir
    limits = {2: budget, 8: budget}
    for item in args.limit:
        events, _, ir = item.partition("=")
        limits[int(events)] = float(ir)

    results = [measure(args, k) for k in (2, 8)]
    print("kp_thread_sample on the kperf backend against the kperf simulator, under callgrind "
          "(%d samples per event set; Ir = instructions executed)" % args.samples)
    print("%-7s %16s %26s %15s %18s %12s" % ("events", "total Ir/sample", FRAMEWORK_CALL + " Ir",
                                              "libkpc Ir", "share of a call", "allocations"))
    for r in results:
        print("%-7d %16.1f %26.1f %15.1f %17.1f%% %12.3g"
              % (r["events"], r["total"], r["framework"], r["library"],
                 100.0 * r["library"] / args.framework_ir, r["allocations"]))
    print("share of a call: libkpc Ir / %g, the instructions taken for one framework call "
          "(published; the simulator's %s Ir above is not the kernel's)"
          % (args.framework_ir, FRAMEWORK_CALL))
    print("budget: libkpc Ir <= %g%% of %g = %g and 0 allocations per sample"
          % (args.share, args.framework_ir, budget))
    if args.breakdown or args.check:
        for r in results:
            print("libkpc Ir per sample with %d events, by function:" % r["events"])
            for name, c in r["breakdown"]:
                print("  %8.1f  %s" % (c, name))
    for r in results:
        for line in r["extra_output"]:
            print(line)
        if r["library"] > budget:
            print("BUDGET NOT MET: %d events take %.1f libkpc instructions per sample, %.1f%% "
                  "of %g (docs/performance.md says why)" % (
                      r["events"], r["library"], 100.0 * r["library"] / args.framework_ir,
                      args.framework_ir))

    if not args.check:
        return 0
    if not args.optimised:
        print("SKIP: not an optimised build (CMAKE_BUILD_TYPE Debug or none); the budget "
              "applies to Release/RelWithDebInfo builds")
        return SKIP
    failed = False
    for r in results:
        limit = limits[r["events"]]
        if r["library"] > limit or r["allocations"] > 0:
            print("FAIL: %d events: %.1f libkpc instructions and %g allocations per sample "
                  "(limit: %g and 0)" % (r["events"], r["library"], r["allocations"], limit))
            failed = True
        else:
            print("ok: %d events: %.1f libkpc instructions (limit %g), 0 allocations per sample"
                  % (r["events"], r["library"], limit))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
