# pkg-config files for clforge, both from cmake/clforge.pc.in (included by the top-level
# CMakeLists.txt when it generates the install target):
#   installed: <libdir>/pkgconfig/clforge.pc (installed with the package, CMakeLists.txt), every
#              path derived from ${pcfiledir}, so the installed tree works under any prefix
#              (cmake --install --prefix, DESTDIR, moved);
#   build tree: <build>/clforge.pc (<build>/pkgconfig/<config>/ for multi-config generators),
#              for use before install: the library in the build tree, headers from the source
#              and binary include dirs, kernels from cl/ (PKG_CONFIG_PATH=<build>).
# No compile definitions: the public headers set the OpenCL versions they need themselves.

# Libraries a static libclforge needs besides OpenCL (pkg-config --static).
set(CLFORGE_PC_LIBS_PRIVATE "${CMAKE_THREAD_LIBS_INIT}")
foreach(_lib IN LISTS CMAKE_DL_LIBS)
  string(APPEND CLFORGE_PC_LIBS_PRIVATE " -l${_lib}")
endforeach()
string(STRIP "${CLFORGE_PC_LIBS_PRIVATE}" CLFORGE_PC_LIBS_PRIVATE)

# ---- installed ----
# prefix is as many levels above ${pcfiledir} as <libdir>/pkgconfig is deep (lib: ../..,
# lib/x86_64-linux-gnu: ../../..). An absolute CMAKE_INSTALL_LIBDIR ties the file to the
# configured prefix; absolute include and data dirs are used as they are.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(CLFORGE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(CLFORGE_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
  message(STATUS "clforge: CMAKE_INSTALL_LIBDIR is absolute, clforge.pc is not relocatable")
else()
  file(RELATIVE_PATH _up "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" _up "${_up}")
  set(CLFORGE_PC_PREFIX "\${pcfiledir}/${_up}")
  set(CLFORGE_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
foreach(_kind INCLUDEDIR DATADIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_kind}}")
    set(CLFORGE_PC_${_kind} "${CMAKE_INSTALL_${_kind}}")
  else()
    set(CLFORGE_PC_${_kind} "\${prefix}/${CMAKE_INSTALL_${_kind}}")
  endif()
endforeach()
set(CLFORGE_PC_DATADIR "${CLFORGE_PC_DATADIR}/clforge")
set(CLFORGE_PC_CFLAGS "-I\${includedir}")
configure_file(cmake/clforge.pc.in "${PROJECT_BINARY_DIR}/generated/install/clforge.pc" @ONLY)

# ---- build tree ----
set(CLFORGE_PC_PREFIX "${PROJECT_BINARY_DIR}")
set(CLFORGE_PC_LIBDIR "$<TARGET_FILE_DIR:clforge>")
set(CLFORGE_PC_INCLUDEDIR "${PROJECT_SOURCE_DIR}/include")
set(CLFORGE_PC_DATADIR "${PROJECT_SOURCE_DIR}/cl")
set(CLFORGE_PC_CFLAGS "-I\${includedir} -I${PROJECT_BINARY_DIR}/include")
configure_file(cmake/clforge.pc.in "${PROJECT_BINARY_DIR}/generated/build-tree/clforge.pc.in" @ONLY)
get_property(_multi GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
if(_multi)
  set(_pc_out "${PROJECT_BINARY_DIR}/pkgconfig/$<CONFIG>/clforge.pc")
else()
  set(_pc_out "${PROJECT_BINARY_DIR}/clforge.pc")
endif()
file(GENERATE OUTPUT "${_pc_out}" INPUT "${PROJECT_BINARY_DIR}/generated/build-tree/clforge.pc.in")
