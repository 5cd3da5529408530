#!/usr/bin/env python3
"""CTest driver for the Go binding (bindings/go/CMakeLists.txt registers every use).

Subcommands (all run in the module directory given by --dir):

  build  --go GO --gofmt GOFMT --prefixes P1,P2,... [--package DIR=P1,P2 ...]
         The fixture every go_* test needs: gofmt check of the hand-written files, go vet,
         go build, compiling the tests, and a check that every Test/Example function matches
         one of the prefixes CTest runs (so a new test cannot silently go unregistered):
         --prefixes for the package in --dir, --package for a subpackage (e.g. kpcbench).

  test   --go GO --run REGEX
         `go test -count=1 -v -json -run REGEX .`, printed as plain -v output. Fails if go
         test fails or if REGEX matched no test; if it passed but some test called t.Skip,
         prints the reasons and exits 77 so that CTest (SKIP_RETURN_CODE 77) reports the
         test as skipped rather than passed.

  bench  --go GO --bench REGEX --metric UNIT
         `go test -run ^$ -bench REGEX -benchtime 200x .`; every result line whose name
         carries pages=N must report UNIT (e.g. page-faults/op) within 20 % of N, and at
         least two such lines must appear (kpcbench's page-touching example).

  fresh  --generate SCRIPT --out TMPDIR --committed DIR
         Regenerates the SWIG output into TMPDIR with bindings/go/generate.sh and fails if it
         differs from the committed files, saying how to fix it.

  readme --go GO --readme README.md --example examples/quickstart/main.go
         Checks that README.md quotes the example program verbatim, then runs it
         (`go run`) and checks that it counted the page faults it caused.
"""
import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys

SKIP_CODE = 77  # SKIP_RETURN_CODE in bindings/go/CMakeLists.txt


def run(cmd, **kw):
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.call(cmd, **kw)


def cmd_build(a):
    unformatted = subprocess.run([a.gofmt, "-l", "."], capture_output=True, text=True)
    if unformatted.returncode != 0:
        print(unformatted.stderr)
        return unformatted.returncode
    if unformatted.stdout.strip():
        print("not gofmt-formatted (run `gofmt -w` on them):\n" + unformatted.stdout)
        return 1
    steps = [
        [a.go, "vet", ".", "./examples/..."] + ["./" + p.split("=")[0] for p in a.package],
        # SWIG's generated string helper converts a uintptr to unsafe.Pointer by design.
        [a.go, "vet", "-unsafeptr=false", "./internal/ckpc"],
        [a.go, "build", "./..."],
        [a.go, "test", "-count=1", "-run", "^$", "./..."],
    ]
    for cmd in steps:
        rc = run(cmd)
        if rc != 0:
            return rc
    total = 0
    for pkg, prefixes in [(".", a.prefixes)] + [("./" + p.split("=")[0], p.split("=")[1])
                                               for p in a.package]:
        listed = subprocess.run([a.go, "test", "-list", ".*", pkg], capture_output=True, text=True)
        if listed.returncode != 0:
            print(listed.stdout + listed.stderr)
            return listed.returncode
        prefixes = [p for p in prefixes.split(",") if p]
        names = [l.strip() for l in listed.stdout.splitlines()
                 if re.match(r"^(Test|Example|Benchmark|Fuzz)\w*$", l.strip())]
        orphans = [n for n in names if not any(n.startswith(p) for p in prefixes)
                   and not (pkg == "." and n.startswith("Benchmark"))]
        if orphans:
            print("these Go tests of package %s match no CTest test (prefixes %s); rename them or "
                  "register a prefix in bindings/go/CMakeLists.txt: %s"
                  % (pkg, ", ".join(prefixes), ", ".join(orphans)))
            return 1
        total += len(names)
    print("%d Go tests, examples and benchmarks, each covered by a CTest test" % total)
    return 0


def cmd_test(a):
    cmd = [a.go, "test", "-count=1", "-v", "-json", "-run", a.run, "."]
    print("+ " + " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    ran, skipped, output = [], [], {}
    for line in proc.stdout:
        try:
            ev = json.loads(line)
        except ValueError:
            sys.stdout.write(line)  # build errors and other plain text
            continue
        test, action = ev.get("Test"), ev.get("Action")
        if action == "output":
            text = ev.get("Output", "")
            sys.stdout.write(text)
            if test:
                output.setdefault(test, []).append(text)
        elif test and action in ("pass", "fail", "skip"):
            ran.append(test)
            if action == "skip":
                skipped.append(test)
    sys.stdout.flush()
    rc = proc.wait()
    if rc != 0:
        return rc
    if not ran:
        print("no Go test matched -run %r: was a test renamed?" % a.run)
        return 1
    if skipped:
        print("\ngo test passed, but these tests could not run here and were skipped:")
        for t in skipped:
            reasons = [l.rstrip() for l in output.get(t, [])
                       if l.strip() and not l.startswith(("=== ", "--- "))]
            print("  SKIPPED %s: %s" % (t, " ".join(r.strip() for r in reasons) or "(no reason given)"))
        return SKIP_CODE
    return 0


def cmd_bench(a):
    cmd = [a.go, "test", "-count=1", "-run", "^$", "-bench", a.bench, "-benchtime", "200x", "."]
    print("+ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        return proc.returncode
    checked, bad = 0, []
    for line in proc.stdout.splitlines():
        name = re.match(r"^(Benchmark\S*pages=(\d+)\S*)\s+\d+\s", line)
        if not name:
            continue
        pages = int(name.group(2))
        m = re.search(r"\s([0-9.e+-]+) %s(\s|$)" % re.escape(a.metric), line)
        if not m:
            bad.append("%s reports no %s (is the event logged as not countable above?)"
                       % (name.group(1), a.metric))
            continue
        value = float(m.group(1))
        checked += 1
        if not 0.8 * pages <= value <= 1.2 * pages:
            bad.append("%s: %s = %g, want %d +- 20 %%" % (name.group(1), a.metric, value, pages))
    if checked < 2 and not bad:
        bad.append("expected at least two pages=N results with %s, found %d" % (a.metric, checked))
    for b in bad:
        print("FAIL: " + b)
    if bad:
        return 1
    print("%d benchmarks report %s within 20 %% of their page count" % (checked, a.metric))
    return 0


def cmd_fresh(a):
    if os.path.isdir(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    rc = run(["sh", a.generate, a.out])
    if rc != 0:
        print("go_generated_fresh: could not regenerate (see above); needs swig (Debian package "
              "swig) and gofmt (golang-go)")
        return rc
    stale = False
    for name in ("ckpc.go", "ckpc_wrap.c"):
        committed = os.path.join(a.committed, name)
        fresh = os.path.join(a.out, name)
        old = open(committed, encoding="utf-8").read() if os.path.exists(committed) else ""
        new = open(fresh, encoding="utf-8").read()
        if old != new:
            stale = True
            diff = list(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                             "committed/" + name, "regenerated/" + name))
            sys.stdout.writelines(diff[:80])
            if len(diff) > 80:
                print("... (%d more diff lines)" % (len(diff) - 80))
    if stale:
        print("\nThe committed SWIG output in bindings/go/internal/ckpc is stale (kpc_go.i, kpc.i "
              "or a public header changed, or another SWIG version is installed). Fix: run "
              "bindings/go/generate.sh and commit bindings/go/internal/ckpc/.")
        return 1
    print("committed SWIG output is up to date")
    return 0


def cmd_readme(a):
    readme = open(a.readme, encoding="utf-8").read()
    example = open(a.example, encoding="utf-8").read()
    blocks = re.findall(r"```go\n(.*?)```", readme, re.S)
    if example not in blocks:
        print("README.md must quote %s verbatim in a ```go block (it is what users paste); "
              "copy the file into the README again" % a.example)
        return 1
    proc = subprocess.run([a.go, "run", "./" + os.path.dirname(a.example)],
                          capture_output=True, text=True)
    sys.stdout.write(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        return proc.returncode
    m = re.search(r"^page-faults\s+(\d+)$", proc.stdout, re.M)
    if not m or int(m.group(1)) < 1024:
        print("the example should report >= 1024 page faults for the 1024 pages it touches")
        return 1
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["build", "test", "bench", "fresh", "readme"])
    p.add_argument("--dir", help="module directory to run in")
    p.add_argument("--go")
    p.add_argument("--gofmt")
    p.add_argument("--prefixes", default="")
    p.add_argument("--package", action="append", default=[], help="DIR=P1,P2: a subpackage's prefixes")
    p.add_argument("--bench")
    p.add_argument("--metric")
    p.add_argument("--run")
    p.add_argument("--generate")
    p.add_argument("--out")
    p.add_argument("--committed")
    p.add_argument("--readme")
    p.add_argument("--example")
    a = p.parse_args()
    if a.dir:
        os.chdir(a.dir)
    return {"build": cmd_build, "test": cmd_test, "bench": cmd_bench, "fresh": cmd_fresh,
            "readme": cmd_readme}[a.command](a)


if __name__ == "__main__":
    sys.exit(main())
