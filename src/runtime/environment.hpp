// The environment as clforge reads it: string and boolean variables, and several variables in
// one pass for the keys of the per-call caches.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace clforge::detail {

/// Environment variable, or nullopt when unset or empty.
std::optional<std::string> env(const char* name);

/// The boolean environment variables of clforge, each read through env_bool().
inline constexpr const char* kBooleanEnvironment[] = {"CLFORGE_TUNING", "CLFORGE_PROFILE_KERNELS"};
/// The value of the boolean variable `name`: 1, on, true, yes / 0, off, false, no, in any case
/// (surrounding blanks ignored). Throws Error naming the variable for any other value.
bool parse_env_bool(const char* name, const std::string& value);
/// Boolean environment variable (parse_env_bool), or nullopt when unset or empty.
std::optional<bool> env_bool(const char* name);

/// The values of `count` environment variables (nullptr: unset or empty, as env()) in one pass
/// over the environment: a getenv per name would scan it once per name.
void env_values(const char* const* names, const char** values, std::size_t count);

}  // namespace clforge::detail
