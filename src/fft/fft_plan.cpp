// FFT plan: argument checks, execution (fft_local launches chunk by chunk, arguments by name,
// one event chain, scratch leased from the workspace pool), the public FftPlan methods and the
// host-vector fft(); the plan's decomposition and tables are built in fft_plan_build.cpp.
#include "fft/fft_plan_impl.hpp"
#include "runtime/workspace.hpp"

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

void FftPlan::Impl::run(cl::CommandQueue& q, int dir, const cl::Buffer& in, const cl::Buffer& out,
                        const EventList& wait, cl::Event* event) const {
  using detail::require;
  const char* R = kRoutine;
  const std::size_t n = desc.n, batch = desc.batch;
  if (q() != queue()) detail::require_plan_queue(R, q, qc.context(), qc.device());
  const std::size_t in_span =
      detail::require_extent(R, "in", in, desc.in.offset, layout_span("in", desc.in, n, batch), sizeof(cl_float2));
  const std::size_t out_span =
      detail::require_extent(R, "out", out, desc.out.offset, layout_span("out", desc.out, n, batch), sizeof(cl_float2));
  if (desc.in_place) {
    require(in() == out(), R, "in-place plan: in and out must be the same buffer");
  } else if (in() == out()) {
    const std::size_t a0 = desc.in.offset, a1 = in_span, b0 = desc.out.offset, b1 = out_span;
    require(a1 <= b0 || b1 <= a0, R,
            "out-of-place plan: in and out are the same buffer and their ranges overlap (use an in-place plan)");
  }

  // Multi-pass plans lease their scratch: the first command waits for the workspace's earlier
  // users, and the workspace goes back with this execution's last use (the queue when it is in
  // order, else the event of the last command).
  std::optional<detail::WorkspaceLease> lease, lease_b;  // lease_b: buffer B on its own (rare)
  const EventList* first_wait = &wait;
  EventList joined;
  const bool ordered = detail::in_order(q);
  if (scratch_bytes > 0) {
    detail::WorkspacePool& pool = detail::workspace_pool();
    lease.emplace(pool.acquire(qc.context, scratch_bytes - scratch_b_bytes, "fft scratch"));
    if (scratch_b_bytes > 0) lease_b.emplace(pool.acquire(qc.context, scratch_b_bytes, "fft scratch"));
    for (const auto* l : {&lease, &lease_b}) {
      if (!*l) continue;
      const EventList before = (*l)->waits(q);
      if (before.empty()) continue;
      if (first_wait == &wait) joined = wait;
      joined.insert(joined.end(), before.begin(), before.end());
      first_wait = &joined;
    }
  }
  auto scratch = [&](Buf b) -> const cl::Buffer& {
    return b == Buf::B && lease_b ? lease_b->buffer() : lease->buffer();
  };
  cl::Event done;
  detail::Chain chain(q, *first_wait, lease && !ordered ? &done : event, ordered);
  try {
    const float scale = dir > 0 ? scale_fwd : scale_inv;
    const std::size_t launches = ((batch + chunk - 1) / chunk) * stages.size();
    std::size_t index = 0;
    for (std::size_t c0 = 0; c0 < batch; c0 += chunk) {
      const std::size_t cnt = std::min(chunk, batch - c0);
      for (const Stage& s : stages) {
        // User sides move to the chunk's first transform; scratch sides start at their region.
        const cl::Buffer& bin = s.in_buf == Buf::User ? in : scratch(s.in_buf);
        const cl::Buffer& bout = s.out_buf == Buf::User ? out : scratch(s.out_buf);
        const std::size_t in_off =
            static_cast<std::size_t>(s.in_off) + (s.in_buf == Buf::User ? c0 * desc.in.distance : 0);
        const std::size_t out_off =
            static_cast<std::size_t>(s.out_off) + (s.out_buf == Buf::User ? c0 * desc.out.distance : 0);
        // The arguments both entry points take: the two sides, the conjugations and the scale.
        auto sides = [&](detail::Args& a) -> detail::Args& {
          return a.buffer("in", bin)
              .index("in_off", in_off)
              .index("in_dh", static_cast<std::size_t>(s.in_dh))
              .index("in_S", static_cast<std::size_t>(s.in_S))
              .buffer("out", bout)
              .index("out_off", out_off)
              .index("out_dh", static_cast<std::size_t>(s.out_dh))
              .index("out_S", static_cast<std::size_t>(s.out_S))
              .f32("cj_in", sign_value(s.cj_in, dir))
              .f32("cj_out", sign_value(s.cj_out, dir))
              .f32("scale", s.scaled ? scale : 1.0f);
        };
        if (s.rader) {  // groups per transform: the gather's, or those of n outputs
          const std::size_t wg = static_cast<std::size_t>(s.cfg.at("FFT_RADER_WG"));
          const std::size_t groups = s.rader == 1 ? static_cast<std::size_t>(rader_groups) : (n + wg - 1) / wg;
          const detail::KernelSignature& sig = s.rader == 1 ? detail::kFftRaderIn : detail::kFftRaderOut;
          cl::Kernel k = detail::get_kernel(s.program, sig.kernel);
          detail::Args a(k, sig, s.shape.long_index);
          sides(a).buffer("perm", s.perm).buffer("side", lease->buffer()).index("side_off", side_off).finish();
          chain.kernel(k, cl::NDRange(groups * cnt * wg), cl::NDRange(wg), ++index == launches, s.role);
          continue;
        }
        if (s.lanes) {  // one row of the chunk's transforms, or a row per transform (two launches)
          const std::size_t lanes = static_cast<std::size_t>(s.cfg.at("FFT_LANES"));
          const std::size_t count = s.lane_count > 0 ? static_cast<std::size_t>(s.lane_count) : cnt;
          cl::Kernel k = detail::get_kernel(s.program, detail::kFftLanes.kernel);
          detail::Args a(k, detail::kFftLanes, s.shape.long_index);
          sides(a.i32("count", static_cast<long long>(count)))
              .index("in_dc", static_cast<std::size_t>(s.in_dc))
              .index("out_dc", static_cast<std::size_t>(s.out_dc))
              .buffer("tw", s.twl)
              .buffer("tw2", s.tw2() ? s.tw2 : dummy)
              .buffer("tab", s.tab() ? s.tab : dummy)
              .finish();
          chain.kernel(k, cl::NDRange((count + lanes - 1) / lanes, s.lane_count > 0 ? cnt : 1), cl::NDRange(1, 1),
                       ++index == launches, s.role);
          continue;
        }
        const std::size_t total = cnt * s.shape.split_l;
        cl::Kernel k = detail::get_kernel(s.program, detail::kFftLocal.kernel);  // this thread's kernel object
        detail::Args a(k, detail::kFftLocal, s.shape.long_index);
        sides(a.i32("total", static_cast<long long>(total)))
            .i32("in_len", s.in_len)
            .i32("out_len", s.out_len)
            .buffer("twl", s.twl() ? s.twl : dummy)
            .buffer("tw_hi", s.tw_hi() ? s.tw_hi : dummy)
            .buffer("tw_lo", s.tw_lo() ? s.tw_lo : dummy)
            .i32("tw_shift", s.tw_shift)
            .buffer("aux_in", s.aux_in() ? s.aux_in : dummy)
            .buffer("aux_out", s.aux_out() ? s.aux_out : dummy)
            .buffer("bq", s.bq() ? s.bq : dummy)
            .buffer("tw_b", s.tw_b() ? s.tw_b : dummy)
            .finish();
        const std::size_t wg = s.shape.work_group();
        const std::size_t groups = (total + s.shape.b - 1) / s.shape.b;
        chain.kernel(k, cl::NDRange(groups * wg), cl::NDRange(wg), ++index == launches, s.role);
      }
    }
  } catch (...) {
    // Commands of this execution may still use the scratch: let them finish before the
    // workspace goes back.
    if (lease) clFinish(q());
    throw;
  }
  if (lease && ordered) {
    lease->used_on(q);
    if (lease_b) lease_b->used_on(q);
  } else if (lease) {
    lease->used_until({done});
    if (lease_b) lease_b->used_until({done});
    if (event != nullptr) *event = done;
  }
}

namespace {

// The description with its arguments checked and the default distances filled in.
FftDesc checked_desc(const FftDesc& d) {
  using detail::require;
  const char* R = kRoutine;
  require(d.n >= 1, R, "n must be at least 1 (got 0)");
  require(d.batch >= 1, R, "batch must be at least 1 (got 0)");
  require(d.n <= (std::size_t{1} << 27), R, "n must be at most 2^27 (got " + std::to_string(d.n) + ")");
  require(d.batch <= static_cast<std::size_t>(INT_MAX), R, "batch must be below 2^31");
  require(d.n <= (std::size_t{1} << 23) || detail::fft_smooth(d.n), R,
          "lengths with a prime factor above 13 (Bluestein) must be at most 2^23 (got " + std::to_string(d.n) + ")");
  require(d.in.stride >= 1, R, "in.stride must be at least 1 (got 0)");
  FftDesc desc = d;
  if (desc.in.distance == 0) desc.in.distance = detail::mul_or_throw(desc.n, desc.in.stride, R, "n * in.stride");
  if (desc.in_place) {
    const FftLayout& o = d.out;
    const bool untouched = o.stride == 1 && o.distance == 0 && o.offset == 0;
    const bool same = o.stride == d.in.stride && (o.distance == d.in.distance || o.distance == desc.in.distance) &&
                      o.offset == d.in.offset;
    require(untouched || same, R, "in-place plan: the output layout must equal the input layout (or be left default)");
    desc.out = desc.in;
  } else {
    require(desc.out.stride >= 1, R, "out.stride must be at least 1 (got 0)");
    if (desc.out.distance == 0) desc.out.distance = detail::mul_or_throw(desc.n, desc.out.stride, R, "n * out.stride");
  }
  // Spans first (checked arithmetic), so that the disjointness test below cannot wrap.
  const std::size_t big = std::size_t{1} << 40;
  for (const auto& [side, l] : {std::pair<const char*, const FftLayout*>{"in", &desc.in}, {"out", &desc.out}}) {
    const std::size_t end = detail::add_or_throw(l->offset, layout_span(side, *l, desc.n, desc.batch), R,
                                                 std::string(side) + ".offset plus the layout's extent");
    require(end < big, R,
            std::string(side) + " layout spans more than 2^40 elements (offset " + std::to_string(l->offset) +
                ", stride " + std::to_string(l->stride) + ", distance " + std::to_string(l->distance) + ")");
  }
  require(transforms_disjoint(desc.out, desc.n, desc.batch), R,
          std::string(desc.in_place ? "in-place layout" : "output layout") + " makes transforms overlap (stride " +
              std::to_string(desc.out.stride) + ", distance " + std::to_string(desc.out.distance) + ", n " +
              std::to_string(desc.n) + ", batch " + std::to_string(desc.batch) +
              "): need distance >= (n-1)*stride+1 or stride >= (batch-1)*distance+1");
  return desc;
}

}  // namespace

FftPlan::FftPlan(cl::CommandQueue& queue, const FftDesc& d, const Tuning& tuning) : impl_(std::make_unique<Impl>()) {
  const FftDesc desc = checked_desc(d);
  detail::check_override_names(kRoutine, tuning, {kRoutine, "fft_lanes", "fft_rader"});
  Impl& im = *impl_;
  im.queue = queue;
  im.qc = detail::queue_context_of(queue);
  im.desc = desc;
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
  im.scale_fwd = static_cast<float>(factor(desc.forward_scaling));
  im.scale_inv = static_cast<float>(factor(desc.inverse_scaling));
  im.build(tuning);
  im.dummy = detail::device_buffer(im.qc.context, CL_MEM_READ_WRITE, 16, "fft placeholder");
  im.compile();
}

void detail::fft_build_programs(const QueueContext& qc, const FftDesc& desc, const Tuning& tuning) {
  FftPlan::Impl im;
  im.qc = qc;
  im.desc = checked_desc(desc);
  im.build(tuning);
  im.compile();
}

FftPlan::~FftPlan() = default;
FftPlan::FftPlan(FftPlan&&) noexcept = default;
FftPlan& FftPlan::operator=(FftPlan&&) noexcept = default;

void FftPlan::forward(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list, cl::Event* event) const {
  impl_->run(impl_->queue, +1, in, out, wait_list, event);
}
void FftPlan::inverse(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list, cl::Event* event) const {
  impl_->run(impl_->queue, -1, in, out, wait_list, event);
}
void FftPlan::forward(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  detail::require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  impl_->run(impl_->queue, +1, data, data, wait_list, event);
}
void FftPlan::inverse(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  detail::require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  impl_->run(impl_->queue, -1, data, data, wait_list, event);
}
void FftPlan::forward(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list,
                      cl::Event* event) const {
  impl_->run(queue, +1, in, out, wait_list, event);
}
void FftPlan::inverse(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list,
                      cl::Event* event) const {
  impl_->run(queue, -1, in, out, wait_list, event);
}

const FftDesc& FftPlan::desc() const { return impl_->desc; }
std::string FftPlan::describe() const { return impl_->how; }
std::size_t FftPlan::launches() const {
  return ((impl_->desc.batch + impl_->chunk - 1) / impl_->chunk) * impl_->stages.size();
}
std::size_t FftPlan::scratch_bytes() const { return impl_->scratch_bytes; }
std::vector<Configuration> FftPlan::configurations() const {
  std::vector<Configuration> v;
  for (const auto& s : impl_->stages) v.push_back(s.cfg);
  return v;
}

}  // namespace clforge
