// FFT plan: argument checks, execution (the stages' launches chunk by chunk, arguments by name,
// one chain of launches in a detail::Execution, which leases the scratch from the workspace
// pool), the public FftPlan methods and the host-vector fft(); the plan's steps are built in
// fft_plan_build.cpp and fft_plan_kernels.cpp.
#include "fft/fft_plan_impl.hpp"
#include "runtime/execution.hpp"

namespace clforge {

namespace detail {

// fft_local's parameters, as cl/fft/fft.cl declares them.
const KernelSignature kFftLocal{"fft_local",
                                {"total",  "in",       "in_off",  "in_dh",   "in_S",   "in_len", "out",   "out_off",
                                 "out_dh", "out_S",    "out_len", "cj_in",   "cj_out", "scale",  "twl",   "tw_hi",
                                 "tw_lo",  "tw_shift", "aux_in",  "aux_out", "bq",     "tw_b",   "in_dr", "out_dr"}};

const KernelSignature kFftLanes{"fft_lanes",
                                {"count", "in", "in_off", "in_dh", "in_dc", "in_S", "out", "out_off", "out_dh",
                                 "out_dc", "out_S", "cj_in", "cj_out", "scale", "tw", "tw2", "tab", "in_dr", "out_dr"}};

// The four ends of a real-input transform, as cl/fft/fft_real.cl declares them (one parameter list).
const KernelSignature kFftRealPack{
    "fft_real_pack",
    {"n", "count", "in", "in_off", "in_dh", "in_S", "out", "out_off", "out_dh", "out_S", "scale", "tw"}};
const KernelSignature kFftRealPost{"fft_real_post", kFftRealPack.args};
const KernelSignature kFftRealPre{"fft_real_pre", kFftRealPack.args};
const KernelSignature kFftRealUnpack{"fft_real_unpack", kFftRealPack.args};

std::vector<const KernelSignature*> fft_signatures() {
  return {&kFftLocal,    &kFftLanes,    &kFftRaderIn, &kFftRaderOut,
          &kFftRealPack, &kFftRealPost, &kFftRealPre, &kFftRealUnpack};
}

}  // namespace detail

// Launches ------------------------------------------------------------------------------------

// One stage of one chunk: its buffers and offsets (the caller's sides moved to the chunk's first
// transform, scratch sides at their region), the chunk's transforms, the signs and scale.
struct FftPlan::Impl::Launch {
  const FftSteps& steps;
  const Stage& stage;
  const cl::Buffer& in;
  std::size_t in_offset;
  const cl::Buffer& out;
  std::size_t out_offset;
  std::size_t count;  // transforms of the chunk
  int dir;
  float scale;             // the plan's scaling of this direction
  const cl::Buffer& side;  // Rader's side values: the first workspace
  bool last;               // the execution's last launch
};

namespace {

// How far apart the positions of the launches' own level lie on a side: the caller's distance,
// or a scratch block.
std::size_t level_distance(const FftSteps& st, const StageSide& side, bool in) {
  if (side.buffer != Buf::User) return st.in_kernel_scratch;
  return in ? st.in_kernel.in_distance : st.in_kernel.out_distance;
}

// The arguments every entry point takes: the two sides, the conjugations and the scale.
detail::Args& bind_sides(detail::Args& a, const FftPlan::Impl::Launch& l) {
  const StageIo& io = l.stage.io;
  return a.buffer("in", l.in)
      .index("in_off", l.in_offset)
      .index("in_dh", static_cast<std::size_t>(io.in.distance / (io.in.pairs ? 2 : 1)))
      .index("in_S", static_cast<std::size_t>(io.in.stride))
      .buffer("out", l.out)
      .index("out_off", l.out_offset)
      .index("out_dh", static_cast<std::size_t>(io.out.distance / (io.out.pairs ? 2 : 1)))
      .index("out_S", static_cast<std::size_t>(io.out.stride))
      .f32("cj_in", sign_value(io.in.sign, l.dir))
      .f32("cj_out", sign_value(io.out.sign, l.dir))
      .f32("scale", io.scaled ? l.scale : 1.0f);
}

}  // namespace

// fft_local: total kernel transforms (split_l per transform of a pass, or the user transforms at
// split_l positions of the third dimension in the column form), b per work-group.
void FftPlan::Impl::enqueue_local(const Launch& l, detail::Execution& x) const {
  const Stage& s = l.stage;
  const StageTables& t = s.tables;
  auto table = [&](const cl::Buffer& b) -> const cl::Buffer& { return b() ? b : dummy; };
  const FftShape& sh = s.kernel.shape;
  const std::size_t total = sh.cols ? l.count : l.count * sh.split_l;
  cl::Kernel k = detail::get_kernel(s.kernel.program, detail::kFftLocal.kernel);  // this thread's kernel object
  detail::Args a(k, detail::kFftLocal, s.kernel.shape.long_index);
  bind_sides(a.i32("total", static_cast<long long>(total)), l)
      .i32("in_len", s.io.in.length)
      .i32("out_len", s.io.out.length)
      .buffer("twl", table(t.twiddles))
      .buffer("tw_hi", table(t.twiddles_hi))
      .buffer("tw_lo", table(t.twiddles_lo))
      .i32("tw_shift", t.twiddles_shift)
      .buffer("aux_in", table(t.load_factors))
      .buffer("aux_out", table(t.store_factors))
      .buffer("bq", table(t.spectrum))
      .buffer("tw_b", table(t.butterfly_twiddles))
      .index("in_dr", level_distance(l.steps, l.stage.io.in, true))
      .index("out_dr", level_distance(l.steps, l.stage.io.out, false))
      .finish();
  const std::size_t wg = sh.work_group();
  const std::size_t groups = (total + sh.b - 1) / sh.b;
  const std::size_t positions = sh.cols ? static_cast<std::size_t>(sh.split_l) : 1;
  x.then(k, cl::NDRange(groups * wg, l.steps.in_kernel.count, positions), cl::NDRange(wg, 1, 1), l.last, s.role);
}

// The lane kernel: one row of the chunk's transforms, or a row per transform (two launches).
void FftPlan::Impl::enqueue_lanes(const Launch& l, detail::Execution& x) const {
  const Stage& s = l.stage;
  const StageTables& t = s.tables;
  const int per_row = s.kernel.lanes.transforms_per_row;
  const std::size_t lanes = static_cast<std::size_t>(s.kernel.cfg.at("FFT_LANES"));
  const std::size_t count = per_row > 0 ? static_cast<std::size_t>(per_row) : l.count;
  cl::Kernel k = detail::get_kernel(s.kernel.program, detail::kFftLanes.kernel);
  detail::Args a(k, detail::kFftLanes, s.kernel.shape.long_index);
  bind_sides(a.i32("count", static_cast<long long>(count)), l)
      .index("in_dc", static_cast<std::size_t>(s.io.in.lane_distance))
      .index("out_dc", static_cast<std::size_t>(s.io.out.lane_distance))
      .buffer("tw", t.twiddles)
      .buffer("tw2", t.lane_twiddles() ? t.lane_twiddles : dummy)
      .buffer("tab", t.lane_factors() ? t.lane_factors : dummy)
      .index("in_dr", level_distance(l.steps, l.stage.io.in, true))
      .index("out_dr", level_distance(l.steps, l.stage.io.out, false))
      .finish();
  x.then(k, cl::NDRange((count + lanes - 1) / lanes, per_row > 0 ? l.count : 1, l.steps.in_kernel.count),
         cl::NDRange(1, 1, 1), l.last, s.role);
}

// Rader's gather or scatter: groups per transform, the gather's or those of n outputs.
void FftPlan::Impl::enqueue_rader(const Launch& l, detail::Execution& x) const {
  const Stage& s = l.stage;
  const bool gather = s.kernel.kind == KernelKind::RaderGather;
  const std::size_t wg = static_cast<std::size_t>(s.kernel.cfg.at("FFT_RADER_WG"));
  const std::size_t groups = gather ? static_cast<std::size_t>(l.steps.rader_groups) : (desc.n + wg - 1) / wg;
  const detail::KernelSignature& sig = gather ? detail::kFftRaderIn : detail::kFftRaderOut;
  cl::Kernel k = detail::get_kernel(s.kernel.program, sig.kernel);
  detail::Args a(k, sig, s.kernel.shape.long_index);
  bind_sides(a, l)
      .buffer("perm", s.tables.permutation)
      .buffer("side", l.side)
      .index("side_off", l.steps.scratch.side_offset)
      .finish();
  x.then(k, cl::NDRange(groups * l.count * wg), cl::NDRange(wg), l.last, s.role);
}

// A real-input stage: up to FFT_REAL_PER elements of a transform per work-item (the fft_real
// row), groups of FFT_REAL_WG along kFftRealTb transforms.
void FftPlan::Impl::enqueue_real(const Launch& l, detail::Execution& x) const {
  using detail::KernelSignature;
  const Stage& s = l.stage;
  const KernelKind kind = s.kernel.kind;
  const KernelSignature& sig = kind == KernelKind::RealPack   ? detail::kFftRealPack
                               : kind == KernelKind::RealPost ? detail::kFftRealPost
                               : kind == KernelKind::RealPre  ? detail::kFftRealPre
                                                              : detail::kFftRealUnpack;
  const std::size_t n = static_cast<std::size_t>(s.kernel.shape.n);
  const std::size_t items = kind == KernelKind::RealPost ? n / 2 + 1 : n % 2 == 1 ? n : n / 2;
  cl::Kernel k = detail::get_kernel(s.kernel.program, sig.kernel);
  detail::Args a(k, sig, s.kernel.shape.long_index);
  a.i32("n", static_cast<long long>(n))
      .i32("count", static_cast<long long>(l.count))
      .buffer("in", l.in)
      .index("in_off", l.in_offset)
      .index("in_dh", static_cast<std::size_t>(s.io.in.distance))
      .index("in_S", static_cast<std::size_t>(s.io.in.stride))
      .buffer("out", l.out)
      .index("out_off", l.out_offset)
      .index("out_dh", static_cast<std::size_t>(s.io.out.distance))
      .index("out_S", static_cast<std::size_t>(s.io.out.stride))
      .f32("scale", s.io.scaled ? l.scale : 1.0f)
      .buffer("tw", s.tables.twiddles() ? s.tables.twiddles : dummy)
      .finish();
  const std::size_t per = static_cast<std::size_t>(s.kernel.cfg.at("FFT_REAL_PER"));
  const std::size_t wg = kFftRealWg, tb = kFftRealTb, across = (items + per - 1) / per;
  const std::size_t rows = std::min(detail::round_up(l.count, tb), kMaxGroupsYZ * tb);  // the rest in steps
  x.then(k, cl::NDRange(detail::round_up(across, wg), rows), cl::NDRange(wg, tb), l.last, s.role);
}

void FftPlan::Impl::check_queue(const cl::CommandQueue& q) const {
  if (q() != queue()) detail::require_plan_queue(kRoutine, q, qc.context(), qc.device());
}

namespace fft_plan_parts {

void check_io(bool in_place, std::size_t batch, const IoSide& in, const IoSide& out) {
  const std::size_t in_span = layout_span(in.name, in.layout, in.count, batch);
  const std::size_t out_span = layout_span(out.name, out.layout, out.count, batch);
  check_io_extents(in_place, {in.name, in.buffer, in.layout.offset, in_span, in.elem_bytes},
                   {out.name, out.buffer, out.layout.offset, out_span, out.elem_bytes});
}

void check_io_extents(bool in_place, const IoExtent& in, const IoExtent& out) {
  using detail::require;
  auto extent = [&](const IoExtent& side) {  // [first byte, end byte) of the side's memory
    const std::size_t end =
        detail::require_extent(kRoutine, side.name, side.buffer, side.offset, side.span, side.elem_bytes);
    return std::pair<std::size_t, std::size_t>{side.offset * side.elem_bytes, end * side.elem_bytes};
  };
  const auto [a0, a1] = extent(in);
  const auto [b0, b1] = extent(out);
  if (in_place) {
    require(in.buffer() == out.buffer(), kRoutine, "in-place plan: in and out must be the same buffer");
  } else if (in.buffer() == out.buffer()) {
    require(a1 <= b0 || b1 <= a0, kRoutine,
            "out-of-place plan: in and out are the same buffer and their ranges overlap (use an in-place plan)");
  }
}

}  // namespace fft_plan_parts

void FftPlan::Impl::run(cl::CommandQueue& q, int dir, const cl::Buffer& in, const cl::Buffer& out,
                        const EventList& wait, cl::Event* event) const {
  check_queue(q);
  check_io(desc.in_place, desc.batch, {"in", in, desc.in, desc.n, sizeof(cl_float2)},
           {"out", out, desc.out, desc.n, sizeof(cl_float2)});
  execute(q, dir, steps, in, out, desc.in.distance, desc.out.distance, dir > 0 ? scale_fwd : scale_inv, wait, event);
}

void FftPlan::Impl::execute(cl::CommandQueue& q, int dir, const FftSteps& st, const cl::Buffer& in,
                            const cl::Buffer& out, std::size_t in_distance, std::size_t out_distance, float scale,
                            const EventList& wait, cl::Event* event) const {
  detail::Execution x(q, wait, event);
  enqueue_steps(x, lease(x, st.scratch), dir, st, in, out, in_distance, out_distance, scale, true);
  x.finish();
}

FftPlan::Impl::Scratch FftPlan::Impl::lease(detail::Execution& x, const ScratchLayout& sl) const {
  // Scratch buffer A, and B after it in the same workspace or, rarely, in one of its own; C apart.
  const std::size_t a_bytes = sl.bytes - sl.b_bytes - sl.c_bytes;
  const cl::Buffer* a = a_bytes > 0 ? &x.workspace(qc.context, a_bytes, "fft scratch") : &dummy;
  const cl::Buffer* b = sl.b_bytes > 0 ? &x.workspace(qc.context, sl.b_bytes, "fft scratch") : nullptr;
  const cl::Buffer* c = sl.c_bytes > 0 ? &x.workspace(qc.context, sl.c_bytes, "fft real rows") : &dummy;
  return {a, b, c};
}

void FftPlan::Impl::enqueue_steps(detail::Execution& x, const Scratch& scratch, int dir, const FftSteps& st,
                                  const cl::Buffer& in, const cl::Buffer& out, std::size_t in_distance,
                                  std::size_t out_distance, float scale, bool final) const {
  const cl::Buffer& scratch_b = st.scratch.b_bytes > 0 ? *scratch.b : *scratch.a;
  auto buffer = [&](Buf b, const cl::Buffer& user) -> const cl::Buffer& {
    return b == Buf::User ? user : b == Buf::B ? scratch_b : b == Buf::C ? *scratch.c : *scratch.a;
  };
  const std::size_t batch = desc.batch, chunk = st.chunk, positions = repeat_positions(st.repeats);
  const std::size_t launches = positions * ((batch + chunk - 1) / chunk) * st.stages.size();
  std::size_t index = 0;
  const Repeat& level = st.in_kernel;  // its launches start at its first position
  for (std::size_t p = 0; p < positions; ++p) {
    auto [in_back, out_back] = repeat_back(st.repeats, p);
    in_back += (level.count - 1) * level.in_distance;
    out_back += (level.count - 1) * level.out_distance;
    for (std::size_t c0 = 0; c0 < batch; c0 += chunk) {
      for (const Stage& s : st.stages) {
        const StageSide& si = s.io.in;
        const StageSide& so = s.io.out;
        const bool user_in = si.buffer == Buf::User, user_out = so.buffer == Buf::User;
        // Exact in unsigned arithmetic: the true offsets are not negative (floats where paired).
        const std::size_t in_at = static_cast<std::size_t>(si.offset) + (user_in ? c0 * in_distance - in_back : 0);
        const std::size_t out_at = static_cast<std::size_t>(so.offset) + (user_out ? c0 * out_distance - out_back : 0);
        const Launch l{st,
                       s,
                       buffer(si.buffer, in),
                       si.pairs ? in_at / 2 : in_at,
                       buffer(so.buffer, out),
                       so.pairs ? out_at / 2 : out_at,
                       std::min(chunk, batch - c0),
                       dir,
                       scale,
                       *scratch.a,
                       ++index == launches && final};
        enqueue_stage(l, x);
      }
    }
  }
}

void FftPlan::Impl::enqueue_stage(const Launch& l, detail::Execution& x) const {
  switch (l.stage.kernel.kind) {
    case KernelKind::Local:
      enqueue_local(l, x);
      break;
    case KernelKind::Lanes:
      enqueue_lanes(l, x);
      break;
    case KernelKind::RaderGather:
    case KernelKind::RaderScatter:
      enqueue_rader(l, x);
      break;
    default:
      enqueue_real(l, x);
  }
}

namespace fft_plan_parts {

std::size_t repeat_positions(const std::vector<Repeat>& r) {
  std::size_t p = 1;
  for (const Repeat& x : r) p *= x.count;  // below 2^40: the layouts' extents were checked
  return p;
}

void set_repeats(FftSteps& st, const FftDesc& desc, const DeviceInfo& dev, std::vector<Repeat> r) {
  st.in_kernel = Repeat{};
  st.in_kernel_scratch = 0;
  // Every stage a kernel taking the level on the caller's buffers or on scratch A and B, which
  // then hold a block per position: the stages run one after the other, each over every position.
  auto takes_level = [](const Stage& s) {
    auto side = [](const StageSide& x) { return x.buffer == Buf::User || x.buffer == Buf::A || x.buffer == Buf::B; };
    return (s.kernel.kind == KernelKind::Local || s.kernel.kind == KernelKind::Lanes) && side(s.io.in) &&
           side(s.io.out);
  };
  auto on_scratch = [](const Stage& s) { return s.io.in.buffer != Buf::User || s.io.out.buffer != Buf::User; };
  auto long_index = [](const Stage& s) { return s.kernel.shape.long_index; };
  const ScratchLayout& sc = st.scratch;
  bool fits = !r.empty() && r.front().count <= kMaxGroupsYZ && st.chunk >= desc.batch && !st.stages.empty() &&
              std::all_of(st.stages.begin(), st.stages.end(), takes_level);
  const bool scratch = fits && std::any_of(st.stages.begin(), st.stages.end(), on_scratch);
  if (scratch) {  // one workspace of blocks (B inside A's), within the caps and the index width
    const std::size_t total = sc.elements * r.front().count, bytes = total * sizeof(cl_float2);
    fits = sc.b_bytes == 0 && sc.c_bytes == 0 && sc.side_offset == 0 && bytes <= kScratchCap &&
           (dev.max_alloc_size == 0 || bytes <= dev.max_alloc_size) &&
           (total <= detail::kMaxInt32Index || std::all_of(st.stages.begin(), st.stages.end(), long_index));
  }
  if (fits) {
    st.in_kernel = r.front();
    r.erase(r.begin());
    if (scratch) {
      st.in_kernel_scratch = sc.elements;
      st.scratch.elements *= st.in_kernel.count;
      st.scratch.bytes = st.scratch.elements * sizeof(cl_float2);
    }
  }
  st.repeats = std::move(r);
}

std::pair<std::size_t, std::size_t> repeat_back(const std::vector<Repeat>& r, std::size_t p) {
  std::size_t in = 0, out = 0;
  for (const Repeat& x : r) {
    const std::size_t back = x.count - 1 - p % x.count;
    in += back * x.in_distance;
    out += back * x.out_distance;
    p /= x.count;
  }
  return {in, out};
}

}  // namespace fft_plan_parts

namespace fft_plan_parts {

void check_length(std::size_t n, std::size_t batch) {
  using detail::require;
  require(n >= 1, kRoutine, "n must be at least 1 (got 0)");
  require(batch >= 1, kRoutine, "batch must be at least 1 (got 0)");
  require(n <= (std::size_t{1} << 27), kRoutine, "n must be at most 2^27 (got " + std::to_string(n) + ")");
  require(batch <= static_cast<std::size_t>(INT_MAX), kRoutine, "batch must be below 2^31");
  require(n <= (std::size_t{1} << 23) || detail::fft_smooth(n), kRoutine,
          "lengths with a prime factor above 13 (Bluestein) must be at most 2^23 (got " + std::to_string(n) + ")");
}

FftLayout checked_layout(const std::string& side, FftLayout l, std::size_t count, std::size_t batch) {
  using detail::require;
  require(l.stride >= 1, kRoutine, side + ".stride must be at least 1 (got 0)");
  if (l.distance == 0) l.distance = detail::mul_or_throw(count, l.stride, kRoutine, "n * " + side + ".stride");
  // The span first (checked arithmetic), so that the disjointness test cannot wrap.
  const std::size_t big = std::size_t{1} << 40;
  const std::size_t end = detail::add_or_throw(l.offset, layout_span(side.c_str(), l, count, batch), kRoutine,
                                               side + ".offset plus the layout's extent");
  require(end < big, kRoutine,
          side + " layout spans more than 2^40 elements (offset " + std::to_string(l.offset) + ", stride " +
              std::to_string(l.stride) + ", distance " + std::to_string(l.distance) + ")");
  return l;
}

void require_disjoint(const std::string& what, const FftLayout& l, std::size_t count, std::size_t batch) {
  detail::require(transforms_disjoint(l, count, batch), kRoutine,
                  what + " makes transforms overlap (stride " + std::to_string(l.stride) + ", distance " +
                      std::to_string(l.distance) + ", n " + std::to_string(count) + ", batch " + std::to_string(batch) +
                      "): need distance >= (n-1)*stride+1 or stride >= (batch-1)*distance+1");
}

FftDesc checked_desc(const FftDesc& d) {
  check_length(d.n, d.batch);
  FftDesc desc = d;
  desc.in = checked_layout("in", d.in, d.n, d.batch);
  if (desc.in_place) {
    const FftLayout& o = d.out;
    const bool untouched = o.stride == 1 && o.distance == 0 && o.offset == 0;
    const bool same = o.stride == d.in.stride && (o.distance == d.in.distance || o.distance == desc.in.distance) &&
                      o.offset == d.in.offset;
    detail::require(untouched || same, kRoutine,
                    "in-place plan: the output layout must equal the input layout (or be left default)");
    desc.out = desc.in;
  } else {
    desc.out = checked_layout("out", d.out, d.n, d.batch);
  }
  require_disjoint(desc.in_place ? "in-place layout" : "output layout", desc.out, d.n, d.batch);
  return desc;
}

}  // namespace fft_plan_parts

void FftPlan::Impl::build(const cl::CommandQueue& q, const FftDesc& d, const Tuning& tuning, bool real_inside) {
  desc = checked_desc(d);
  detail::check_override_names(kRoutine, tuning, {kRoutine, "fft_lanes", "fft_rader", "fft_real"});
  queue = q;
  qc = detail::queue_context_of(q);
  scale_fwd = static_cast<float>(scale_factor(desc.forward_scaling, desc.n));
  scale_inv = static_cast<float>(scale_factor(desc.inverse_scaling, desc.n));
  steps = build_steps(qc, desc, tuning, real_inside);
  dummy = detail::device_buffer(qc.context, CL_MEM_READ_WRITE, 16, "fft placeholder");
  compile_steps(qc, desc, steps);
}

FftPlan::FftPlan(const cl::CommandQueue& queue, const FftDesc& d, const Tuning& tuning) {
  auto im = std::make_shared<Impl>();
  im->build(queue, d, tuning);
  impl_ = std::move(im);
}

void detail::fft_build_programs(const QueueContext& qc, const FftDesc& d, const Tuning& tuning) {
  const FftDesc desc = checked_desc(d);
  FftSteps steps = build_steps(qc, desc, tuning);
  compile_steps(qc, desc, steps);
}

FftPlan::~FftPlan() = default;
FftPlan::FftPlan(const FftPlan&) = default;
FftPlan& FftPlan::operator=(const FftPlan&) = default;
FftPlan::FftPlan(FftPlan&&) noexcept = default;
FftPlan& FftPlan::operator=(FftPlan&&) noexcept = default;

void FftPlan::enqueue(cl::CommandQueue& queue, FftDirection direction, const cl::Buffer& in, const cl::Buffer& out,
                      const EventList& wait_list, cl::Event* event) const {
  impl_->run(queue, direction == FftDirection::Forward ? +1 : -1, in, out, wait_list, event);
}

void FftPlan::forward(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list, cl::Event* event) const {
  enqueue(impl_->queue, FftDirection::Forward, in, out, wait_list, event);
}
void FftPlan::inverse(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list, cl::Event* event) const {
  enqueue(impl_->queue, FftDirection::Inverse, in, out, wait_list, event);
}
void FftPlan::forward(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  detail::require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  enqueue(impl_->queue, FftDirection::Forward, data, data, wait_list, event);
}
void FftPlan::inverse(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  detail::require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  enqueue(impl_->queue, FftDirection::Inverse, data, data, wait_list, event);
}
void FftPlan::forward(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list,
                      cl::Event* event) const {
  enqueue(queue, FftDirection::Forward, in, out, wait_list, event);
}
void FftPlan::inverse(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list,
                      cl::Event* event) const {
  enqueue(queue, FftDirection::Inverse, in, out, wait_list, event);
}

const FftDesc& FftPlan::desc() const { return impl_->desc; }
std::string FftPlan::describe() const { return impl_->steps.how; }
std::size_t FftPlan::launches() const {
  const FftSteps& st = impl_->steps;
  return ((impl_->desc.batch + st.chunk - 1) / st.chunk) * st.stages.size();
}
std::size_t FftPlan::scratch_bytes() const { return impl_->steps.scratch.bytes; }
std::vector<Configuration> FftPlan::configurations() const {
  std::vector<Configuration> v;
  for (const auto& s : impl_->steps.stages) v.push_back(s.kernel.cfg);
  return v;
}

}  // namespace clforge
