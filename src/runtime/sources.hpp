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

}  // namespace clforge::detail
