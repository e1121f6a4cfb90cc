// Tuning parameters: each kernel declares its parameters once (names, legal values,
// constraints); values are looked up in a chain of JSON databases and passed to the
// OpenCL compiler as -D NAME=VALUE.
//
// Lookup, first hit per parameter wins:
//   explicit overrides (API, CLI --param)
//   CLFORGE_TUNING_FILE
//   user database written by `clforge tune` (per device, unless disabled)
//   shipped database: exact device name -> architecture -> vendor class -> "default"
// Each level is searched for the exact variant (e.g. element size, FFT length) first,
// then for the kernel's generic "*" variant.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "clforge/device.hpp"

namespace clforge {

using ParamMap = std::map<std::string, int>;

/// Per-call tuning options accepted by every routine.
struct Tuning {
  ParamMap overrides;          ///< explicit values; an unknown name throws InvalidArgument
  bool user_database = true;   ///< false: ignore the user database (also CLFORGE_TUNING=off)
};

/// One declared parameter of a kernel.
struct ParamInfo {
  std::string name;
  int default_value = 0;
  std::vector<int> legal;      ///< the values a database or override may use
  std::string help;
};

/// The resolved parameter set for (kernel, variant, device), with where each value came from.
struct Configuration {
  std::string kernel;
  std::string variant;
  ParamMap values;
  std::map<std::string, std::string> sources;  ///< name -> "override", "file:<path> [NVIDIA]", ...
  std::vector<std::string> notes;              ///< fallbacks applied to fit the device
  int at(const std::string& name) const;       ///< throws Error on unknown name
};

/// Names of every kernel family with a tuning space ("transpose", "sgemm", ...).
std::vector<std::string> tunable_kernels();
/// Declared parameters of one kernel. Throws InvalidArgument for an unknown kernel.
std::vector<ParamInfo> kernel_parameters(const std::string& kernel);

/// Resolves the parameters of a kernel for a device. Database values that do not fit the
/// device are shrunk to a fitting configuration (recorded in notes); explicit overrides that
/// do not fit throw InvalidArgument. Bad database files throw TuningError.
Configuration resolve_configuration(const std::string& kernel, const std::string& variant,
                                    const DeviceInfo& device, const Tuning& tuning = {});

/// Parses "NAME=VALUE" into overrides; throws InvalidArgument on malformed text.
void parse_param_assignment(const std::string& text, ParamMap& into);

/// The user database file for a device (inside user_tuning_dir()).
std::string user_database_path(const DeviceInfo& device);

/// Writes (kernel, variant) -> values into the user database of a device, atomically
/// (temp file then rename). An existing file that cannot be parsed is not overwritten:
/// TuningError names it.
void store_user_entry(const DeviceInfo& device, const std::string& kernel, const std::string& variant,
                      const ParamMap& values, const std::string& note = {});

}  // namespace clforge
