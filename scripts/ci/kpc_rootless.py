#!/usr/bin/env python3
"""The kpc tool where counting may be impossible: what works without root or a PMU.

usage: kpc_rootless.py KPC [--backend NAME] [--cpu-id ID] [--no-check]

Runs `kpc info --json`, `kpc list --json` and `kpc check --json` (with the backend from the
environment, as a user would) and checks:
  - info and list succeed: the event database opens (on a Mac, Apple's own kperfdata, which
    needs no root), the CPU is identified (== --cpu-id when given), events are listed;
  - on kperf, the fixed cycles/instructions events are listed as fixed;
  - `kpc check --quick` passes, or says it cannot count anything here; every check that
    could not count is printed with its reason, and "cannot count" still succeeds, because
    a GitHub macOS runner (a VM, not root) cannot count at all and a Linux VM without a
    PMU counts only software events. A check that ran and failed, or any other exit, fails.
Run by .github/workflows/macos.yml and by CTest (tests/ci) on Linux.
"""
import argparse
import json
import subprocess
import sys

# kpc check's exit statuses (src/cli/check_verdicts.hpp, docs/cli.md).
CHECK_PASSED = 0
CHECK_FAILED = 3
CHECK_CANNOT_COUNT = 4


def run(kpc, *args):
    p = subprocess.run([kpc, *args], capture_output=True, text=True, timeout=600)
    print(f"$ kpc {' '.join(args)}  -> exit {p.returncode}")
    return p


def fail(what, p=None):
    detail = "" if p is None else f"\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    sys.exit(f"FAIL: {what}{detail}")


def parse(p, what):
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        fail(f"{what} did not print JSON ({e})", p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kpc")
    ap.add_argument("--backend")
    ap.add_argument("--cpu-id")
    ap.add_argument("--no-check", action="store_true")
    args = ap.parse_args()

    p = run(args.kpc, "info", "--json")
    if p.returncode != 0:
        fail("kpc info failed", p)
    info = parse(p, "kpc info --json")
    backend, cpu = info["backend"], info["cpu"]
    access = info["access"]
    print(f"backend {backend}; cpu {cpu}; counters {info['counters']}; events {info['events']}")
    print("may count: yes" if access["allowed"] else f"may count: no: {access.get('reason')}")
    if args.backend and backend != args.backend:
        fail(f"backend is {backend}, expected {args.backend}", p)
    if args.cpu_id and cpu["id"] != args.cpu_id:
        fail(f"cpu id is {cpu['id']}, expected {args.cpu_id}", p)
    if not cpu["id"] or info["events"]["total"] <= 0:
        fail("no CPU id or no events", p)

    p = run(args.kpc, "list", "--json")
    if p.returncode != 0:
        fail("kpc list failed", p)
    events = {e["name"]: e for e in parse(p, "kpc list --json")["events"]}
    print(f"{len(events)} events listed")
    if len(events) != info["events"]["total"]:
        fail(f"kpc list shows {len(events)} events, kpc info counted {info['events']['total']}", p)
    if backend == "kperf":
        for name in ("FIXED_CYCLES", "FIXED_INSTRUCTIONS"):
            if events.get(name, {}).get("kind") != "fixed":
                fail(f"{name} is not listed as a fixed event", p)

    if not args.no_check:
        check(args.kpc)
    print("kpc root-free checks: ok")


def check(kpc):
    p = run(kpc, "check", "--quick", "--json")
    if p.returncode not in (CHECK_PASSED, CHECK_FAILED, CHECK_CANNOT_COUNT):
        fail(f"kpc check exited {p.returncode}", p)
    report = parse(p, "kpc check --json")
    summary = report["summary"]
    if summary["exit_status"] != p.returncode:
        fail(f"kpc check exited {p.returncode} but its JSON says {summary['exit_status']}", p)
    print(f"kpc check: {summary['pass']} passed, {summary['fail']} failed, "
          f"{summary['cannot_count']} cannot count here")
    for c in report["checks"]:
        if c["verdict"] != "pass":
            print(f"  {c['verdict']}: {c['event']} ({c['check']}): {c['message']}")
    if p.returncode == CHECK_FAILED:
        fail("kpc check: a check ran and failed", p)
    if p.returncode == CHECK_CANNOT_COUNT:
        reason = report["environment"]["access"].get("reason")
        print(f"counting skipped: nothing can be counted here: {reason}")


if __name__ == "__main__":
    main()
