// A tuner target by routine name (the list itself is the library layer's: src/library/families.cpp).
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

}  // namespace clforge::detail
