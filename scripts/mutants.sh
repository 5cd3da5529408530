#!/usr/bin/env bash
# Proof that the tests catch the bugs users fear (issue 20, "Proof: mutants"): each mutant
# below puts one such bug into libkpc, rebuilds only the test that should catch it and runs
# only that test, which must fail. Runs on Linux with software events and the kperf
# simulator, no PMU needed; the mutants about hardware counts belong to the emulated-PMU stage.
#
# Everything happens in a git worktree of HEAD outside this checkout (KPC_MUTANT_DIR, default
# a fresh /tmp/kpc-mutants.XXXXXX, removed at the end): the checkout and its build
# directories are never touched. Each mutant is applied to the worktree, built, run and
# reverted before the next. The unmutated build must pass every killing test first, or a
# "killed" would prove nothing.
#
# usage: scripts/mutants.sh [NAME...]    (default: every mutant; names as listed by -l)
#        scripts/mutants.sh -l           list the mutants
# Prints one line per mutant and ends with "mutants: N killed, N survived"; exits 1 if any
# survived or could not be built.
set -euo pipefail

repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
jobs=${KPC_MUTANT_JOBS:-2}

# name | file | old text | new text | build target | test binary (under build/) | gtest filter | env
# The old text must occur exactly once in the file.
mutants=(
"child_counted_twice|src/backends/perf_event/process_counters.cpp|            c.value += buf[0];|            c.value += 2 * buf[0];|process_test|tests/process/process_test|Spawn.CountsChildProcesses|KPC_BACKEND=perf_event"
"thread_dropped|src/backends/perf_event/process_counters.cpp|    a.inherit = 1;|    a.inherit = 0;|process_test|tests/process/process_test|Spawn.CountsEveryThread|KPC_BACKEND=perf_event"
"apple_counters_swapped|src/backends/kperf/kpc_program.cpp|        prog.classes = classes;|        if (n >= 2) std::swap(map[0], map[1]);\n        prog.classes = classes;|kperf_backend_test|tests/kperf/kperf_backend_test|Placement.AnyOrderOfAFeasibleSetIsPlaced|KPC_BACKEND=kperf"
"apple_slot_map_ignores_retry_order|src/backends/kperf/kpc_program.cpp|            prog.index[order[pos]] = static_cast<uint32_t>(map[pos]);|            prog.index[pos] = static_cast<uint32_t>(map[pos]);|kperf_backend_test|tests/kperf/kperf_backend_test|Placement.KpepRefusingOneOrderIsRetriedInAnother|KPC_BACKEND=kperf"
"apple_system_wide_slots_swapped|src/backends/kperf/kpc_program.cpp|        prog.classes = classes;|        if (n >= 4) std::swap(map[2], map[3]);\n        prog.classes = classes;|kperf_process_test|tests/process/kperf_process_test|KperfProcess.SystemWideCountsKeepEachEventInItsPlace|KPC_BACKEND=kperf"
"force_all_not_restored|src/backends/kperf/kernel_state.cpp|    if (api.kpc_force_all_ctrs_set(saved_force_) == 0) return;\n    int err = errno;|    return;\n    int err = errno;|kperf_process_test|tests/process/kperf_process_test|KperfProcess.SystemWideCountsEveryCounterOnEveryCpu|KPC_BACKEND=kperf"
"read_returns_previous_sample|src/backends/perf_event/event_group.cpp|    if (int rc = fill(); rc != KP_OK) return rc;\n    for (size_t i = 0; i < n_; ++i) values[i] = buf_[3 + i];|    for (size_t i = 0; i < n_; ++i) values[i] = buf_[3 + i];\n    if (int rc = fill(); rc != KP_OK) return rc;|perf_event_kernel_test|tests/perf_event/perf_event_kernel_test|KernelTest.TouchingFreshPagesRaisesPageFaultsByAtLeastN|KPC_BACKEND=perf_event"
)

field() { local IFS='|'; local -a f; read -r -a f <<<"$1"; printf '%s' "${f[$2]}"; }

if [[ "${1:-}" == "-l" ]]; then
  for m in "${mutants[@]}"; do printf '%-36s %s -> %s\n' "$(field "$m" 0)" "$(field "$m" 1)" "$(field "$m" 6)"; done
  exit 0
fi
selected=("$@")
chosen=()
for m in "${mutants[@]}"; do
  name=$(field "$m" 0)
  if ((${#selected[@]} == 0)) || [[ " ${selected[*]} " == *" $name "* ]]; then chosen+=("$m"); fi
done
((${#chosen[@]} > 0)) || { echo "mutants.sh: no mutant named ${selected[*]} (see -l)" >&2; exit 2; }

work=${KPC_MUTANT_DIR:-$(mktemp -d /tmp/kpc-mutants.XXXXXX)}
rmdir "$work" 2>/dev/null || true
cleanup() { git -C "$repo" worktree remove --force "$work" >/dev/null 2>&1 || rm -rf "$work"; }
trap cleanup EXIT
git -C "$repo" worktree add --detach "$work" HEAD >/dev/null
start=$(date +%s)

# Replaces the one occurrence of OLD by NEW in FILE (\n in either means a newline).
mutate() {
  python3 - "$work/$1" "$2" "$3" <<'EOF'
import sys
path, old, new = sys.argv[1], sys.argv[2].replace("\\n", "\n"), sys.argv[3].replace("\\n", "\n")
text = open(path).read()
if text.count(old) != 1:
    sys.exit("mutants.sh: %s: the text to mutate occurs %d times (the source moved on; update the mutant)"
             % (path, text.count(old)))
open(path, "w").write(text.replace(old, new))
EOF
}

targets=()
for m in "${chosen[@]}"; do targets+=("$(field "$m" 4)"); done
mapfile -t targets < <(printf '%s\n' "${targets[@]}" | sort -u)

echo "mutants: configuring and building ${targets[*]} unmutated in $work/build"
cmake -S "$work" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKPC_BUILD_TESTS=ON \
  -DKPC_BUILD_BINDINGS=OFF -DKPC_BUILD_BENCH=OFF -DKPC_BUILD_CLI=OFF >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "mutants.sh: configure failed" >&2; exit 1; }
cmake --build "$work/build" -j"$jobs" --target "${targets[@]}" >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; echo "mutants.sh: the unmutated build failed" >&2; exit 1; }

run_test() {  # entry -> the test's output in $work/test.log; returns its status
  local env_assign
  env_assign=$(field "$1" 7)
  (cd "$work/build" && env "$env_assign" "$work/build/$(field "$1" 5)" --gtest_filter="$(field "$1" 6)" \
     >"$work/test.log" 2>&1)
}

for m in "${chosen[@]}"; do
  if ! run_test "$m"; then
    tail -20 "$work/test.log"
    echo "mutants.sh: $(field "$m" 6) fails without any mutant; fix it first" >&2
    exit 1
  fi
done

killed=0 survived=0
for m in "${chosen[@]}"; do
  name=$(field "$m" 0) file=$(field "$m" 1)
  mutate "$file" "$(field "$m" 2)" "$(field "$m" 3)"
  if ! cmake --build "$work/build" -j"$jobs" --target "$(field "$m" 4)" >"$work/build.log" 2>&1; then
    tail -20 "$work/build.log"
    echo "mutant $name: does not build" >&2
    survived=$((survived + 1))
  elif run_test "$m"; then
    echo "mutant $name: SURVIVED $(field "$m" 6)"
    survived=$((survived + 1))
  else
    # The first assertion that failed, as the test printed it.
    why=$(grep -m1 -A3 -E 'Failure$' "$work/test.log" | tail -n +2 | tr -s ' \n' ' ' | cut -c1-220)
    echo "mutant $name: killed by $(field "$m" 6): $why"
    killed=$((killed + 1))
  fi
  git -C "$work" checkout -q -- "$file"
done
# The last mutant's objects are stale now; nothing else uses this build.
echo "mutants: $killed killed, $survived survived ($(($(date +%s) - start)) s)"
((survived == 0))
