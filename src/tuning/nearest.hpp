// Rows of other devices chosen by measured peaks: where a database row stands in the lookup for a
// device (its tier), and how far the peaks of the device it was tuned on are from the device's.
// database.cpp orders each database's rows by it; the tuner orders its seed candidates by it.
#pragma once
#include <optional>
#include <string>

#include "clforge/device.hpp"
#include "tuning/db_files.hpp"

namespace clforge::detail {

// The tiers of one database's rows, first to last. Own: the rows of the device itself and of its
// architecture (with peaks known, also its vendor class's rows narrowed to its processor maker by
// device_vendor). With the device's peaks known, the rows of other devices of its type (GPU, CPU)
// that carry peaks, nearest first: those of its vendor class (NearVendor) before the vendor class's
// rows without peaks (Vendor), those of other vendor classes (NearOther) after them. Default: the
// rows without match keys.
enum class Tier { Own = 0, NearVendor = 1, Vendor = 2, NearOther = 3, Default = 4 };

struct Placement {
  Tier tier = Tier::Own;
  // |ln(row's / device's)| of the copy bandwidth and of the FMA throughput (Near tiers only).
  double copy_distance = 0, fma_distance = 0;
  double distance() const { return copy_distance + fma_distance; }
  bool near() const { return tier == Tier::NearVendor || tier == Tier::NearOther; }
};

// Where row `e` stands for `device`, whose peaks are `peaks` (nullptr: not known: then only the
// rows that match the device apply, each at its level's place, as without peaks); nullopt: the
// row does not apply. A row narrowed to a processor maker (device_vendor) is never taken for
// another maker's device.
std::optional<Placement> place_row(const Entry& e, const DeviceInfo& device, const Peaks* peaks);

// The provenance added to a row chosen by its peaks, e.g. ", nearest by peaks: tuned on NVIDIA H100
// (copy 2959.0 GB/s, |ln ratio| 0.34; FMA 65972.0 GFLOP/s, |ln ratio| 0.01)".
std::string nearest_note(const Entry& e, const Placement& at);

}  // namespace clforge::detail
