# Build step (cmake -P): makes kpc.jar from the class-only jar plus the native libraries of
# the platform being built, so the jar loads without -Djava.library.path (see
# src/org/kpc/NativeLoader.java). The jar gets, for each PLATFORM:
#   org/kpc/native/<platform>/<KPC_NAME>       libkpc's shared library under its SONAME
#   org/kpc/native/<platform>/<JNI_NAME>       the JNI library, RUNPATH rewritten to $ORIGIN
#   org/kpc/native/<platform>/libraries.txt    the two names in load order (libkpc first)
#   org/kpc/native/platforms.txt               the platforms, one per line
#
#   cmake -DCLASSES_JAR=<kpc-classes.jar> -DOUTPUT=<kpc.jar> -DJAR=<jar tool>
#         -DSTAGE=<scratch directory> -DPLATFORMS=<p1[,p2...]>
#         -DKPC_LIB=<libkpc file> -DKPC_NAME=<its SONAME file name>
#         -DJNI_LIB=<JNI library file> -DJNI_NAME=<its file name>
#         -P BundleNatives.cmake
foreach(_var CLASSES_JAR OUTPUT JAR STAGE PLATFORMS KPC_LIB KPC_NAME JNI_LIB JNI_NAME)
  if(NOT ${_var})
    message(FATAL_ERROR "BundleNatives.cmake: -D${_var}=... is missing")
  endif()
endforeach()
string(REPLACE "," ";" PLATFORMS "${PLATFORMS}")

# Start from an empty stage so a renamed library (new SONAME) never lingers in the jar.
file(REMOVE_RECURSE "${STAGE}")
set(_platform_list "")
foreach(_platform IN LISTS PLATFORMS)
  set(_dir "${STAGE}/org/kpc/native/${_platform}")
  file(MAKE_DIRECTORY "${_dir}")
  # The real files (cmake -E copy follows the SONAME symlink).
  execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${KPC_LIB}" "${_dir}/${KPC_NAME}"
    RESULT_VARIABLE _rc)
  if(_rc)
    message(FATAL_ERROR "BundleNatives.cmake: cannot copy ${KPC_LIB}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${JNI_LIB}" "${_dir}/${JNI_NAME}"
    RESULT_VARIABLE _rc)
  if(_rc)
    message(FATAL_ERROR "BundleNatives.cmake: cannot copy ${JNI_LIB}")
  endif()
  # The build tree's JNI library has a RUNPATH into this build directory; the jar's copy gets
  # $ORIGIN, like the installed one (ELF only; the loader loads libkpc first anyway, so this
  # is hygiene, not a requirement). CMake's install scripts use the same file() commands.
  if(NOT CMAKE_VERSION VERSION_LESS 3.21)
    file(READ_ELF "${_dir}/${JNI_NAME}" RPATH _rpath RUNPATH _runpath CAPTURE_ERROR _not_elf)
    if(NOT _not_elf AND (_rpath OR _runpath))
      file(RPATH_SET FILE "${_dir}/${JNI_NAME}" NEW_RPATH "$ORIGIN")
    endif()
  endif()
  file(WRITE "${_dir}/libraries.txt"
    "# Loaded in this order by org.kpc.NativeLoader: libkpc, then the JNI library.\n"
    "${KPC_NAME}\n${JNI_NAME}\n")
  string(APPEND _platform_list "${_platform}\n")
endforeach()
file(WRITE "${STAGE}/org/kpc/native/platforms.txt" "${_platform_list}")

# Write next to the output and rename, so an interrupted step never leaves a half jar.
execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${CLASSES_JAR}" "${OUTPUT}.tmp"
  RESULT_VARIABLE _rc)
if(_rc)
  message(FATAL_ERROR "BundleNatives.cmake: cannot copy ${CLASSES_JAR}")
endif()
execute_process(COMMAND "${JAR}" uf "${OUTPUT}.tmp" -C "${STAGE}" org/kpc/native
  RESULT_VARIABLE _rc)
if(_rc)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "BundleNatives.cmake: '${JAR} uf' failed (${_rc})")
endif()
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
