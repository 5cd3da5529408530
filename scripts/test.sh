#!/usr/bin/env bash
# Runs every test libkpc has, exactly as CI does (.ci/run calls this script):
#   1. a warnings-as-errors build and the whole CTest suite: C++ (GoogleTest), the strict
#      C99 header test, Rust (bindgen FFI), the kpc CLI, install/pkg-config/CMake-package,
#      ABI checks, the kperf simulator and the benchmark smoke runs;
#   2. the same suite rebuilt with AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. the multi-threaded tests rebuilt with ThreadSanitizer;
#   4. every libFuzzer target (tests/fuzz) for 30 seconds, with ASan + UBSan.
# Each stage prints CTest's summary line; any failure stops the script with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export PATH="$PATH:$HOME/.cargo/bin"
jobs=$(nproc)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
stage() { printf '\n===== %s =====\n' "$*"; }
# ctest, with its output also kept for the totals printed at the end.
run_ctest() { ctest "$@" 2>&1 | tee -a "$log"; }

stage "build (warnings are errors) and run every test"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPC_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
run_ctest --test-dir build -j"$jobs" --output-on-failure

stage "AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKPC_SANITIZE=address,undefined \
  -DKPC_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
# The packaging tests (install, vendoring, Homebrew, the macOS workflow's scripts) build
# their own copies of libkpc, uninstrumented; they ran in the first stage.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  run_ctest --test-dir build-asan -j"$jobs" --output-on-failure \
    -E '^(ci\.|vendor\.|install\.|homebrew\.|license\.)'

stage "ThreadSanitizer: the concurrent tests"
tsan_targets=(kpc capi_thread_test capi_thread_identity_test perf_event_kernel_test kperf_sim kperfdata_sim kpsim_selftest
              kpsim_dlopen_probe kperf_backend_test)
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKPC_SANITIZE=thread \
  -DKPC_BUILD_BENCH=OFF -DKPC_BUILD_CLI=OFF >/dev/null
cmake --build build-tsan -j"$jobs" --target "${tsan_targets[@]}"
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  run_ctest --test-dir build-tsan -j"$jobs" --output-on-failure \
    -R '^(ThreadRules|ThreadLifetime|ThreadIdentity|KernelTest|kperf\.Threads|kperf\.Session|kperf\.OnM1\.Thread|kpsim\.)'

stage "libFuzzer targets, 30 seconds each (tests/fuzz, docs/testing.md)"
# A crash, leak or broken invariant fails the script (set -e); its input is kept in
# build-fuzz/fuzz-artifacts/.
FUZZ_JOBS="$jobs" scripts/fuzz.sh "${KPC_FUZZ_SECONDS:-30}"

# One closing line over all three stages. CTest counts a skipped test among the passed;
# here skips are reported apart, so a skip never reads as a pass.
total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
failed=$(sed -n 's/.* \([0-9]*\) tests failed out of.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
skipped=$(grep -c '(Skipped)$' "$log" || true)
echo
echo "all stages: $((total - failed - skipped)) passed, ${failed} failed, ${skipped} skipped"
