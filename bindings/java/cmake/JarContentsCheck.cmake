# Test step (cmake -P, CTest java_jar_contents): kpc.jar's native libraries are stripped and
# the jar carries the licences.
#   cmake -DJAR=<kpc.jar> -DREADELF=<readelf> -DUNSTRIPPED=<this build's libkpc>
#         -DWORK=<scratch directory> -P JarContentsCheck.cmake
cmake_minimum_required(VERSION 3.21)  # if(IN_LIST) in script mode
foreach(_var JAR READELF UNSTRIPPED WORK)
  if(NOT ${_var})
    message(FATAL_ERROR "JarContentsCheck.cmake: -D${_var}=... is missing")
  endif()
endforeach()

# sections(<file> <out-var>): the section names readelf lists for an ELF file.
function(sections file out)
  execute_process(COMMAND "${READELF}" -S -W "${file}" OUTPUT_VARIABLE _text RESULT_VARIABLE _rc)
  if(_rc)
    message(FATAL_ERROR "${READELF} -S ${file} failed (${_rc})")
  endif()
  # Lines look like "  [12] .text  PROGBITS ..."; drop the "] " before making a list of them
  # (an unmatched bracket in a list element would stop CMake splitting the list there).
  string(REGEX MATCHALL "\\] +\\.[A-Za-z0-9_.]+" _matches "${_text}")
  string(REGEX REPLACE "\\] +" "" _names "${_matches}")
  set(${out} ${_names} PARENT_SCOPE)
endfunction()

# What stripping removes must be there to begin with, or the check below proves nothing.
sections("${UNSTRIPPED}" _before)
if(NOT ".symtab" IN_LIST _before)
  message(FATAL_ERROR "${UNSTRIPPED} has no .symtab; cannot tell whether the jar's copy was stripped")
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${CMAKE_COMMAND}" -E tar xf "${JAR}" WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE _rc)
if(_rc)
  message(FATAL_ERROR "cannot unpack ${JAR}")
endif()

file(GLOB_RECURSE _libs "${WORK}/org/kpc/native/*.so*" "${WORK}/org/kpc/native/*.dylib")
list(LENGTH _libs _count)
if(_count LESS 2)
  message(FATAL_ERROR "${JAR} holds ${_count} native libraries under org/kpc/native; expected libkpc and the JNI library")
endif()
foreach(_lib IN LISTS _libs)
  sections("${_lib}" _names)
  set(_unstripped ${_names})
  list(FILTER _unstripped INCLUDE REGEX "^\\.(debug_|symtab$|zdebug)")
  if(_unstripped)
    message(FATAL_ERROR "${JAR}: ${_lib} is not stripped (sections: ${_unstripped})")
  endif()
  if(NOT ".dynsym" IN_LIST _names)
    message(FATAL_ERROR "${JAR}: ${_lib} lost its dynamic symbols (.dynsym)")
  endif()
endforeach()

foreach(_f LICENSE LICENSE-MIT LICENSE-APACHE)
  if(NOT EXISTS "${WORK}/META-INF/${_f}")
    message(FATAL_ERROR "${JAR} has no META-INF/${_f}")
  endif()
endforeach()
file(READ "${WORK}/META-INF/MANIFEST.MF" _manifest)
if(NOT _manifest MATCHES "Bundle-License: MIT OR Apache-2.0")
  message(FATAL_ERROR "${JAR}'s manifest has no 'Bundle-License: MIT OR Apache-2.0':\n${_manifest}")
endif()
message(STATUS "${JAR}: ${_count} stripped native libraries, licences in META-INF")
