# Install rules and package metadata for libkpc: the library (libkpc.so.N or, with
# BUILD_SHARED_LIBS=OFF, libkpc.a) and headers, the exported CMake package
# (find_package(kpc) -> kpc::kpc), kpc.pc for pkg-config, and the licence texts.
# Included from the top-level CMakeLists.txt (when KPC_INSTALL) after every target is defined.
include(CMakePackageConfigHelpers)

set(KPC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/kpc" CACHE STRING
    "Where the CMake package files (kpcConfig.cmake, ...) are installed, relative to the prefix")

# The namelink (libkpc.so) is only needed to build against the library, so it goes with
# the headers; the versioned libkpc.so.0* files are what programs need at run time.
install(TARGETS kpc EXPORT kpcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Runtime NAMELINK_COMPONENT Development
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/kpc
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT Development
  FILES_MATCHING PATTERN "*.h"
  PATTERN "*.hpp")  # kpc/benchmark.hpp: the header-only Google Benchmark integration

install(EXPORT kpcTargets
  NAMESPACE kpc::
  FILE kpcTargets.cmake
  DESTINATION ${KPC_INSTALL_CMAKEDIR}
  COMPONENT Development)

# Binary packages carry the licence notice with them (MIT requires it).
install(FILES
  ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/LICENSE-MIT ${PROJECT_SOURCE_DIR}/LICENSE-APACHE
  DESTINATION ${CMAKE_INSTALL_DOCDIR}
  COMPONENT Runtime)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/kpcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/kpcConfig.cmake
  INSTALL_DESTINATION ${KPC_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/kpcConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/kpcConfig.cmake
  ${PROJECT_BINARY_DIR}/kpcConfigVersion.cmake
  DESTINATION ${KPC_INSTALL_CMAKEDIR}
  COMPONENT Development)

# --- pkg-config -------------------------------------------------------------------------
# Libs.private: what a static link of libkpc adds (`pkg-config --static`): the C++ runtime,
# because C, cgo and Swift consumers link with a C driver; threads; dl; libpfm4 when used.
set(KPC_PC_LIBS_PRIVATE "")
foreach(_lib IN LISTS KPC_CXX_RUNTIME)  # from src/CMakeLists.txt
  list(APPEND KPC_PC_LIBS_PRIVATE "-l${_lib}")
endforeach()
if(CMAKE_THREAD_LIBS_INIT)
  list(APPEND KPC_PC_LIBS_PRIVATE ${CMAKE_THREAD_LIBS_INIT})
endif()
foreach(_lib IN LISTS CMAKE_DL_LIBS)
  list(APPEND KPC_PC_LIBS_PRIVATE "-l${_lib}")
endforeach()
if(KPC_HAVE_LIBPFM AND KPC_PFM_LIBRARY)
  get_filename_component(_pfm_name "${KPC_PFM_LIBRARY}" NAME_WE)
  string(REGEX REPLACE "^lib" "" _pfm_name "${_pfm_name}")
  list(APPEND KPC_PC_LIBS_PRIVATE "-l${_pfm_name}")
endif()
list(JOIN KPC_PC_LIBS_PRIVATE " " KPC_PC_LIBS_PRIVATE)
# Only libkpc.a is installed in a static build, so its consumers always need KP_STATIC.
set(KPC_PC_CFLAGS_EXTRA "")
if(KPC_STATIC)
  set(KPC_PC_CFLAGS_EXTRA " -DKP_STATIC")
endif()

# kpc.pc holds absolute directories (CMAKE_INSTALL_FULL_LIBDIR/INCLUDEDIR) because
# CMAKE_INSTALL_LIBDIR may itself be absolute. They are computed when installing, from the
# prefix actually used, so `cmake --install build --prefix /somewhere` gets a correct .pc.
set(KPC_PC_STAGED "${PROJECT_BINARY_DIR}/pkgconfig/kpc.pc")
install(CODE "
  set(KPC_PC_TEMPLATE [[${PROJECT_SOURCE_DIR}/pkgconfig/kpc.pc.in]])
  set(KPC_PC_OUTPUT [[${KPC_PC_STAGED}]])
  set(KPC_PC_LIBDIR [[${CMAKE_INSTALL_LIBDIR}]])
  set(KPC_PC_INCLUDEDIR [[${CMAKE_INSTALL_INCLUDEDIR}]])
  set(PROJECT_DESCRIPTION [[${PROJECT_DESCRIPTION}]])
  set(PROJECT_VERSION [[${PROJECT_VERSION}]])
  set(KPC_PC_LIBS_PRIVATE [[${KPC_PC_LIBS_PRIVATE}]])
  set(KPC_PC_CFLAGS_EXTRA [[${KPC_PC_CFLAGS_EXTRA}]])
  include([[${CMAKE_CURRENT_LIST_DIR}/WritePkgConfig.cmake]])
  " COMPONENT Development)
install(FILES ${KPC_PC_STAGED}
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT Development)
