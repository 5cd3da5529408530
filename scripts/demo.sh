#!/usr/bin/env bash
# The main job from a fresh clone: install a C++ compiler and CMake if they are missing, build
# the library, the kpc tool and the simulated Apple frameworks (nothing else), then let kpc
# show what this machine can count and count a real workload. Also shows the Apple kperf
# backend running against the simulator, since this may be a Linux machine.
# Everything else (bindings, tests, sanitizers) is scripts/test.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

# python3 generates the kperf simulator's event tables from apple-events.csv.
scripts/install-deps.sh --demo

# Tests, bindings and benchmarks off: the simulators are built without them.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKPC_BUILD_TESTS=OFF \
  -DKPC_BUILD_BINDINGS=OFF -DKPC_BUILD_BENCH=OFF >/dev/null
cmake --build build -j"$(nproc)" --target kpc_cli kperf_sim kperfdata_sim
kpc=build/src/cli/kpc

echo
echo "== kpc info"
"$kpc" info
echo
echo "== kpc check: what this machine can count, each counter checked against a known workload"
# Exit 4 means nothing hardware could be counted here (a VM without a PMU): a finding, not
# a failure of the demo.
rc=0
"$kpc" check --quick || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; then
  echo "demo: kpc check failed (exit $rc)" >&2
  exit "$rc"
fi
echo
echo "== kpc stat: compress this build's libkpc.so three times"
"$kpc" stat -r 3 -- sh -c 'gzip -9 < build/src/libkpc.so.0 > /dev/null'

sim=$PWD/build/tests/kperf_sim
echo
echo "== the kperf backend (Apple) against the simulated M4 frameworks"
export KPC_BACKEND=kperf KPC_KPERF_PATH="$sim/libkperf_sim.so" \
  KPC_KPERFDATA_PATH="$sim/libkperfdata_sim.so" KPSIM_DB=as4
"$kpc" info
"$kpc" stat -e cycles,instructions,branches,branch-misses -- \
  sh -c 'gzip -9 < build/src/libkpc.so.0 > /dev/null'
echo
echo "demo: done in $(( $(date +%s) - start )) s"
