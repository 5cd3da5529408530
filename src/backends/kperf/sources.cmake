# Apple kperf backend (built on every platform: plain dlopen + function pointers).
target_sources(kpc_objects PRIVATE
  backends/kperf/kperf_backend_stub.cpp
)
