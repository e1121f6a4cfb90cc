// Internal logging: routes messages to the user's callback when at or above the level.
#pragma once
#include <string>

#include "clforge/runtime.hpp"

namespace clforge::detail {
bool log_enabled(LogLevel level);
void log(LogLevel level, const std::string& message);
}  // namespace clforge::detail
