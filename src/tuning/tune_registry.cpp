// The routines `clforge tune` and clforge::tune() know. A new family adds its target here
// (and its declaration in tuning/tuner.hpp); the CLI gets `clforge tune <routine>` from this list.
#include "clforge/errors.hpp"
#include "tuning/tuner.hpp"

namespace clforge::detail {

const std::vector<TuneTarget>& all_tune_targets() {
  static const std::vector<TuneTarget> targets = {
      transpose_tune_target(),
      sgemm_tune_target(),
      sgemm_stream_tune_target(),
      sgemm_direct_tune_target(),
      fft_tune_target(),
      blur_tune_target(),
  };
  return targets;
}

const TuneTarget& tune_target(const std::string& routine) {
  for (const auto& t : all_tune_targets())
    if (t.routine == routine) return t;
  std::string known;
  for (const auto& t : all_tune_targets()) known += (known.empty() ? "" : ", ") + t.routine;
  throw InvalidArgument("no tuner for routine '" + routine + "' (known: " + known + ")");
}

}  // namespace clforge::detail
