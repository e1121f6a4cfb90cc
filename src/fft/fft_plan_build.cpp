// FFT plan construction: the route table that picks how a length runs, the builders of the
// fft_local routes (one kernel, several passes through global memory, Bluestein, Rader's passes).
// The stages' kernels, the scratch and the programs are made in fft_plan_kernels.cpp, the lane
// kernel's routes in fft_plan_lanes.cpp, Rader's gather and scatter in fft_rader.cpp, the tables
// in fft_plan_tables.cpp.
//
// Routes of a plan (each stage the same entry point with different constants, except the lane
// kernel and Rader's ends):
//   lanes       CPU devices (fft_lanes: FFT_LANES > 0; fft_plan_lanes.cpp): fft_lanes.cl,
//               FFT_LANES transforms per work-item in vector lanes, one launch for smooth n (or a
//               Bluestein length M = 2^k) in [FFT_LANE_MIN, FFT_LANE_MAX], above it two launches
//               through a scratch buffer, n = n1 n2 (four for Bluestein)
//   single      n <= local limit, smooth: the whole batch in one launch
//   passes      smooth n = R_1 * ... * R_P: pass p is a batch of R_p-point FFTs over the
//               Stockham positions (input stride n / R_p, twiddle on load, output split by NS)
//   bluestein   otherwise: one kernel (chirp, FFT, spectrum, FFT, chirp) when M = 2^k >= 2n - 1
//               fits, else the passes of two M-point FFTs, M the smallest 7-smooth length
//               >= 2n - 1, with the chirps fused into the first load and the last store and the
//               spectrum into the store between them.
//   rader       a prime n with a smooth n - 1 where Bluestein would take passes (FFT_RADER;
//               fft_rader.cpp): a gather launch, the passes of two (n - 1)-point FFTs through
//               scratch with the spectrum fused into the store between them, a scatter launch.
#include "fft/fft_plan_builder.hpp"

namespace clforge::fft_plan_parts {

namespace {

// Columns (detail::fft_lies_as_columns) resolve the length's "<n>:cols" rows, the complex FFT of
// a real-input plan its "<n>:real" rows, each over the length's own.
std::string length_variant(const FftDesc& d, bool real_inside) {
  if (real_inside) return detail::fft_real_variant(d.n);
  return detail::fft_lies_as_columns(d) ? detail::fft_columns_variant(d.n) : std::to_string(d.n);
}

}  // namespace

FftPlanBuilder::FftPlanBuilder(const detail::QueueContext& qc, const FftDesc& desc, const Tuning& all, bool real_inside)
    : qc_(qc),
      dev_(*qc.info),
      desc_(desc),
      all_(all),
      tuning_(detail::overrides_for(all, kRoutine)),
      top_(resolve_configuration(kRoutine, length_variant(desc, real_inside), dev_, tuning_)),
      smooth_(detail::fft_smooth(desc.n)) {
  // Rader's algorithm for prime lengths whose n - 1 is smooth (fft_rader.cpp): its configuration
  // where it applies; FFT_RADER 0 never, 1 where Bluestein would take more than one launch, 2
  // wherever the multi-launch form can transform n - 1 points.
  if (detail::fft_rader_applies(desc.n)) {
    rader_cfg_ =
        resolve_configuration("fft_rader", std::to_string(desc.n), dev_, detail::overrides_for(all, "fft_rader"));
    rader_mode_ = rader_cfg_->at("FFT_RADER");
  }
}

// The route table. The lane kernel where its row asks for it and the length fits one of its
// forms; else one fft_local kernel of the length (smooth) or of its power-of-two Bluestein length
// where one fits (columns: where it holds FFT_ACROSS of them per group), else passes (Rader's
// where FFT_RADER asks for them).
Route FftPlanBuilder::choose_route() {
  lanes_ = lane_facts();
  if (lanes_.enabled && lanes_.one_launch && !lanes_.rader) return smooth_ ? Route::Lanes : Route::LanesBluestein;
  if (lanes_.enabled && lanes_.n1 != 0)
    return smooth_ ? Route::LanesTwo : lanes_.rader ? Route::LanesRaderFour : Route::LanesBluesteinFour;
  const std::size_t n = desc_.n;
  if (smooth_) {
    single_ = single_stage(n, top_, false);
  } else {
    const std::size_t m = detail::fft_bluestein_length(n);
    single_ = single_stage(m, resolve_configuration(kRoutine, std::to_string(m), dev_, tuning_), true);
  }
  const bool rader = !smooth_ && (rader_mode_ == 2 || (rader_mode_ == 1 && !single_));
  if (single_ && smooth_) return columns_in_passes() ? Route::Passes : Route::Single;
  if (single_ && !rader) return Route::BluesteinSingle;
  return smooth_ ? Route::Passes : rader ? Route::RaderPasses : Route::BluesteinPasses;
}

RouteSteps FftPlanBuilder::build_route(Route route) {
  using Builder = RouteSteps (FftPlanBuilder::*)();
  static const std::pair<Route, Builder> kBuilders[] = {
      {Route::Single, &FftPlanBuilder::single_route},
      {Route::BluesteinSingle, &FftPlanBuilder::bluestein_single_route},
      {Route::Passes, &FftPlanBuilder::passes_route},
      {Route::BluesteinPasses, &FftPlanBuilder::bluestein_passes_route},
      {Route::RaderPasses, &FftPlanBuilder::rader_passes_route},
      {Route::Lanes, &FftPlanBuilder::lanes_route},
      {Route::LanesBluestein, &FftPlanBuilder::lanes_bluestein_route},
      {Route::LanesTwo, &FftPlanBuilder::lanes_two_route},
      {Route::LanesBluesteinFour, &FftPlanBuilder::lanes_bluestein_four_route},
      {Route::LanesRaderFour, &FftPlanBuilder::lanes_rader_four_route},
  };
  for (const auto& [r, builder] : kBuilders)
    if (r == route) return (this->*builder)();
  throw Error("fft: no builder for the chosen route");
}

FftSteps FftPlanBuilder::build() {
  RouteSteps r = build_route(choose_route());
  steps_.stages = std::move(r.stages);
  // 64-bit indices when an address in the user's buffers or in the scratch can pass 2^31 - 1.
  const std::size_t n = desc_.n, batch = desc_.batch;
  const bool long_index = span_of(desc_.in, n, batch) > static_cast<std::size_t>(INT_MAX) ||
                          span_of(desc_.out, n, batch) > static_cast<std::size_t>(INT_MAX) ||
                          steps_.scratch.elements > static_cast<std::size_t>(INT_MAX);
  for (Stage& s : steps_.stages) {
    s.kernel.shape.long_index = long_index;
    if (s.kernel.kind != KernelKind::Local) continue;  // the lane routes set their sides' vector access
    s.kernel.shape.in_unit = s.io.in.stride == 1;
    s.kernel.shape.out_unit = s.io.out.stride == 1;
  }
  steps_.how = describe(r.summary);
  return std::move(steps_);
}

// "n=... batch=...: <route summary>", then a line per stage: its role and its kernel.
std::string FftPlanBuilder::describe(const std::string& summary) const {
  std::ostringstream how;
  how << "n=" << desc_.n << " batch=" << desc_.batch << ": " << summary;
  for (const Stage& s : steps_.stages) {
    how << "\n  " << s.role;
    const FftShape& sh = s.kernel.shape;
    if (s.kernel.kind == KernelKind::Local) how << ": " << sh.summary();
    if (s.kernel.kind != KernelKind::Lanes) continue;
    how << ": radix ";
    for (std::size_t i = 0; i < sh.radices.size(); ++i) how << (i ? "*" : "") << sh.radices[i];
  }
  return how.str();
}

// fft_local routes --------------------------------------------------------------------------

// One kernel of the length (smooth) or of its power-of-two Bluestein length, where the limit
// allows it and make_stage fits it with the layout's own access modes (a length that fits only
// with its exchanges in quarters does not when the layout needs staged accesses).
std::optional<Stage> FftPlanBuilder::single_stage(std::size_t len, const Configuration& cfg, bool bluestein) {
  if (len > detail::fft_local_limit(cfg.values, dev_, !bluestein)) return std::nullopt;
  const FftLayout& li = desc_.in;
  const FftLayout& lo = desc_.out;
  try {
    Stage s = make_stage(len, cfg, li.stride, li.distance, lo.stride, lo.distance, bluestein);
    user_sides(s);
    s.kernel.shape.inplace = desc_.in_place;
    return s;
  } catch (const UnsupportedDevice&) {
    return std::nullopt;
  }
}

// Columns (above) with FFT_COLS 1.
bool FftPlanBuilder::columns_layout() const { return top_.at("FFT_COLS") == 1 && detail::fft_lies_as_columns(desc_); }

// Columns that one kernel of the length would hold fewer than FFT_ACROSS of per group (runs of
// fewer than 8 * FFT_ACROSS bytes) take passes in the column form, whose groups hold many.
bool FftPlanBuilder::columns_in_passes() const {
  return single_ && columns_layout() && single_->kernel.shape.b < top_.at("FFT_ACROSS") &&
         detail::fft_pass_factors(desc_.n, top_.values, dev_).size() >= 2;
}

RouteSteps FftPlanBuilder::single_route() {
  RouteSteps r{{}, "one kernel"};
  r.stages.push_back(std::move(*single_));
  r.stages.back().role = "single kernel";
  steps_.chunk = std::min<std::size_t>(desc_.batch, std::size_t{1} << 30);
  return r;
}

// Bluestein in one kernel of M = 2^k points: chirp and zero padding on the load, FFT, spectrum,
// inverse FFT, conjugate chirp on the store of the first n points.
RouteSteps FftPlanBuilder::bluestein_single_route() {
  const std::size_t n = desc_.n, m = detail::fft_bluestein_length(n);
  Stage s = std::move(*single_);
  s.io.in.length = static_cast<int>(n);
  s.io.out.length = static_cast<int>(n);
  s.kernel.shape.in_check = s.kernel.shape.out_check = true;
  s.kernel.shape.pre = 2;
  s.kernel.shape.post = 1;
  s.io.in.sign = Sign::Dir;
  s.io.out.sign = Sign::MinusDir;
  s.role = "Bluestein in one kernel, M=" + std::to_string(m);
  const BluesteinTables t = bluestein_tables(n, m, n);
  s.tables.load_factors = t.w;
  s.tables.spectrum = t.bq;
  s.tables.store_factors = t.wc;
  steps_.chunk = std::min<std::size_t>(desc_.batch, std::size_t{1} << 30);
  RouteSteps r{{}, "Bluestein, one kernel of " + std::to_string(m) + " points"};
  r.stages.push_back(std::move(s));
  return r;
}

// The passes of one or two FFTs of `length` points through global memory.
struct FftPlanBuilder::PassPlan {
  std::size_t length = 0;
  Configuration cfg;  // fft_local of the length (FFT_PASS_MAX, FFT_CHUNK)
  std::vector<std::size_t> factors;
  std::string convolution;  // "Bluestein" or "Rader": two phases, forward and inverse; "": one
  cl::Buffer twiddles_hi, twiddles_lo;
  int twiddles_shift = 0;
  bool rader() const { return convolution == "Rader"; }
  int phases() const { return convolution.empty() ? 1 : 2; }
  std::string summary() const {
    std::ostringstream o;
    if (!convolution.empty()) o << convolution << " M=" << length << ", 2 x ";
    o << factors.size() << " passes of ";
    for (std::size_t i = 0; i < factors.size(); ++i) o << (i ? "*" : "") << factors[i];
    return o.str();
  }
};

FftPlanBuilder::PassPlan FftPlanBuilder::plan_passes(std::size_t ntot, const char* convolution) {
  PassPlan pp;
  pp.length = ntot;
  pp.convolution = convolution;
  pp.cfg = smooth_ ? top_ : resolve_configuration(kRoutine, std::to_string(ntot), dev_, tuning_);
  pp.factors = detail::fft_pass_factors(ntot, pp.cfg.values, dev_);
  if (pp.factors.size() < 2)
    throw UnsupportedDevice("fft: no decomposition of length " + std::to_string(ntot) + " fits device \"" + dev_.name +
                            "\"");
  // The twiddles of the passes after the first: W^k = hi[k >> shift] * lo[k & (2^shift - 1)].
  std::size_t shift = 0;
  while ((std::size_t{1} << (2 * shift)) < ntot) ++shift;  // lo table 2^shift >= sqrt(ntot)
  std::vector<detail::cdouble> hi_t((ntot + (std::size_t{1} << shift) - 1) >> shift), lo_t(std::size_t{1} << shift);
  for (std::size_t q = 0; q < hi_t.size(); ++q) hi_t[q] = root(q << shift, ntot);
  for (std::size_t r = 0; r < lo_t.size(); ++r) lo_t[r] = root(r, ntot);
  pp.twiddles_hi = table(to_float2(hi_t));
  pp.twiddles_lo = table(to_float2(lo_t));
  pp.twiddles_shift = static_cast<int>(shift);
  return pp;
}

// The stages of every phase's passes, with the configurations of their variants (by length and
// whether the pass is a later one).
std::vector<Stage> FftPlanBuilder::pass_stages(const PassPlan& pp) {
  std::map<std::pair<std::size_t, bool>, Configuration> cfgs;
  std::vector<Stage> stages;
  const std::size_t P = pp.factors.size();
  for (int ph = 0; ph < pp.phases(); ++ph) {
    std::size_t ns = 1;
    for (std::size_t p = 0; p < P; ++p) {
      const std::size_t r = pp.factors[p];
      const auto key = std::make_pair(r, p > 0);
      if (!cfgs.count(key))
        cfgs.emplace(key, resolve_configuration(kRoutine, detail::fft_pass_variant(r, p > 0), dev_, tuning_));
      Stage s = pass_stage(pp, cfgs.at(key), static_cast<std::size_t>(ph) * P + p, p, ns);
      const std::string phase = ph == 0 ? " forward " : " inverse ";
      s.role = (pp.phases() == 2 ? pp.convolution + phase : std::string()) + "pass " + std::to_string(p + 1) + "/" +
               std::to_string(P) + " (" + std::to_string(r) + " points)";
      stages.push_back(std::move(s));
      ns *= r;
    }
  }
  return stages;
}

// Pass p (after ns points) of a phase, stage `index` of the passes: the caller's sides on the
// first and the last stage, scratch A and B alternating between them, the twiddles on the load.
Stage FftPlanBuilder::pass_stage(const PassPlan& pp, const Configuration& cfg, std::size_t index, std::size_t p,
                                 std::size_t ns) {
  const FftLayout& li = desc_.in;
  const FftLayout& lo = desc_.out;
  const std::size_t ntot = pp.length, r = pp.factors[p];
  const std::size_t n_stages = static_cast<std::size_t>(pp.phases()) * pp.factors.size();
  // Rader's passes read the gathered rows from A and leave the convolution in A for the
  // scatter (first and last here mean the caller's sides): the buffers alternate one later.
  const bool first = index == 0 && !pp.rader(), last = index == n_stages - 1 && !pp.rader();
  const std::size_t alt = pp.rader() ? 1 : 0;
  // The column form's scratch holds a chunk's transforms interleaved (distance 1, stride the
  // chunk: set by passes_route), so that every pass reads and writes adjacent columns.
  const std::size_t in_mem_s = first ? li.stride : 1, out_mem_s = last ? lo.stride : 1;
  const std::size_t in_col_s = first ? li.stride : desc_.batch, out_col_s = last ? lo.stride : desc_.batch;
  Stage s = cols_ ? make_stage(r, cfg, (ntot / r) * in_col_s, 1, ns * out_col_s, 1)
                  : make_stage(r, cfg, (ntot / r) * in_mem_s, in_mem_s, ns * out_mem_s, out_mem_s);
  FftShape& sh = s.kernel.shape;
  sh.split = true;
  sh.cols = cols_;
  sh.split_l = static_cast<int>(ntot / r);
  sh.split_ns = static_cast<int>(ns);
  StageSide& in = s.io.in;
  StageSide& out = s.io.out;
  in.buffer = first ? Buf::User : index == 0 ? Buf::A : (index - 1 + alt) % 2 == 0 ? Buf::A : Buf::B;
  out.buffer = last ? Buf::User : (index + alt) % 2 == 0 ? Buf::A : Buf::B;
  in.offset = first ? static_cast<long long>(li.offset) : 0;
  in.distance = static_cast<long long>(first ? li.distance : cols_ ? 1 : ntot);
  in.stride = first ? static_cast<long long>(li.stride) : 1;
  out.offset = last ? static_cast<long long>(lo.offset) : 0;
  out.distance = static_cast<long long>(last ? lo.distance : cols_ ? 1 : ntot);
  out.stride = last ? static_cast<long long>(lo.stride) : 1;
  if (p > 0) {
    sh.pre = 1;
    s.tables.twiddles_hi = pp.twiddles_hi;
    s.tables.twiddles_lo = pp.twiddles_lo;
    s.tables.twiddles_shift = pp.twiddles_shift;
    // Direct loads split the pass twiddle per butterfly (fft.cl, FFT_PRE 3): W_(R0*NS)^k.
    if (sh.in_mode == 0 && s.kernel.cfg.at("FFT_TWIDDLE") != 1) {
      sh.pre = 3;
      s.tables.butterfly_twiddles = twiddles(static_cast<std::size_t>(sh.radices.front()) * ns);
    }
  }
  in.sign = first ? Sign::Dir : Sign::Plus;
  out.sign = Sign::Plus;
  s.io.scaled = last;
  return s;
}

RouteSteps FftPlanBuilder::passes_route() {
  const PassPlan pp = plan_passes(desc_.n, "");
  // The column form's positions are work-groups along the NDRange's third dimension.
  cols_ = columns_layout() && pp.length / *std::min_element(pp.factors.begin(), pp.factors.end()) <= kMaxGroupsYZ;
  std::vector<Stage> stages = pass_stages(pp);
  stages.back().io.out.sign = Sign::Dir;
  lay_out_scratch(stages, pp.length, pp.cfg, stages.size() > 2);
  for (Stage& s : stages)
    for (StageSide* side : {&s.io.in, &s.io.out})
      if (cols_ && side->buffer != Buf::User) side->stride = static_cast<long long>(steps_.chunk);
  return {std::move(stages), pp.summary() + (cols_ ? ", columns" : "")};
}

// Bluestein in passes: the chirp and the zero padding on the first load, the spectrum on the
// forward FFT's last store (then conjugated), the conjugate chirp on the last store of the first
// n points (the result conjugated back).
RouteSteps FftPlanBuilder::bluestein_passes_route() {
  const std::size_t n = desc_.n;
  const PassPlan pp = plan_passes(detail::fft_bluestein_length_smooth(n), "Bluestein");
  std::vector<Stage> stages = pass_stages(pp);
  Stage& first = stages.front();
  first.kernel.shape.pre = 2;
  first.kernel.shape.in_check = true;
  first.io.in.length = static_cast<int>(n);
  Stage& spectrum = stages[pp.factors.size() - 1];
  spectrum.kernel.shape.post = 1;
  spectrum.io.out.sign = Sign::Minus;
  Stage& last = stages.back();
  last.kernel.shape.post = 1;
  last.kernel.shape.out_check = true;
  last.io.out.length = static_cast<int>(n);
  last.io.out.sign = Sign::MinusDir;
  lay_out_scratch(stages, pp.length, pp.cfg, true);
  const BluesteinTables t = bluestein_tables(n, pp.length, n);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    stages[i].tables.load_factors = t.w;
    stages[i].tables.spectrum = t.bq;
    stages[i].tables.store_factors = i == stages.size() - 1 ? t.wc : t.bq;
  }
  return {std::move(stages), pp.summary()};
}

// Rader in passes: the gather before them, the scatter after, the spectrum on phase 0's last
// store. The gather conjugated the input for the inverse: forward FFT, spectrum, then
// conj(F(conj(.))) for the inverse FFT, whose result the scatter conjugates back.
RouteSteps FftPlanBuilder::rader_passes_route() {
  const PassPlan pp = plan_passes(desc_.n - 1, "Rader");
  std::vector<Stage> stages = pass_stages(pp);
  Stage& spectrum = stages[pp.factors.size() - 1];
  spectrum.io.out.sign = Sign::Minus;
  spectrum.kernel.shape.post = 1;
  stages.back().io.out.sign = Sign::Minus;
  RaderEnds e = rader_ends(Buf::A, Buf::A);
  for (Stage& s : stages) s.tables.store_factors = e.spectrum;
  stages.insert(stages.begin(), std::move(e.gather));
  stages.push_back(std::move(e.scatter));
  lay_out_scratch(stages, pp.length, pp.cfg, true, static_cast<std::size_t>(steps_.rader_groups) + 1);
  return {std::move(stages), pp.summary() + ", gathered and scattered"};
}

}  // namespace clforge::fft_plan_parts
