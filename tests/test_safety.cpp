// Hostile arguments. Every routine gets safety_cases() random and adversarial argument sets
// (sizes near SIZE_MAX, 2^31, 2^32, 2^63, products that wrap, null buffers, sub-buffers of
// sentinel-filled parents; the real-input FFT a quarter as many, the multi-dimensional FFT a twentieth; the real
// multi-dimensional FFT all as plans, a twentieth also enqueued). Each call is
// either refused with InvalidArgument (nothing allocated, built or enqueued; both parents unchanged) or accepted, and
// then its described output is correct (tolerances below) and no byte outside it changed.
//
// Where an input and the output are different buffers over the same memory (a parent and a
// sub-buffer of it), the result is unspecified and only the "nothing outside" part is checked.
// Tolerances: transpose bit-exact; sgemm (single, strided-batched and with offsets per product) per element 2 *
// gemm_tolerance(k) times the element's magnitude sum; FFT (complex and real input) relative L2 per transform 2 *
// fft_tolerance(n), multi-dimensional (complex and real input) 2 * the sum of fft_tolerance over the axes; blur
// relative L2 2x the method's stated bound (direct and separable: truncated_blur_tolerance, recursive:
// recursive_blur_tolerance), 8-bit RGBA within one step.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>

#include "host/blur.hpp"
#include "host/fft.hpp"
#include "host/gemm.hpp"
#include "host/reference.hpp"
#include "tests/safety_support.hpp"

using namespace clforge;
using test::Arena;
using test::FuzzCounts;
using test::Hostile;
using test::Parent;
using test::Slot;

namespace {

// "offset/stride/distance" of an FFT layout, for the text naming a fuzzed case.
std::string layout_text(const FftLayout& l) {
  return std::to_string(l.offset) + "/" + std::to_string(l.stride) + "/" + std::to_string(l.distance);
}

std::string text(const Slot& s, std::size_t offset, std::size_t ld) {
  return std::string(s.null                    ? "null"
                     : s.parent == Parent::Dst ? "dst"
                                               : "src") +
         "@" + std::to_string(s.origin) + " off " + std::to_string(offset) + " ld " + std::to_string(ld);
}

// Pointer to element `index` (of `elem` bytes) of a slot in its parent's pristine host copy.
const unsigned char* at(Arena& a, const Slot& s, std::size_t index, std::size_t elem) {
  return a.expected(s.parent).data() + s.origin + index * elem;
}

// Same memory but different buffer objects: the routine cannot see the aliasing.
bool hidden_alias(const Slot& in, const Slot& out) {
  return !in.null && !out.null && in.parent == out.parent && in.buffer() != out.buffer();
}

// A small value near `need`: usually need or a little more, sometimes one less or hostile.
std::size_t near(Hostile& h, std::size_t need, double p_wild) {
  if (h.chance(p_wild)) return h.wild();
  if (h.chance(0.05)) return need > 0 ? need - 1 : 0;
  return need + h.below(3);
}

// The transform of one batch element by its definition: R2C (n reals to n/2 + 1 complex values)
// or C2R (n/2 + 1 complex values, X_0 and X_(n/2) by their real parts, to n reals), scaled.
std::vector<double> real_dft(const std::vector<std::complex<double>>& x, std::size_t n, bool inverse, double scale) {
  std::vector<double> y;
  const std::size_t outputs = inverse ? n : n / 2 + 1;
  for (std::size_t k = 0; k < outputs; ++k) {
    std::complex<double> sum = 0;
    for (std::size_t j = 0; j < (inverse ? n / 2 + 1 : n); ++j) {
      const double angle = 2.0 * M_PI * static_cast<double>((j * k) % n) / static_cast<double>(n);
      if (!inverse) {
        sum += x[j] * std::polar(1.0, -angle);
      } else {
        const bool single = j == 0 || 2 * j == n;  // no conjugate partner
        const std::complex<double> xj = single ? std::complex<double>(x[j].real(), 0.0) : x[j];
        sum += (single ? 1.0 : 2.0) * (xj * std::polar(1.0, angle)).real();
      }
    }
    y.push_back(sum.real() * scale);
    if (!inverse) y.push_back(sum.imag() * scale);
  }
  return y;
}

// The fuzz check of an accepted real-input transform: its result per transform within 2 *
// fft_tolerance(n) (relative L2) unless in and out alias unseen; marks the result as expected.
bool real_fft_result_ok(Arena& arena, const RealFftDesc& pd, bool inverse, const Slot& in, const Slot& out,
                        const std::string& what) {
  auto& want = arena.expected(Parent::Dst);
  const std::vector<unsigned char> got = arena.read(Parent::Dst);
  const FftScaling sc = inverse ? pd.inverse_scaling : pd.forward_scaling;
  const double scale = sc == FftScaling::OverN       ? 1.0 / pd.n
                       : sc == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(pd.n))
                                                     : 1.0;
  const FftLayout& li = inverse ? pd.complex : pd.real;
  const FftLayout& lo = inverse ? pd.real : pd.complex;
  const std::size_t ein = inverse ? 8 : 4, eout = inverse ? 4 : 8, h = pd.n / 2 + 1;
  bool ok = true;
  for (std::size_t b = 0; b < pd.batch; ++b) {
    std::vector<std::complex<double>> x(inverse ? h : pd.n);
    for (std::size_t j = 0; j < x.size(); ++j) {
      float v[2] = {0, 0};
      std::memcpy(v, at(arena, in, li.offset + b * li.distance + j * li.stride, ein), ein);
      x[j] = {v[0], v[1]};
    }
    const std::vector<double> ref = real_dft(x, pd.n, inverse, scale);
    double num = 0, den = 0;
    for (std::size_t k = 0; k < (inverse ? pd.n : h); ++k) {
      const std::size_t byte = out.origin + (lo.offset + b * lo.distance + k * lo.stride) * eout;
      float y[2] = {0, 0};
      std::memcpy(y, got.data() + byte, eout);
      for (std::size_t p = 0; p < eout / 4; ++p) {
        num += (y[p] - ref[k * eout / 4 + p]) * (y[p] - ref[k * eout / 4 + p]);
        den += ref[k * eout / 4 + p] * ref[k * eout / 4 + p];
      }
      std::memcpy(want.data() + byte, got.data() + byte, eout);
    }
    const double err = std::sqrt(num) / std::max(std::sqrt(den), 1e-30);
    if (!hidden_alias(in, out) && !(err <= 2 * host::fft_tolerance(pd.n))) {
      if (ok) FAIL_CHECK(what << ": transform " << b << " relative error " << err);
      ok = false;
    }
  }
  return ok;
}

// The multi-dimensional layout's element offset of logical element e (row-major over shape) of transform b.
std::size_t nd_at(const std::vector<std::size_t>& shape, const FftNdLayout& l, std::size_t b, std::size_t e) {
  std::size_t o = l.offset + b * l.distance;
  for (std::size_t k = shape.size(); k-- > 0;) {
    o += (e % shape[k]) * l.strides[k];
    e /= shape[k];
  }
  return o;
}

// The DFT (host::dft) of every line along `axis` of the row-major array x of `shape`.
void dft_lines(std::vector<std::complex<double>>& x, const std::vector<std::size_t>& shape, std::size_t axis,
               int sign) {
  std::size_t inner = 1;
  for (std::size_t k = axis + 1; k < shape.size(); ++k) inner *= shape[k];
  const std::size_t n = shape[axis];
  for (std::size_t first = 0; first < x.size(); ++first) {
    if ((first / inner) % n != 0) continue;  // not the start of a line along this axis
    std::vector<std::complex<double>> line(n);
    for (std::size_t j = 0; j < n; ++j) line[j] = x[first + j * inner];
    line = host::dft(line, sign);
    for (std::size_t j = 0; j < n; ++j) x[first + j * inner] = line[j];
  }
}

// The fuzz check of an accepted multi-dimensional transform: per transform, the DFT along each
// axis in turn (host::dft) within 2 * the sum of the axes' fft_tolerance (relative L2) unless in
// and out alias unseen; marks the result as expected.
bool nd_fft_result_ok(Arena& arena, const FftNdDesc& pd, bool inverse, const Slot& in, const Slot& out,
                      const std::string& what) {
  auto& want = arena.expected(Parent::Dst);
  const std::vector<unsigned char> got = arena.read(Parent::Dst);
  std::size_t v = 1;
  double tol = 0;
  for (std::size_t n : pd.shape) v *= n, tol += 2 * host::fft_tolerance(n);
  const FftScaling sc = inverse ? pd.inverse_scaling : pd.forward_scaling;
  const double scale = sc == FftScaling::OverN       ? 1.0 / v
                       : sc == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(v))
                                                     : 1.0;
  bool ok = true;
  for (std::size_t b = 0; b < pd.batch; ++b) {
    std::vector<std::complex<double>> x(v);
    for (std::size_t e = 0; e < v; ++e) {
      float f[2];
      std::memcpy(f, at(arena, in, nd_at(pd.shape, pd.in, b, e), 8), 8);
      x[e] = {f[0], f[1]};
    }
    for (std::size_t k = 0; k < pd.shape.size(); ++k) dft_lines(x, pd.shape, k, inverse ? +1 : -1);
    double num = 0, den = 0;
    for (std::size_t e = 0; e < v; ++e) {
      const std::size_t byte = out.origin + nd_at(pd.shape, pd.out, b, e) * 8;
      float y[2];
      std::memcpy(y, got.data() + byte, 8);
      num += std::norm(std::complex<double>(y[0], y[1]) - scale * x[e]);
      den += std::norm(scale * x[e]);
      std::memcpy(want.data() + byte, got.data() + byte, 8);
    }
    const double err = std::sqrt(num) / std::max(std::sqrt(den), 1e-30);
    if (!hidden_alias(in, out) && !(err <= tol)) {
      if (ok) FAIL_CHECK(what << ": transform " << b << " relative error " << err);
      ok = false;
    }
  }
  return ok;
}

// The reference of transform b of an accepted real multi-dimensional transform, read from the
// input slot: R2C, the DFT of the real array along every axis, outputs k_last <= n/2 in
// row-major order; C2R, the inverse DFT of the half spectrum along the other axes, then of each
// row's Hermitian extension (imaginary parts of X_0 and X_(n/2) dropped), real parts.
std::vector<std::complex<double>> real_nd_reference(Arena& arena, const RealFftNdDesc& pd, bool inverse, const Slot& in,
                                                    std::size_t b) {
  std::vector<std::size_t> half = pd.shape;
  const std::size_t n = pd.shape.back(), h = half.back() = n / 2 + 1, rank = pd.shape.size();
  std::size_t v = 1;
  for (std::size_t k : inverse ? half : pd.shape) v *= k;
  std::vector<std::complex<double>> x(v);
  for (std::size_t e = 0; e < v; ++e) {
    float f[2] = {0, 0};
    if (inverse)
      std::memcpy(f, at(arena, in, nd_at(half, pd.complex, b, e), 8), 8);
    else
      std::memcpy(f, at(arena, in, nd_at(pd.shape, pd.real, b, e), 4), 4);
    x[e] = {f[0], f[1]};
  }
  std::vector<std::complex<double>> r;
  if (!inverse) {
    for (std::size_t k = 0; k < rank; ++k) dft_lines(x, pd.shape, k, -1);
    for (std::size_t e = 0; e < v; ++e)
      if (e % n < h) r.push_back(x[e]);
    return r;
  }
  for (std::size_t k = 0; k + 1 < rank; ++k) dft_lines(x, half, k, +1);
  r.assign(v / h * n, 0.0);
  for (std::size_t row = 0; row < v / h; ++row)
    for (std::size_t k = 0; k < h; ++k) {
      const bool single = k == 0 || 2 * k == n;
      r[row * n + k] = single ? std::complex<double>(x[row * h + k].real(), 0) : x[row * h + k];
      if (!single) r[row * n + n - k] = std::conj(x[row * h + k]);
    }
  dft_lines(r, pd.shape, rank - 1, +1);
  for (std::complex<double>& c : r) c = c.real();
  return r;
}

// The fuzz check of an accepted real multi-dimensional transform: per transform within 2 * the
// sum of the axes' fft_tolerance (relative L2) unless in and out alias unseen; marks the result
// as expected (in place, C2R, also the half spectrum, which it transforms in place).
bool real_nd_result_ok(Arena& arena, const RealFftNdDesc& pd, bool inverse, const Slot& in, const Slot& out,
                       const std::string& what) {
  auto& want = arena.expected(Parent::Dst);
  const std::vector<unsigned char> got = arena.read(Parent::Dst);
  std::vector<std::size_t> half = pd.shape;
  half.back() = pd.shape.back() / 2 + 1;
  std::size_t v = 1, vh = 1;
  double tol = 0;
  for (std::size_t k = 0; k < pd.shape.size(); ++k) v *= pd.shape[k], vh *= half[k];
  for (std::size_t n : pd.shape) tol += 2 * host::fft_tolerance(n);
  const FftScaling sc = inverse ? pd.inverse_scaling : pd.forward_scaling;
  const double scale = sc == FftScaling::OverN       ? 1.0 / v
                       : sc == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(v))
                                                     : 1.0;
  bool ok = true;
  for (std::size_t b = 0; b < pd.batch; ++b) {
    const std::vector<std::complex<double>> ref = real_nd_reference(arena, pd, inverse, in, b);
    double num = 0, den = 0;
    for (std::size_t e = 0; e < ref.size(); ++e) {
      const std::size_t elem = inverse ? 4 : 8;
      const std::size_t byte =
          out.origin + (inverse ? nd_at(pd.shape, pd.real, b, e) : nd_at(half, pd.complex, b, e)) * elem;
      float y[2] = {0, 0};
      std::memcpy(y, got.data() + byte, elem);
      num += std::norm(std::complex<double>(y[0], y[1]) - scale * ref[e]);
      den += std::norm(scale * ref[e]);
      std::memcpy(want.data() + byte, got.data() + byte, elem);
    }
    for (std::size_t e = 0; inverse && pd.in_place && e < vh; ++e) {
      const std::size_t byte = out.origin + nd_at(half, pd.complex, b, e) * 8;
      std::memcpy(want.data() + byte, got.data() + byte, 8);
    }
    const double err = std::sqrt(num) / std::max(std::sqrt(den), 1e-30);
    if (!hidden_alias(in, out) && !(err <= tol)) {
      if (ok) FAIL_CHECK(what << ": transform " << b << " relative error " << err);
      ok = false;
    }
  }
  return ok;
}

// A hostile multi-dimensional description: 0 to 4 axes of small (sometimes wild) lengths,
// default or random strides, distance and offset.
FftNdDesc hostile_nd_desc(Hostile& h, double pw) {
  const std::size_t lengths[] = {1, 2, 3, 4, 5, 7};
  FftNdDesc d;
  const std::size_t rank = h.chance(0.03) ? h.below(5) : 2 + h.below(2);
  for (std::size_t k = 0; k < rank; ++k) d.shape.push_back(h.chance(pw) ? h.wild() : lengths[h.below(6)]);
  d.batch = h.size(h.chance(0.03) ? 0 : 1, 3, pw);
  d.in_place = h.chance(0.3);
  auto layout = [&](FftNdLayout& l) {
    if (h.chance(0.5)) {
      const std::size_t count = h.chance(0.05) ? h.below(5) : rank;
      for (std::size_t k = 0; k < count; ++k) l.strides.push_back(h.chance(0.03) ? 0 : h.size(1, 40, pw));
    }
    l.distance = h.chance(0.5) ? 0 : h.size(1, 200, pw);
    l.offset = h.size(0, 30, pw);
  };
  layout(d.in);
  if (!d.in_place || h.chance(0.1)) layout(d.out);
  const FftScaling scalings[] = {FftScaling::None, FftScaling::OverN, FftScaling::OverSqrtN};
  d.forward_scaling = scalings[h.below(3)];
  d.inverse_scaling = scalings[h.below(3)];
  return d;
}

// A hostile real multi-dimensional description: hostile_nd_desc's, its input layout on the real
// side and its output layout on the complex one (in place the other way round: the complex layout
// describes the rows).
RealFftNdDesc hostile_real_nd_desc(Hostile& h, double pw) {
  const FftNdDesc c = hostile_nd_desc(h, pw);
  RealFftNdDesc d;
  d.shape = c.shape;
  d.batch = c.batch;
  d.in_place = c.in_place;
  d.real = c.in_place ? c.out : c.in;
  d.complex = c.in_place ? c.in : c.out;
  d.forward_scaling = c.forward_scaling;
  d.inverse_scaling = c.inverse_scaling;
  return d;
}

std::string nd_text(const FftNdDesc& d) {
  auto list = [](const std::vector<std::size_t>& v) {
    std::string t;
    for (std::size_t x : v) t += (t.empty() ? "" : "x") + std::to_string(x);
    return t;
  };
  auto layout = [&](const FftNdLayout& l) {
    return std::to_string(l.offset) + "/" + list(l.strides) + "/" + std::to_string(l.distance);
  };
  return "fft " + list(d.shape) + " batch " + std::to_string(d.batch) + (d.in_place ? " in-place" : "") + " in " +
         layout(d.in) + " out " + layout(d.out);
}

void report(const std::string& routine, const FuzzCounts& c, std::size_t cases = test::safety_cases()) {
  MESSAGE(routine << ": " << c.refused + c.accepted << " argument sets, " << c.refused << " refused, " << c.accepted
                  << " accepted");
  CHECK(c.refused + c.accepted >= cases);
  CHECK(c.accepted > 0);
  CHECK(c.refused > 0);
}

// Which sgemm entry point a fuzzed call takes.
enum class GemmForm { Single, Strided, Offsets };

// One fuzzed sgemm call's arguments: the shape, the scalars, the three slots with offsets and
// (a strided batch) the strides and the batch, or (the offsets form) a list of offsets per operand.
struct GemmArgs {
  host::GemmShape g;
  float alpha = 1, beta = 0;
  Slot a, b, c;
  std::size_t ao = 0, bo = 0, co = 0;
  std::size_t za = 0, zb = 0, zc = 0, batch = 1;
  std::vector<std::size_t> lists[3];
  bool scalars = false;              // the offsets form with a scalar pair per product:
  std::vector<float> alphas, betas;  // (an accepted call's lists hold one per product)
  float alpha_of(std::size_t z) const { return scalars ? alphas.at(z) : alpha; }
  float beta_of(std::size_t z) const { return scalars ? betas.at(z) : beta; }
  // Where product z's matrix of operand op (0: A, 1: B, 2: C) starts.
  std::size_t at(int op, std::size_t z) const {
    if (!lists[2].empty() || !lists[0].empty()) return lists[op][z];
    const std::size_t off[3] = {ao, bo, co}, stride[3] = {za, zb, zc};
    return off[op] + z * stride[op];
  }
};

// The offsets form's lists: 0 .. 5 products (now and then one list a product short or long),
// each offset below a few matrices' extents, repeated (shared operands, overlapping C) or hostile.
void hostile_lists(GemmArgs& x, Hostile& h, double pw) {
  const std::size_t batch = h.below(6);
  x.ao = x.bo = x.co = 0;
  for (int op = 0; op < 3; ++op) {
    const std::size_t span = std::max<std::size_t>(1, host::gemm_span(x.g, "abc"[op]));
    const std::size_t n = h.chance(0.03) ? h.below(7) : batch;
    for (std::size_t z = 0; z < n; ++z) {
      std::size_t o = h.below(4) * span + h.below(3) * (span / 2) + h.below(2);
      if (z > 0 && h.chance(0.2)) o = x.lists[op][h.below(z)];
      x.lists[op].push_back(h.chance(pw) ? h.wild() : o);
    }
  }
  x.batch = x.lists[0].size();
}

// Random, adversarial sgemm arguments; the batched forms add a batch (0 .. 4 or hostile) and
// strides, or offset lists.
GemmArgs hostile_gemm(Arena& arena, Hostile& h, GemmForm form) {
  const bool batched = form != GemmForm::Single;
  const float alphas[] = {1.0f, -0.5f, 2.25f, 0.0f}, betas[] = {0.0f, 1.0f, 0.5f, -1.0f};
  const double pw = h.chance(0.5) ? 0.15 : 0.0;
  GemmArgs x;
  host::GemmShape& g = x.g;
  g.row_major = h.chance(0.5);
  g.trans_a = h.chance(0.5);
  g.trans_b = h.chance(0.5);
  const std::size_t most = batched ? 12 : 20;
  g.m = h.size(0, most, pw);
  g.n = h.size(0, most, pw);
  g.k = h.size(0, most, pw);
  auto inner = [&](std::size_t rows, std::size_t cols) { return std::max<std::size_t>(1, g.row_major ? cols : rows); };
  g.lda = near(h, inner(g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k), pw);
  g.ldb = near(h, inner(g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n), pw);
  g.ldc = near(h, inner(g.m, g.n), pw);
  x.alpha = alphas[h.below(4)], x.beta = betas[h.below(4)];
  x.a = arena.pick(h, h.chance(0.85) ? Parent::Src : Parent::Dst, 0.08);
  x.b = arena.pick(h, h.chance(0.85) ? Parent::Src : Parent::Dst, 0.08);
  x.c = arena.pick(h, Parent::Dst);
  x.ao = h.size(0, 40, pw), x.bo = h.size(0, 40, pw), x.co = h.size(0, 40, pw);
  if (form == GemmForm::Offsets) {
    hostile_lists(x, h, pw);
    x.scalars = h.chance(0.5);
    if (x.scalars) {  // a scalar pair per product (now and then a list of another length)
      const std::size_t n = h.chance(0.03) ? h.below(7) : x.batch;
      for (std::size_t z = 0; z < n; ++z) x.alphas.push_back(alphas[h.below(4)]);
      for (std::size_t z = 0; z < x.batch; ++z) x.betas.push_back(betas[h.below(4)]);
    }
  } else if (batched) {
    x.batch = h.size(h.chance(0.03) ? 0 : 1, 4, pw);
    // Near one matrix's extent (which the spans of the plain product give), sometimes 0.
    const auto stride = [&](char which) { return h.chance(0.15) ? 0 : near(h, host::gemm_span(g, which), pw); };
    x.za = stride('a'), x.zb = stride('b'), x.zc = stride('c');
  }
  return x;
}

std::string lists_text(const GemmArgs& x) {
  std::string t;
  for (int op = 0; op < 3; ++op) {
    t += std::string(" ") + "abc"[op] + "_offsets {";
    for (std::size_t o : x.lists[op]) t += std::to_string(o) + ",";
    t += "}";
  }
  if (x.scalars) {
    t += " alphas {";
    for (float v : x.alphas) t += std::to_string(v) + ",";
    t += "} betas {";
    for (float v : x.betas) t += std::to_string(v) + ",";
    t += "}";
  }
  return x.lists[0].empty() && x.lists[2].empty() ? std::string() : t;
}

std::string text(const GemmArgs& x) {
  const host::GemmShape& g = x.g;
  return "sgemm " + std::string(g.row_major ? "row" : "col") + (g.trans_a ? " T" : " N") + (g.trans_b ? "T " : "N ") +
         std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) + " a " + text(x.a, x.ao, g.lda) +
         " b " + text(x.b, x.bo, g.ldb) + " c " + text(x.c, x.co, g.ldc) + " alpha " + std::to_string(x.alpha) +
         " beta " + std::to_string(x.beta) + " batch " + std::to_string(x.batch) + " strides " + std::to_string(x.za) +
         "/" + std::to_string(x.zb) + "/" + std::to_string(x.zc) + lists_text(x);
}

// The fuzz check of an accepted sgemm: each matrix's entries within 2 * gemm_tolerance(k) times
// their magnitude sums of the double reference (unless C aliases an input unseen); marks them as
// expected.
bool gemm_result_ok(Arena& arena, const GemmArgs& x, const std::string& what) {
  const host::GemmShape& g = x.g;
  auto& want = arena.expected(Parent::Dst);
  const std::vector<unsigned char> got = arena.read(Parent::Dst);
  const bool alias = hidden_alias(x.a, x.c) || hidden_alias(x.b, x.c);
  const std::size_t span = host::gemm_span(g, 'c');
  // Pointers only into memory the call described (an operand of no element may carry any
  // offset: forming a pointer from it would overflow).
  if (span == 0) return true;
  bool ok = true;
  for (std::size_t z = 0; z < x.batch; ++z) {
    const bool reads = x.alpha_of(z) != 0.0f && g.k > 0;
    std::vector<double> ref(span), mag(span);
    host::gemm(g, x.alpha_of(z), reads ? reinterpret_cast<const float*>(at(arena, x.a, x.at(0, z), 4)) : nullptr,
               reads ? reinterpret_cast<const float*>(at(arena, x.b, x.at(1, z), 4)) : nullptr, x.beta_of(z),
               reinterpret_cast<const float*>(at(arena, x.c, x.at(2, z), 4)), ref.data(), 1, mag.data());
    for (std::size_t i = 0; i < g.m; ++i)
      for (std::size_t j = 0; j < g.n; ++j) {
        const std::size_t e = host::gemm_c_index(g, i, j);
        const std::size_t byte = x.c.origin + (x.at(2, z) + e) * 4;
        float y;
        std::memcpy(&y, got.data() + byte, 4);
        if (!alias && !(std::fabs(y - ref[e]) <= 2 * host::gemm_tolerance(g.k) * mag[e] + 1e-30)) {
          if (ok) FAIL_CHECK(what << ": C_" << z << "(" << i << "," << j << ") = " << y << ", reference " << ref[e]);
          ok = false;
        }
        std::memcpy(want.data() + byte, got.data() + byte, 4);
      }
  }
  return ok;
}

// safety_cases() argument sets of sgemm(), sgemm_strided_batched() or sgemm_batched().
void fuzz_sgemm(std::uint64_t arena_seed, Hostile& h, GemmForm form) {
  auto& s = test::session();
  Arena arena(arena_seed);
  FuzzCounts counts;
  std::size_t uneven = 0;  // accepted offsets-form sets of 2+ products whose C offsets do not step evenly
  const std::size_t cases = test::safety_cases();
  for (std::size_t i = 0; i < cases; ++i) {
    const GemmArgs x = hostile_gemm(arena, h, form);
    const host::GemmShape& g = x.g;
    const Layout layout = g.row_major ? Layout::RowMajor : Layout::ColMajor;
    const Transpose ta = g.trans_a ? Transpose::Yes : Transpose::No, tb = g.trans_b ? Transpose::Yes : Transpose::No;
    const std::string what = text(x);
    test::fuzz_one(
        arena, what, counts,
        [&] {
          if (form == GemmForm::Offsets && x.scalars)
            sgemm_batched(s.queue, layout, ta, tb, g.m, g.n, g.k, x.alphas, x.a.buffer, x.lists[0], g.lda, x.b.buffer,
                          x.lists[1], g.ldb, x.betas, x.c.buffer, x.lists[2], g.ldc);
          else if (form == GemmForm::Offsets)
            sgemm_batched(s.queue, layout, ta, tb, g.m, g.n, g.k, x.alpha, x.a.buffer, x.lists[0], g.lda, x.b.buffer,
                          x.lists[1], g.ldb, x.beta, x.c.buffer, x.lists[2], g.ldc);
          else if (form == GemmForm::Strided)
            sgemm_strided_batched(s.queue, layout, ta, tb, g.m, g.n, g.k, x.alpha, {x.a.buffer, x.ao, g.lda}, x.za,
                                  {x.b.buffer, x.bo, g.ldb}, x.zb, x.beta, {x.c.buffer, x.co, g.ldc}, x.zc, x.batch);
          else
            sgemm(s.queue, layout, ta, tb, g.m, g.n, g.k, x.alpha, {x.a.buffer, x.ao, g.lda}, {x.b.buffer, x.bo, g.ldb},
                  x.beta, {x.c.buffer, x.co, g.ldc});
        },
        [&] {
          const std::vector<std::size_t>& zc = x.lists[2];
          uneven += zc.size() > 2 && (zc[1] < zc[0] || zc[2] < zc[1] || zc[2] - zc[1] != zc[1] - zc[0]);
          return gemm_result_ok(arena, x, what);
        });
  }
  const char* names[] = {"sgemm", "strided-batched sgemm", "sgemm with offsets per product"};
  report(names[static_cast<int>(form)], counts, cases);
  if (form == GemmForm::Offsets) {  // the offsets table's path ran, not only batches that step evenly
    MESSAGE(uneven << " accepted sets at uneven C offsets");
    CHECK(uneven > 0);
  }
}

// A plan of an FFT description under hostile arguments: built (its refusal counted), then
// enqueued on picked buffers, in place where the description says so, and its result checked by
// `ok(arena, desc, inverse, in, out, what)`.
template <typename Plan, typename Desc, typename Ok>
void fuzz_fft_plan(Arena& arena, Hostile& h, FuzzCounts& counts, const Desc& d, bool inverse, std::string what, Ok ok) {
  auto& s = test::session();
  std::unique_ptr<Plan> plan;
  test::fuzz_one(
      arena, what + " (plan)", counts, [&] { plan = std::make_unique<Plan>(s.queue, d); }, [] { return true; });
  if (!plan) return;
  --counts.accepted;  // a plan alone is no accepted transform
  const Slot in = arena.pick(h, d.in_place || h.chance(0.2) ? Parent::Dst : Parent::Src);
  const Slot out = d.in_place ? in : arena.pick(h, Parent::Dst);
  what += " on " + text(in, 0, 0) + " -> " + text(out, 0, 0);
  test::fuzz_one(
      arena, what, counts,
      [&] { plan->enqueue(s.queue, inverse ? FftDirection::Inverse : FftDirection::Forward, in.buffer, out.buffer); },
      [&] { return ok(arena, plan->desc(), inverse, in, out, what); });
}

}  // namespace

TEST_SUITE("safety") {
  TEST_CASE("transpose under hostile arguments") {
    auto& s = test::session();
    Arena arena(test::seed() + 1);
    Hostile h(test::seed() + 2);
    FuzzCounts counts;
    for (std::size_t i = 0; i < test::safety_cases(); ++i) {
      const double pw = h.chance(0.5) ? 0.2 : 0.0;
      const std::size_t rows = h.size(0, 33, pw), cols = h.size(0, 33, pw);
      const std::size_t elems[] = {4, 8, 16, 4, 8, 16, 3, 0};
      const std::size_t elem = h.chance(pw) ? h.wild() : elems[h.below(h.chance(0.05) ? 8 : 6)];
      const Slot in = arena.pick(h, h.chance(0.9) ? Parent::Src : Parent::Dst), out = arena.pick(h, Parent::Dst);
      const std::size_t in_ld = near(h, cols, pw), out_ld = near(h, rows, pw);
      const std::size_t in_off = h.size(0, 40, pw), out_off = h.size(0, 40, pw);
      const std::string what = "transpose " + std::to_string(rows) + "x" + std::to_string(cols) + " elem " +
                               std::to_string(elem) + " in " + text(in, in_off, in_ld) + " out " +
                               text(out, out_off, out_ld);
      test::fuzz_one(
          arena, what, counts,
          [&] {
            transpose(s.queue, rows, cols, elem, {in.buffer, in_off, in_ld}, {out.buffer, out_off, out_ld});
          },
          [&] {
            auto& want = arena.expected(Parent::Dst);
            const std::vector<unsigned char> got = arena.read(Parent::Dst);
            const bool alias = hidden_alias(in, out);
            const std::vector<unsigned char> src = arena.expected(in.parent);
            for (std::size_t r = 0; r < rows; ++r)
              for (std::size_t c = 0; c < cols; ++c) {
                const std::size_t o = out.origin + (out_off + c * out_ld + r) * elem;
                const unsigned char* from =
                    alias ? got.data() + o : src.data() + in.origin + (in_off + r * in_ld + c) * elem;
                std::memcpy(want.data() + o, from, elem);
              }
            return true;
          });
    }
    report("transpose", counts);
  }

  TEST_CASE("sgemm under hostile arguments") {
    Hostile h(test::seed() + 4);
    fuzz_sgemm(test::seed() + 3, h, GemmForm::Single);
  }

  // The batch (0 .. 4 or hostile), the strides (0, near a matrix's extent, hostile) and C's
  // overlap rule on top of the single product's arguments.
  TEST_CASE("strided-batched sgemm under hostile arguments") {
    Hostile h(test::seed() + 24);
    fuzz_sgemm(test::seed() + 23, h, GemmForm::Strided);
  }

  // Offset lists (0 .. 5 products, lists of the wrong length, shared A and B, C matrices that
  // overlap, hostile offsets) on top of the single product's arguments.
  TEST_CASE("sgemm with offsets per product under hostile arguments") {
    Hostile h(test::seed() + 26);
    fuzz_sgemm(test::seed() + 25, h, GemmForm::Offsets);
  }

  TEST_CASE("fft under hostile arguments") {
    auto& s = test::session();
    Arena arena(test::seed() + 5);
    Hostile h(test::seed() + 6);
    FuzzCounts counts;
    const std::size_t lengths[] = {1, 2, 3, 4, 5, 8, 16};
    for (std::size_t i = 0; i < test::safety_cases(); ++i) {
      const double pw = h.chance(0.5) ? 0.15 : 0.0;
      FftDesc d;
      d.n = h.chance(pw) ? h.wild() : lengths[h.below(7)];
      d.batch = h.size(h.chance(0.03) ? 0 : 1, 4, pw);
      d.in_place = h.chance(0.3);
      auto layout = [&](FftLayout& l) {
        l.stride = h.chance(0.03) ? 0 : h.size(1, 3, pw);
        l.distance = h.chance(0.5) ? 0 : near(h, (d.n < 64 ? d.n : 1) * l.stride, pw);
        l.offset = h.size(0, 30, pw);
      };
      layout(d.in);
      if (!d.in_place || h.chance(0.1)) layout(d.out);
      const FftScaling scalings[] = {FftScaling::None, FftScaling::OverN, FftScaling::OverSqrtN};
      d.forward_scaling = scalings[h.below(3)];
      d.inverse_scaling = scalings[h.below(3)];
      const bool inverse = h.chance(0.5);
      std::string what = "fft n " + std::to_string(d.n) + " batch " + std::to_string(d.batch) +
                         (d.in_place ? " in-place" : "") + " in " + layout_text(d.in) + " out " + layout_text(d.out);
      std::unique_ptr<FftPlan> plan;
      test::fuzz_one(
          arena, what + " (plan)", counts, [&] { plan = std::make_unique<FftPlan>(s.queue, d); }, [] { return true; });
      if (!plan) continue;
      --counts.accepted;  // a plan alone is no accepted transform
      const FftDesc& pd = plan->desc();
      const Slot in = arena.pick(h, d.in_place || h.chance(0.2) ? Parent::Dst : Parent::Src);
      const Slot out = d.in_place ? in : arena.pick(h, Parent::Dst);
      what += " on " + text(in, pd.in.offset, 0) + " -> " + text(out, pd.out.offset, 0);
      test::fuzz_one(
          arena, what, counts,
          [&] {
            if (inverse)
              plan->inverse(in.buffer, out.buffer);
            else
              plan->forward(in.buffer, out.buffer);
          },
          [&] {
            auto& want = arena.expected(Parent::Dst);
            const std::vector<unsigned char> got = arena.read(Parent::Dst);
            const FftScaling sc = inverse ? pd.inverse_scaling : pd.forward_scaling;
            const double scale = sc == FftScaling::OverN       ? 1.0 / pd.n
                                 : sc == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(pd.n))
                                                               : 1.0;
            const bool alias = hidden_alias(in, out);
            const float* x = reinterpret_cast<const float*>(at(arena, in, 0, 8));
            const auto ref =
                host::fft_batch(x, pd.n, pd.batch, pd.in.stride, pd.in.distance, pd.in.offset, inverse, scale);
            bool ok = true;
            for (std::size_t b = 0; b < pd.batch; ++b) {
              double num = 0, den = 0;
              for (std::size_t k = 0; k < pd.n; ++k) {
                const std::size_t byte = out.origin + (pd.out.offset + b * pd.out.distance + k * pd.out.stride) * 8;
                float y[2];
                std::memcpy(y, got.data() + byte, 8);
                num += std::norm(std::complex<double>(y[0], y[1]) - ref[b * pd.n + k]);
                den += std::norm(ref[b * pd.n + k]);
                std::memcpy(want.data() + byte, got.data() + byte, 8);
              }
              const double err = std::sqrt(num) / std::max(std::sqrt(den), 1e-30);
              if (!alias && !(err <= 2 * host::fft_tolerance(pd.n))) {
                if (ok) FAIL_CHECK(what << ": transform " << b << " relative error " << err);
                ok = false;
              }
            }
            return ok;
          });
    }
    report("fft", counts);
  }

  TEST_CASE("real-input fft under hostile arguments") {
    Arena arena(test::seed() + 15);
    Hostile h(test::seed() + 16);
    FuzzCounts counts;
    const std::size_t lengths[] = {1, 2, 3, 4, 5, 8, 16};
    // A quarter of the argument sets: an accepted real transform is three launches or more
    // through scratch, and its checks and extents are the complex plan's, fuzzed above.
    const std::size_t cases = std::max<std::size_t>(1, test::safety_cases() / 4);
    for (std::size_t i = 0; i < cases; ++i) {
      const double pw = h.chance(0.5) ? 0.15 : 0.0;
      RealFftDesc d;
      d.n = h.chance(pw) ? h.wild() : lengths[h.below(7)];
      d.batch = h.size(h.chance(0.03) ? 0 : 1, 4, pw);
      d.in_place = h.chance(0.3);
      auto layout = [&](FftLayout& l, std::size_t count) {
        l.stride = h.chance(0.03) ? 0 : h.chance(0.6) ? 1 : h.size(1, 3, pw);
        l.distance = h.chance(0.5) ? 0 : near(h, (d.n < 64 ? count : 1) * l.stride, pw);
        l.offset = h.size(0, 30, pw);
      };
      layout(d.complex, d.n / 2 + 1);
      if (!d.in_place || h.chance(0.1)) layout(d.real, d.n);
      const FftScaling scalings[] = {FftScaling::None, FftScaling::OverN, FftScaling::OverSqrtN};
      d.forward_scaling = scalings[h.below(3)];
      d.inverse_scaling = scalings[h.below(3)];
      const bool inverse = h.chance(0.5);
      std::string what = "real fft n " + std::to_string(d.n) + " batch " + std::to_string(d.batch) +
                         (d.in_place ? " in-place" : "") + " real " + layout_text(d.real) + " complex " +
                         layout_text(d.complex) + (inverse ? " C2R" : " R2C");
      fuzz_fft_plan<RealFftPlan>(arena, h, counts, d, inverse, what, real_fft_result_ok);
    }
    report("real fft", counts, cases);
  }

  TEST_CASE("multi-dimensional fft under hostile arguments") {
    Arena arena(test::seed() + 17);
    Hostile h(test::seed() + 18);
    FuzzCounts counts;
    // A twentieth of the argument sets: an accepted transform is two or three 1-D plans, whose
    // checks and extents are fuzzed above; these sets fuzz the strides, their overlap and the passes.
    const std::size_t cases = std::max<std::size_t>(1, test::safety_cases() / 20);
    for (std::size_t i = 0; i < cases; ++i) {
      const FftNdDesc d = hostile_nd_desc(h, h.chance(0.5) ? 0.1 : 0.0);
      const bool inverse = h.chance(0.5);
      std::string what = nd_text(d) + (inverse ? " inverse" : " forward");
      fuzz_fft_plan<FftNdPlan>(arena, h, counts, d, inverse, what, nd_fft_result_ok);
    }
    report("multi-dimensional fft", counts, cases);
  }

  TEST_CASE("real multi-dimensional fft under hostile arguments") {
    auto& s = test::session();
    Arena arena(test::seed() + 19);
    Hostile h(test::seed() + 20);
    FuzzCounts counts;
    // Every argument set builds a plan or is refused with nothing built (cheap once the few
    // lengths are compiled), and an accepted plan refuses null buffers before enqueueing; a
    // twentieth of the sets is also enqueued on picked buffers and its result checked.
    const std::size_t cases = test::safety_cases();
    for (std::size_t i = 0; i < cases; ++i) {
      const RealFftNdDesc d = hostile_real_nd_desc(h, h.chance(0.5) ? 0.1 : 0.0);
      const bool inverse = h.chance(0.5);
      FftNdDesc shown;
      shown.shape = d.shape;
      shown.batch = d.batch;
      shown.in_place = d.in_place;
      shown.in = d.real;
      shown.out = d.complex;
      std::string what = "real " + nd_text(shown) + (inverse ? " C2R" : " R2C");
      if (i % 20 == 0) {
        fuzz_fft_plan<RealFftNdPlan>(arena, h, counts, d, inverse, what, real_nd_result_ok);
        continue;
      }
      // A plan sees no buffer: a refusal must leave nothing built, allocated or enqueued.
      const test::Footprint before = test::Footprint::now();
      try {
        const RealFftNdPlan plan(s.queue, d);
        ++counts.accepted;
        CHECK_THROWS_AS(
            plan.enqueue(s.queue, inverse ? FftDirection::Inverse : FftDirection::Forward, cl::Buffer(), cl::Buffer()),
            InvalidArgument);
      } catch (const InvalidArgument&) {
        ++counts.refused;
        CHECK_MESSAGE(test::Footprint::now() == before, what << ": refused after building or enqueueing");
      }
    }
    report("real multi-dimensional fft", counts, cases);
  }

  TEST_CASE("gaussian_blur under hostile arguments") {
    auto& s = test::session();
    Arena arena(test::seed() + 7);
    Hostile h(test::seed() + 8);
    FuzzCounts counts;
    const double sigmas[] = {0.6, 1.0, 2.5, 1.7};
    const double wild_sigmas[] = {0.0, -1.0, NAN, INFINITY, 5000.0, 0.3, 1e-300};
    for (std::size_t i = 0; i < test::safety_cases(); ++i) {
      const double pw = h.chance(0.5) ? 0.15 : 0.0;
      const std::size_t w = h.size(h.chance(0.03) ? 0 : 1, 20, pw), ht = h.size(h.chance(0.03) ? 0 : 1, 20, pw);
      const int f = h.chance(0.02) ? 7 : static_cast<int>(h.below(3));
      const PixelFormat format = static_cast<PixelFormat>(f);
      BlurOptions o;
      o.sigma_x = h.chance(pw) ? wild_sigmas[h.below(7)] : sigmas[h.below(4)];
      o.sigma_y = h.chance(pw) ? wild_sigmas[h.below(7)] : sigmas[h.below(4)];
      o.method = static_cast<BlurMethod>(h.chance(0.02) ? 17 : static_cast<int>(h.below(4)));
      o.border = static_cast<BlurBorder>(h.chance(0.02) ? 9 : static_cast<int>(h.below(3)));
      const Slot in = arena.pick(h, h.chance(0.9) ? Parent::Src : Parent::Dst), out = arena.pick(h, Parent::Dst);
      const std::size_t in_pitch = near(h, w, pw), out_pitch = near(h, w, pw);
      const std::size_t in_off = h.size(0, 30, pw), out_off = h.size(0, 30, pw);
      const std::string what = "blur " + std::to_string(w) + "x" + std::to_string(ht) + " format " + std::to_string(f) +
                               " method " + std::to_string(static_cast<int>(o.method)) + " border " +
                               std::to_string(static_cast<int>(o.border)) + " sigma " + std::to_string(o.sigma_x) +
                               "/" + std::to_string(o.sigma_y) + " in " + text(in, in_off, in_pitch) + " out " +
                               text(out, out_off, out_pitch);
      BlurMethod used = BlurMethod::Auto;
      test::fuzz_one(
          arena, what, counts,
          [&] {
            used = gaussian_blur(s.queue, w, ht, format, {in.buffer, in_off, in_pitch},
                                 {out.buffer, out_off, out_pitch}, o);
          },
          [&] {
            auto& want = arena.expected(Parent::Dst);
            const std::vector<unsigned char> got = arena.read(Parent::Dst);
            const bool u8 = format == PixelFormat::RGBA8;
            const std::size_t c = format == PixelFormat::R32F ? 1 : 4, pb = pixel_bytes(format);
            std::vector<float> x(w * ht * c);  // compact float input
            for (std::size_t y = 0; y < ht; ++y)
              for (std::size_t xx = 0; xx < w; ++xx) {
                const unsigned char* p = at(arena, in, in_off + y * in_pitch + xx, pb);
                for (std::size_t ch = 0; ch < c; ++ch) {
                  float v;
                  if (u8)
                    v = p[ch];
                  else
                    std::memcpy(&v, p + 4 * ch, 4);
                  x[(y * w + xx) * c + ch] = v;
                }
              }
            const bool rec = used == BlurMethod::Recursive;
            const auto ref = rec ? host::recursive_blur(x.data(), w, ht, c, w, o.sigma_x, o.sigma_y, o.border)
                                 : host::gaussian_blur(x.data(), w, ht, c, w, o.sigma_x, o.sigma_y, o.border);
            const double tol = 2 * (rec ? host::recursive_blur_tolerance(o.sigma_x, o.sigma_y)
                                        : host::truncated_blur_tolerance(o.sigma_x, o.sigma_y));
            double num = 0, den = 0, worst_step = 0;
            for (std::size_t y = 0; y < ht; ++y)
              for (std::size_t xx = 0; xx < w; ++xx) {
                const std::size_t byte = out.origin + (out_off + y * out_pitch + xx) * pb;
                for (std::size_t ch = 0; ch < c; ++ch) {
                  const double r = ref[(y * w + xx) * c + ch];
                  if (u8) {
                    const double want_u8 = std::min(255.0, std::max(0.0, std::nearbyint(r)));
                    worst_step = std::max(worst_step, std::fabs(got[byte + ch] - want_u8));
                  } else {
                    float v;
                    std::memcpy(&v, got.data() + byte + 4 * ch, 4);
                    num += (v - r) * (v - r);
                    den += r * r;
                    if (!std::isfinite(v)) num = INFINITY;
                  }
                }
                std::memcpy(want.data() + byte, got.data() + byte, pb);
              }
            if (hidden_alias(in, out)) return true;
            const double err = std::sqrt(num) / std::max(std::sqrt(den), 1e-30);
            if (u8 ? worst_step > 1.0 : !(err <= tol)) {
              FAIL_CHECK(what << ": used " << to_string(used) << ", error " << (u8 ? worst_step : err) << " (bound "
                              << (u8 ? 1.0 : tol) << ")");
              return false;
            }
            return true;
          });
    }
    report("gaussian_blur", counts);
  }
}
