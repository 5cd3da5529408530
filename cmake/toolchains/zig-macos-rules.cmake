# Read by CMake after its Darwin platform files (CMAKE_USER_MAKE_RULES_OVERRIDE, set in
# zig-macos.cmake): what those files would have set on a Mac, where sw_vers answers.
set(CMAKE_SHARED_LIBRARY_RUNTIME_C_FLAG "-Wl,-rpath,")
set(CMAKE_SHARED_LIBRARY_RUNTIME_CXX_FLAG "-Wl,-rpath,")
