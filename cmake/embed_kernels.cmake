# Turns every .cl and .json file under a folder into one generated C++ source: a table of
# {relative path, bytes} returned by one function. Run as a script:
#   cmake -DSRC_DIR=.. -DOUT=.. [-DPREFIX=bench/] [-DFUNCTION=bench_embedded_files] -P embed_kernels.cmake
# PREFIX goes before every relative path (default none); FUNCTION names the table's function in
# clforge::detail (default embedded_files, the library's copy of cl/).
if(NOT DEFINED FUNCTION)
  set(FUNCTION embedded_files)
endif()
if(NOT DEFINED PREFIX)
  set(PREFIX "")
endif()
file(GLOB_RECURSE files RELATIVE "${SRC_DIR}" "${SRC_DIR}/*.cl" "${SRC_DIR}/*.json")
list(SORT files)
get_filename_component(_src_name "${SRC_DIR}" NAME)
set(body "// Generated from ${_src_name}/ by cmake/embed_kernels.cmake. Do not edit.\n#include \"runtime/embedded.hpp\"\nnamespace clforge::detail {\nnamespace {\n")
set(table "")
set(i 0)
foreach(f IN LISTS files)
  file(READ "${SRC_DIR}/${f}" hex HEX)
  string(LENGTH "${hex}" hexlen)
  math(EXPR nbytes "${hexlen} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," arr "${hex}")
  # wrap lines every 32 bytes to keep the generated file readable by compilers and people
  string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){32})" "\\1\n" arr "${arr}")
  string(APPEND body "const unsigned char k_file_${i}[] = {\n${arr}0x00};\n")
  string(APPEND table "  {\"${PREFIX}${f}\", reinterpret_cast<const char*>(k_file_${i}), ${nbytes}},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "const EmbeddedFile k_files[] = {\n${table}};\n}  // namespace\n")
string(APPEND body "const EmbeddedFile* ${FUNCTION}(std::size_t* count) {\n  *count = sizeof(k_files) / sizeof(k_files[0]);\n  return k_files;\n}\n}  // namespace clforge::detail\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
