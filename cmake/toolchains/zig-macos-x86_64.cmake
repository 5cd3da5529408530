# libkpc for Intel Macs, built on Linux with zig's clang (see zig-macos.cmake).
set(KPC_ZIG_ARCH x86_64)
set(KPC_ZIG_TARGET x86_64-macos)
include(${CMAKE_CURRENT_LIST_DIR}/zig-macos.cmake)
