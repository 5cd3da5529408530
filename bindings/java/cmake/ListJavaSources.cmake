# Build step (cmake -P): writes the list of the .java files SWIG generated into DIR, one
# quoted path per line, to OUTPUT, for javac's @argfile. SWIG decides which files it writes
# (one per wrapped type), so the list is only known after it ran.
#   cmake -DDIR=<swig java output dir> -DOUTPUT=<list file> -P ListJavaSources.cmake
if(NOT DIR OR NOT OUTPUT)
  message(FATAL_ERROR "usage: cmake -DDIR=<dir> -DOUTPUT=<file> -P ListJavaSources.cmake")
endif()
file(GLOB _sources "${DIR}/*.java")
if(NOT _sources)
  message(FATAL_ERROR "no .java files in ${DIR}: did SWIG run?")
endif()
list(SORT _sources)
set(_text "")
foreach(_f IN LISTS _sources)
  string(APPEND _text "\"${_f}\"\n")
endforeach()
file(WRITE "${OUTPUT}" "${_text}")
