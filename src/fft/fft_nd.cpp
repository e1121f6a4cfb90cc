// Multi-dimensional complex FFT plan (docs/fft.md "Multi-dimensional transforms"): one 1-D
// complex plan per axis, run one after the other, the last axis first. Each pass enumerates the
// other axes and the batch as levels (count, input distance, output distance); levels that nest
// contiguously merge; the one of adjacent transforms (or the largest) becomes the 1-D plan's
// batch and the rest its repeats (FftSteps::repeats; the largest of them runs inside each launch
// where the pass is one kernel: FftSteps::in_kernel). The argument checks, the steps and the execution are the complex
// plan's.
#include <array>

#include "fft/fft_nd_parts.hpp"

namespace clforge {

struct FftNdPlan::Impl {
  FftNdDesc desc;
  std::size_t in_span = 0, out_span = 0;  // elements each side spans from its offset
  struct Pass {
    std::size_t axis;
    FftPlan::Impl plan;  // its steps carry the pass' repeats
  };
  std::vector<Pass> passes;  // one per axis longer than 1 (at least one), the last axis first
};

namespace fft_plan_parts {

// The layout's axes and batch as region axes (padded with single positions to kMaxRank + 1).
std::size_t nd_span(const char* side, const FftNdLayout& l, const std::vector<std::size_t>& shape, std::size_t batch) {
  const std::string s(side);
  const std::string d = s + ".distance", t = s + ".strides";
  std::array<detail::Axis, kMaxRank> a{};
  for (std::size_t k = 0; k < kMaxRank; ++k)
    a[k] = k < shape.size() ? detail::Axis{shape[k], l.strides[k], t.c_str()} : detail::Axis{1, 1, t.c_str()};
  return detail::region_span(kRoutine, {{batch, l.distance, d.c_str()}, a[0], a[1], a[2]});
}

FftNdLayout checked_nd_layout(const char* side, FftNdLayout l, const std::vector<std::size_t>& shape,
                              std::size_t batch) {
  const std::string s(side);
  const std::size_t rank = shape.size();
  if (l.strides.empty()) {
    l.strides.assign(rank, 1);
    for (std::size_t k = rank - 1; k > 0; --k)
      l.strides[k - 1] = detail::mul_or_throw(l.strides[k], shape[k], kRoutine, s + "'s default strides");
  }
  detail::require(l.strides.size() == rank, kRoutine,
                  s + ".strides must hold one stride per axis (" + std::to_string(rank) + ", got " +
                      std::to_string(l.strides.size()) + ")");
  for (std::size_t k = 0; k < rank; ++k)
    detail::require(l.strides[k] >= 1, kRoutine, s + ".strides[" + std::to_string(k) + "] must be at least 1 (got 0)");
  if (l.distance == 0)
    for (std::size_t k = 0; k < rank; ++k)
      l.distance =
          std::max(l.distance, detail::mul_or_throw(shape[k], l.strides[k], kRoutine, s + "'s default distance"));
  const std::size_t end =
      detail::add_or_throw(l.offset, nd_span(side, l, shape, batch), kRoutine, s + ".offset plus the layout's extent");
  detail::require(end < (std::size_t{1} << 40), kRoutine, s + " layout spans more than 2^40 elements");
  return l;
}

// Its strides and distance (positions of one excluded), sorted, must each exceed the extent of
// the smaller ones.
void require_nd_disjoint(const char* what, const FftNdLayout& l, const std::vector<std::size_t>& shape,
                         std::size_t batch) {
  std::vector<std::pair<std::size_t, std::size_t>> v;  // (stride, count)
  if (batch > 1) v.push_back({l.distance, batch});
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (shape[k] > 1) v.push_back({l.strides[k], shape[k]});
  std::sort(v.begin(), v.end());
  std::size_t extent = 0;  // largest offset of the smaller steps; below 2^40 (checked span)
  for (const auto& [stride, count] : v) {
    detail::require(
        stride > extent, kRoutine,
        std::string(what) + " makes elements overlap: each stride and the distance, sorted, must exceed the " +
            "extent of the smaller ones (stride " + std::to_string(stride) + " <= " + std::to_string(extent) + ")");
    extent += (count - 1) * stride;
  }
}

std::vector<Level> pass_levels(const FftNdDesc& d, const FftNdLayout& in, std::size_t axis) {
  std::vector<Level> v;
  if (d.batch > 1) v.push_back({d.batch, in.distance, d.out.distance});
  for (std::size_t k = 0; k < d.shape.size(); ++k)
    if (k != axis && d.shape[k] > 1) v.push_back({d.shape[k], in.strides[k], d.out.strides[k]});
  for (bool merged = true; merged;) {  // counts and steps below 2^41: the spans were checked
    merged = false;
    for (std::size_t a = 0; a < v.size() && !merged; ++a)
      for (std::size_t b = 0; b < v.size() && !merged; ++b) {
        const bool nests = a != b && v[a].in == v[b].count * v[b].in && v[a].out == v[b].count * v[b].out &&
                           v[a].count * v[b].count <= static_cast<std::size_t>(INT_MAX);
        if (!nests) continue;
        v[b].count *= v[a].count;
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(a));
        merged = true;
      }
  }
  std::stable_sort(v.begin(), v.end(), [](const Level& x, const Level& y) { return x.count > y.count; });
  // The batch: the level of adjacent transforms where it has enough of them (their elements
  // coalesce on GPUs and fill vector lanes on CPUs), else the largest.
  const auto adjacent =
      std::min_element(v.begin(), v.end(), [](const Level& x, const Level& y) { return x.in < y.in; });
  if (adjacent != v.end() && adjacent->count >= kAdjacentBatch) std::rotate(v.begin(), adjacent, adjacent + 1);
  return v;
}

Level split_levels(const std::vector<Level>& levels, std::vector<Repeat>& repeats, std::size_t& in_offset,
                   std::size_t& out_offset) {
  repeats.clear();
  for (std::size_t i = 1; i < levels.size(); ++i) {
    const Level& l = levels[i];
    repeats.push_back({l.count, l.in, l.out});
    in_offset += (l.count - 1) * l.in;  // within the checked span
    out_offset += (l.count - 1) * l.out;
  }
  return levels.empty() ? Level{1, 0, 0} : levels.front();
}

// At the offsets of the repeats' last position.
FftDesc pass_desc(const FftNdDesc& d, std::size_t axis, bool first, std::vector<Repeat>& repeats) {
  const FftNdLayout& in = first ? d.in : d.out;
  FftDesc p;
  p.in.offset = in.offset;
  p.out.offset = d.out.offset;
  const Level batch = split_levels(pass_levels(d, in, axis), repeats, p.in.offset, p.out.offset);
  p.n = d.shape[axis];
  p.batch = batch.count;
  p.in_place = d.in_place || !first;
  p.in = {in.strides[axis], batch.in, p.in.offset};
  p.out = {d.out.strides[axis], batch.out, p.out.offset};
  if (p.in_place) p.out = p.in;
  p.forward_scaling = d.forward_scaling;
  p.inverse_scaling = d.inverse_scaling;
  return p;
}

}  // namespace fft_plan_parts

namespace {

using detail::require;

bool is_default(const FftNdLayout& l) { return l.strides.empty() && l.distance == 0 && l.offset == 0; }

FftNdDesc checked_nd_desc(const FftNdDesc& d) {
  const std::size_t rank = d.shape.size();
  require(rank >= 1 && rank <= kMaxRank, kRoutine, "shape must have 1 to 3 axes (got " + std::to_string(rank) + ")");
  for (std::size_t n : d.shape) check_length(n, d.batch);
  FftNdDesc r = d;
  r.in = checked_nd_layout("in", d.in, d.shape, d.batch);
  if (d.in_place) {
    const FftNdLayout& o = d.out;
    const bool same = (o.strides.empty() || o.strides == r.in.strides) &&
                      (o.distance == 0 || o.distance == r.in.distance) && o.offset == r.in.offset;
    require(is_default(o) || same, kRoutine,
            "in-place plan: the output layout must equal the input layout (or be left default)");
    r.out = r.in;
  } else {
    r.out = checked_nd_layout("out", d.out, d.shape, d.batch);
  }
  require_nd_disjoint(d.in_place ? "in-place layout" : "output layout", r.out, d.shape, d.batch);
  return r;
}

void run(const FftNdPlan::Impl& im, cl::CommandQueue& q, int dir, const cl::Buffer& in, const cl::Buffer& out,
         const EventList& wait, cl::Event* event) {
  const FftNdDesc& d = im.desc;
  im.passes.front().plan.check_queue(q);
  check_io_extents(d.in_place, {"in", in, d.in.offset, im.in_span, sizeof(cl_float2)},
                   {"out", out, d.out.offset, im.out_span, sizeof(cl_float2)});
  EventList before = wait;
  for (std::size_t i = 0; i < im.passes.size(); ++i) {
    const FftPlan::Impl& p = im.passes[i].plan;
    const bool last = i + 1 == im.passes.size();
    cl::Event done;
    p.execute(q, dir, p.steps, i == 0 ? in : out, out, p.desc.in.distance, p.desc.out.distance,
              dir > 0 ? p.scale_fwd : p.scale_inv, before, last ? event : &done);
    if (!last) before = {done};
  }
}

}  // namespace

FftNdPlan::FftNdPlan(const cl::CommandQueue& queue, const FftNdDesc& d, const Tuning& tuning) {
  auto im = std::make_shared<Impl>();
  im->desc = checked_nd_desc(d);
  const FftNdDesc& c = im->desc;
  im->in_span = nd_span("in", c.in, c.shape, c.batch);
  im->out_span = nd_span("out", c.out, c.shape, c.batch);
  // A pass per axis longer than 1, the last axis first (one pass at least: out of place, the
  // first pass writes the output); every pass' description checked before the first one builds.
  std::vector<std::size_t> axes;
  for (std::size_t k = c.shape.size(); k-- > 0;)
    if (c.shape[k] > 1 || (k == 0 && axes.empty())) axes.push_back(k);
  std::vector<FftDesc> descs;
  std::vector<std::vector<Repeat>> repeats(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    descs.push_back(pass_desc(c, axes[i], i == 0, repeats[i]));
    checked_desc(descs.back());
  }
  for (std::size_t i = 0; i < descs.size(); ++i) {
    Impl::Pass p{axes[i], {}};
    p.plan.build(queue, descs[i], tuning);
    set_repeats(p.plan.steps, p.plan.desc, *p.plan.qc.info, repeats[i]);
    im->passes.push_back(std::move(p));
  }
  impl_ = std::move(im);
}

FftNdPlan::~FftNdPlan() = default;
FftNdPlan::FftNdPlan(const FftNdPlan&) = default;
FftNdPlan& FftNdPlan::operator=(const FftNdPlan&) = default;
FftNdPlan::FftNdPlan(FftNdPlan&&) noexcept = default;
FftNdPlan& FftNdPlan::operator=(FftNdPlan&&) noexcept = default;

void FftNdPlan::enqueue(cl::CommandQueue& queue, FftDirection direction, const cl::Buffer& in, const cl::Buffer& out,
                        const EventList& wait_list, cl::Event* event) const {
  run(*impl_, queue, direction == FftDirection::Forward ? +1 : -1, in, out, wait_list, event);
}
void FftNdPlan::forward(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list,
                        cl::Event* event) const {
  enqueue(impl_->passes.front().plan.queue, FftDirection::Forward, in, out, wait_list, event);
}
void FftNdPlan::inverse(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list,
                        cl::Event* event) const {
  enqueue(impl_->passes.front().plan.queue, FftDirection::Inverse, in, out, wait_list, event);
}
void FftNdPlan::forward(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  forward(data, data, wait_list, event);
}
void FftNdPlan::inverse(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  inverse(data, data, wait_list, event);
}

const FftNdDesc& FftNdPlan::desc() const { return impl_->desc; }

std::string FftNdPlan::describe() const {
  std::string s;
  for (const Impl::Pass& p : impl_->passes)
    s += (s.empty() ? "" : "; ") + std::string("axis ") + std::to_string(p.axis) + ": " + p.plan.steps.how +
         positions_text(p.plan.steps);
  return s;
}

std::size_t FftNdPlan::launches() const {
  std::size_t n = 0;
  for (const Impl::Pass& p : impl_->passes) n += steps_launches(p.plan, p.plan.steps);
  return n;
}

std::size_t FftNdPlan::scratch_bytes() const {
  std::size_t b = 0;
  for (const Impl::Pass& p : impl_->passes) b = std::max(b, p.plan.steps.scratch.bytes);
  return b;
}

}  // namespace clforge
