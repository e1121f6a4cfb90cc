// FFT routes of the CPU lane kernel (cl/fft/fft_lanes.cl): one launch, Bluestein in one launch,
// and long lengths in two launches (four for Bluestein and Rader) through scratch buffers.
#include "fft/fft_plan_builder.hpp"

namespace clforge::fft_plan_parts {

namespace {

// Radices of one lane launch of length len (empty: none, a prime factor above 13 or more than
// 8 passes).
std::vector<int> lane_radices(const Configuration& lanes, std::size_t len) {
  if (!detail::fft_smooth(len)) return {};
  std::vector<int> r = detail::fft_radices(len, lanes.at("FFT_LANE_RADIX"), 0);
  return r.size() <= 8 ? r : std::vector<int>{};
}

// The split of len into two launches of FFT_LANES2 transforms per work-item: n1, or 0 where none.
// The last split found is the most even one.
std::size_t lane_split(const Configuration& lanes, std::size_t len) {
  const std::size_t L = static_cast<std::size_t>(lanes.at("FFT_LANES2"));
  const std::size_t lane_min = static_cast<std::size_t>(lanes.at("FFT_LANE_MIN"));
  const std::size_t lane_max = static_cast<std::size_t>(lanes.at("FFT_LANE_MAX"));
  std::size_t r = 0;
  for (std::size_t d = L; d * d <= len; d += L) {
    if (len % d != 0 || (len / d) % L != 0 || len / d > lane_max || d < lane_min || len / d < lane_min) continue;
    if (!lane_radices(lanes, d).empty() && !lane_radices(lanes, len / d).empty()) r = len / d;
  }
  return r;
}

// Does a configuration's value come from someone's choice (the user database, a tuning file, an
// override) rather than a shipped row or the built-in default?
bool chosen(const std::string& source) { return source.rfind("shipped", 0) != 0 && source.rfind("built-in", 0) != 0; }

}  // namespace

// The lane kernel where its row asks for it. fft_local parameters that someone chose for this
// length (a `clforge tune fft` result) take precedence over a shipped lane row; a lane row chosen
// the same way over them. Rader (fft_rader.cpp) where n - 1 splits into two launches: with
// FFT_RADER 1 where Bluestein takes more than one launch, with 2 always.
LaneFacts FftPlanBuilder::lane_facts() const {
  const std::size_t n = desc_.n;
  LaneFacts f;
  f.cfg = resolve_configuration("fft_lanes", std::to_string(n), dev_, detail::overrides_for(all_, "fft_lanes"));
  bool local_chosen = false;
  for (const auto& [name, source] : top_.sources) local_chosen = local_chosen || chosen(source);
  f.enabled = f.cfg.at("FFT_LANES") != 0 && (!local_chosen || chosen(f.cfg.sources.at("FFT_LANES")));
  if (!f.enabled) return f;
  const std::size_t lane_min = static_cast<std::size_t>(f.cfg.at("FFT_LANE_MIN"));
  const std::size_t lane_max = static_cast<std::size_t>(f.cfg.at("FFT_LANE_MAX"));
  f.one_length = smooth_ ? n : detail::fft_bluestein_length(n);
  f.one_launch = f.one_length >= lane_min && f.one_length <= lane_max && !lane_radices(f.cfg, f.one_length).empty();
  f.rader = !smooth_ && (rader_mode_ == 2 || (rader_mode_ == 1 && !f.one_launch)) && lane_split(f.cfg, n - 1) != 0;
  if (f.one_launch && !f.rader) return f;
  if (f.one_length <= lane_max && !f.rader) return f;
  // Two launches. Bluestein's convolution length: the first multiple of L^2 from 2n - 1 on that
  // splits so (about half the power of two for 65537: 133120 = 416 x 320 against 2^18). Rader's
  // convolution is n - 1 points.
  if (smooth_ || f.rader) {
    f.length = smooth_ ? n : n - 1;
    f.n1 = lane_split(f.cfg, f.length);
    return f;
  }
  const std::size_t L = static_cast<std::size_t>(f.cfg.at("FFT_LANES2"));
  const std::size_t step = L * L;
  for (std::size_t c = (2 * n - 1 + step - 1) / step * step; c < 4 * n && f.n1 == 0; c += step) {
    f.n1 = lane_split(f.cfg, c);
    if (f.n1 != 0) f.length = c;
  }
  return f;
}

Stage FftPlanBuilder::lane_stage(std::size_t len, int width) {
  Stage s;
  s.kernel.kind = KernelKind::Lanes;
  s.kernel.cfg = lanes_.cfg;
  s.kernel.cfg.values["FFT_LANES"] = width;
  s.kernel.shape.n = static_cast<int>(len);
  s.kernel.shape.radices = lane_radices(lanes_.cfg, len);
  s.tables.twiddles = twiddles(len);
  s.role = "lane kernel, " + std::to_string(width) + " transforms per work-item";
  return s;
}

// One launch: the lanes are the chunk's transforms (one row), the caller's sides.
Stage FftPlanBuilder::one_launch_stage() {
  Stage s = lane_stage(lanes_.one_length, lanes_.cfg.at("FFT_LANES"));
  user_sides(s);
  s.io.in.lane_distance = s.io.in.distance;
  s.io.out.lane_distance = s.io.out.distance;
  steps_.chunk = std::min<std::size_t>(desc_.batch, std::size_t{1} << 30);
  return s;
}

RouteSteps FftPlanBuilder::lanes_route() {
  Stage s = one_launch_stage();
  // Interleaved transforms (distance 1, the columns of a 2-D FFT): a work-item's lanes are
  // adjacent, element e of them one vector (the last work-item of a batch that is no multiple of
  // the width gathers, fft_lanes.cl).
  s.kernel.shape.in_unit = desc_.in.distance == 1;
  s.kernel.shape.out_unit = desc_.out.distance == 1;
  RouteSteps r{{}, "one lane kernel"};
  r.stages.push_back(std::move(s));
  return r;
}

// Bluestein in one launch (FFT_LANE_BLUE): elements gathered and scattered one by one (the length
// is odd).
RouteSteps FftPlanBuilder::lanes_bluestein_route() {
  const std::size_t n = desc_.n, m = lanes_.one_length;
  Stage s = one_launch_stage();
  s.kernel.lanes.bluestein_length = static_cast<int>(n);
  s.io.out.sign = Sign::MinusDir;
  const BluesteinTables t = bluestein_tables(n, m, n);
  s.tables.lane_twiddles = t.w;
  s.tables.lane_factors = t.bq;
  s.role = "Bluestein in one " + s.role + ", M=" + std::to_string(m);
  RouteSteps r{{}, "Bluestein, one lane kernel of " + std::to_string(m) + " points"};
  r.stages.push_back(std::move(s));
  return r;
}

// Longer lengths in two lane launches through a scratch buffer, m = n1 n2 (the most even split
// whose sides both fit a launch and hold whole vectors of transforms): the first transforms the
// n2 columns x[j1 n2 + j2] of length n1 and multiplies by W_m^(k1 j2), storing Y[k1 n2 + j2]; the
// second transforms the n1 rows of Y, storing X[k1 + n1 k2]. Both launches read or write adjacent
// transforms as whole vectors on the scratch side and on a unit-stride side of the caller's.

// W_m^(k1 j2) at k1 n2 + j2: the first launch's twiddles.
cl::Buffer FftPlanBuilder::lane_pair_twiddles() {
  const std::size_t m = lanes_.length, n1 = lanes_.n1, n2 = m / n1;
  std::vector<detail::cdouble> w(m);
  for (std::size_t k1 = 0; k1 < n1; ++k1)
    for (std::size_t j2 = 0; j2 < n2; ++j2) w[k1 * n2 + j2] = root(k1 * j2, m);
  return table(to_float2(w));
}

// The columns launch from `in` (elements in_stride apart: 1, or the caller's stride) into scratch A.
Stage FftPlanBuilder::lane_columns(Buf in, long long in_distance, long long in_stride, const cl::Buffer& pair) {
  const std::size_t n1 = lanes_.n1, n2 = lanes_.length / n1;
  Stage s = lane_stage(n1, lanes_.cfg.at("FFT_LANES2"));
  s.kernel.lanes.transforms_per_row = static_cast<int>(n2);
  s.io.in = {in, 0, in_distance, static_cast<long long>(n2) * in_stride, in_stride, INT_MAX, Sign::Plus};
  s.io.out = {Buf::A, 0, static_cast<long long>(lanes_.length), static_cast<long long>(n2), 1, INT_MAX, Sign::Plus};
  s.tables.lane_twiddles = pair;
  s.role += " (" + std::to_string(n2) + " columns of " + std::to_string(n1) + " points, twiddled)";
  return s;
}

// The rows launch from scratch A to `out` (natural order, elements out_stride apart: 1, or the
// caller's stride).
Stage FftPlanBuilder::lane_rows(Buf out, long long out_distance, long long out_stride) {
  const std::size_t n1 = lanes_.n1, n2 = lanes_.length / n1;
  Stage s = lane_stage(n2, lanes_.cfg.at("FFT_LANES2"));
  s.kernel.lanes.transforms_per_row = static_cast<int>(n1);
  s.io.in = {Buf::A, 0, static_cast<long long>(lanes_.length), 1, static_cast<long long>(n2), INT_MAX, Sign::Plus};
  s.io.out = {out, 0, out_distance, static_cast<long long>(n1) * out_stride, out_stride, INT_MAX, Sign::Plus};
  s.role += " (" + std::to_string(n1) + " rows of " + std::to_string(n2) + " points)";
  return s;
}

// The columns launch from the caller's input (conjugated for the inverse), the rows launch to the
// caller's output (scaled).
Stage FftPlanBuilder::lane_first(const cl::Buffer& pair) {
  const FftLayout& li = desc_.in;
  Stage s = lane_columns(Buf::User, static_cast<long long>(li.distance), static_cast<long long>(li.stride), pair);
  s.io.in.offset = static_cast<long long>(li.offset);
  s.io.in.sign = Sign::Dir;
  return s;
}
Stage FftPlanBuilder::lane_last() {
  const FftLayout& lo = desc_.out;
  Stage s = lane_rows(Buf::User, static_cast<long long>(lo.distance), static_cast<long long>(lo.stride));
  s.io.out.offset = static_cast<long long>(lo.offset);
  s.io.scaled = true;
  return s;
}

// Whole vectors where a launch's adjacent transforms are adjacent in memory (counts are multiples
// of the vector width by the choice of n1 and n2) and no element bound applies; the scratch.
RouteSteps FftPlanBuilder::finish_lanes(std::vector<Stage> stages, const std::string& what) {
  for (Stage& s : stages) {
    const LaneForm& form = s.kernel.lanes;
    s.kernel.shape.in_unit = s.io.in.lane_distance == 1 && !form.multiply_loads;
    s.kernel.shape.out_unit = s.io.out.lane_distance == 1 && !(form.multiply_results && form.valid_length > 0);
  }
  const std::size_t side = lanes_.rader ? static_cast<std::size_t>(steps_.rader_groups) + 1 : 0;
  lay_out_scratch(stages, lanes_.length, top_, !smooth_, side);
  const std::size_t n1 = lanes_.n1, n2 = lanes_.length / n1;
  return {std::move(stages), what + ", " + std::to_string(n1) + " x " + std::to_string(n2)};
}

RouteSteps FftPlanBuilder::lanes_two_route() {
  const cl::Buffer pair = lane_pair_twiddles();
  Stage first = lane_first(pair), last = lane_last();
  last.io.out.sign = Sign::Dir;
  std::vector<Stage> stages;
  stages.push_back(std::move(first));
  stages.push_back(std::move(last));
  return finish_lanes(std::move(stages), "two lane kernels");
}

// Bluestein in four launches: the chirp (zero beyond n) multiplies the first launch's loads, the
// spectrum the second's results (conjugated, into scratch B in natural order), the third and
// fourth transform those, and the conjugate chirp multiplies the fourth's results (the first n
// only, conjugated back).
RouteSteps FftPlanBuilder::lanes_bluestein_four_route() {
  const std::size_t n = desc_.n, m = lanes_.length;
  const long long M = static_cast<long long>(m);
  const cl::Buffer pair = lane_pair_twiddles();
  const BluesteinTables t = bluestein_tables(n, m, m);
  Stage first = lane_first(pair), last = lane_last();
  first.kernel.lanes.multiply_loads = true;
  first.kernel.lanes.valid_length = static_cast<long long>(n);
  first.tables.lane_factors = t.w;
  Stage spectrum = lane_rows(Buf::B, M, 1);
  spectrum.kernel.lanes.multiply_results = true;
  spectrum.tables.lane_factors = t.bq;
  spectrum.io.out.sign = Sign::Minus;
  Stage again = lane_columns(Buf::B, M, 1, pair);
  last.kernel.lanes.multiply_results = true;
  last.kernel.lanes.valid_length = static_cast<long long>(n);
  last.tables.lane_factors = t.wc;
  last.io.out.sign = Sign::MinusDir;
  std::vector<Stage> stages;
  for (Stage* s : {&first, &spectrum, &again, &last}) {
    s->role = "Bluestein M=" + std::to_string(m) + ", " + s->role;
    stages.push_back(std::move(*s));
  }
  return finish_lanes(std::move(stages), "Bluestein M=" + std::to_string(m) + ", four lane kernels");
}

// Rader: the gather's rows (scratch B) through the four launches of the convolution, the spectrum
// on the second's results and the fourth's conjugated back into B, then the scatter.
RouteSteps FftPlanBuilder::lanes_rader_four_route() {
  const std::size_t m = lanes_.length;
  const long long M = static_cast<long long>(m);
  const cl::Buffer pair = lane_pair_twiddles();
  RaderEnds e = rader_ends(Buf::B, Buf::B);
  Stage spectrum = lane_rows(Buf::B, M, 1), result = lane_rows(Buf::B, M, 1);
  spectrum.kernel.lanes.multiply_results = true;
  spectrum.tables.lane_factors = e.spectrum;
  spectrum.io.out.sign = result.io.out.sign = Sign::Minus;
  std::vector<Stage> stages;
  stages.push_back(std::move(e.gather));
  stages.push_back(lane_columns(Buf::B, M, 1, pair));
  stages.push_back(std::move(spectrum));
  stages.push_back(lane_columns(Buf::B, M, 1, pair));
  stages.push_back(std::move(result));
  stages.push_back(std::move(e.scatter));
  for (Stage& s : stages)
    if (s.kernel.kind == KernelKind::Lanes) s.role = "Rader M=" + std::to_string(m) + ", " + s.role;
  return finish_lanes(std::move(stages),
                      "Rader M=" + std::to_string(m) + ", four lane kernels between a gather and a scatter");
}

}  // namespace clforge::fft_plan_parts
