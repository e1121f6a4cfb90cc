// Internal error helpers: one check() for every OpenCL status and argument checks shared
// by all routines.
#pragma once
#include <cstddef>
#include <string>
#include <type_traits>

#include "clforge/common.hpp"
#include "clforge/errors.hpp"
#include "clforge/opencl.hpp"

namespace clforge::detail {

/// Throws OpenCLError(status, call, context) unless status is CL_SUCCESS.
inline void check(cl_int status, const char* call, const std::string& context = {}) {
  if (status != CL_SUCCESS) throw OpenCLError(status, call, context);
}

/// Throws InvalidArgument("<routine>: <message>") when cond is false.
inline void require(bool cond, const char* routine, const std::string& message) {
  if (!cond) throw InvalidArgument(std::string(routine) + ": " + message);
}
/// The same for a fixed message (no string is made unless it fails).
inline void require(bool cond, const char* routine, const char* message) {
  if (!cond) throw InvalidArgument(std::string(routine) + ": " + message);
}
/// The same with the message made only on failure (`message()` returns it): for the checks of
/// every call, whose messages would otherwise cost string building on the host each time.
template <typename F, typename = std::enable_if_t<std::is_invocable_r_v<std::string, F>>>
inline void require(bool cond, const char* routine, F&& message) {
  if (!cond) throw InvalidArgument(std::string(routine) + ": " + message());
}

inline std::size_t round_up(std::size_t x, std::size_t m) { return (x + m - 1) / m * m; }
inline std::size_t ceil_div(std::size_t x, std::size_t m) { return (x + m - 1) / m; }

}  // namespace clforge::detail
