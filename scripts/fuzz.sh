#!/usr/bin/env bash
# Builds libkpc's libFuzzer targets (tests/fuzz) with ASan + UBSan and runs each one for a
# bounded time. Any crash, leak or broken invariant fails the script; the input that caused
# it is kept in build-fuzz/fuzz-artifacts/ (docs/testing.md: reproducing a crash).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     default: 60 seconds for every target
#
# Environment: FUZZ_CXX / FUZZ_CC (default Swift's clang in /opt/swift, else clang on PATH),
# FUZZ_BUILD (default build-fuzz), FUZZ_JOBS (build parallelism, default 2), FUZZ_PARALLEL
# (targets run at once, default: the number of CPUs), FUZZ_ARGS
# (extra libFuzzer flags, e.g. "-jobs=4 -workers=4").
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
all_targets=(fuzz_cli_args fuzz_diff_input fuzz_events_perf_event fuzz_events_kperf fuzz_sampler_options)
targets=("${@:-${all_targets[@]}}")
build=${FUZZ_BUILD:-build-fuzz}

if [ -z "${FUZZ_CXX:-}" ]; then
  if [ -x /opt/swift/usr/bin/clang++ ]; then
    FUZZ_CC=/opt/swift/usr/bin/clang FUZZ_CXX=/opt/swift/usr/bin/clang++
  else
    FUZZ_CC=clang FUZZ_CXX=clang++
  fi
fi
FUZZ_CC=${FUZZ_CC:-${FUZZ_CXX%++}}

CC=$FUZZ_CC CXX=$FUZZ_CXX cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DKPC_SANITIZE=address,undefined -DKPC_BUILD_FUZZ=ON -DKPC_BUILD_BINDINGS=OFF \
  -DKPC_BUILD_BENCH=OFF -DKPC_BUILD_CLI=OFF >/dev/null
cmake --build "$build" -j"${FUZZ_JOBS:-2}" --target "${targets[@]}" 2>&1 | grep -v "Cannot export local symbol" || true
for t in "${targets[@]}"; do
  [ -x "$build/tests/fuzz/$t" ] || { echo "fuzz: $t was not built (see the build output above)" >&2; exit 1; }
done

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
# Each target runs on one core; as many run at once as there are cores (FUZZ_PARALLEL), so
# CI's few minutes give every target its full time.
run_target() {
  t=$1
  # The working corpus grows in the build tree; the seeds in the source tree stay as they are.
  corpus="$build/fuzz-corpus/$t"
  mkdir -p "$corpus"
  status=0
  # shellcheck disable=SC2086  # FUZZ_ARGS is a list of flags
  "$build/tests/fuzz/$t" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$artifacts/$t-" ${FUZZ_ARGS:-} "$corpus" "tests/fuzz/corpus/$t" \
    >"$build/fuzz-$t.log" 2>&1 || status=$?
  echo "$status" >"$build/fuzz-$t.status"
}
parallel=${FUZZ_PARALLEL:-$(nproc)}
rm -f "$build"/fuzz-*.status
printf '\n===== fuzz %s target(s) for %ss each, %s at a time =====\n' "${#targets[@]}" "$seconds" "$parallel"
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait || true

total=0
failed=()
for t in "${targets[@]}"; do
  log="$build/fuzz-$t.log"
  status=$(cat "$build/fuzz-$t.status" 2>/dev/null || echo 1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s+=$1} END {print s+0}')
  total=$((total + runs))
  grep -E '^#[0-9]+ +DONE' "$log" | tail -1 || true
  if [ "$status" -ne 0 ]; then
    failed+=("$t")
    grep -E 'ERROR|SUMMARY|invariant broken|runtime error|Test unit written' "$log" | head -20 >&2 || true
    echo "fuzz: $t FAILED (exit $status); full log: $log" >&2
  else
    echo "fuzz: $t ok, $runs executions"
  fi
done
echo
echo "fuzz: ${#targets[@]} targets, $total executions, ${#failed[@]} failed${failed[*]:+: ${failed[*]}}"
[ ${#failed[@]} -eq 0 ]
