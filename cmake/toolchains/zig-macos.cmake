# Cross-build libkpc for macOS on Linux with zig's clang (PyPI's `ziglang`), which carries
# the macOS libc headers and libSystem stubs. Used through zig-macos-arm64.cmake or
# zig-macos-x86_64.cmake, which set KPC_ZIG_TARGET; scripts/ci/macos-build.sh drives both.
#   cmake -S . -B build-macos-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/zig-macos-arm64.cmake \
#         -DKPC_ZIG=/path/to/zig
# KPC_ZIG (cache or environment) names the zig executable; without it, `zig` on PATH, then
# the one inside the `ziglang` package of python3. The result compiles and links for a Mac;
# nothing here can run it.
set(CMAKE_SYSTEM_NAME Darwin)
set(CMAKE_SYSTEM_PROCESSOR ${KPC_ZIG_ARCH})
# The oldest macOS the binaries load on: 11.0, the first on Apple Silicon. Building against
# it lets clang's availability warnings (errors with KPC_WERROR) catch newer API calls.
if(NOT KPC_MACOS_MIN)
  set(KPC_MACOS_MIN 11.0)
endif()
set(CMAKE_SYSTEM_VERSION 20.0)  # Darwin 20 = macOS 11

# try_compile() reads this file again in a fresh project: hand it the same zig.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES KPC_ZIG KPC_MACOS_MIN)

if(NOT KPC_ZIG AND DEFINED ENV{KPC_ZIG})
  set(KPC_ZIG "$ENV{KPC_ZIG}")
endif()
if(NOT KPC_ZIG)
  find_program(_kpc_zig_on_path zig)
  if(_kpc_zig_on_path)
    set(KPC_ZIG "${_kpc_zig_on_path}")
  else()
    execute_process(
      COMMAND python3 -c "import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), 'zig'))"
      OUTPUT_VARIABLE KPC_ZIG OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
endif()
if(NOT KPC_ZIG OR NOT EXISTS "${KPC_ZIG}")
  message(FATAL_ERROR "zig not found (KPC_ZIG='${KPC_ZIG}'): `pip install ziglang` into a virtual "
    "environment and pass -DKPC_ZIG=<venv>/lib/python3.X/site-packages/ziglang/zig, or run "
    "scripts/ci/macos-build.sh, which does both")
endif()
set(KPC_ZIG "${KPC_ZIG}" CACHE FILEPATH "the zig executable whose clang builds for macOS")

# `zig cc -target ...` as the compiler: CMake (3.19+) keeps the words after the first as
# mandatory arguments of every compile and link.
set(CMAKE_C_COMPILER "${KPC_ZIG}" cc -target ${KPC_ZIG_TARGET}.${KPC_MACOS_MIN})
set(CMAKE_CXX_COMPILER "${KPC_ZIG}" c++ -target ${KPC_ZIG_TARGET}.${KPC_MACOS_MIN})
find_program(CMAKE_AR NAMES llvm-ar llvm-ar-14 REQUIRED)
find_program(CMAKE_RANLIB NAMES llvm-ranlib llvm-ranlib-14 REQUIRED)
# CMake rewrites install names and rpaths at install time with install_name_tool.
find_program(CMAKE_INSTALL_NAME_TOOL NAMES llvm-install-name-tool llvm-install-name-tool-14 REQUIRED)

# CMake's Darwin platform file enables rpaths (@rpath install names, LC_RPATH) only after
# asking the host's sw_vers for a version; on Linux there is none. The platform files run
# after this one, so the rules override (read after them) turns rpaths on.
set(CMAKE_USER_MAKE_RULES_OVERRIDE ${CMAKE_CURRENT_LIST_DIR}/zig-macos-rules.cmake)

# No Xcode here: no SDK to look for, and nothing outside zig's own files to find.
set(CMAKE_OSX_SYSROOT "" CACHE PATH "" FORCE)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
