// The list of kernel families with tuning spaces. A new family adds its spec here.
#include "clforge/errors.hpp"
#include "tuning/spec.hpp"

namespace clforge::detail {

const std::vector<KernelSpec>& all_kernel_specs() {
  static const std::vector<KernelSpec> specs = {
      transpose_spec(),
      fft_spec(),
      sgemm_xgemm_spec(),
      sgemm_stream_spec(),
      sgemm_direct_spec(),
      sgemm_pack_spec(),
      sgemm_route_spec(),
      blur_spec(),
      blur_direct_spec(),
      blur_separable_spec(),
      blur_recursive_spec(),
  };
  return specs;
}

}  // namespace clforge::detail
