# Apple recount backend: no root, the kernel's per-thread counts (built on every platform:
# dlsym + function pointers, tested on Linux against tests/recount_sim).
target_sources(kpc_objects PRIVATE
  backends/recount/recount_backend.cpp
  backends/recount/recount_events.cpp
  backends/recount/thread_counters.cpp
)
