# CTest driver of kperf.counter_copy_aarch64 (tests/kperf/CMakeLists.txt), run with cmake -P:
# cross-compiles src/backends/kperf/counter_copy.cpp and counter_copy_aarch64_check.cpp for
# AArch64 and runs the result under qemu-aarch64 (user-mode emulation), so the NEON copy is
# executed for real on an x86-64 machine. Exits non-zero (FATAL_ERROR) when a tool is
# missing, the compilation fails, or the check reports a failure.
#
#   cmake -DCXX=<aarch64-linux-gnu-g++> -DQEMU=<qemu-aarch64> -DSYSROOT=/usr/aarch64-linux-gnu
#         -DSOURCE_DIR=<repo> -DBINARY_DIR=<dir> [-DWERROR=ON] -P counter_copy_aarch64.cmake
cmake_minimum_required(VERSION 3.16)

set(_install "On Debian/Ubuntu: apt-get install g++-aarch64-linux-gnu qemu-user, then re-run cmake.")
if(NOT CXX OR NOT EXISTS "${CXX}")
  message(FATAL_ERROR "kperf.counter_copy_aarch64: no AArch64 cross compiler "
                      "(aarch64-linux-gnu-g++) found. ${_install}")
endif()
if(NOT QEMU OR NOT EXISTS "${QEMU}")
  message(FATAL_ERROR "kperf.counter_copy_aarch64: qemu-aarch64 (user-mode emulation) not "
                      "found. ${_install}")
endif()
if(NOT IS_DIRECTORY "${SYSROOT}/lib")
  message(FATAL_ERROR "kperf.counter_copy_aarch64: no AArch64 libraries in ${SYSROOT}/lib "
                      "(qemu-aarch64 -L needs them). ${_install}")
endif()

set(_exe "${BINARY_DIR}/counter_copy_aarch64_check")
# The flags the library is built with in RelWithDebInfo (-O2), without -g.
set(_flags -std=gnu++17 -O2 -DNDEBUG -fPIC -Wall -Wextra)
if(WERROR)
  list(APPEND _flags -Werror)
endif()
file(MAKE_DIRECTORY "${BINARY_DIR}")
execute_process(
  COMMAND "${CXX}" ${_flags} -I "${SOURCE_DIR}/src" -I "${SOURCE_DIR}/include"
          "${SOURCE_DIR}/tests/kperf/counter_copy_aarch64_check.cpp"
          "${SOURCE_DIR}/src/backends/kperf/counter_copy.cpp"
          -o "${_exe}"
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "kperf.counter_copy_aarch64: cross-compiling with ${CXX} failed "
                      "(${_rc}):\n${_out}")
endif()
if(_out)
  message("${_out}")  # warnings, if any (fatal with WERROR)
endif()

execute_process(COMMAND "${QEMU}" -L "${SYSROOT}" "${_exe}"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
message("${_out}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "kperf.counter_copy_aarch64: the check failed under ${QEMU} "
                      "(exit status ${_rc}; output above)")
endif()
