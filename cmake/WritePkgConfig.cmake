# Runs at install time (from cmake/Packaging.cmake's install(CODE)): writes kpc.pc for the
# prefix being installed to. GNUInstallDirs computes the FULL directories the same way:
# an absolute directory stays as it is, a relative one is placed under the prefix.
foreach(_kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${KPC_PC_${_kind}}")
    set(CMAKE_INSTALL_FULL_${_kind} "${KPC_PC_${_kind}}")
  else()
    set(CMAKE_INSTALL_FULL_${_kind} "${CMAKE_INSTALL_PREFIX}/${KPC_PC_${_kind}}")
  endif()
endforeach()
configure_file("${KPC_PC_TEMPLATE}" "${KPC_PC_OUTPUT}" @ONLY)
