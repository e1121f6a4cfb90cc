// FFT plan construction, the kernels of a route's stages: the fitting of one fft_local kernel to
// the layout and the device (access modes, fewer transforms per group, exchanges in halves or
// quarters of local memory), the caller's sides, the scratch an execution leases, and the
// programs of every stage (build_steps, compile_steps). The routes that use them are in
// fft_plan_build.cpp.
#include "fft/fft_plan_builder.hpp"

namespace clforge::fft_plan_parts {

// One fft_local kernel ------------------------------------------------------------------------

namespace {

// Load or store mode of one side: elem_stride is the distance between a transform's elements,
// adjacency the distance between the group's neighbouring transforms (memory units).
int choose_mode(int stage_param, std::size_t elem_stride, std::size_t adjacency, const FftShape& s) {
  if (stage_param == 2 || stage_param == 3) return 0;
  if (stage_param == 1) return elem_stride == 1 ? 1 : 2;
  if (s.tfast) return elem_stride == 1 ? 1 : 0;  // across transforms: direct, coalesced by the numbering
  if (elem_stride == 1) return (s.t >= 8 || s.b == 1) ? 0 : 1;
  if (adjacency == 1 && s.b > 1) return 2;
  return 0;
}

}  // namespace

// The kernel of one stage: shape from the length and the configuration, modes from the
// layout (element stride and the distance between the group's transforms, in memory units).
Stage FftPlanBuilder::make_stage(std::size_t len, const Configuration& cfg, std::size_t in_es, std::size_t in_adj,
                                 std::size_t out_es, std::size_t out_adj, bool bluestein) {
  Stage s;
  s.kernel.cfg = cfg;
  FftShape& sh = s.kernel.shape;
  sh = detail::fft_base_shape(len, cfg.values, dev_.max_work_group_size);
  sh.bluestein = bluestein;
  const int stage_param = cfg.at("FFT_STAGE");
  const int run = cfg.at("FFT_ACROSS");  // transforms per group wanted on a strided side
  // Staging across transforms coalesces B transforms' elements: aim for B >= FFT_ACROSS (runs
  // of 8 * B bytes) by giving each work-item more butterflies (up to 32 points) when a
  // transform needs many.
  const bool across = stage_param != 2 && ((in_es != 1 && in_adj == 1) || (out_es != 1 && out_adj == 1));
  if (across && sh.b < run && !sh.priv()) {
    const std::size_t wg = std::min<std::size_t>(static_cast<std::size_t>(cfg.at("FFT_WG")),
                                                 dev_.max_work_group_size != 0 ? dev_.max_work_group_size : 1024);
    std::size_t t = std::max<std::size_t>(1, wg / static_cast<std::size_t>(run));
    while (t > 1 && (len % t != 0 || len / t > 32)) --t;
    if (t > 1 && t < static_cast<std::size_t>(sh.t)) {
      sh.t = static_cast<int>(t);
      sh.b = static_cast<int>(std::max<std::size_t>(1, wg / t));
    }
  }
  // Automatic staging of a side across transforms: number the group's work-items
  // transform-fastest instead, so that its direct accesses coalesce (B consecutive transforms'
  // element e are B consecutive values) with no exchange through local memory; a side whose
  // transforms are contiguous is then staged transform by transform (FFT_STAGE 0) or direct
  // (3: a warp's 32 lanes cover 32 / B consecutive elements of each of B transforms, runs of
  // 256 / B bytes, and the exchanges can run in quarters; with fewer transforms than
  // FFT_ACROSS too, since the side is never staged).
  sh.tfast = across && !sh.priv() && ((stage_param == 0 && sh.b >= run) || (stage_param == 3 && sh.b > 1));
  fit_to_device(s, len, in_es, in_adj, out_es, out_adj);
  if (s.kernel.cfg.at("FFT_TWIDDLE") != 1 && len > 1)
    s.tables.twiddles = pass_twiddles(sh.radices, s.kernel.cfg.at("FFT_TWIDDLE"));
  return s;
}

// Shrinks the kernel until it fits the device: fewer transforms per group, or the exchanges in
// halves or quarters of the local memory (noted in the configuration). Throws UnsupportedDevice
// when nothing fits.
void FftPlanBuilder::fit_to_device(Stage& s, std::size_t len, std::size_t in_es, std::size_t in_adj, std::size_t out_es,
                                   std::size_t out_adj) {
  FftShape& sh = s.kernel.shape;
  Configuration& cfg = s.kernel.cfg;
  const int stage_param = cfg.at("FFT_STAGE");
  const int run = cfg.at("FFT_ACROSS");
  const std::string for_len = " for length " + std::to_string(len);
  for (;;) {
    sh.in_mode = choose_mode(stage_param, in_es, in_adj, sh);
    sh.out_mode = choose_mode(stage_param, out_es, out_adj, sh);
    if (sh.halve_fallback()) cfg.values["FFT_HALVE"] = 1;
    if (detail::fft_fits(sh, dev_)) return;
    const bool across_now = sh.tfast || sh.in_mode == 2 || sh.out_mode == 2;
    const std::string fits = " so that length " + std::to_string(len) + " fits local memory";
    if (across_now && sh.b <= run && !sh.halve) {
      sh.halve = 1;  // keep the transforms for coalescing, halve the local memory instead
      cfg.values["FFT_HALVE"] = 1;
      cfg.notes.push_back("FFT_HALVE=1 to keep " + std::to_string(sh.b) + " transforms per work-group" + for_len);
    } else if (sh.b > 1) {
      sh.b /= 2;
    } else if (!sh.halve) {
      sh.halve = 1;
      cfg.values["FFT_HALVE"] = 1;
      cfg.notes.push_back("FFT_HALVE=1" + fits);
    } else if (sh.halve == 1 && sh.quarter_ok()) {
      sh.halve = 2;
      cfg.values["FFT_HALVE"] = 2;
      cfg.notes.push_back("FFT_HALVE=2" + fits);
    } else {
      throw UnsupportedDevice("fft: length " + std::to_string(len) + " does not fit device \"" + dev_.name + "\" (" +
                              std::to_string(sh.local_bytes()) + " bytes of local memory, " +
                              std::to_string(sh.work_group()) + " work-items)");
    }
  }
}

// A stage of the whole transform: it reads and writes the caller's layouts and scales.
void FftPlanBuilder::user_sides(Stage& s) const {
  StageIo& io = s.io;
  io.in.offset = static_cast<long long>(desc_.in.offset);
  io.in.distance = static_cast<long long>(desc_.in.distance);
  io.in.stride = static_cast<long long>(desc_.in.stride);
  io.out.offset = static_cast<long long>(desc_.out.offset);
  io.out.distance = static_cast<long long>(desc_.out.distance);
  io.out.stride = static_cast<long long>(desc_.out.stride);
  io.scaled = true;
}

// Scratch for transforms of ntot points: the batch runs in chunks of at most FFT_CHUNK MiB
// (kScratchCap) per buffer, every stage of a chunk before the next chunk. Every execution
// leases its scratch (Impl::run), so that executions of one plan can overlap: buffer A at the
// start of one workspace and, where two are needed, buffer B after it, or in a workspace of its
// own where the two together would pass the device's largest allocation. The stages' sides on B
// get B's offset. `side` elements per transform (Rader's side values) follow in the first
// workspace, at side_offset.
void FftPlanBuilder::lay_out_scratch(std::vector<Stage>& stages, std::size_t ntot, const Configuration& cfg, bool two,
                                     std::size_t side) {
  ScratchLayout& sc = steps_.scratch;
  std::size_t& chunk = steps_.chunk;
  const std::size_t per = (ntot + side) * sizeof(cl_float2);
  std::size_t cap = cfg.at("FFT_CHUNK") > 0 ? static_cast<std::size_t>(cfg.at("FFT_CHUNK")) << 20 : kScratchCap;
  if (dev_.max_alloc_size != 0) cap = std::min<std::size_t>(cap, dev_.max_alloc_size);
  if (side > 0) cap -= kScratchAlign * sizeof(cl_float2);  // the side values' alignment
  chunk = std::max<std::size_t>(1, std::min<std::size_t>(desc_.batch, cap / per));
  while (chunk > 1 && chunk * ntot > static_cast<std::size_t>(INT_MAX)) chunk /= 2;
  const std::size_t region = chunk * ntot;
  std::size_t b_off = 0;
  sc.elements = region;
  const std::size_t extra = side > 0 ? kScratchAlign + chunk * side : 0;
  if (two) {
    const std::size_t joint = detail::round_up(region, kScratchAlign) + region;
    if (dev_.max_alloc_size == 0 || (joint + extra) * sizeof(cl_float2) <= dev_.max_alloc_size) {
      b_off = joint - region;
      sc.elements = joint;
    } else {
      sc.b_bytes = region * sizeof(cl_float2);
    }
  }
  if (side > 0) {
    sc.side_offset = detail::round_up(sc.elements, kScratchAlign);
    sc.elements = sc.side_offset + chunk * side;
  }
  sc.bytes = sc.elements * sizeof(cl_float2) + sc.b_bytes;
  for (Stage& s : stages) {
    if (s.io.in.buffer == Buf::B) s.io.in.offset = static_cast<long long>(b_off);
    if (s.io.out.buffer == Buf::B) s.io.out.offset = static_cast<long long>(b_off);
  }
}

// Programs -----------------------------------------------------------------------------------

namespace {

// Rader's routine constants: the length and the gather's groups per transform.
std::string rader_options(const Stage& s, std::size_t n, int rader_groups) {
  std::ostringstream o;
  o << "-DFFT_RADER_N=" << n << " -DFFT_RADER_G=" << rader_groups;
  if (s.kernel.shape.long_index) o << " -DCLF_LONG_INDEX=1";
  return o.str();
}

// The lane kernel's routine constants: the length, the radices of its passes and the sides.
std::string lane_options(const Stage& s) {
  const FftShape& sh = s.kernel.shape;
  const LaneForm& form = s.kernel.lanes;
  std::ostringstream o;
  o << "-DFFT_N=" << sh.n << " -DFFT_NP=" << sh.radices.size();
  for (std::size_t i = 0; i < sh.radices.size(); ++i) o << " -DFFT_R" << i + 1 << "=" << sh.radices[i];
  if (sh.long_index) o << " -DCLF_LONG_INDEX=1";
  if (form.bluestein_length > 0) o << " -DFFT_LANE_BLUE=1 -DFFT_LANE_LEN=" << form.bluestein_length;
  if (s.tables.lane_twiddles() && form.transforms_per_row > 0) o << " -DFFT_LANE_TW=1";
  if (form.multiply_loads) o << " -DFFT_LANE_PRE=1";
  if (form.multiply_results) o << " -DFFT_LANE_POST=1";
  if (form.valid_length > 0) o << " -DFFT_LANE_GLEN=" << form.valid_length;
  if (form.real_post) o << " -DFFT_LANE_RPOST=1";
  if (form.real_odd > 0) o << " -DFFT_LANE_RODD=" << form.real_odd;
  // Whole vectors where a side's lanes are adjacent transforms (shape.in_unit, out_unit: set by
  // fft_plan_lanes.cpp) or its transforms' elements are adjacent (transposed in registers,
  // FFT_LANE_EBLOCK).
  const bool eblock = s.kernel.cfg.at("FFT_LANE_EBLOCK") == 1 && form.bluestein_length == 0 && form.real_odd == 0 &&
                      sh.n % s.kernel.cfg.at("FFT_LANES") == 0;
  if (sh.in_unit) o << " -DFFT_IN_LUNIT=1";
  if (sh.out_unit) o << " -DFFT_OUT_LUNIT=1";
  if (!sh.in_unit && eblock && s.io.in.stride == 1) o << " -DFFT_IN_EUNIT=1";
  if (!sh.out_unit && eblock && s.io.out.stride == 1 && !form.real_post) o << " -DFFT_OUT_EUNIT=1";
  return o.str();
}

}  // namespace

FftSteps build_steps(const detail::QueueContext& qc, const FftDesc& desc, const Tuning& tuning, bool real_inside) {
  return FftPlanBuilder(qc, desc, tuning, real_inside).build();
}

void compile_steps(const detail::QueueContext& qc, const FftDesc& desc, FftSteps& steps) {
  const detail::KernelSpec& spec = detail::kernel_spec(kRoutine);
  for (Stage& s : steps.stages) {
    StageKernel& k = s.kernel;
    if (k.kind == KernelKind::RaderGather || k.kind == KernelKind::RaderScatter) {
      k.program = detail::get_program(qc, detail::kernel_spec("fft_rader"), k.cfg,
                                      rader_options(s, desc.n, steps.rader_groups));
    } else if (k.kind == KernelKind::Lanes) {
      k.program = detail::get_program(qc, detail::kernel_spec("fft_lanes"), k.cfg, lane_options(s));
    } else {
      // The program depends on the routine constants (which already encode the radices, the
      // work-group and the modes) and on the parameters the kernel reads: the launcher-only ones
      // stay out of the build options (ParamInfo::launcher_only), and the local-memory ones of a
      // kernel without local memory take their declared defaults, so equal kernels share one program.
      Configuration key = k.cfg;
      for (const char* name : {"FFT_HALVE", "FFT_PAD"})
        if (!k.shape.uses_local()) key.values[name] = spec.find(name)->default_value;
      k.program = detail::get_program(qc, spec, key, k.shape.options());
    }
  }
}

}  // namespace clforge::fft_plan_parts
