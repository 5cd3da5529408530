# Cross-build libkpc for 64-bit Arm Linux with Debian's g++-aarch64-linux-gnu:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# Tests then run through qemu-user (Debian's qemu-user), found by CTest as the emulator, or
# inside the emulated-PMU guest (scripts/ci/pmu-guest.sh).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Headers and libraries of the target come from the cross sysroot and from Debian's arm64
# multiarch packages (libgtest-dev:arm64 in /usr/lib/aarch64-linux-gnu); programs (cmake's
# helpers, python3) from the host.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# qemu-user runs the test programs; -L points its dynamic loader at the cross runtime.
find_program(KPC_QEMU_AARCH64 qemu-aarch64)
if(KPC_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${KPC_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
endif()
