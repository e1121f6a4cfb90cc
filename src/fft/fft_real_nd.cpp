// Real-input multi-dimensional FFT plan (R2C forward, C2R inverse; docs/fft.md "Real input in
// 2-D and 3-D"): the 1-D real-input plan along the last axis (RealFftPlan::Impl, its batch and
// repeats taken from the other axes as FftNdPlan's passes take them) and complex passes along the
// other axes in place on the half spectrum; the inverse runs the complex passes first, out of
// place the first of them into a leased copy of the spectrum, so that the input stays intact.
// Every pass of a direction runs in one Execution on one scratch lease.
#include "fft/fft_nd_parts.hpp"
#include "runtime/execution.hpp"

namespace clforge {

struct RealFftNdPlan::Impl {
  RealFftNdDesc desc;
  std::vector<std::size_t> half;                // the complex side's lengths
  std::size_t real_span = 0, complex_span = 0;  // elements each side spans from its offset
  RealFftPlan::Impl rows;                       // along the last axis; its steps carry the pass' repeats
  struct Pass {
    std::size_t axis;
    FftPlan::Impl plan;  // its steps carry the pass' repeats
  };
  // Complex passes in place on the complex layout, one per other axis longer than 1, the
  // last-but-one axis first.
  std::vector<Pass> columns;
  // Out of place, where there are columns: the inverse's first pass, from the caller's spectrum
  // into the copy (the complex layout in a leased buffer of spectrum_bytes).
  std::optional<Pass> copy;
  std::size_t spectrum_bytes = 0;
  ScratchLayout scratch;  // covers every pass
};

namespace {

using detail::require;

// The real layout of an in-place plan: the first shape.back() floats of each complex row.
FftNdLayout padded_nd_rows(const FftNdLayout& given, const FftNdLayout& c, const std::vector<std::size_t>& shape,
                           std::size_t batch) {
  require(c.strides.back() == 1, kRoutine,
          "in-place real plan: the last of complex.strides must be 1 (padded rows of n/2 + 1 complex values)");
  FftNdLayout rows = c;  // below 2^40 elements (checked): twice that cannot wrap
  for (std::size_t& s : rows.strides) s *= 2;
  rows.strides.back() = 1;
  rows.distance *= 2;
  rows.offset *= 2;
  const bool untouched = given.strides.empty() && given.distance == 0 && given.offset == 0;
  const bool same = given.strides == rows.strides && given.distance == rows.distance && given.offset == rows.offset;
  require(untouched || same, kRoutine,
          "in-place real plan: the real layout must be {2 * complex.strides (the last 1), 2 * complex.distance, "
          "2 * complex.offset} (or be left default)");
  return checked_nd_layout("real", rows, shape, batch);
}

RealFftNdDesc checked_real_nd_desc(const RealFftNdDesc& d, std::vector<std::size_t>& half) {
  const std::size_t rank = d.shape.size();
  require(rank >= 1 && rank <= kMaxRank, kRoutine, "shape must have 1 to 3 axes (got " + std::to_string(rank) + ")");
  for (std::size_t n : d.shape) check_length(n, d.batch);
  half = d.shape;
  half.back() = d.shape.back() / 2 + 1;
  RealFftNdDesc r = d;
  r.complex = checked_nd_layout("complex", d.complex, half, d.batch);
  r.real = d.in_place ? padded_nd_rows(d.real, r.complex, d.shape, d.batch)
                      : checked_nd_layout("real", d.real, d.shape, d.batch);
  require_nd_disjoint(d.in_place ? "in-place layout" : "complex layout", r.complex, half, d.batch);
  require_nd_disjoint("real layout", r.real, d.shape, d.batch);
  return r;
}

// The 1-D real-input description of the pass along the last axis (real side in, complex side
// out) and its repeats, at the offsets of the repeats' last position.
RealFftDesc real_rows_desc(const RealFftNdDesc& d, std::vector<Repeat>& repeats) {
  const std::size_t last = d.shape.size() - 1;
  FftNdDesc sides;
  sides.shape = d.shape;
  sides.batch = d.batch;
  sides.in = d.real;
  sides.out = d.complex;
  std::size_t real_offset = d.real.offset, complex_offset = d.complex.offset;
  const Level b = split_levels(pass_levels(sides, d.real, last), repeats, real_offset, complex_offset);
  RealFftDesc r;
  r.n = d.shape[last];
  r.batch = b.count;
  r.in_place = d.in_place;
  r.complex = {d.complex.strides[last], b.out, complex_offset};
  if (!d.in_place) r.real = {d.real.strides[last], b.in, real_offset};  // in place: implied by the rows
  r.forward_scaling = d.forward_scaling;
  r.inverse_scaling = d.inverse_scaling;
  return r;
}

// The complex passes' description: the half spectrum, in place on the complex layout.
FftNdDesc half_spectrum(const RealFftNdDesc& d, const std::vector<std::size_t>& half) {
  FftNdDesc c;
  c.shape = half;
  c.batch = d.batch;
  c.in = c.out = d.complex;
  c.in_place = true;
  c.forward_scaling = d.forward_scaling;
  c.inverse_scaling = d.inverse_scaling;
  return c;
}

// Builds the passes; every pass' description is checked before the first one builds anything.
void build_real_nd_passes(RealFftNdPlan::Impl& im, const cl::CommandQueue& queue, const Tuning& tuning) {
  const RealFftNdDesc& d = im.desc;
  std::vector<Repeat> row_repeats;
  const RealFftDesc rows = real_rows_desc(d, row_repeats);
  checked_real_desc(rows);
  FftNdDesc cd = half_spectrum(d, im.half);
  std::vector<std::pair<std::size_t, FftDesc>> passes;  // (axis, description)
  std::vector<std::vector<Repeat>> repeats;
  for (std::size_t k = d.shape.size() - 1; k-- > 0;) {
    if (im.half[k] == 1) continue;
    repeats.emplace_back();
    passes.push_back({k, checked_desc(pass_desc(cd, k, false, repeats.back()))});
  }
  const bool copies = !d.in_place && !passes.empty();
  if (copies) {
    cd.in_place = false;
    repeats.emplace_back();
    passes.push_back({passes.front().first, checked_desc(pass_desc(cd, passes.front().first, true, repeats.back()))});
  }
  const bool even_steps =
      std::all_of(row_repeats.begin(), row_repeats.end(), [](const Repeat& r) { return r.in_distance % 2 == 0; });
  im.rows.build(queue, rows, tuning, even_steps);
  im.rows.forward.repeats = row_repeats;
  for (Repeat& r : row_repeats) std::swap(r.in_distance, r.out_distance);  // the inverse reads the complex side
  im.rows.inverse.repeats = row_repeats;
  im.scratch = im.rows.forward.scratch;
  for (std::size_t i = 0; i < passes.size(); ++i) {
    RealFftNdPlan::Impl::Pass p{passes[i].first, {}};
    p.plan.build(queue, passes[i].second, tuning);
    set_repeats(p.plan.steps, p.plan.desc, *p.plan.qc.info, repeats[i]);
    im.scratch = covering(im.scratch, p.plan.steps.scratch);
    if (copies && i + 1 == passes.size())
      im.copy = std::move(p);
    else
      im.columns.push_back(std::move(p));
  }
  if (copies) im.spectrum_bytes = (d.complex.offset + im.complex_span) * sizeof(cl_float2);  // below 2^43
}

// R2C: the rows from the real side to the complex side, then the columns in place there.
void enqueue_real_nd_forward(const RealFftNdPlan::Impl& im, detail::Execution& x, const FftPlan::Impl::Scratch& s,
                             const cl::Buffer& in, const cl::Buffer& out) {
  const RealFftPlan::Impl& r = im.rows;
  r.complex.enqueue_steps(x, s, +1, r.forward, in, out, r.desc.real.distance, r.desc.complex.distance, r.scale_fwd,
                          im.columns.empty());
  for (std::size_t i = 0; i < im.columns.size(); ++i) {
    const FftPlan::Impl& p = im.columns[i].plan;
    p.enqueue_steps(x, s, +1, p.steps, out, out, p.desc.in.distance, p.desc.out.distance, p.scale_fwd,
                    i + 1 == im.columns.size());
  }
}

// C2R: the columns on `spectrum` (the caller's buffer in place or without columns, else the
// copy, which the first pass writes), then the rows from it to the real side.
void enqueue_real_nd_inverse(const RealFftNdPlan::Impl& im, detail::Execution& x, const FftPlan::Impl::Scratch& s,
                             const cl::Buffer& in, const cl::Buffer& spectrum, const cl::Buffer& out) {
  for (std::size_t i = 0; i < im.columns.size(); ++i) {
    const FftPlan::Impl& p = i == 0 && im.copy ? im.copy->plan : im.columns[i].plan;
    p.enqueue_steps(x, s, -1, p.steps, i == 0 ? in : spectrum, spectrum, p.desc.in.distance, p.desc.out.distance,
                    p.scale_inv, false);
  }
  const RealFftPlan::Impl& r = im.rows;
  r.complex.enqueue_steps(x, s, -1, r.inverse, spectrum, out, r.desc.complex.distance, r.desc.real.distance,
                          r.scale_inv, true);
}

void run_real_nd(const RealFftNdPlan::Impl& im, cl::CommandQueue& q, int dir, const cl::Buffer& in,
                 const cl::Buffer& out, const EventList& wait, cl::Event* event) {
  const RealFftNdDesc& d = im.desc;
  const FftPlan::Impl& lead = im.rows.complex;
  lead.check_queue(q);
  const IoExtent real{"real", dir > 0 ? in : out, d.real.offset, im.real_span, sizeof(float)};
  const IoExtent spectrum{"complex", dir > 0 ? out : in, d.complex.offset, im.complex_span, sizeof(cl_float2)};
  if (dir > 0)
    check_io_extents(d.in_place, real, spectrum);
  else
    check_io_extents(d.in_place, spectrum, real);
  detail::Execution x(q, wait, event);
  const FftPlan::Impl::Scratch s = lead.lease(x, im.scratch);
  if (dir > 0) {
    enqueue_real_nd_forward(im, x, s, in, out);
  } else {
    const cl::Buffer& copy =
        im.copy ? x.workspace(lead.qc.context, im.spectrum_bytes, "fft real spectrum") : in;  // in place: in == out
    enqueue_real_nd_inverse(im, x, s, in, copy, out);
  }
  x.finish();
}

}  // namespace

RealFftNdPlan::RealFftNdPlan(const cl::CommandQueue& queue, const RealFftNdDesc& d, const Tuning& tuning) {
  auto im = std::make_shared<Impl>();
  im->desc = checked_real_nd_desc(d, im->half);
  const RealFftNdDesc& c = im->desc;
  im->real_span = nd_span("real", c.real, c.shape, c.batch);
  im->complex_span = nd_span("complex", c.complex, im->half, c.batch);
  build_real_nd_passes(*im, queue, tuning);
  impl_ = std::move(im);
}

RealFftNdPlan::~RealFftNdPlan() = default;
RealFftNdPlan::RealFftNdPlan(const RealFftNdPlan&) = default;
RealFftNdPlan& RealFftNdPlan::operator=(const RealFftNdPlan&) = default;
RealFftNdPlan::RealFftNdPlan(RealFftNdPlan&&) noexcept = default;
RealFftNdPlan& RealFftNdPlan::operator=(RealFftNdPlan&&) noexcept = default;

void RealFftNdPlan::enqueue(cl::CommandQueue& queue, FftDirection direction, const cl::Buffer& in,
                            const cl::Buffer& out, const EventList& wait_list, cl::Event* event) const {
  run_real_nd(*impl_, queue, direction == FftDirection::Forward ? +1 : -1, in, out, wait_list, event);
}
void RealFftNdPlan::forward(const cl::Buffer& real, const cl::Buffer& complex, const EventList& wait_list,
                            cl::Event* event) const {
  enqueue(impl_->rows.complex.queue, FftDirection::Forward, real, complex, wait_list, event);
}
void RealFftNdPlan::inverse(const cl::Buffer& complex, const cl::Buffer& real, const EventList& wait_list,
                            cl::Event* event) const {
  enqueue(impl_->rows.complex.queue, FftDirection::Inverse, complex, real, wait_list, event);
}
void RealFftNdPlan::forward(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  forward(data, data, wait_list, event);
}
void RealFftNdPlan::inverse(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  inverse(data, data, wait_list, event);
}

const RealFftNdDesc& RealFftNdPlan::desc() const { return impl_->desc; }

std::string RealFftNdPlan::describe() const {
  const Impl& im = *impl_;
  std::string s = "axis " + std::to_string(im.desc.shape.size() - 1) + " (real): " + im.rows.forward.how +
                  positions_text(im.rows.forward);
  for (const Impl::Pass& p : im.columns)
    s += "; axis " + std::to_string(p.axis) + ": " + p.plan.steps.how + positions_text(p.plan.steps);
  if (im.copy) s += "; the inverse's first pass into a copy of the spectrum (" + im.copy->plan.steps.how + ")";
  return s;
}

std::size_t RealFftNdPlan::launches(FftDirection direction) const {
  const RealFftPlan::Impl& rows = impl_->rows;
  std::size_t n = steps_launches(rows.complex, direction == FftDirection::Forward ? rows.forward : rows.inverse);
  for (const Impl::Pass& p : impl_->columns) n += steps_launches(p.plan, p.plan.steps);
  return n;
}

std::size_t RealFftNdPlan::scratch_bytes() const { return impl_->scratch.bytes + impl_->spectrum_bytes; }

}  // namespace clforge
