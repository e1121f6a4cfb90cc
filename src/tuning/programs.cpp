// Build options of a kernel family's configuration, and its compiled program through the
// runtime's compile cache (see spec.hpp).
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"

namespace clforge::detail {

std::string build_options(const KernelSpec& spec, const Configuration& cfg, const std::string& extra) {
  std::string o = "-cl-std=CL1.2";
  for (const auto& [name, value] : cfg.values) {  // std::map: sorted
    const ParamInfo* p = spec.find(name);
    if (p == nullptr || !p->launcher_only) o += " -D" + name + "=" + std::to_string(value);
  }
  if (!extra.empty()) o += " " + extra;
  return o;
}

std::string build_options(const Configuration& cfg, const std::string& extra) {
  for (const auto& spec : all_kernel_specs())
    if (spec.name == cfg.kernel) return build_options(spec, cfg, extra);
  return build_options(KernelSpec{}, cfg, extra);
}

cl::Program get_program(const QueueContext& qc, const KernelSpec& spec, const Configuration& cfg,
                        const std::string& extra_options) {
  return build_program(qc, spec.name, spec.files, build_options(spec, cfg, extra_options));
}

}  // namespace clforge::detail
