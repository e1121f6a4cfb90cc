// FFT plans of the CPU lane kernel (cl/fft/fft_lanes.cl): one launch, Bluestein in one launch,
// and long lengths in two launches (four for Bluestein and Rader) through scratch buffers.
#include "fft/fft_plan_impl.hpp"

namespace clforge {

bool FftPlan::Impl::build_lanes(const Tuning& all, const Configuration& top, const Configuration* rader_cfg,
                                std::ostringstream& how_s) {
  const DeviceInfo& dev = *qc.info;
  const std::size_t n = desc.n, batch = desc.batch;
  const FftLayout& li = desc.in;
  const FftLayout& lo = desc.out;

  // The lane kernel where its row asks for it. fft_local parameters that someone chose for this
  // length (the user database, a tuning file, an override: a `clforge tune fft` result) take
  // precedence over a shipped lane row; a lane row chosen the same way over them.
  const Configuration lanes =
      resolve_configuration("fft_lanes", std::to_string(n), dev, detail::overrides_for(all, "fft_lanes"));
  auto chosen = [](const std::string& source) {
    return source.rfind("shipped", 0) != 0 && source.rfind("built-in", 0) != 0;
  };
  bool local_chosen = false;
  for (const auto& [name, source] : top.sources) local_chosen = local_chosen || chosen(source);
  if (lanes.at("FFT_LANES") == 0 || (local_chosen && !chosen(lanes.sources.at("FFT_LANES")))) return false;
  const std::size_t lane_min = static_cast<std::size_t>(lanes.at("FFT_LANE_MIN"));
  const std::size_t lane_max = static_cast<std::size_t>(lanes.at("FFT_LANE_MAX"));
  const bool smooth = detail::fft_smooth(n);

  // Radices of one lane launch of length len (empty: none, a prime factor above 13 or more than
  // 8 passes).
  auto lane_radices = [&](std::size_t len) {
    if (!detail::fft_smooth(len)) return std::vector<int>{};
    std::vector<int> r = detail::fft_radices(len, lanes.at("FFT_LANE_RADIX"), 0);
    return r.size() <= 8 ? r : std::vector<int>{};
  };
  auto lane_stage = [&](std::size_t len, int width) {
    Stage s;
    s.lanes = true;
    s.cfg = lanes;
    s.cfg.values["FFT_LANES"] = width;
    s.shape.n = static_cast<int>(len);
    s.shape.radices = lane_radices(len);
    s.twl = twiddles(len);
    s.role = "lane kernel, " + std::to_string(width) + " transforms per work-item";
    return s;
  };
  auto finish = [&](const std::string& what) {
    const bool long_index = span_of(li, n, batch) > static_cast<std::size_t>(INT_MAX) ||
                            span_of(lo, n, batch) > static_cast<std::size_t>(INT_MAX) ||
                            scratch_elems > static_cast<std::size_t>(INT_MAX);
    how_s << what;
    for (Stage& s : stages) {
      s.shape.long_index = long_index;
      how_s << "\n  " << s.role << (s.rader ? "" : ": radix ");
      for (std::size_t i = 0; i < s.shape.radices.size(); ++i) how_s << (i ? "*" : "") << s.shape.radices[i];
    }
    how = how_s.str();
    return true;
  };

  // The longer lengths' split (below) into two launches of FFT_LANES2 transforms per work-item.
  const int width = lanes.at("FFT_LANES2");
  const std::size_t L = static_cast<std::size_t>(width);
  auto split = [&](std::size_t len) {  // n1, or 0 where none
    std::size_t r = 0;
    for (std::size_t d = L; d * d <= len; d += L) {
      if (len % d != 0 || (len / d) % L != 0 || len / d > lane_max || d < lane_min || len / d < lane_min) continue;
      if (!lane_radices(d).empty() && !lane_radices(len / d).empty()) r = len / d;  // the last: the most even
    }
    return r;
  };
  // Rader (fft_rader.cpp) where n - 1 splits so: with FFT_RADER 1 where Bluestein takes more
  // than one launch, with 2 always.
  std::size_t m = smooth ? n : detail::fft_bluestein_length(n);  // length of the transforms
  const bool one_launch = m >= lane_min && m <= lane_max && !lane_radices(m).empty();
  const int rader_mode = rader_cfg != nullptr ? rader_cfg->at("FFT_RADER") : 0;
  const bool rader = !smooth && (rader_mode == 2 || (rader_mode == 1 && !one_launch)) && split(n - 1) != 0;

  // One launch: the lanes are the chunk's transforms (one row), the caller's sides.
  if (one_launch && !rader) {
    Stage s = lane_stage(m, lanes.at("FFT_LANES"));
    user_sides(s);
    s.in_dc = s.in_dh;
    s.out_dc = s.out_dh;
    chunk = std::min<std::size_t>(batch, std::size_t{1} << 30);
    if (smooth) {
      // Interleaved transforms (distance 1, the columns of a 2-D FFT): a work-item's lanes are
      // adjacent, element e of them one vector, where the batch holds whole vectors.
      const std::size_t width1 = static_cast<std::size_t>(lanes.at("FFT_LANES"));
      s.shape.in_unit = li.distance == 1 && batch % width1 == 0;
      s.shape.out_unit = lo.distance == 1 && batch % width1 == 0;
      stages.push_back(std::move(s));
      return finish("one lane kernel");
    }
    // Bluestein (FFT_LANE_BLUE): elements gathered and scattered one by one (the length is odd).
    s.lane_len = static_cast<int>(n);
    s.cj_out = Sign::MinusDir;
    const BluesteinTables t = bluestein_tables(n, m, n);
    s.tw2 = t.w;
    s.tab = t.bq;
    s.role = "Bluestein in one " + s.role + ", M=" + std::to_string(m);
    stages.push_back(std::move(s));
    return finish("Bluestein, one lane kernel of " + std::to_string(m) + " points");
  }
  if (m <= lane_max && !rader) return false;

  // Longer lengths in two lane launches through a scratch buffer, m = n1 n2 (the most even split
  // whose sides both fit a launch and hold whole vectors of transforms): the first transforms
  // the n2 columns x[j1 n2 + j2] of length n1 and multiplies by W_m^(k1 j2), storing Y[k1 n2 +
  // j2]; the second transforms the n1 rows of Y, storing X[k1 + n1 k2]. Both launches read or
  // write adjacent transforms as whole vectors on the scratch side and on a unit-stride side of
  // the caller's.
  // Bluestein's convolution length: the first multiple of L^2 from 2n - 1 on that splits so (about
  // half the power of two for 65537: 133120 = 416 x 320 against 2^18).
  // Rader's convolution is n - 1 points.
  std::size_t n1 = 0;
  if (smooth) {
    n1 = split(m);
  } else if (rader) {
    m = n - 1;
    n1 = split(m);
  } else {
    const std::size_t step = L * L;
    for (std::size_t c = (2 * n - 1 + step - 1) / step * step; c < 4 * n; c += step) {
      n1 = split(c);
      if (n1 != 0) {
        m = c;
        break;
      }
    }
  }
  if (n1 == 0) return false;
  const std::size_t n2 = m / n1;
  const long long M = static_cast<long long>(m);
  std::vector<detail::cdouble> w(m);
  for (std::size_t k1 = 0; k1 < n1; ++k1)
    for (std::size_t j2 = 0; j2 < n2; ++j2) w[k1 * n2 + j2] = root(k1 * j2, m);
  const cl::Buffer tw_pair = table(to_float2(w));
  // The columns launch from `in` (elements 1 apart, or the caller's stride) into scratch A.
  auto columns = [&](Buf in, long long in_dh, long long in_es) {
    Stage s = lane_stage(n1, width);
    s.lane_count = static_cast<int>(n2);
    s.in_buf = in;
    s.in_dh = in_dh;
    s.in_dc = in_es;
    s.in_S = static_cast<long long>(n2) * in_es;
    s.out_buf = Buf::A;
    s.out_dh = M;
    s.out_dc = 1;
    s.out_S = static_cast<long long>(n2);
    s.cj_in = s.cj_out = Sign::Plus;
    s.tw2 = tw_pair;
    s.role += " (" + std::to_string(n2) + " columns of " + std::to_string(n1) + " points, twiddled)";
    return s;
  };
  // The rows launch from scratch A to `out` (natural order, elements 1 apart or the caller's stride).
  auto rows = [&](Buf out, long long out_dh, long long out_es) {
    Stage s = lane_stage(n2, width);
    s.lane_count = static_cast<int>(n1);
    s.in_buf = Buf::A;
    s.in_dh = M;
    s.in_dc = static_cast<long long>(n2);
    s.in_S = 1;
    s.out_buf = out;
    s.out_dh = out_dh;
    s.out_dc = out_es;
    s.out_S = static_cast<long long>(n1) * out_es;
    s.cj_in = s.cj_out = Sign::Plus;
    s.role += " (" + std::to_string(n1) + " rows of " + std::to_string(n2) + " points)";
    return s;
  };
  const long long in_dh = static_cast<long long>(li.distance), out_dh = static_cast<long long>(lo.distance);
  const long long in_es = static_cast<long long>(li.stride), out_es = static_cast<long long>(lo.stride);
  Stage first = columns(Buf::User, in_dh, in_es);
  first.in_off = static_cast<long long>(li.offset);
  first.cj_in = Sign::Dir;
  Stage last = rows(Buf::User, out_dh, out_es);
  last.out_off = static_cast<long long>(lo.offset);
  last.scaled = true;
  if (smooth) {
    last.cj_out = Sign::Dir;
    stages = {std::move(first), std::move(last)};
  } else if (rader) {
    // Rader: the gather's rows (scratch B) through the four launches of the convolution, the
    // spectrum on the second's results and the fourth's conjugated back into B, then the scatter.
    RaderEnds e = rader_ends(*rader_cfg, Buf::B, Buf::B);
    Stage spectrum = rows(Buf::B, M, 1), result = rows(Buf::B, M, 1);
    spectrum.lane_post = true;
    spectrum.tab = e.spectrum;
    spectrum.cj_out = result.cj_out = Sign::Minus;
    stages = {std::move(e.gather),   columns(Buf::B, M, 1), std::move(spectrum),
              columns(Buf::B, M, 1), std::move(result),     std::move(e.scatter)};
    for (Stage& s : stages)
      if (s.lanes) s.role = "Rader M=" + std::to_string(m) + ", " + s.role;
  } else {
    // Bluestein in four launches: the chirp (zero beyond n) multiplies the first launch's loads,
    // the spectrum the second's results (conjugated, into scratch B in natural order), the
    // third and fourth transform those, and the conjugate chirp multiplies the fourth's results
    // (the first n only, conjugated back).
    const BluesteinTables t = bluestein_tables(n, m, m);
    first.lane_pre = true;
    first.lane_glen = static_cast<long long>(n);
    first.tab = t.w;
    Stage spectrum = rows(Buf::B, M, 1);
    spectrum.lane_post = true;
    spectrum.tab = t.bq;
    spectrum.cj_out = Sign::Minus;
    Stage again = columns(Buf::B, M, 1);
    last.lane_post = true;
    last.lane_glen = static_cast<long long>(n);
    last.tab = t.wc;
    last.cj_out = Sign::MinusDir;
    for (Stage* s : {&first, &spectrum, &again, &last}) s->role = "Bluestein M=" + std::to_string(m) + ", " + s->role;
    stages = {std::move(first), std::move(spectrum), std::move(again), std::move(last)};
  }
  // Whole vectors where a launch's adjacent transforms are adjacent in memory (counts are
  // multiples of the vector width by the choice of n1 and n2) and no element bound applies.
  for (Stage& s : stages) {
    s.shape.in_unit = s.in_dc == 1 && !s.lane_pre;
    s.shape.out_unit = s.out_dc == 1 && !(s.lane_post && s.lane_glen > 0);
  }
  lay_out_scratch(m, top, !smooth, rader ? rader_groups + 1 : 0);
  return finish((smooth ? "two lane kernels, "
                        : std::string(rader ? "Rader" : "Bluestein") + " M=" + std::to_string(m) +
                              ", four lane kernels" + (rader ? " between a gather and a scatter, " : ", ")) +
                std::to_string(n1) + " x " + std::to_string(n2));
}

}  // namespace clforge
