// The one place that lists the routine families: their kernel specs (database rows, tuning
// spaces, `clforge params`) and their tuner targets (`clforge tune <routine>`). A new family
// declares its spec and target in its own header and adds them here.
#include "blur/blur_internal.hpp"
#include "fft/fft_internal.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "transpose/transpose_internal.hpp"

namespace clforge::detail {

const std::vector<KernelSpec>& all_kernel_specs() {
  static const std::vector<KernelSpec> specs = {
      transpose_spec(),   fft_spec(),          fft_lanes_spec(),      fft_rader_spec(),      fft_real_spec(),
      sgemm_xgemm_spec(), sgemm_stream_spec(), sgemm_direct_spec(),   sgemm_pack_spec(),     sgemm_route_spec(),
      blur_spec(),        blur_direct_spec(),  blur_separable_spec(), blur_recursive_spec(),
  };
  return specs;
}

// tune all's order: the SGEMM operands' packing first (the tiled kernels' candidates are timed
// with it), sgemm_route after the kernels it routes between (it times their tuned rows), Rader's
// FFT and the real-input ends after the kernels of the FFTs they run, and the FFT kernels, whose
// many size classes each measure their references whatever their share of the time, after the others, so
// that what they overrun comes from no other routine's share; the CPU lane kernel (skipped on
// other devices) before the other FFT kernel, which a CPU runs for fewer plans.
const std::vector<TuneTarget>& all_tune_targets() {
  static const std::vector<TuneTarget> targets = {
      transpose_tune_target(),    sgemm_pack_tune_target(),  sgemm_tune_target(),    sgemm_stream_tune_target(),
      sgemm_direct_tune_target(), sgemm_route_tune_target(), blur_tune_target(),     fft_lanes_tune_target(),
      fft_tune_target(),          fft_rader_tune_target(),   fft_real_tune_target(),
  };
  return targets;
}

}  // namespace clforge::detail
