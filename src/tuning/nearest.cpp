// Rows of other devices chosen by measured peaks (see nearest.hpp).
#include "tuning/nearest.hpp"

#include <cmath>
#include <cstdio>

#include "runtime/strings.hpp"

namespace clforge::detail {

std::optional<Placement> place_row(const Entry& e, const DeviceInfo& device, const Peaks* peaks) {
  const bool matches = e.matches(device);
  // With peaks, a matching row narrowed to the device's processor maker counts as its own too: the
  // maker's microarchitecture decides what it holds (the FFT's CPU form), which peaks do not tell.
  const bool own = e.level() >= Level::Architecture || (peaks != nullptr && !e.device_vendor.empty());
  if (matches && own) return Placement{Tier::Own};
  const bool transferable = peaks != nullptr && e.peaks && to_lower(e.peaks->type) == to_lower(device.type) &&
                            (e.device_vendor.empty() || to_lower(e.device_vendor) == to_lower(device.vendor));
  if (transferable) {
    Placement at;
    at.copy_distance = std::abs(std::log(e.peaks->copy_gbs / peaks->copy_gbs));
    at.fma_distance = std::abs(std::log(e.peaks->fma_gflops / peaks->fma_gflops));
    const std::string& vendor = e.vendor.empty() ? e.peaks->vendor : e.vendor;
    at.tier = to_lower(vendor) == to_lower(device.vendor_key()) ? Tier::NearVendor : Tier::NearOther;
    return at;
  }
  if (!matches) return std::nullopt;
  return Placement{e.level() == Level::Vendor ? Tier::Vendor : Tier::Default};
}

std::string nearest_note(const Entry& e, const Placement& at) {
  if (!e.peaks) return {};
  char figures[160];
  std::snprintf(figures, sizeof figures, "copy %.1f GB/s, |ln ratio| %.2f; FMA %.1f GFLOP/s, |ln ratio| %.2f",
                e.peaks->copy_gbs, at.copy_distance, e.peaks->fma_gflops, at.fma_distance);
  const std::string on = e.peaks->device.empty() ? std::string() : " tuned on " + e.peaks->device;
  return ", nearest by peaks:" + on + " (" + figures + ")";
}

}  // namespace clforge::detail
