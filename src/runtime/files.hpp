// Files as the library reads and writes them: whole-file reads, writes through a temp file and
// rename(), folders, and the stamps (time, size, inode) that key the caches on a file's version.
#pragma once
#include <optional>
#include <string>

namespace clforge::detail {

/// Reads a whole file; nullopt if it cannot be opened.
std::optional<std::string> read_file(const std::string& path);
/// Writes a file through a temp file in the same folder and rename(); creates the folder.
/// Throws Error naming the path on failure. Never leaves a partial file at path.
void write_file_atomic(const std::string& path, const std::string& bytes);
/// mkdir -p; returns false on failure.
bool make_dirs(const std::string& dir);
bool file_exists(const std::string& path);
/// This process's executable as a path a child process can run (compile workers, the benchmark's
/// child): /proc/<pid>/exe, which stays valid while this process runs even when the file was
/// replaced or deleted meanwhile (a new build over a running benchmark); "" without /proc.
std::string own_executable();

/// What identifies a file's version without reading it: modification time (ns), size and
/// inode; size -1 when the path is no readable regular file.
struct FileStamp {
  long long mtime = 0, size = -1;
  unsigned long long inode = 0;
  bool operator==(const FileStamp& o) const { return mtime == o.mtime && size == o.size && inode == o.inode; }
  bool operator!=(const FileStamp& o) const { return !(*this == o); }
  /// Modified less than two seconds ago: file times come from a coarse clock, so two same-size
  /// writes within one tick keep the stamp; a cache must not trust the stamp of a fresh file.
  bool recent() const;
};
FileStamp stamp_of(const std::string& path);

/// stamp_of for the keys of the per-call caches: a path's stamp is taken from the file system at
/// most once per kStampReuseNs (a stat can cost more than a small call's launches). A stamp that
/// is recent() is never reused, and write_file_atomic invalidates every reused stamp, so
/// clforge's own writes are seen at once and another program's within kStampReuseNs.
FileStamp stamp_of_reused(const std::string& path);
constexpr long long kStampReuseNs = 1000000;  // 1 ms

}  // namespace clforge::detail
