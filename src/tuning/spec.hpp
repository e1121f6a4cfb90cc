// A kernel family's tuning space declared once as data: parameters and their legal values,
// constraints, the resources a configuration needs, and how to shrink one that does not fit.
// The launcher, the database validation, `clforge params` and the tuner all read this.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "clforge/device.hpp"
#include "clforge/tuning.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"

namespace clforge::detail {

/// What one configuration asks of the device.
struct Resources {
  std::array<std::size_t, 3> local{1, 1, 1};  ///< work-group shape
  std::uint64_t local_mem_bytes = 0;          ///< __local memory per work-group
  bool fp64 = false;                          ///< double precision in the kernel (cl_khr_fp64)
  std::size_t work_group() const { return local[0] * local[1] * local[2]; }
};

struct KernelSpec {
  std::string name;                ///< database key and `clforge params` name
  std::vector<std::string> files;  ///< cl/ files compiled after cl/common/*.cl, in order
  std::string database;            ///< shipped database, e.g. "db/transpose.json"
  std::vector<ParamInfo> params;
  /// "" when the combination is legal, else a message naming the parameters at fault.
  std::function<std::string(const ParamMap&, const std::string& variant)> check;
  std::function<Resources(const ParamMap&, const std::string& variant)> resources;
  /// A configuration one step smaller (local-memory halving, smaller tile or work-group),
  /// or nullopt when there is none. Used when a database value does not fit the device.
  std::function<std::optional<ParamMap>(const ParamMap&, const std::string& variant)> shrink;
  /// Optional: the representative of the configurations that build the same kernel on `device`
  /// (a parameter that another one overrides, or that the device's compiler ignores, set to a
  /// fixed value), with the same parameter names. The tuner searches representatives only.
  std::function<ParamMap(const ParamMap&, const DeviceInfo& device)> canonical;
  /// Variants a database may name besides "*" (e.g. element sizes); empty: any string.
  std::vector<std::string> variants;

  const ParamInfo* find(const std::string& param) const;
  /// Whether a database may name `variant`: "*", one of `variants`, or a sub-variant "F:S" of
  /// one of them (F); any string when `variants` is empty.
  bool knows_variant(const std::string& variant) const;
};

/// The registered spec of a kernel family; throws InvalidArgument for an unknown name.
const KernelSpec& kernel_spec(const std::string& name);
/// Every family's specs. The families declare their specs themselves and the library layer
/// (src/library/families.cpp, the one place that lists the families) defines this list, so the
/// tuning layer names no family.
const std::vector<KernelSpec>& all_kernel_specs();

/// Why a configuration does not fit a device ("" if it fits).
std::string fit_problem(const KernelSpec& spec, const ParamMap& p, const std::string& variant, const DeviceInfo& dev);

/// The overrides of `tuning` that name parameters of `kernel` (user_database carried over):
/// routines made of several kernels pass each kernel its own share.
Tuning overrides_for(const Tuning& tuning, const std::string& kernel);

/// Throws InvalidArgument("<routine>: ...") unless every override names a parameter of one of
/// `kernels` with a value legal there. Routines call it before they allocate or enqueue anything.
void check_override_names(const char* routine, const Tuning& tuning, const std::vector<std::string>& kernels);

/// A key of everything outside a call's arguments that resolving and building its kernels reads
/// for `device`: the tuning file and user database (paths and file stamps; the contents of a file
/// changed a moment ago, whose stamp cannot be trusted yet), the overrides and the environment
/// that changes programs (CLFORGE_BUILD_OPTIONS, CLFORGE_KERNEL_DIR).
std::string tuning_fingerprint(const DeviceInfo& device, const Tuning& tuning);

/// Build options: -cl-std=CL1.2, then -D NAME=VALUE for every parameter sorted by name except
/// those `spec` marks launcher_only (so that they do not split the caches), then `extra`
/// (routine constants such as -DTRA_ELEM=4).
std::string build_options(const KernelSpec& spec, const Configuration& cfg, const std::string& extra);
/// The same for the registered kernel cfg.kernel (every parameter when none is registered).
std::string build_options(const Configuration& cfg, const std::string& extra);
/// The compiled program of spec's files (cl/common/*.cl prepended) with cfg's parameters
/// (build_program of the runtime's compile cache).
cl::Program get_program(const QueueContext& qc, const KernelSpec& spec, const Configuration& cfg,
                        const std::string& extra_options = {});

/// "NAME=VALUE NAME=VALUE" for messages.
std::string describe_params(const ParamMap& p);

}  // namespace clforge::detail
