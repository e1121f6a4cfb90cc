// The group store: what group calls choose and measure that is no kernel parameter, in one JSON
// file beside the user tuning databases (kGroupStoreName in user_tuning_dir()), per device
// (name, platform, driver, as the user databases key devices) and key: a routine ("fft": the
// chunk size and queues `clforge tune group` stored) or a routine and size class ("fft:n=1024":
// SplitMode::Auto's measured rates). The shipped chunk sizes and queues are a table in
// group_store.cpp. docs/group.md describes the file.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "clforge/device.hpp"
#include "clforge/tuning.hpp"

namespace clforge::detail {

/// The store's file name inside user_tuning_dir().
inline constexpr const char* kGroupStoreName = "group.json";

/// What the store holds for one device under one key; 0: not stored.
struct GroupRecord {
  int chunk_kib = 0;  ///< host KiB a chunk moves, at most (one of group_chunk_kib_legal())
  int queues = 0;     ///< queues (chunks in flight) per device, 1..kGroupQueuesMax
  double rate = 0;    ///< Auto: MB/s of host data the device did beside the others
  double alone = 0;   ///< Auto: MB/s of a whole call of this device alone (the fastest of its group)
  double split = 0;   ///< Auto: MB/s of a whole call split by the rates (on the fastest's record)
  int share = 0;      ///< Auto: percent of their rates the other devices get, 1..100 (the fastest's)
};

/// The fields a store_group_record writes (a field written as 0 clears it).
enum GroupField : unsigned {
  kFieldChunkKib = 1,
  kFieldQueues = 2,
  kFieldRate = 4,
  kFieldAlone = 8,
  kFieldSplit = 16,
  kFieldShare = 32,
};

inline constexpr int kGroupQueuesMax = 4;
/// Chunk sizes (KiB) a record, SplitOptions::chunk_kib or `tune group --chunks` may give:
/// powers of two from 64 KiB to 64 MiB.
const std::vector<int>& group_chunk_kib_legal();

/// The store's path: kGroupStoreName in user_tuning_dir().
std::string group_store_path();
/// Whether calls with `tuning` read and write the store: Tuning::user_database, unless
/// CLFORGE_TUNING is off (then Auto keeps what it measures in the process).
bool group_store_enabled(const Tuning& tuning);

/// A device's record under `key` (zeros where nothing is stored). Throws TuningError naming the
/// file, and how to run without it, when the file cannot be parsed or holds a bad value.
GroupRecord group_record(const DeviceInfo& device, const std::string& key);
/// Every record of a device, by key (for `clforge params`). TuningError as group_record.
std::map<std::string, GroupRecord> group_records(const DeviceInfo& device);

/// Writes the `fields` of `record` under (device, key), atomically (temp file, then rename),
/// keeping the rest of the file. Throws InvalidArgument for a value out of range, TuningError
/// for an existing file that cannot be parsed (it is not overwritten).
void store_group_record(const DeviceInfo& device, const std::string& key, const GroupRecord& record, unsigned fields,
                        const std::string& note);

/// The chunk size and queues of a routine's group calls on a device, with where each came from
/// ("group store <path>", "shipped [CPU, blur]"): the device's record under the routine in the
/// store (when `use_store`), else the shipped table.
struct ChunkChoice {
  int chunk_kib = 0, queues = 0;
  std::string chunk_source, queues_source;
};
ChunkChoice chunk_choice(const DeviceInfo& device, const std::string& routine, bool use_store);

}  // namespace clforge::detail
