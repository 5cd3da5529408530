# Linux perf_event_open backend. Included from src/CMakeLists.txt on Linux only.
target_sources(kpc_objects PRIVATE
  backends/perf_event/core_type_events.cpp
  backends/perf_event/counter_probe.cpp
  backends/perf_event/cpu_info.cpp
  backends/perf_event/cpu_list.cpp
  backends/perf_event/event_group.cpp
  backends/perf_event/generic_map.cpp
  backends/perf_event/native_names.cpp
  backends/perf_event/perf_event_backend.cpp
  backends/perf_event/perf_errors.cpp
  backends/perf_event/process_counters.cpp
  backends/perf_event/user_read.cpp
  backends/perf_event/user_read_choice.cpp
)
target_compile_definitions(kpc_objects PRIVATE KPC_HAVE_PERF_EVENT)

# libpfm4 turns PMU event names (e.g. "INST_RETIRED:ANY_P") into perf_event encodings.
# Optional: without it only generic names and raw r<hex> codes are accepted.
if(NOT KPC_WITH_LIBPFM STREQUAL "OFF")
  find_path(KPC_PFM_INCLUDE_DIR perfmon/pfmlib_perf_event.h)
  find_library(KPC_PFM_LIBRARY pfm)
  if(KPC_PFM_INCLUDE_DIR AND KPC_PFM_LIBRARY)
    message(STATUS "libkpc: libpfm4 found, native Linux PMU event names enabled")
    target_include_directories(kpc_objects PRIVATE ${KPC_PFM_INCLUDE_DIR})
    target_link_libraries(kpc_objects PUBLIC ${KPC_PFM_LIBRARY})
    list(APPEND KPC_BACKEND_LIBS ${KPC_PFM_LIBRARY})
    target_compile_definitions(kpc_objects PRIVATE KPC_HAVE_LIBPFM)
    set(KPC_HAVE_LIBPFM ON CACHE INTERNAL "libkpc was built with libpfm4")
  elseif(KPC_WITH_LIBPFM STREQUAL "ON")
    message(FATAL_ERROR "KPC_WITH_LIBPFM=ON but libpfm4 was not found (apt-get install libpfm4-dev)")
  else()
    message(STATUS "libkpc: libpfm4 not found, native Linux PMU event names disabled")
    set(KPC_HAVE_LIBPFM OFF CACHE INTERNAL "libkpc was built with libpfm4")
  endif()
endif()
