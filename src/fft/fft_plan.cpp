// FFT plan: argument checks, execution (the stages' launches chunk by chunk, arguments by name,
// one chain of launches in a detail::Execution, which leases the scratch from the workspace
// pool), the public FftPlan methods and the host-vector fft(); the plan's steps are built in
// fft_plan_build.cpp and fft_plan_kernels.cpp.
#include "fft/fft_plan_impl.hpp"
#include "runtime/execution.hpp"

namespace clforge {

namespace detail {

// fft_local's parameters, as cl/fft/fft.cl declares them.
const KernelSignature kFftLocal{
    "fft_local",
    {"total", "in",     "in_off", "in_dh", "in_S",  "in_len", "out",      "out_off", "out_dh",  "out_S", "out_len",
     "cj_in", "cj_out", "scale",  "twl",   "tw_hi", "tw_lo",  "tw_shift", "aux_in",  "aux_out", "bq",    "tw_b"}};

const KernelSignature kFftLanes{"fft_lanes",
                                {"count", "in", "in_off", "in_dh", "in_dc", "in_S", "out", "out_off", "out_dh",
                                 "out_dc", "out_S", "cj_in", "cj_out", "scale", "tw", "tw2", "tab"}};

std::vector<const KernelSignature*> fft_signatures() { return {&kFftLocal, &kFftLanes, &kFftRaderIn, &kFftRaderOut}; }

}  // namespace detail

// Launches ------------------------------------------------------------------------------------

// One stage of one chunk: its buffers and offsets (the caller's sides moved to the chunk's first
// transform, scratch sides at their region), the chunk's transforms, the signs and scale.
struct FftPlan::Impl::Launch {
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

// The arguments every entry point takes: the two sides, the conjugations and the scale.
detail::Args& bind_sides(detail::Args& a, const FftPlan::Impl::Launch& l) {
  const StageIo& io = l.stage.io;
  return a.buffer("in", l.in)
      .index("in_off", l.in_offset)
      .index("in_dh", static_cast<std::size_t>(io.in.distance))
      .index("in_S", static_cast<std::size_t>(io.in.stride))
      .buffer("out", l.out)
      .index("out_off", l.out_offset)
      .index("out_dh", static_cast<std::size_t>(io.out.distance))
      .index("out_S", static_cast<std::size_t>(io.out.stride))
      .f32("cj_in", sign_value(io.in.sign, l.dir))
      .f32("cj_out", sign_value(io.out.sign, l.dir))
      .f32("scale", io.scaled ? l.scale : 1.0f);
}

}  // namespace

// fft_local: total kernel transforms (split_l per transform of a pass), b per work-group.
void FftPlan::Impl::enqueue_local(const Launch& l, detail::Execution& x) const {
  const Stage& s = l.stage;
  const StageTables& t = s.tables;
  auto table = [&](const cl::Buffer& b) -> const cl::Buffer& { return b() ? b : dummy; };
  const std::size_t total = l.count * s.kernel.shape.split_l;
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
      .finish();
  const std::size_t wg = s.kernel.shape.work_group();
  const std::size_t groups = (total + s.kernel.shape.b - 1) / s.kernel.shape.b;
  x.then(k, cl::NDRange(groups * wg), cl::NDRange(wg), l.last, s.role);
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
      .finish();
  x.then(k, cl::NDRange((count + lanes - 1) / lanes, per_row > 0 ? l.count : 1), cl::NDRange(1, 1), l.last, s.role);
}

// Rader's gather or scatter: groups per transform, the gather's or those of n outputs.
void FftPlan::Impl::enqueue_rader(const Launch& l, detail::Execution& x) const {
  const Stage& s = l.stage;
  const bool gather = s.kernel.kind == KernelKind::RaderGather;
  const std::size_t wg = static_cast<std::size_t>(s.kernel.cfg.at("FFT_RADER_WG"));
  const std::size_t groups = gather ? static_cast<std::size_t>(steps.rader_groups) : (desc.n + wg - 1) / wg;
  const detail::KernelSignature& sig = gather ? detail::kFftRaderIn : detail::kFftRaderOut;
  cl::Kernel k = detail::get_kernel(s.kernel.program, sig.kernel);
  detail::Args a(k, sig, s.kernel.shape.long_index);
  bind_sides(a, l)
      .buffer("perm", s.tables.permutation)
      .buffer("side", l.side)
      .index("side_off", steps.scratch.side_offset)
      .finish();
  x.then(k, cl::NDRange(groups * l.count * wg), cl::NDRange(wg), l.last, s.role);
}

void FftPlan::Impl::check_buffers(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out) const {
  using detail::require;
  const std::size_t n = desc.n, batch = desc.batch;
  if (q() != queue()) detail::require_plan_queue(kRoutine, q, qc.context(), qc.device());
  const std::size_t in_span = detail::require_extent(kRoutine, "in", in, desc.in.offset,
                                                     layout_span("in", desc.in, n, batch), sizeof(cl_float2));
  const std::size_t out_span = detail::require_extent(kRoutine, "out", out, desc.out.offset,
                                                      layout_span("out", desc.out, n, batch), sizeof(cl_float2));
  if (desc.in_place) {
    require(in() == out(), kRoutine, "in-place plan: in and out must be the same buffer");
  } else if (in() == out()) {
    const std::size_t a0 = desc.in.offset, a1 = in_span, b0 = desc.out.offset, b1 = out_span;
    require(a1 <= b0 || b1 <= a0, kRoutine,
            "out-of-place plan: in and out are the same buffer and their ranges overlap (use an in-place plan)");
  }
}

void FftPlan::Impl::run(cl::CommandQueue& q, int dir, const cl::Buffer& in, const cl::Buffer& out,
                        const EventList& wait, cl::Event* event) const {
  check_buffers(q, in, out);
  detail::Execution x(q, wait, event);
  // Scratch buffer A, and B after it in the same workspace or, rarely, in one of its own.
  const ScratchLayout& sl = steps.scratch;
  const cl::Buffer& scratch_a = sl.bytes > 0 ? x.workspace(qc.context, sl.bytes - sl.b_bytes, "fft scratch") : dummy;
  const cl::Buffer& scratch_b = sl.b_bytes > 0 ? x.workspace(qc.context, sl.b_bytes, "fft scratch") : scratch_a;
  auto buffer = [&](Buf b, const cl::Buffer& user) -> const cl::Buffer& {
    return b == Buf::User ? user : b == Buf::B ? scratch_b : scratch_a;
  };
  const float scale = dir > 0 ? scale_fwd : scale_inv;
  const std::size_t batch = desc.batch, chunk = steps.chunk;
  const std::size_t launches = ((batch + chunk - 1) / chunk) * steps.stages.size();
  std::size_t index = 0;
  for (std::size_t c0 = 0; c0 < batch; c0 += chunk) {
    for (const Stage& s : steps.stages) {
      const StageSide& si = s.io.in;
      const StageSide& so = s.io.out;
      const bool user_in = si.buffer == Buf::User, user_out = so.buffer == Buf::User;
      const Launch l{s,
                     buffer(si.buffer, in),
                     static_cast<std::size_t>(si.offset) + (user_in ? c0 * desc.in.distance : 0),
                     buffer(so.buffer, out),
                     static_cast<std::size_t>(so.offset) + (user_out ? c0 * desc.out.distance : 0),
                     std::min(chunk, batch - c0),
                     dir,
                     scale,
                     scratch_a,
                     ++index == launches};
      if (s.kernel.kind == KernelKind::Local) enqueue_local(l, x);
      if (s.kernel.kind == KernelKind::Lanes) enqueue_lanes(l, x);
      if (s.kernel.kind == KernelKind::RaderGather || s.kernel.kind == KernelKind::RaderScatter) enqueue_rader(l, x);
    }
  }
  x.finish();
}

namespace {

// The description with its arguments checked and the default distances filled in.
FftDesc checked_desc(const FftDesc& d) {
  using detail::require;
  require(d.n >= 1, kRoutine, "n must be at least 1 (got 0)");
  require(d.batch >= 1, kRoutine, "batch must be at least 1 (got 0)");
  require(d.n <= (std::size_t{1} << 27), kRoutine, "n must be at most 2^27 (got " + std::to_string(d.n) + ")");
  require(d.batch <= static_cast<std::size_t>(INT_MAX), kRoutine, "batch must be below 2^31");
  require(d.n <= (std::size_t{1} << 23) || detail::fft_smooth(d.n), kRoutine,
          "lengths with a prime factor above 13 (Bluestein) must be at most 2^23 (got " + std::to_string(d.n) + ")");
  require(d.in.stride >= 1, kRoutine, "in.stride must be at least 1 (got 0)");
  FftDesc desc = d;
  if (desc.in.distance == 0) desc.in.distance = detail::mul_or_throw(desc.n, desc.in.stride, kRoutine, "n * in.stride");
  if (desc.in_place) {
    const FftLayout& o = d.out;
    const bool untouched = o.stride == 1 && o.distance == 0 && o.offset == 0;
    const bool same = o.stride == d.in.stride && (o.distance == d.in.distance || o.distance == desc.in.distance) &&
                      o.offset == d.in.offset;
    require(untouched || same, kRoutine,
            "in-place plan: the output layout must equal the input layout (or be left default)");
    desc.out = desc.in;
  } else {
    require(desc.out.stride >= 1, kRoutine, "out.stride must be at least 1 (got 0)");
    if (desc.out.distance == 0)
      desc.out.distance = detail::mul_or_throw(desc.n, desc.out.stride, kRoutine, "n * out.stride");
  }
  // Spans first (checked arithmetic), so that the disjointness test below cannot wrap.
  const std::size_t big = std::size_t{1} << 40;
  for (const auto& [side, l] : {std::pair<const char*, const FftLayout*>{"in", &desc.in}, {"out", &desc.out}}) {
    const std::size_t end = detail::add_or_throw(l->offset, layout_span(side, *l, desc.n, desc.batch), kRoutine,
                                                 std::string(side) + ".offset plus the layout's extent");
    require(end < big, kRoutine,
            std::string(side) + " layout spans more than 2^40 elements (offset " + std::to_string(l->offset) +
                ", stride " + std::to_string(l->stride) + ", distance " + std::to_string(l->distance) + ")");
  }
  require(transforms_disjoint(desc.out, desc.n, desc.batch), kRoutine,
          std::string(desc.in_place ? "in-place layout" : "output layout") + " makes transforms overlap (stride " +
              std::to_string(desc.out.stride) + ", distance " + std::to_string(desc.out.distance) + ", n " +
              std::to_string(desc.n) + ", batch " + std::to_string(desc.batch) +
              "): need distance >= (n-1)*stride+1 or stride >= (batch-1)*distance+1");
  return desc;
}

}  // namespace

FftPlan::FftPlan(const cl::CommandQueue& queue, const FftDesc& d, const Tuning& tuning) {
  const FftDesc desc = checked_desc(d);
  detail::check_override_names(kRoutine, tuning, {kRoutine, "fft_lanes", "fft_rader"});
  auto im = std::make_shared<Impl>();
  im->queue = queue;
  im->qc = detail::queue_context_of(queue);
  im->desc = desc;
  auto factor = [&](FftScaling s) {
    switch (s) {
      case FftScaling::None:
        return 1.0;
      case FftScaling::OverN:
        return 1.0 / static_cast<double>(desc.n);
      case FftScaling::OverSqrtN:
        return 1.0 / std::sqrt(static_cast<double>(desc.n));
    }
    return 1.0;
  };
  im->scale_fwd = static_cast<float>(factor(desc.forward_scaling));
  im->scale_inv = static_cast<float>(factor(desc.inverse_scaling));
  im->steps = build_steps(im->qc, im->desc, tuning);
  im->dummy = detail::device_buffer(im->qc.context, CL_MEM_READ_WRITE, 16, "fft placeholder");
  compile_steps(im->qc, im->desc, im->steps);
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
