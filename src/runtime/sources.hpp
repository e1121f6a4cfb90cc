// Internal side of kernel source resolution (src/runtime/sources.cpp); the public side is
// load_kernel_source in clforge/runtime.hpp.
#pragma once
#include <cstdint>
#include <string>

namespace clforge::detail {

/// Where a file under cl/ comes from and a hash of its content, resolved in the order of
/// load_kernel_source (CLFORGE_KERNEL_DIR, share dir, embedded) without reading a file that has
/// not changed: a file on disk is read and hashed again only when its modification time, size
/// or inode differ from the last time; an embedded file is hashed once. This is what a routine
/// call pays per file (one stat per disk origin); load_kernel_source (the text) is for builds.
struct SourceStamp {
  std::string origin;  ///< as KernelSource::origin
  std::uint64_t hash = 0;
};
SourceStamp kernel_source_stamp(const std::string& path);

/// user_tuning_dir() from the values of CLFORGE_USER_TUNING_DIR, XDG_DATA_HOME and HOME
/// (nullptr: unset), for callers that read the environment once for several purposes.
std::string user_tuning_dir_from(const char* own, const char* xdg_data_home, const char* home);

}  // namespace clforge::detail
