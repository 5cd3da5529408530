# Optional parts of the build (the tests, each language binding): a part whose tools are
# missing never breaks the configure of the library.
#
#   KPC_BUILD_<PART>=AUTO (default)  built when its tools are found; otherwise one status line
#                                    says what is missing and the rest is built
#   KPC_BUILD_<PART>=ON              required: a missing tool stops the configure
#   KPC_BUILD_<PART>=OFF             not built
#
# scripts/test.sh asks for every part with ON, so CI cannot pass while a part is missing.

# Declares the cache variable <var> (AUTO, ON or OFF).
function(kpc_optional_part var default doc)
  set(${var} ${default} CACHE STRING "${doc} (AUTO: when its tools are found; ON: required; OFF)")
  set_property(CACHE ${var} PROPERTY STRINGS AUTO ON OFF)
endfunction()

# Sets <out> to TRUE when the part <var> is switched off (OFF, FALSE, 0, ...).
function(kpc_part_off var out)
  string(TOUPPER "${${var}}" _value)
  if(_value STREQUAL "AUTO" OR ${var})
    set(${out} FALSE PARENT_SCOPE)
  else()
    set(${out} TRUE PARENT_SCOPE)
  endif()
endfunction()

# Reports that the part <var>, described as <what>, lacks <missing>; <hint> says how to
# install it. Stops the configure when the part was asked for with ON. The caller returns.
function(kpc_part_missing var what missing hint)
  string(TOUPPER "${${var}}" _value)
  if(NOT _value STREQUAL "AUTO")
    message(FATAL_ERROR "${what}: not found: ${missing}. ${hint} "
                        "(or configure with -D${var}=OFF)")
  endif()
  message(STATUS "libkpc: ${what} not built: ${missing} not found. ${hint} "
                 "(-D${var}=ON makes this an error, -D${var}=OFF silences it)")
endfunction()
