#!/usr/bin/env bash
# Runs every test libkpc has, exactly as CI does (.ci/run runs this script inside a fresh
# Debian 12 root, scripts/ci/fresh-debian.sh):
#   1. a warnings-as-errors build and the whole CTest suite: C++ (GoogleTest), the strict
#      C99 header test, the bindings (Rust, Go, Java, Swift, Python and its wheel), the kpc
#      CLI, install/pkg-config/CMake-package, ABI checks, the simulators, benchmark smoke runs;
#      every optional part is asked for with ON, so a missing tool fails the configure;
#   2. the same suite rebuilt with AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. the multi-threaded tests rebuilt with ThreadSanitizer;
#   4. every libFuzzer target (tests/fuzz) for 30 seconds, with ASan + UBSan;
#   5. the C++ suite cross-built for aarch64 and run under qemu-user (scripts/ci/aarch64-suite.sh);
#   6. exact counts on QEMU's emulated ARMv8 PMU (scripts/ci/pmu-guest.sh);
#   7. libkpc and kpc built for arm64 and x86_64 macOS with zig's clang (scripts/ci/macos-build.sh);
#   8. known bugs put into a copy of the tree, each of which a test must catch (scripts/mutants.sh).
# Each stage prints its summary line; any failure stops the script with a non-zero exit.
# KPC_STAGES (e.g. "build asan") runs only the named stages:
#   build asan tsan fuzz aarch64 pmu macos mutants
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export PATH="$PATH:$HOME/.cargo/bin"
jobs=$(nproc)
stages=${KPC_STAGES:-build asan tsan fuzz aarch64 pmu macos mutants}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
want() { case " $stages " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
stage() { printf '\n===== %s =====\n' "$*"; stage_start=$(date +%s); }
stage_done() { echo "stage took $(( $(date +%s) - stage_start )) s"; }
# ctest through run-ctest.sh (it lists every skipped test with its reason), its output also
# kept for the totals printed at the end.
run_ctest() { local dir=$1; shift; scripts/ci/run-ctest.sh "$dir" "$@" 2>&1 | tee -a "$log"; }
# A stage script that prints "<name>: N passed, N failed[, N skipped]" as its last line, or
# CTest's summary line (aarch64-suite.sh).
run_stage_script() { "$@" 2>&1 | tee -a "$log"; }

if want build; then
  stage "build (warnings are errors) and run every test"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPC_WERROR=ON \
    -DKPC_BUILD_TESTS=ON -DKPC_BUILD_BINDINGS=ON -DKPC_BUILD_BENCH=ON -DKPC_BUILD_JAVA=ON \
    -DKPC_BUILD_GO=ON -DKPC_TEST_SWIFT=ON >/dev/null
  cmake --build build -j"$jobs"
  run_ctest build -j"$jobs"
  stage_done
fi

if want asan; then
  stage "AddressSanitizer + UndefinedBehaviorSanitizer"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKPC_SANITIZE=address,undefined \
    -DKPC_BUILD_TESTS=ON -DKPC_BUILD_BENCH=OFF >/dev/null
  cmake --build build-asan -j"$jobs"
  # The packaging tests (install, vendoring, Homebrew, the macOS workflow's scripts) build
  # their own copies of libkpc, uninstrumented; they ran in the first stage.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    run_ctest build-asan -j"$jobs" -E '^(ci\.|vendor\.|install\.|homebrew\.|license\.)'
  stage_done
fi

if want tsan; then
  stage "ThreadSanitizer: the concurrent tests"
  tsan_targets=(kpc capi_thread_test capi_thread_identity_test perf_event_kernel_test kperf_sim kperfdata_sim kpsim_selftest
                kpsim_dlopen_probe kperf_backend_test)
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKPC_SANITIZE=thread \
    -DKPC_BUILD_TESTS=ON -DKPC_BUILD_BENCH=OFF -DKPC_BUILD_CLI=OFF >/dev/null
  cmake --build build-tsan -j"$jobs" --target "${tsan_targets[@]}"
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    run_ctest build-tsan -j"$jobs" \
      -R '^(ThreadRules|ThreadLifetime|ThreadIdentity|KernelTest|kperf\.Threads|kperf\.Session|kperf\.OnM1\.Thread|kpsim\.)'
  stage_done
fi

if want fuzz; then
  stage "libFuzzer targets, 30 seconds each (tests/fuzz, docs/testing.md)"
  # A crash, leak or broken invariant fails the script (set -e); its input is kept in
  # build-fuzz/fuzz-artifacts/.
  FUZZ_JOBS="$jobs" scripts/fuzz.sh "${KPC_FUZZ_SECONDS:-30}"
  stage_done
fi

if want aarch64; then
  stage "aarch64: the C++ suite cross-built and run under qemu-user"
  run_stage_script scripts/ci/aarch64-suite.sh
  stage_done
fi

if want pmu; then
  stage "emulated ARMv8 PMU: exact counts in a QEMU guest"
  # The aarch64 stage's build directory: the guest's programs are already built there.
  run_stage_script scripts/ci/pmu-guest.sh build-aarch64
  stage_done
fi

if want macos; then
  stage "macOS: libkpc and kpc built for arm64 and x86_64 with zig's clang"
  run_stage_script scripts/ci/macos-build.sh
  stage_done
fi

if want mutants; then
  stage "mutants: known bugs the tests must catch (scripts/mutants.sh)"
  scripts/mutants.sh
  stage_done
fi

# One closing line over every stage. CTest counts a skipped test among the passed; here
# skips are reported apart, so a skip never reads as a pass. The stage scripts print
# "<name>: N passed, N failed[, N skipped]".
sum() { awk '{s+=$1} END {print s+0}'; }
total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | sum)
failed=$(sed -n 's/.* \([0-9]*\) tests failed out of.*/\1/p' "$log" | sum)
skipped=$(grep -c '(Skipped)$' "$log" || true)
passed=$((total - failed - skipped))
stage_lines=$(grep -E '^[a-z0-9-]+: [0-9]+ passed, [0-9]+ failed' "$log" || true)
if [ -n "$stage_lines" ]; then
  passed=$((passed + $(sed -E 's/^[^:]+: ([0-9]+) passed.*/\1/' <<<"$stage_lines" | sum)))
  failed=$((failed + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$stage_lines" | sum)))
  skipped=$((skipped + $(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$stage_lines" | sum)))
fi
echo
# The closing line counts runs: a test that runs in several stages (build, asan, aarch64)
# counts in each. This line counts each CTest test once: failed if it failed anywhere, else
# passed if it passed anywhere, else skipped.
awk '/Test +#[0-9]+: / {
       name = $0; sub(/.*Test +#[0-9]+: /, "", name); sub(/ .*/, "", name)
       rank = /  Passed / ? 2 : (/\*\*\*Skipped/ ? 1 : 3)
       if (rank > result[name]) result[name] = rank
     }
     END {
       for (n in result) { total++; count[result[n]]++ }
       printf "distinct CTest tests: %d: %d passed, %d failed, %d only skipped\n", total, count[2], count[3], count[1]
     }' "$log"
echo "all stages: ${passed} passed, ${failed} failed, ${skipped} skipped"
