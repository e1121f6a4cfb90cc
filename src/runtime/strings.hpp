// Text helpers shared by the runtime, the tuning database and the command line.
#pragma once
#include <string>

namespace clforge::detail {

/// `s` in lower case (ASCII).
std::string to_lower(std::string s);
/// `s` without leading and trailing blanks (space, tab, CR, LF).
std::string trim(const std::string& s);

}  // namespace clforge::detail
