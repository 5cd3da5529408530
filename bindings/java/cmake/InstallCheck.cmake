# CTest java_install (cmake -P): installs the Runtime and Java components of a build into a
# fresh PREFIX and checks that the installed binding works:
#  1. examples/Quickstart.java with the installed kpc.jar as the only library: no
#     -Djava.library.path, the jar's own native libraries are loaded;
#  2. NativeLoadingTest against the installed kpc.jar: loaded from the jar;
#  3. NativeLoadingTest with -Dorg.kpc.library.path=<prefix>/<libdir>: the installed
#     libkpc_java.so finds the installed libkpc.so.N through its RPATH ($ORIGIN).
#   cmake -DBUILD_DIR=... -DPREFIX=... -DLIBDIR=... -DDATADIR=... [-DCONFIG=...] -DJAVA=...
#         -DEXAMPLE_JAR=... -DTESTS_JAR=... -DJUNIT_JAR=... -P InstallCheck.cmake
foreach(_var BUILD_DIR PREFIX LIBDIR DATADIR JAVA EXAMPLE_JAR TESTS_JAR JUNIT_JAR)
  if(NOT ${_var})
    message(FATAL_ERROR "InstallCheck.cmake: -D${_var}=... is missing")
  endif()
endforeach()

file(REMOVE_RECURSE "${PREFIX}")
set(_config "")
if(CONFIG)
  set(_config --config "${CONFIG}")
endif()
foreach(_component Runtime Java)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" ${_config}
            --component ${_component}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(_rc)
    message(FATAL_ERROR "cmake --install --component ${_component} failed (${_rc}):\n${_out}")
  endif()
  message(STATUS "installed component ${_component}:\n${_out}")
endforeach()

if(IS_ABSOLUTE "${LIBDIR}")
  set(_libdir "${LIBDIR}")
else()
  set(_libdir "${PREFIX}/${LIBDIR}")
endif()
if(IS_ABSOLUTE "${DATADIR}")
  set(_jar "${DATADIR}/java/kpc.jar")
else()
  set(_jar "${PREFIX}/${DATADIR}/java/kpc.jar")
endif()
if(NOT EXISTS "${_jar}")
  message(FATAL_ERROR "the installed kpc.jar is not at ${_jar}")
endif()

# Runs java with ARGN; fails unless it exits 0 and its output matches EXPECT.
function(run_java what expect)
  execute_process(COMMAND "${JAVA}" -ea -Xcheck:jni ${ARGN}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  message(STATUS "${what}: exit ${_rc}\n${_out}")
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${what}: java exited with ${_rc}")
  endif()
  if(NOT _out MATCHES "${expect}")
    message(FATAL_ERROR "${what}: the output does not match '${expect}'")
  endif()
endfunction()

run_java("Quickstart with the installed kpc.jar only" "task-clock +[0-9]+"
  -cp "${_jar}:${EXAMPLE_JAR}" Quickstart)
run_java("NativeLoadingTest, installed kpc.jar" "[1-9][0-9]* passed, 0 failed, 0 skipped"
  -Dkpc.test.expectLoad=JAR
  -cp "${_jar}:${TESTS_JAR}:${JUNIT_JAR}" org.kpc.tests.CtestRunner org.kpc.NativeLoadingTest)
run_java("NativeLoadingTest, -Dorg.kpc.library.path=${_libdir}" "[1-9][0-9]* passed, 0 failed, 0 skipped"
  -Dorg.kpc.library.path=${_libdir}
  -Dkpc.test.expectLoad=PROPERTY -Dkpc.test.expectDir=${_libdir} -Dkpc.test.expectKpcDir=${_libdir}
  -cp "${_jar}:${TESTS_JAR}:${JUNIT_JAR}" org.kpc.tests.CtestRunner org.kpc.NativeLoadingTest)
message(STATUS "the installed Java binding works from ${PREFIX}")
