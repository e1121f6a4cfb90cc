// FFT plan: argument checks, execution (fft_local launches chunk by chunk), the public
// FftPlan methods and the host-vector fft(); the plan's decomposition and tables are built in
// fft_plan_build.cpp.
#include "fft/fft_plan_impl.hpp"

namespace clforge {

void FftPlan::Impl::run(int dir, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait,
                        cl::Event* event) const {
  using detail::require;
  const char* R = kRoutine;
  const std::size_t n = desc.n, batch = desc.batch;
  const std::size_t in_span = detail::require_extent(R, "in", in, desc.in.offset, layout_span("in", desc.in, n, batch),
                                                    sizeof(cl_float2));
  const std::size_t out_span = detail::require_extent(R, "out", out, desc.out.offset,
                                                     layout_span("out", desc.out, n, batch), sizeof(cl_float2));
  if (desc.in_place) {
    require(in() == out(), R, "in-place plan: in and out must be the same buffer");
  } else if (in() == out()) {
    const std::size_t a0 = desc.in.offset, a1 = in_span, b0 = desc.out.offset, b1 = out_span;
    require(a1 <= b0 || b1 <= a0, R,
            "out-of-place plan: in and out are the same buffer and their ranges overlap (use an in-place plan)");
  }

  const float scale = dir > 0 ? scale_fwd : scale_inv;
  std::vector<cl::Event> deps = wait;
  const std::size_t chunks = (batch + chunk - 1) / chunk;
  const std::size_t launches = chunks * stages.size();
  std::size_t index = 0;
  for (std::size_t c0 = 0; c0 < batch; c0 += chunk) {
    const std::size_t cnt = std::min(chunk, batch - c0);
    for (const Stage& s : stages) {
      cl::Kernel k = detail::get_kernel(s.program, "fft_local");
      const cl::Buffer& bin = s.in_buf == Buf::User ? in : scratch[s.in_buf == Buf::A ? 0 : 1];
      const cl::Buffer& bout = s.out_buf == Buf::User ? out : scratch[s.out_buf == Buf::A ? 0 : 1];
      const long long in_off = s.in_off + (s.in_buf == Buf::User ? static_cast<long long>(c0 * desc.in.distance) : 0);
      const long long out_off =
          s.out_off + (s.out_buf == Buf::User ? static_cast<long long>(c0 * desc.out.distance) : 0);
      const cl_int total = static_cast<cl_int>(cnt * s.shape.split_l);
      auto idx = [&](cl_uint i, long long v) {
        const cl_int st = s.shape.long_index ? k.setArg(i, static_cast<cl_long>(v)) : k.setArg(i, static_cast<cl_int>(v));
        if (st != CL_SUCCESS) throw OpenCLError(st, "clSetKernelArg", "fft argument " + std::to_string(i));
      };
      detail::set_args(k, total, bin);
      idx(2, in_off);
      idx(3, s.in_dh);
      idx(4, s.in_S);
      detail::set_args_from(k, 5, static_cast<cl_int>(s.in_len), bout);
      idx(7, out_off);
      idx(8, s.out_dh);
      idx(9, s.out_S);
      detail::set_args_from(k, 10, static_cast<cl_int>(s.out_len), sign_value(s.cj_in, dir), sign_value(s.cj_out, dir),
                            s.scaled ? scale : 1.0f, s.twl() ? s.twl : dummy, s.tw_hi() ? s.tw_hi : dummy,
                            s.tw_lo() ? s.tw_lo : dummy, static_cast<cl_int>(s.tw_shift),
                            s.aux_in() ? s.aux_in : dummy, s.aux_out() ? s.aux_out : dummy, s.bq() ? s.bq : dummy,
                            s.tw_b() ? s.tw_b : dummy);
      const std::size_t wg = s.shape.work_group();
      const std::size_t groups = (static_cast<std::size_t>(total) + s.shape.b - 1) / s.shape.b;
      const bool last = ++index == launches;
      cl::Event e;
      const bool want = !in_order || (last && event != nullptr);
      detail::launch(const_cast<cl::CommandQueue&>(queue), k, cl::NDRange(groups * wg), cl::NDRange(wg),
                     deps.empty() ? nullptr : &deps, want ? &e : nullptr, s.role);
      deps.clear();
      if (!in_order) deps.push_back(e);
      if (last && event != nullptr) *event = e;
    }
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
    require(end < big, R, std::string(side) + " layout spans more than 2^40 elements (offset " +
                              std::to_string(l->offset) + ", stride " + std::to_string(l->stride) + ", distance " +
                              std::to_string(l->distance) + ")");
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
  detail::check_override_names(kRoutine, tuning, {kRoutine});
  Impl& im = *impl_;
  im.queue = queue;
  im.qc = detail::queue_context_of(queue);
  im.desc = desc;
  cl_command_queue_properties props = 0;
  detail::check(queue.getInfo(CL_QUEUE_PROPERTIES, &props), "clGetCommandQueueInfo");
  im.in_order = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
  auto factor = [&](FftScaling s) {
    switch (s) {
      case FftScaling::None: return 1.0;
      case FftScaling::OverN: return 1.0 / static_cast<double>(desc.n);
      case FftScaling::OverSqrtN: return 1.0 / std::sqrt(static_cast<double>(desc.n));
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
  impl_->run(+1, in, out, wait_list, event);
}
void FftPlan::inverse(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list, cl::Event* event) const {
  impl_->run(-1, in, out, wait_list, event);
}
void FftPlan::forward(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  detail::require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  impl_->run(+1, data, data, wait_list, event);
}
void FftPlan::inverse(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  detail::require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  impl_->run(-1, data, data, wait_list, event);
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

std::vector<std::complex<float>> fft(cl::CommandQueue& queue, const std::vector<std::complex<float>>& x, std::size_t n,
                                     bool inverse, const Tuning& tuning) {
  detail::require(n >= 1, kRoutine, "n must be at least 1 (got 0)");
  detail::require(!x.empty() && x.size() % n == 0, kRoutine,
                  "host vector holds " + std::to_string(x.size()) + " elements, not a positive multiple of n = " +
                      std::to_string(n));
  FftDesc d;
  d.n = n;
  d.batch = x.size() / n;
  FftPlan plan(queue, d, tuning);  // every argument is checked here, before anything is allocated
  const cl::Context ctx = detail::queue_context(queue);
  const std::size_t bytes = detail::mul_or_throw(x.size(), sizeof(std::complex<float>), kRoutine, "the vector's bytes");
  const cl::Buffer bin = detail::upload(ctx, CL_MEM_READ_ONLY, x.data(), bytes, "fft input");
  const cl::Buffer bout = detail::device_buffer(ctx, CL_MEM_READ_WRITE, bytes, "fft output");
  cl::Event done;
  if (inverse) plan.inverse(bin, bout, {}, &done);
  else plan.forward(bin, bout, {}, &done);
  std::vector<std::complex<float>> y(x.size());
  detail::download(queue, bout, bytes, y.data(), {done}, "fft output");
  return y;
}

}  // namespace clforge
