# Apple kperf backend (built on every platform: plain dlopen + function pointers, so it
# is tested on Linux against the simulator in tests/kperf_sim).
target_sources(kpc_objects PRIVATE
  backends/kperf/chip.cpp
  backends/kperf/frameworks.cpp
  backends/kperf/generic_map.cpp
  backends/kperf/kernel_state.cpp
  backends/kperf/kpc_program.cpp
  backends/kperf/kpep_layout.cpp
  backends/kperf/kperf_backend.cpp
  backends/kperf/kperf_errors.cpp
  backends/kperf/placement.cpp
  backends/kperf/split_process_counters.cpp
  backends/kperf/system_counters.cpp
  backends/kperf/thread_counters.cpp
)
