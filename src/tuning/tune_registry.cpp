// A tuner target by routine name (the list itself is the library layer's: src/library/families.cpp),
// and whether a target is tuned on a device.
#include <algorithm>

#include "clforge/errors.hpp"
#include "tuning/tuner.hpp"

namespace clforge::detail {

const TuneTarget& tune_target(const std::string& routine) {
  for (const auto& t : all_tune_targets())
    if (t.routine == routine) return t;
  std::string known;
  for (const auto& t : all_tune_targets()) known += (known.empty() ? "" : ", ") + t.routine;
  throw InvalidArgument("no tuner for routine '" + routine + "' (known: " + known + ")");
}

std::string tune_target_skip(const TuneTarget& target, const DeviceInfo& device) {
  const auto& types = target.device_types;
  if (types.empty() || std::find(types.begin(), types.end(), device.type) != types.end()) return "";
  std::string kinds;
  for (const auto& t : types) kinds += (kinds.empty() ? "" : "/") + t;
  return kinds + " kernel";
}

}  // namespace clforge::detail
