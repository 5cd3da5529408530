# What both Apple backends (kperf, recount) use: libSystem found with dlsym, the macOS
# version, the timebase and proc_pid_rusage's process totals (built on every platform,
# tested on Linux against tests/recount_sim).
target_sources(kpc_objects PRIVATE
  backends/apple/libsystem.cpp
  backends/apple/macos_version.cpp
  backends/apple/process_totals.cpp
)
