# libkpc for Apple Silicon Macs, built on Linux with zig's clang (see zig-macos.cmake).
set(KPC_ZIG_ARCH arm64)
set(KPC_ZIG_TARGET aarch64-macos)
include(${CMAKE_CURRENT_LIST_DIR}/zig-macos.cmake)
