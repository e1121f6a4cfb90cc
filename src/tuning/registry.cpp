// The list of kernel families with tuning spaces. A new family adds its spec here.
#include "clforge/errors.hpp"
#include "tuning/spec.hpp"

namespace clforge::detail {

const std::vector<KernelSpec>& all_kernel_specs() {
  static const std::vector<KernelSpec> specs = {
      transpose_spec(),
  };
  return specs;
}

}  // namespace clforge::detail
