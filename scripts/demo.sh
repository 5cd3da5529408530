#!/usr/bin/env bash
# The main job from a fresh clone: install what is missing, build everything, then let the
# kpc tool count a real workload. Also shows the Apple kperf backend running against the
# simulator, since this may be a Linux machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
kpc=build/src/cli/kpc

echo
echo "== kpc info"
"$kpc" info
echo
echo "== kpc stat: compress this build's libkpc.so three times"
"$kpc" stat -r 3 -- sh -c 'gzip -9 < build/src/libkpc.so.0 > /dev/null'

sim=$PWD/build/tests/kperf_sim
if [ -f "$sim/libkperf_sim.so" ]; then
  echo
  echo "== the kperf backend (Apple) against the simulated M4 frameworks"
  export KPC_BACKEND=kperf KPC_KPERF_PATH="$sim/libkperf_sim.so" \
    KPC_KPERFDATA_PATH="$sim/libkperfdata_sim.so" KPSIM_DB=as4
  "$kpc" info
  "$kpc" stat -e cycles,instructions,branches,branch-misses -- \
    sh -c 'gzip -9 < build/src/libkpc.so.0 > /dev/null'
fi
