# Binary packages of the install tree (included by the top-level CMakeLists.txt with the install
# target): `cpack` in the build folder writes clforge_<version>_<arch>.deb and
# clforge-<version>-Linux.tar.gz holding what `cmake --install` installs (library, MPI component,
# headers, kernels, the clforge command line, CMake and pkg-config files) under /usr (deb) or
# the archive's top folder (tar.gz). Set CPACK_PACKAGE_CONTACT to the packager's name and mail.
set(CPACK_PACKAGE_NAME clforge)
set(CPACK_PACKAGE_VENDOR clforge)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Portable OpenCL compute library (SGEMM, FFT, transpose, Gaussian blur) with runtime-tuned kernels")
if(NOT CPACK_PACKAGE_CONTACT)
  set(CPACK_PACKAGE_CONTACT "clforge maintainers <maintainers@clforge.invalid>")
endif()
if(NOT CPACK_GENERATOR)
  set(CPACK_GENERATOR DEB TGZ)
endif()
# The static package component stays out (EXCLUDE_FROM_ALL); only the default install goes in.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
# Run-time dependencies from the binaries' NEEDED entries (dpkg-shlibdeps, in dpkg-dev); what
# building against the package needs besides: the OpenCL C and C++ headers and the ICD loader's
# libOpenCL.so that clforge's CMake and pkg-config files name.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "ocl-icd-opencl-dev | opencl-dev, opencl-c-headers, opencl-clhpp-headers")
if(CLFORGE_HAVE_MPI)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libopenmpi-dev | mpi-default-dev")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd")
include(CPack)
