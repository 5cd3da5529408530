#!/usr/bin/env python3
"""Instructions of the kperf read's copy on AArch64 (src/backends/kperf/counter_copy.cpp).

The copy routines are straight-line (no loop, no branch but the final `ret`), so counting
the instructions of a routine in the disassembly gives exactly what one call executes.
This script cross-compiles counter_copy.cpp for AArch64 with the library's optimisation
(-O2, -fPIC) and KPC_COPY_EMIT_ALL (which also emits the routines select_copy never picks),
disassembles the object with aarch64-linux-gnu-objdump, checks that every routine is
straight-line and counts, for every event count 1..32, the portable copy copy_scalar<N>
and each NEON copy copy_neon<N, Skip>: a TBL over four 16-byte rows of the buffer (row r
= slots 2r, 2r+1), all rows of slots 0..9 but row Skip (0..4), or for Skip 5 all five
rows (TBL over rows 0..3, then a TBX over row 4).

With --qemu it also cross-compiles tests/kperf/counter_copy_aarch64_check.cpp at a fixed
address (-no-pie), runs `counter_copy_aarch64_check --selection` under qemu-aarch64, which
prints the address of the routine select_copy picks for every event count and every set
of rows the events use, names those routines from the program's symbol table, and checks
that each pick is the shortest routine the library has that can serve those rows (the
portable copy included): the choice is measured, not guessed.

With --clang it counts a second time with clang++ --target=aarch64-linux-gnu, the nearest
this Linux machine has to Apple clang (the same LLVM AArch64 code generator, not the same
version; Linux's ABI rather than Apple's, which does not matter for these leaf routines).
Nothing here runs on, or was measured on, a Mac.

Exit status (with --check): 1 if a routine is not straight-line or a pick is not the
shortest; else 0. kperf_cost.py imports this module to turn its x86-64 callgrind figures
into an AArch64 estimate.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

MAX_EVENTS = 32
ALL_ROWS = 5  # copy_neon's Skip value for "all five rows" (TBL + TBX)
SKIPS = (4, 0, 1, 2, 3, ALL_ROWS)  # the order of the table's columns
# The benchmark's event sets (kperf_cost.cpp) and the rows of slots they use on the
# simulated A14: 2 events at slots 0, 1 (row 0); 8 events at slots 0, 1, 7, 6, 5, 4, 3, 2
# (rows 0..3). For 8 events also two sets the simulator does not produce, to show the
# other routines: slots 0, 1, 9, 8, 7, 6, 5, 4 (an allocator filling the configurable
# counters from the top: row 1 free) and all five rows in use (e.g. slots 0..6 and 8).
BENCH_ROWS = {2: [("2", 0b00001)],
              8: [("8", 0b01111), ("8, slots 0,1,9..4", 0b11101),
                  ("8, all 5 rows used", 0b11111)]}
# The flags the library is compiled with in RelWithDebInfo, minus -g (no code change).
FLAGS = ["-std=gnu++17", "-O2", "-DNDEBUG", "-fPIC"]
BRANCHES = re.compile(r"^(b|bl|br|blr|b\.\w+|cbz|cbnz|tbz|tbnz|ret|eret|braa\w*|blraa\w*|reta\w*)$")


class CountError(Exception):
    pass


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if p.returncode != 0:
        raise CountError("%s failed (%d): %s\n%s" % (what, p.returncode, " ".join(cmd), p.stdout))
    return p.stdout


def routine_name(demangled):
    """'copy_scalar<8ul>' -> ('scalar', 8, None); 'copy_neon<8ul, 2ul>' -> ('neon', 8, 2)."""
    m = re.search(r"copy_(scalar|neon)<(\d+)ul?(?:, (\d+)ul?)?>\(", demangled)
    if not m:
        return None
    return (m.group(1), int(m.group(2)), int(m.group(3)) if m.group(3) else None)


def label(key):
    kind, n, skip = key
    if kind == "scalar":
        return "copy_scalar<%d>" % n
    return "copy_neon<%d, %s>" % (n, "all rows" if skip == ALL_ROWS else "skip %d" % skip)


def count_object(obj, objdump):
    """{('scalar', N, None) or ('neon', N, Skip): instructions up to and including `ret`}."""
    text = run([objdump, "-d", "-C", "--no-show-raw-insn", obj], "objdump")
    routines, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            current = routine_name(m.group(1))
            if current is not None:
                routines[current] = []
            continue
        m = re.match(r"^\s+[0-9a-f]+:\s+(\S+)", line)
        if m and current is not None:
            routines[current].append(m.group(1))
    counts = {}
    for key, mnemonics in routines.items():
        if "ret" not in mnemonics:
            raise CountError("%s: no ret in its disassembly" % label(key))
        body = mnemonics[:mnemonics.index("ret") + 1]  # after ret: alignment padding
        branches = [x for x in body[:-1] if BRANCHES.match(x)]
        if branches:
            raise CountError("%s is not straight-line (%s): a static count would not be "
                             "what it executes" % (label(key), ", ".join(branches)))
        counts[key] = len(body)
    for n in range(1, MAX_EVENTS + 1):
        for key in [("scalar", n, None)] + [("neon", n, k) for k in SKIPS]:
            if key not in counts:
                raise CountError("no %s in %s" % (label(key), obj))
    return counts


def compile_and_count(cxx, objdump, source_dir, workdir, extra=()):
    obj = os.path.join(workdir, "counter_copy_%s.o" % re.sub(r"\W", "_", os.path.basename(cxx)))
    run([cxx] + list(extra) + FLAGS + ["-DKPC_COPY_EMIT_ALL=1",
        "-I", os.path.join(source_dir, "src"), "-I", os.path.join(source_dir, "include"),
        "-c", os.path.join(source_dir, "src", "backends", "kperf", "counter_copy.cpp"),
        "-o", obj], "compiling counter_copy.cpp with " + cxx)
    return count_object(obj, objdump)


def compiler_version(cxx, extra=()):
    try:
        out = run([cxx] + list(extra) + ["--version"], cxx + " --version")
        return out.splitlines()[0].strip()
    except (CountError, OSError):
        return os.path.basename(cxx)


def selection(cxx, objdump, qemu, sysroot, source_dir, workdir):
    """(picks, provided): picks[(N, rows)] = the routine select_copy picks, rows a bit set
    of the rows of slots 0..9 in use or "slot31"; provided = the routines the library has
    (those in the program, built without KPC_COPY_EMIT_ALL)."""
    exe = os.path.join(workdir, "counter_copy_aarch64_check")
    run([cxx] + FLAGS + ["-no-pie", "-I", os.path.join(source_dir, "src"),
        "-I", os.path.join(source_dir, "include"),
        os.path.join(source_dir, "tests", "kperf", "counter_copy_aarch64_check.cpp"),
        os.path.join(source_dir, "src", "backends", "kperf", "counter_copy.cpp"), "-o", exe],
        "compiling counter_copy_aarch64_check with " + cxx)
    by_address = {}
    for line in run([objdump, "-t", "-C", exe], "objdump -t").splitlines():
        m = re.match(r"^([0-9a-f]+)\s.*\sF\s+\.text\s+[0-9a-f]+\s+(.*)$", line)
        if m and routine_name(m.group(2)):
            by_address[int(m.group(1), 16)] = routine_name(m.group(2))
    out = run([qemu, "-L", sysroot, exe, "--selection"], "counter_copy_aarch64_check --selection")
    picks = {}
    for line in out.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        n, rows, address = line.split()
        key = by_address.get(int(address, 16))
        if key is None:
            raise CountError("--selection: %s is not a copy routine in %s" % (address, exe))
        picks[(int(n), rows if rows == "slot31" else int(rows))] = key
    return picks, set(by_address.values())


def applicable(n, rows):
    """The routines that can copy n events using these rows of slots 0..9."""
    if rows == "slot31":
        return [("scalar", n, None)]
    return ([("scalar", n, None)] + [("neon", n, k) for k in range(5) if not rows & (1 << k)]
            + [("neon", n, ALL_ROWS)])


def chosen(counts, picks, provided, n, rows):
    """The routine select_copy uses for n events on these rows, and its instruction count
    (without picks: the shortest routine the library has, as select_copy should pick)."""
    if picks is not None:
        key = picks[(n, rows)]
    else:
        key = min((k for k in applicable(n, rows) if provided is None or k in provided),
                  key=lambda k: (counts[k], k[0] == "neon"))
    return label(key), counts[key]


def check_selection(counts, picks, provided):
    """Messages for every (N, rows) where select_copy's pick cannot serve those rows, or is
    not the shortest routine the library has for them (the portable copy included)."""
    wrong = []
    for (n, rows), key in sorted(picks.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        cands = [k for k in applicable(n, rows) if k in provided]
        where = "%d events, %s" % (n, "slot 31" if rows == "slot31" else "rows %s" % bin(rows))
        if key not in applicable(n, rows):
            wrong.append("%s: select_copy picks %s, which cannot serve them" % (where, label(key)))
            continue
        best = min(counts[k] for k in cands)
        if counts[key] > best:
            wrong.append("%s: select_copy picks %s (%d instructions), but %s takes %d"
                         % (where, label(key), counts[key],
                            label(min(cands, key=lambda k: counts[k])), best))
    return wrong


def measure(args, workdir):
    """Everything the report needs: GCC counts, optional clang counts, the picks."""
    result = {"gcc": compile_and_count(args.cxx, args.objdump, args.source_dir, workdir),
              "gcc_version": compiler_version(args.cxx), "clang": None, "clang_note": None,
              "picks": None}
    if args.clang:
        target = ["--target=aarch64-linux-gnu"]
        if args.sysroot:
            target.append("--sysroot=" + args.sysroot)
        # GCC's C++ headers for the target (libstdc++ of the cross compiler).
        cxx = shutil.which(args.cxx) or args.cxx  # /usr/bin/aarch64-linux-gnu-g++ -> /usr
        target.append("--gcc-toolchain=" + os.path.dirname(os.path.dirname(cxx)))
        try:
            result["clang"] = compile_and_count(args.clang, args.objdump, args.source_dir,
                                                workdir, target)
            result["clang_version"] = compiler_version(args.clang)
        except CountError as e:
            result["clang_note"] = "clang counts unavailable: %s" % str(e).splitlines()[0]
    result["provided"] = None
    if args.qemu:
        result["picks"], result["provided"] = selection(
            args.cxx, args.objdump, args.qemu, args.sysroot, args.source_dir, workdir)
    return result


def print_table(result, out=sys.stdout):
    gcc, clang, provided = result["gcc"], result["clang"], result["provided"]
    out.write("AArch64 copy: instructions per call, a static count of the straight-line "
              "routines in the cross-compiled counter_copy.o (exact for the copy itself)\n")
    out.write("  gcc:   %s\n" % result["gcc_version"])
    if clang:
        out.write("  clang: %s, --target=aarch64-linux-gnu\n" % result.get("clang_version", ""))
    out.write("  NEON copy_neon<N, skip r>: TBL over the rows of slots 0..9 but row r (slots "
              "2r, 2r+1); all: TBL over rows 0..3 + TBX over row 4. (n) = compiled only to "
              "be counted, not in the library%s\n"
              % ("" if provided is not None else " (unknown here: run with --qemu)"))
    cols = ["port", "r4", "r0", "r1", "r2", "r3", "all"]

    def cells(counts, n):
        row = []
        for key in [("scalar", n, None)] + [("neon", n, k) for k in SKIPS]:
            text = str(counts[key])
            if provided is not None and key not in provided:
                text = "(%s)" % text
            row.append("%5s" % text)
        return " ".join(row)

    head = "%-6s | %-41s" % ("", "gcc")
    sub = "%-6s | %s" % ("events", " ".join("%5s" % c for c in cols))
    if clang:
        head += " | clang"
        sub += " | %s" % " ".join("%5s" % c for c in cols)
    out.write(head.rstrip() + "\n" + sub + "\n")
    for n in range(1, MAX_EVENTS + 1):
        line = "%-6d | %s" % (n, cells(gcc, n))
        if clang:
            line += " | %s" % cells(clang, n)
        out.write(line + "\n")
    if result["clang_note"]:
        out.write(result["clang_note"] + "\n")
    if clang and result["picks"]:
        notes = check_selection(clang, result["picks"], provided)
        for msg in notes[:10]:
            out.write("note (clang's counts, not enforced): %s\n" % msg)
        if len(notes) > 10:
            out.write("note (clang's counts, not enforced): %d more\n" % (len(notes) - 10))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source-dir", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    p.add_argument("--cxx", default="aarch64-linux-gnu-g++")
    p.add_argument("--objdump", default="aarch64-linux-gnu-objdump")
    p.add_argument("--qemu", help="qemu-aarch64: also check select_copy's picks")
    p.add_argument("--sysroot", default="/usr/aarch64-linux-gnu")
    p.add_argument("--clang", help="clang++: also count with clang --target=aarch64-linux-gnu")
    p.add_argument("--check", action="store_true", help="exit 1 when a pick disagrees")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="aarch64_copy.") as tmp:
        try:
            result = measure(args, tmp)
        except (CountError, OSError) as e:
            print("FAIL: %s" % e)
            return 1
    print_table(result)
    if result["picks"] is not None:
        wrong = check_selection(result["gcc"], result["picks"], result["provided"])
        for w in wrong:
            print("FAIL: " + w)
        if not wrong:
            print("ok: for every count and set of rows select_copy picks the shortest routine "
                  "the library has (%d picks checked)" % len(result["picks"]))
        if wrong and args.check:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
