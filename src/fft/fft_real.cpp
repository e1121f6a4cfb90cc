// Real-input FFT plan (R2C forward, C2R inverse; docs/fft.md "Real input"): a complex plan of
// m points (n/2 for even n, n for odd n) in place on scratch rows (buffer C) between two
// launches of cl/fft/fft_real.cl; where the real rows are complex pairs as they lie (even n,
// stride 1), the complex plan reads (forward) or writes (inverse) them itself and the pack or
// unpack launch drops out. The argument checks, the steps, their compilation and the execution
// are the complex plan's (fft_plan.cpp); this file places the two ends and declares their
// kernel spec (fft_real) and tune target.
#include "fft/fft_plan_impl.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner.hpp"

namespace clforge {

namespace detail {

KernelSpec fft_real_spec() {
  KernelSpec s;
  s.name = "fft_real";
  s.files = {"fft/fft_real.cl"};
  s.database = "db/fft_real.json";
  s.params = {
      {"FFT_REAL_PER",
       4,
       {1, 2, 4, 8, 16, 32, 64, 128, 256},
       "elements of a transform per work-item of the real-input ends (at most)",
       true},
      {"FFT_REAL_CHUNK",
       0,
       {0, 1},
       "a work-item's elements: 0 a whole NDRange apart (neighbouring work-items read neighbouring elements); 1 "
       "consecutive (a CPU's loop over them reads vectors)"},
  };
  s.resources = [](const ParamMap&, const std::string&) {  // every pair of values legal; nothing to shrink
    Resources r;
    r.local = {kFftRealWg, kFftRealTb, 1};
    return r;
  };
  return s;
}

// `clforge tune fft_real`: the real-input ends' one row (kernel fft_real, class "*"), every
// candidate timing every size, real-input sizes only (N@B:r), the plans as the library makes them.
// tune all: the lengths from 16384 on, whose plans run an end in a launch of its own on the
// shipped rows (the H200's post-processing after passes or quarter exchanges; a CPU's after the
// lane kernel's two launches, from 2 x 8192 points); shorter ones fold the ends into the FFT.
TuneTarget fft_real_tune_target() {
  TuneTarget t = fft_lanes_tune_target();  // candidates as overrides, the plan as the library makes it
  t.routine = "fft_real";
  t.kernel = "fft_real";
  t.default_sizes = {"32768@16:r"};
  t.variant_of = [](const std::string& size) {
    if (!parse_fft_size(size).real)
      throw InvalidArgument("fft_real size '" + size + "': not a real-input size (N@B:r, or N,real)");
    return std::string("*");
  };
  t.time_every_size = true;
  // A length whose ends fold into the FFT on CPUs, and one whose plan runs them apart.
  t.check_sizes = [](const std::string&, const std::vector<std::string>&) {
    return std::vector<std::string>{"300@7:r", "20000@3:r"};
  };
  t.tune_all_keeps = [](const std::string& size) { return parse_fft_size(size).n >= 16384; };
  t.narrow = nullptr;
  t.seed_axes = {};
  t.device_types = {};
  t.supersedes.clear();
  return t;
}

}  // namespace detail

namespace {

using detail::require;

// Complex values per transform of the complex FFT inside.
std::size_t rows_of(std::size_t n) { return n % 2 == 1 ? n : n / 2; }

}  // namespace

RealFftDesc fft_plan_parts::checked_real_desc(const RealFftDesc& d) {
  using detail::require;
  check_length(d.n, d.batch);
  const std::size_t h = d.n / 2 + 1;
  RealFftDesc r = d;
  r.complex = checked_layout("complex", d.complex, h, d.batch);
  if (d.in_place) {
    require(d.complex.stride == 1, kRoutine,
            "in-place real plan: complex.stride must be 1 (padded rows of n/2 + 1 complex values)");
    // Below 2^40 elements (checked above): twice that cannot wrap.
    const FftLayout rows{1, 2 * r.complex.distance, 2 * r.complex.offset};
    const FftLayout& l = d.real;
    const bool untouched = l.stride == 1 && l.distance == 0 && l.offset == 0;
    const bool same = l.stride == 1 && l.distance == rows.distance && l.offset == rows.offset;
    require(untouched || same, kRoutine,
            "in-place real plan: the real layout must be {1, 2 * complex.distance, 2 * complex.offset} (or be left "
            "default)");
    r.real = rows;
  } else {
    r.real = checked_layout("real", d.real, d.n, d.batch);
  }
  require_disjoint(d.in_place ? "in-place layout" : "complex layout", r.complex, h, d.batch);
  require_disjoint("real layout", r.real, d.n, d.batch);
  return r;
}

namespace {

// The complex plan's stages moved onto the rows in C (its caller's sides), unscaled: the ends
// scale. pairs > 0: the loads from the caller's side read the real rows as complex pairs instead
// (the forward without pack); pairs < 0: the stores to it write them, scaled (the inverse
// without unpack).
std::vector<Stage> on_rows(const FftSteps& st, int pairs, const FftLayout& real) {
  std::vector<Stage> v = st.stages;
  auto to_real = [&](StageSide& side) {  // rows of m complex values: n floats apart
    side.pairs = true;
    side.offset = static_cast<long long>(real.offset);
    side.distance *= 2;
  };
  for (Stage& s : v) {
    s.io.scaled = false;
    if (s.io.in.buffer == Buf::User && pairs > 0)
      to_real(s.io.in);
    else if (s.io.in.buffer == Buf::User)
      s.io.in.buffer = Buf::C;
    if (s.io.out.buffer == Buf::User && pairs < 0) {
      to_real(s.io.out);
      s.io.scaled = true;
    } else if (s.io.out.buffer == Buf::User) {
      s.io.out.buffer = Buf::C;
    }
  }
  return v;
}

// Even n on rows of real values that are complex pairs as they lie: stride 1, an even offset,
// n floats apart (or one row), every step of the execution even, addresses within the complex
// plan's index width.
bool paired_rows(const RealFftDesc& d, bool even_steps, std::size_t real_end, const FftSteps& inner) {
  const bool wide = inner.stages.front().kernel.shape.long_index || real_end / 2 <= detail::kMaxInt32Index;
  return d.n % 2 == 0 && d.real.stride == 1 && d.real.offset % 2 == 0 && (d.batch == 1 || d.real.distance == d.n) &&
         even_steps && wide;
}

// One end: kind, the sides, the program and twiddles shared by all four.
Stage end_stage(KernelKind kind, const char* role, const StageSide& in, const StageSide& out, const Stage& proto) {
  Stage s = proto;
  s.kernel.kind = kind;
  s.io.in = in;
  s.io.out = out;
  s.io.scaled = kind == KernelKind::RealPost || kind == KernelKind::RealUnpack;
  s.role = role;
  return s;
}

// The lane kernel of one launch `lane` with the forward's post-processing on its store
// (FFT_LANE_RPOST, fft_lanes.cl: each work-item holds its transforms whole), compiled.
std::optional<Stage> lanes_folded_post(const RealFftPlan::Impl& im, const Stage& lane, const StageSide& spectrum,
                                       const Stage& proto, std::size_t complex_end) {
  const LaneForm& f = lane.kernel.lanes;
  const bool one_launch = f.transforms_per_row == 0 && f.bluestein_length == 0 && !f.multiply_loads &&
                          !f.multiply_results && f.valid_length == 0;
  if (!one_launch || (!lane.kernel.shape.long_index && complex_end > detail::kMaxInt32Index)) return std::nullopt;
  FftSteps one;
  one.stages = {lane};
  Stage& s = one.stages.front();
  s.io.out = spectrum;
  s.io.out.lane_distance = spectrum.distance;
  s.io.scaled = true;
  s.kernel.lanes.real_post = true;
  s.kernel.shape.out_unit = false;
  s.tables.lane_factors = proto.tables.twiddles;
  s.role = "lane kernel with the real post-processing";
  compile_steps(im.complex.qc, im.complex.desc, one);
  return s;
}

// The lane kernel of one launch `lane` with an odd length's end (FFT_LANE_RODD, fft_lanes.cl):
// the forward reads the real rows and writes X_0 .. X_(n/2), the inverse reads the half spectrum's
// Hermitian extension and writes the real parts, lane by lane; compiled. nullopt where the lanes
// run in more than one launch or an end passes the kernel's index width.
std::optional<Stage> lanes_folded_odd(const RealFftPlan::Impl& im, const Stage& lane, bool forward,
                                      const StageSide& real, const StageSide& spectrum, std::size_t end) {
  const LaneForm& f = lane.kernel.lanes;
  const bool one_launch = f.transforms_per_row == 0 && !f.multiply_loads && !f.multiply_results && f.valid_length == 0;
  if (!one_launch || (!lane.kernel.shape.long_index && end > detail::kMaxInt32Index)) return std::nullopt;
  FftSteps one;
  one.stages = {lane};
  Stage& s = one.stages.front();
  const StageIo inner = s.io;  // the conjugations stay the kernel's
  s.io.in = forward ? real : spectrum;
  s.io.out = forward ? spectrum : real;
  s.io.in.sign = inner.in.sign;
  s.io.out.sign = inner.out.sign;
  s.io.in.lane_distance = s.io.in.distance;
  s.io.out.lane_distance = s.io.out.distance;
  s.io.scaled = true;
  s.kernel.lanes.real_odd = forward ? 1 : 2;
  s.kernel.shape.in_unit = s.kernel.shape.out_unit = false;
  s.role = forward ? "lane kernel reading the real rows and writing the half spectrum"
                   : "lane kernel reading the half spectrum and writing the real rows";
  compile_steps(im.complex.qc, im.complex.desc, one);
  return s;
}

// The complex FFT's one fft_local kernel in `middle` with a real end folded in: the inverse's
// pre-processing into its loads from the spectrum (FFT_PRE 4, fft_memory.cl), or the forward's
// post-processing into its stores to it (fft.cl: FFT_POST 3 where a work-item holds a transform,
// the group's transforms through local memory where they fit, the group writing consecutive
// outputs; FFT_POST 2 through local memory in whole values or halves); compiled. nullopt where
// the kernel cannot take it (odd n, several stages, passes, Bluestein, an index width the
// spectrum passes; a forward whose exchanges go in quarters: its rounds hold a compute unit's one
// group while the store waits, docs/fft.md, Decisions 2026-12-02).
std::optional<Stage> folded_end(const RealFftPlan::Impl& im, const std::vector<Stage>& middle, bool store,
                                const StageSide& spectrum, const Stage& proto, std::size_t complex_end) {
  if (im.desc.n % 2 != 0 || middle.size() != 1) return std::nullopt;
  if (middle.front().kernel.kind == KernelKind::Lanes)
    return store ? lanes_folded_post(im, middle.front(), spectrum, proto, complex_end) : std::nullopt;
  if (middle.front().kernel.kind != KernelKind::Local) return std::nullopt;
  const FftShape& sh = middle.front().kernel.shape;
  const bool fits = !sh.split && !sh.bluestein && (sh.long_index || complex_end <= detail::kMaxInt32Index) &&
                    (store ? sh.halve != 2 : sh.pre == 0);
  if (!fits) return std::nullopt;
  FftSteps one;
  one.stages = middle;
  Stage& s = one.stages.front();
  StageSide& side = store ? s.io.out : s.io.in;
  const Sign sign = side.sign;
  side = spectrum;
  side.sign = store ? spectrum.sign : sign;
  (store ? s.kernel.shape.post : s.kernel.shape.pre) = store ? (sh.priv() ? 3 : 2) : 4;
  if (!detail::fft_fits(s.kernel.shape, *im.complex.qc.info)) return std::nullopt;  // FFT_POST 3's rows
  (store ? s.kernel.shape.out_unit : s.kernel.shape.in_unit) = spectrum.stride == 1;
  (store ? s.tables.store_factors : s.tables.load_factors) = proto.tables.twiddles;
  s.io.scaled = s.io.scaled || store;
  s.role = store ? "single kernel with the real post-processing" : "single kernel with the real pre-processing";
  compile_steps(im.complex.qc, im.complex.desc, one);
  return s;
}

// An odd length's end in the complex FFT's one fft_local kernel (`middle`, any kind but a pass),
// so that neither the pack nor the post-processing (forward) or the pre-processing and the
// unpack (inverse) run: the forward's loads read the caller's real rows (FFT_IN_REAL, imaginary
// parts zero) and its stores write X_0 .. X_(n/2) (the rest are their conjugates); the inverse's
// loads read the Hermitian extension of the half spectrum (FFT_IN_HERM) and its stores write the
// real parts (FFT_OUT_REAL); compiled (a lane kernel of one launch: lanes_folded_odd). nullopt
// where the kernel cannot take it.
std::optional<Stage> folded_odd(const RealFftPlan::Impl& im, const std::vector<Stage>& middle, bool forward,
                                const StageSide& real, const StageSide& spectrum, std::size_t real_end,
                                std::size_t complex_end) {
  if (im.desc.n % 2 == 0 || middle.size() != 1) return std::nullopt;
  if (middle.front().kernel.kind == KernelKind::Lanes)
    return lanes_folded_odd(im, middle.front(), forward, real, spectrum, std::max(real_end, complex_end));
  if (middle.front().kernel.kind != KernelKind::Local) return std::nullopt;
  const FftShape& sh = middle.front().kernel.shape;
  if (sh.split || (!sh.long_index && std::max(real_end, complex_end) > detail::kMaxInt32Index)) return std::nullopt;
  FftSteps one;
  one.stages = middle;
  Stage& s = one.stages.front();
  const StageIo inner = s.io;  // lengths and conjugations stay the kernel's (Bluestein's among them)
  s.io.in = forward ? real : spectrum;
  s.io.out = forward ? spectrum : real;
  s.io.in.length = inner.in.length;
  s.io.in.sign = inner.in.sign;
  s.io.out.length = forward ? static_cast<int>(im.desc.n / 2 + 1) : inner.out.length;
  s.io.out.sign = inner.out.sign;
  s.io.scaled = true;
  FftShape& k = s.kernel.shape;
  (forward ? k.in_real : k.out_real) = true;
  if (!forward) k.in_herm = static_cast<int>(im.desc.n);
  k.in_unit = s.io.in.stride == 1;
  k.out_unit = s.io.out.stride == 1;
  k.out_check = k.out_check || forward;
  s.role = forward ? "single kernel reading the real rows and writing the half spectrum"
                   : "single kernel reading the half spectrum and writing the real rows";
  compile_steps(im.complex.qc, im.complex.desc, one);
  return s;
}

// describe(): the complex FFT inside and which ends run as launches of their own. Per direction:
// whether an odd length's kernel reads and writes the caller's sides itself, and whether an end
// folded into the kernel.
struct EndsFolded {
  bool odd, folded;
};
std::string describe_ends(const RealFftDesc& d, const FftSteps& inner, bool pairs, EndsFolded fwd_end,
                          EndsFolded inv_end) {
  const std::string what = d.n % 2 == 0 ? " points of the values in pairs" : " points";
  const std::string fwd =
      fwd_end.odd ? std::string("it reads the real rows itself and writes the half spectrum")
                  : (pairs ? std::string("it reads the real rows itself") : "a pack launch, then it reads the rows") +
                        (fwd_end.folded ? " and post-processes them in its store" : ", then a post-processing launch");
  const std::string inv = inv_end.odd ? std::string("it reads the half spectrum itself and writes the real rows")
                                      : (inv_end.folded ? std::string("it pre-processes its loads")
                                                        : "a pre-processing launch, then it transforms") +
                                            (pairs ? " and writes the real rows itself" : ", then an unpack launch");
  return "n=" + std::to_string(d.n) + " real batch=" + std::to_string(d.batch) + ": a complex FFT of " +
         std::to_string(rows_of(d.n)) + what + "; forward: " + fwd + "; inverse: " + inv + " (" + inner.how + ")";
}

// The forward and inverse steps: the complex plan's stages between the two ends of each
// direction (one end where the rows are read or written as pairs, none where the forward's
// post-processing folds into the complex FFT).
void place_ends(RealFftPlan::Impl& im, const Tuning& tuning, bool even_steps) {
  const RealFftDesc& d = im.desc;
  const FftSteps& inner = im.complex.steps;
  const std::size_t n = d.n, m = rows_of(n);
  FftSteps st;
  // Rows for a chunk of the complex plan's transforms, at most kScratchCap bytes (one row at least).
  st.chunk = std::min({inner.chunk, d.batch, std::max<std::size_t>(1, kScratchCap / (m * sizeof(cl_float2)))});
  st.scratch = inner.scratch;
  st.scratch.c_bytes = st.chunk * m * sizeof(cl_float2);
  st.scratch.bytes += st.scratch.c_bytes;
  st.rader_groups = inner.rader_groups;
  // Indices of the ends (in floats on the real side): 64-bit where a side reaches 2^31.
  const std::size_t real_end = d.real.offset + (d.batch - 1) * d.real.distance + (n - 1) * d.real.stride + 1;
  const std::size_t complex_end =
      d.complex.offset + (d.batch - 1) * d.complex.distance + (n / 2) * d.complex.stride + 1;
  Stage proto;
  proto.kernel.shape.n = static_cast<int>(n);
  proto.kernel.shape.long_index = std::max({real_end, complex_end, st.chunk * m}) > detail::kMaxInt32Index;
  proto.kernel.cfg =
      resolve_configuration("fft_real", "*", *im.complex.qc.info, detail::overrides_for(tuning, "fft_real"));
  proto.kernel.program = detail::get_program(im.complex.qc, detail::kernel_spec("fft_real"), proto.kernel.cfg,
                                             std::string(proto.kernel.shape.long_index ? "-DCLF_LONG_INDEX=1" : "") +
                                                 " -DFFT_REAL_WG=" + std::to_string(kFftRealWg) +
                                                 " -DFFT_REAL_TB=" + std::to_string(kFftRealTb));
  if (n % 2 == 0) {
    std::vector<cl_float2> tw(n / 2 + 1);
    for (std::size_t k = 0; k < tw.size(); ++k) tw[k] = to_float2(root(k, n));
    proto.tables.twiddles =
        detail::constant_buffer(im.complex.qc.context, tw.data(), tw.size() * sizeof(cl_float2), "fft real twiddles");
  }
  const StageSide real = user_side(d.real, Sign::Plus), spectrum = user_side(d.complex, Sign::Plus);
  const StageSide rows{Buf::C, 0, static_cast<long long>(m), 1, 0, INT_MAX, Sign::Plus};
  const bool pairs = paired_rows(d, even_steps, real_end, inner);
  const std::vector<Stage> middle_fwd = on_rows(inner, pairs ? 1 : 0, d.real);
  const std::vector<Stage> middle_inv = on_rows(inner, pairs ? -1 : 0, d.real);
  im.forward = st;
  std::optional<Stage> one = folded_odd(im, middle_fwd, true, real, spectrum, real_end, complex_end);
  const bool odd_one = one.has_value();
  if (!odd_one) one = folded_end(im, middle_fwd, true, spectrum, proto, complex_end);
  if (!pairs && !odd_one) im.forward.stages.push_back(end_stage(KernelKind::RealPack, "real pack", real, rows, proto));
  if (one) {
    im.forward.stages.push_back(std::move(*one));
  } else {
    im.forward.stages.insert(im.forward.stages.end(), middle_fwd.begin(), middle_fwd.end());
    im.forward.stages.push_back(end_stage(KernelKind::RealPost, "real post-processing", rows, spectrum, proto));
  }
  im.inverse = st;
  std::optional<Stage> first = folded_odd(im, middle_inv, false, real, spectrum, real_end, complex_end);
  const bool odd_inv = first.has_value();
  if (!odd_inv) first = folded_end(im, middle_inv, false, spectrum, proto, complex_end);
  if (first) {
    im.inverse.stages.push_back(std::move(*first));
  } else {
    im.inverse.stages.push_back(end_stage(KernelKind::RealPre, "real pre-processing", spectrum, rows, proto));
    im.inverse.stages.insert(im.inverse.stages.end(), middle_inv.begin(), middle_inv.end());
  }
  if (!pairs && !odd_inv)
    im.inverse.stages.push_back(end_stage(KernelKind::RealUnpack, "real unpack", rows, real, proto));
  im.forward.how = im.inverse.how =
      describe_ends(d, inner, pairs, {odd_one, one.has_value()}, {odd_inv, first.has_value()});
}

void run(const RealFftPlan::Impl& im, cl::CommandQueue& q, int dir, const cl::Buffer& in, const cl::Buffer& out,
         const EventList& wait, cl::Event* event) {
  const RealFftDesc& d = im.desc;
  im.complex.check_queue(q);
  const IoSide real{"real", dir > 0 ? in : out, d.real, d.n, sizeof(float)};
  const IoSide spectrum{"complex", dir > 0 ? out : in, d.complex, d.n / 2 + 1, sizeof(cl_float2)};
  if (dir > 0) {
    check_io(d.in_place, d.batch, real, spectrum);
    im.complex.execute(q, dir, im.forward, in, out, d.real.distance, d.complex.distance, im.scale_fwd, wait, event);
  } else {
    check_io(d.in_place, d.batch, spectrum, real);
    im.complex.execute(q, dir, im.inverse, in, out, d.complex.distance, d.real.distance, im.scale_inv, wait, event);
  }
}

}  // namespace

void RealFftPlan::Impl::build(const cl::CommandQueue& q, const RealFftDesc& d, const Tuning& tuning, bool even_steps) {
  desc = checked_real_desc(d);
  const std::size_t m = rows_of(d.n);
  FftDesc rows;
  rows.n = m;
  rows.batch = d.batch;
  rows.in_place = true;
  rows.in = {1, m, 0};
  complex.build(q, rows, tuning, true);  // its length's ":real" rows
  scale_fwd = static_cast<float>(scale_factor(d.forward_scaling, d.n));
  scale_inv = static_cast<float>(scale_factor(d.inverse_scaling, d.n));
  place_ends(*this, tuning, even_steps);
}

RealFftPlan::RealFftPlan(const cl::CommandQueue& queue, const RealFftDesc& d, const Tuning& tuning) {
  auto im = std::make_shared<Impl>();
  im->build(queue, d, tuning);
  impl_ = std::move(im);
}

RealFftPlan::~RealFftPlan() = default;
RealFftPlan::RealFftPlan(const RealFftPlan&) = default;
RealFftPlan& RealFftPlan::operator=(const RealFftPlan&) = default;
RealFftPlan::RealFftPlan(RealFftPlan&&) noexcept = default;
RealFftPlan& RealFftPlan::operator=(RealFftPlan&&) noexcept = default;

void RealFftPlan::enqueue(cl::CommandQueue& queue, FftDirection direction, const cl::Buffer& in, const cl::Buffer& out,
                          const EventList& wait_list, cl::Event* event) const {
  run(*impl_, queue, direction == FftDirection::Forward ? +1 : -1, in, out, wait_list, event);
}
void RealFftPlan::forward(const cl::Buffer& real, const cl::Buffer& complex, const EventList& wait_list,
                          cl::Event* event) const {
  enqueue(impl_->complex.queue, FftDirection::Forward, real, complex, wait_list, event);
}
void RealFftPlan::inverse(const cl::Buffer& complex, const cl::Buffer& real, const EventList& wait_list,
                          cl::Event* event) const {
  enqueue(impl_->complex.queue, FftDirection::Inverse, complex, real, wait_list, event);
}
void RealFftPlan::forward(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  forward(data, data, wait_list, event);
}
void RealFftPlan::inverse(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  inverse(data, data, wait_list, event);
}
void RealFftPlan::forward(cl::CommandQueue& queue, const cl::Buffer& real, const cl::Buffer& complex,
                          const EventList& wait_list, cl::Event* event) const {
  enqueue(queue, FftDirection::Forward, real, complex, wait_list, event);
}
void RealFftPlan::inverse(cl::CommandQueue& queue, const cl::Buffer& complex, const cl::Buffer& real,
                          const EventList& wait_list, cl::Event* event) const {
  enqueue(queue, FftDirection::Inverse, complex, real, wait_list, event);
}

const RealFftDesc& RealFftPlan::desc() const { return impl_->desc; }
std::string RealFftPlan::describe() const { return impl_->forward.how; }
std::size_t RealFftPlan::launches(FftDirection direction) const {
  const FftSteps& st = direction == FftDirection::Forward ? impl_->forward : impl_->inverse;
  return ((impl_->desc.batch + st.chunk - 1) / st.chunk) * st.stages.size();
}
std::size_t RealFftPlan::scratch_bytes() const { return impl_->forward.scratch.bytes; }
std::vector<Configuration> RealFftPlan::configurations() const {
  std::vector<Configuration> v;
  for (const auto& s : impl_->complex.steps.stages) v.push_back(s.kernel.cfg);
  // The real-input ends' row, where a launch of its own runs an end (last).
  for (const FftSteps* st : {&impl_->forward, &impl_->inverse})
    for (const auto& s : st->stages)
      if (s.kernel.cfg.kernel == "fft_real") {
        v.push_back(s.kernel.cfg);
        return v;
      }
  return v;
}

}  // namespace clforge
