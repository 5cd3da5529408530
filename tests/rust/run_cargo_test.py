#!/usr/bin/env python3
"""Runs one cargo test target for CTest and turns recorded skips into CTest's "skipped".

cargo's built-in harness has no skipped result: a Rust test that cannot run here calls
kpc_abi_tests::skip::skip(), which appends its reason to $KPC_SKIP_LOG and returns. This
runner gives each run a fresh log; if cargo failed, the run fails; if it passed but some
test skipped, it prints the reasons and exits with SKIP_CODE so CTest reports "skipped"
instead of "passed" (the passing tests in the same target are then not counted either).

usage: run_cargo_test.py CARGO MANIFEST SKIP_LOG [cargo test arguments...]
"""
import os
import subprocess
import sys

SKIP_CODE = 77  # SKIP_RETURN_CODE in tests/rust/CMakeLists.txt


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    cargo, manifest, skip_log = argv[1:4]
    extra = argv[4:]
    if os.path.exists(skip_log):
        os.remove(skip_log)
    env = dict(os.environ, KPC_SKIP_LOG=skip_log)
    # --locked: the committed Cargo.lock (no dependencies) is used as is, never rewritten.
    cmd = [cargo, "test", "--offline", "--locked", "--manifest-path", manifest] + extra
    print("+ " + " ".join(cmd), flush=True)
    rc = subprocess.call(cmd, env=env)
    if rc != 0:
        return rc
    if os.path.exists(skip_log):
        with open(skip_log, encoding="utf-8") as f:
            reasons = [line.rstrip("\n") for line in f if line.strip()]
        if reasons:
            print("cargo test passed, but these tests could not run here and were skipped:")
            for r in reasons:
                print("  SKIPPED " + r)
            return SKIP_CODE
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
