// Environment variables: plain and boolean reads, and several names in one pass over environ.
#include "runtime/environment.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "clforge/errors.hpp"
#include "runtime/strings.hpp"

namespace clforge::detail {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

bool parse_env_bool(const char* name, const std::string& value) {
  const std::string v = to_lower(trim(value));
  if (v == "1" || v == "on" || v == "true" || v == "yes") return true;
  if (v == "0" || v == "off" || v == "false" || v == "no") return false;
  throw Error(std::string(name) + "='" + value + "' is not a boolean: use 1, on, true or yes / 0, off, false or no");
}

std::optional<bool> env_bool(const char* name) {
  const std::optional<std::string> v = env(name);
  if (!v) return std::nullopt;
  return parse_env_bool(name, *v);
}

void env_values(const char* const* names, const char** values, std::size_t count) {
  constexpr std::size_t kMax = 16;
  std::size_t len[kMax];
  bool found[kMax] = {};  // the first entry of a name counts, as for getenv
  bool first[256] = {};   // the names' first characters: most entries are passed over at once
  if (count > kMax) throw Error("env_values: too many names");
  for (std::size_t i = 0; i < count; ++i) {
    values[i] = nullptr;
    len[i] = std::strlen(names[i]);
    first[static_cast<unsigned char>(names[i][0])] = true;
  }
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* entry = *e;
    if (!first[static_cast<unsigned char>(entry[0])]) continue;
    const char* eq = std::strchr(entry, '=');
    if (eq == nullptr) continue;
    const std::size_t n = static_cast<std::size_t>(eq - entry);
    for (std::size_t i = 0; i < count; ++i) {
      if (n != len[i] || found[i] || std::memcmp(entry, names[i], n) != 0) continue;
      found[i] = true;
      if (eq[1] != '\0') values[i] = eq + 1;
      break;
    }
  }
}

}  // namespace clforge::detail
