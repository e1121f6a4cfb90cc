// FFT commands: `clforge run fft` (one plan on random data, checked against FFTW and timed) and
// `clforge bench fft` (clforge vs clFFT vs VkFFT); `bench fft-vkfft-child` is the benchmark's
// child process for VkFFT (not meant to be called by hand).
#include <cmath>
#include <cstdio>
#include <iostream>

#include "bench/fft_child.hpp"
#include "bench/peak.hpp"
#include "host/data.hpp"
#include "host/fft.hpp"
#include "host/fftw_reference.hpp"
#include "runtime/errors.hpp"
#include "tools/cli.hpp"

namespace clforge::cli {
namespace {

struct RunFftOptions {
  std::string size = "1024";
  std::size_t n = 0, stride = 1, distance = 0;
  bool inverse = false, in_place = false;
  std::string scaling = "none";
};

FftScaling parse_scaling(const std::string& s) {
  if (s == "n") return FftScaling::OverN;
  if (s == "sqrtn") return FftScaling::OverSqrtN;
  if (s != "none") throw InvalidArgument("--scaling must be none, n or sqrtn");
  return FftScaling::None;
}

template <typename Plan>
void print_plan(const Plan& plan) {
  std::printf("%s\n", plan.describe().c_str());
  for (const auto& cfg : plan.configurations()) {
    std::printf("  parameters (variant %s):", cfg.variant.c_str());
    for (const auto& [k, v] : cfg.values) std::printf(" %s=%d", k.c_str(), v);
    std::printf("\n");
    for (const auto& note : cfg.notes) std::printf("    note: %s\n", note.c_str());
  }
}

// The host reference of transform b of a real-input plan's run on x: R2C, the complex DFT of the
// real values (first n/2 + 1 outputs); C2R, the real parts of the inverse DFT of the Hermitian
// spectrum (X_0 and X_(n/2) taken as real).
std::vector<double> real_reference(const RealFftDesc& d, const std::vector<float>& x, std::size_t b, bool inverse,
                                   double scale) {
  const std::size_t n = d.n, h = n / 2 + 1;
  std::vector<float> c(2 * n, 0.0f);
  for (std::size_t k = 0; k < (inverse ? h : n); ++k) {
    if (!inverse) {
      c[2 * k] = x[d.real.offset + b * d.real.distance + k * d.real.stride];
      continue;
    }
    const std::size_t p = d.complex.offset + b * d.complex.distance + k * d.complex.stride;
    const bool single = k == 0 || 2 * k == n;
    c[2 * k] = x[2 * p];
    c[2 * k + 1] = single ? 0.0f : x[2 * p + 1];
    if (!single) {
      c[2 * (n - k)] = x[2 * p];
      c[2 * (n - k) + 1] = -x[2 * p + 1];
    }
  }
  const std::vector<host::cdouble> y = host::fft_batch(c.data(), n, 1, 1, n, 0, inverse, scale);
  std::vector<double> r;
  for (std::size_t k = 0; k < (inverse ? n : h); ++k) {
    r.push_back(y[k].real());
    if (!inverse) r.push_back(y[k].imag());
  }
  return r;
}

// Largest relative L2 error of up to 64 transforms spread over the batch; counts non-finite results.
double real_error(const RealFftDesc& d, const std::vector<float>& x, const std::vector<float>& y, bool inverse,
                  double scale, std::size_t* nonfinite) {
  double worst = 0;
  const FftLayout& l = inverse ? d.real : d.complex;
  const std::size_t parts = inverse ? 1 : 2, outputs = inverse ? d.n : d.n / 2 + 1;
  for (std::size_t b = 0; b < d.batch; b += std::max<std::size_t>(1, d.batch / 64)) {
    const std::vector<double> ref = real_reference(d, x, b, inverse, scale);
    double num = 0, den = 0;
    for (std::size_t k = 0; k < outputs; ++k)
      for (std::size_t p = 0; p < parts; ++p) {
        const double v = y[parts * (l.offset + b * l.distance + k * l.stride) + p], r = ref[parts * k + p];
        if (!std::isfinite(v)) ++*nonfinite;
        num += (v - r) * (v - r);
        den += r * r;
      }
    worst = std::max(worst, std::sqrt(num / std::max(den, 1e-300)));
  }
  return worst;
}

// `run fft --size N,real`: a real-input plan (R2C, C2R with --inverse) on random data, checked and timed.
void cmd_run_real_fft(Globals& g, const RunFftOptions& o, const Size& z) {
  if (o.stride != 1 || o.distance != 0 || !g.split.devices.empty() || g.split.mpi)
    throw UsageError(
        "run fft with real: one device, rows of stride 1 or layout=interleaved (leave out --stride, "
        "--distance, --devices, --mpi)");
  if (z.interleaved && o.in_place) throw UsageError("run fft with real: in place takes padded rows (no layout=)");
  RealFftDesc d;
  d.n = z.x;
  d.batch = z.fft_batch((std::size_t{64} << 20) / 2);
  d.in_place = o.in_place;
  if (z.interleaved) d.real = d.complex = {d.batch, 1, 0};
  (o.inverse ? d.inverse_scaling : d.forward_scaling) = parse_scaling(o.scaling);
  Session& s = g.session();
  const RealFftPlan plan(s.queue, d, g.tuning());
  std::printf("fft n=%zu real batch=%zu %s%s on \"%s\"\n", d.n, d.batch, o.inverse ? "inverse (C2R)" : "forward (R2C)",
              o.in_place ? " in place" : "", s.entry.info.name.c_str());
  print_plan(plan);
  const RealFftDesc& pd = plan.desc();
  const std::size_t h = d.n / 2 + 1;
  const std::size_t floats =
      std::max(pd.real.offset + (d.batch - 1) * pd.real.distance + (d.n - 1) * pd.real.stride + 1,
               2 * (pd.complex.offset + (d.batch - 1) * pd.complex.distance + (h - 1) * pd.complex.stride + 1));
  std::vector<float> x = host::random_floats(floats, host::default_seed());
  cl::Buffer in(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, x.data());
  cl::Buffer out = o.in_place ? in : cl::Buffer(s.context, CL_MEM_READ_WRITE, x.size() * 4);
  if (!o.in_place) detail::check(s.queue.enqueueFillBuffer(out, std::nanf(""), 0, x.size() * 4), "clEnqueueFillBuffer");
  const FftDirection dir = o.inverse ? FftDirection::Inverse : FftDirection::Forward;
  plan.enqueue(s.queue, dir, in, out);
  std::vector<float> y(x.size());
  detail::check(s.queue.enqueueReadBuffer(out, CL_TRUE, 0, y.size() * 4, y.data()), "clEnqueueReadBuffer");
  const FftScaling sc = o.inverse ? pd.inverse_scaling : pd.forward_scaling;
  const double scale = sc == FftScaling::OverN       ? 1.0 / d.n
                       : sc == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(d.n))
                                                     : 1.0;
  std::size_t nonfinite = 0;
  const double worst = real_error(pd, x, y, o.inverse, scale, &nonfinite), tol = host::fft_tolerance(d.n);
  const bool ok = nonfinite == 0 && worst <= tol;
  cl::Buffer tin = in, tout = out;
  if (o.in_place) tin = tout = cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, x.data());
  const bench::Timing timing = bench::time_region(s.queue, [&] { plan.enqueue(s.queue, dir, tin, tout); });
  const double bytes = (4.0 * d.n + 8.0 * h) * d.batch;
  const double flops = d.n > 1 ? 2.5 * d.n * std::log2(double(d.n)) * d.batch : 0.0;
  std::printf("%.4f ms median (%.4f .. %.4f, %d runs), %.1f GB/s, %.1f GFLOP/s, %zu launches\n", timing.median_ms,
              timing.min_ms, timing.max_ms, timing.reps, bytes / timing.median_ms / 1e6, flops / timing.median_ms / 1e6,
              plan.launches(dir));
  std::printf("max relative L2 error %.3e over %zu checked transforms (tolerance %.3e): %s\n", worst,
              (d.batch + std::max<std::size_t>(1, d.batch / 64) - 1) / std::max<std::size_t>(1, d.batch / 64), tol,
              ok ? "ok" : "WRONG");
  if (!ok) throw Error("real fft result differs from the host reference");
}

// The double FFT (host::fft) of every line along `axis` of the row-major array a of `shape`.
void fft_along(std::vector<host::cdouble>& a, const std::vector<std::size_t>& shape, std::size_t axis, int sign) {
  std::size_t inner = 1;  // this axis' stride
  for (std::size_t k = axis + 1; k < shape.size(); ++k) inner *= shape[k];
  const std::size_t n = shape[axis];
  for (std::size_t first = 0; first < a.size(); ++first) {
    if ((first / inner) % n != 0) continue;  // not the start of a line along this axis
    std::vector<host::cdouble> line(n);
    for (std::size_t j = 0; j < n; ++j) line[j] = a[first + j * inner];
    line = host::fft(line, sign);
    for (std::size_t j = 0; j < n; ++j) a[first + j * inner] = line[j];
  }
}

// The host reference of transform b of a multi-dimensional run on x (contiguous): the double
// FFT along each axis in turn, scaled.
std::vector<host::cdouble> nd_reference(const FftNdDesc& d, const std::vector<float>& x, std::size_t b, int sign,
                                        double scale) {
  std::size_t v = 1;
  for (std::size_t n : d.shape) v *= n;
  std::vector<host::cdouble> a(v);
  for (std::size_t e = 0; e < v; ++e) a[e] = {x[2 * (b * v + e)], x[2 * (b * v + e) + 1]};
  for (std::size_t axis = 0; axis < d.shape.size(); ++axis) fft_along(a, d.shape, axis, sign);
  for (host::cdouble& c : a) c *= scale;
  return a;
}

// `run fft --size NxM[xK]`: a multi-dimensional plan on contiguous random data, checked and timed.
void cmd_run_nd_fft(Globals& g, const RunFftOptions& o, const Size& z) {
  if (!g.split.devices.empty() || g.split.mpi || o.stride != 1 || o.distance != 0)
    throw UsageError("run fft NxM[xK]: one device, contiguous (leave out --devices, --stride, --distance)");
  FftNdDesc d;
  d.shape = {z.x, z.y};
  if (z.z != 0) d.shape.push_back(z.z);
  d.batch = z.fft_batch(std::size_t{64} << 20);
  d.in_place = o.in_place;
  const FftScaling sc = parse_scaling(o.scaling);
  (o.inverse ? d.inverse_scaling : d.forward_scaling) = sc;
  Session& s = g.session();
  const FftNdPlan plan(s.queue, d, g.tuning());
  const std::size_t points = z.fft_points(), elems = points * d.batch;
  std::printf("fft %s batch=%zu %s%s on \"%s\"\n%s\n", z.text().c_str(), d.batch, o.inverse ? "inverse" : "forward",
              o.in_place ? " in place" : "", s.entry.info.name.c_str(), plan.describe().c_str());
  std::vector<float> x = host::random_floats(2 * elems, host::default_seed());
  cl::Buffer in(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, x.data());
  cl::Buffer out = o.in_place ? in : cl::Buffer(s.context, CL_MEM_READ_WRITE, x.size() * 4);
  const FftDirection dir = o.inverse ? FftDirection::Inverse : FftDirection::Forward;
  plan.enqueue(s.queue, dir, in, out);
  std::vector<float> y(x.size());
  detail::check(s.queue.enqueueReadBuffer(out, CL_TRUE, 0, y.size() * 4, y.data()), "clEnqueueReadBuffer");
  // Up to 8 transforms spread over the batch against the host FFT; the 1-D bounds of the axes added.
  const double scale = sc == FftScaling::OverN       ? 1.0 / double(points)
                       : sc == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(points))
                                                     : 1.0;
  const std::size_t step = std::max<std::size_t>(1, d.batch / 8);
  double worst = 0, tol = 0;
  std::size_t nonfinite = 0;
  for (std::size_t n : d.shape) tol += host::fft_tolerance(n);
  for (std::size_t b = 0; b < d.batch; b += step) {
    const auto ref = nd_reference(d, x, b, o.inverse ? +1 : -1, scale);
    const host::FftError e = host::fft_compare(y.data(), points, 1, 1, points, b * points, ref);
    worst = std::max(worst, e.max_rel_l2);
    nonfinite += e.nonfinite;
  }
  const bool ok = nonfinite == 0 && worst <= tol;
  cl::Buffer tin = in, tout = out;
  if (o.in_place) tin = tout = cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, x.data());
  const bench::Timing timing = bench::time_region(s.queue, [&] { plan.enqueue(s.queue, dir, tin, tout); });
  const double flops = 5.0 * double(elems) * std::log2(double(points));
  std::printf("%.4f ms median (%.4f .. %.4f, %d runs), %.1f GFLOP/s, %zu launches\n", timing.median_ms, timing.min_ms,
              timing.max_ms, timing.reps, flops / timing.median_ms / 1e6, plan.launches());
  std::printf("max relative L2 error %.3e over %zu checked transforms (tolerance %.3e): %s\n", worst,
              (d.batch + step - 1) / step, tol, ok ? "ok" : "WRONG");
  if (!ok) throw Error("fft result differs from the host reference");
}

// Position of logical element e (row-major over shape) of transform b in layout l.
std::size_t nd_position(const FftNdLayout& l, const std::vector<std::size_t>& shape, std::size_t b, std::size_t e) {
  std::size_t o = l.offset + b * l.distance;
  for (std::size_t k = shape.size(); k-- > 0;) {
    o += (e % shape[k]) * l.strides[k];
    e /= shape[k];
  }
  return o;
}

// The host reference of transform b of a real multi-dimensional run on x, in row-major order:
// R2C, the double FFT of the real array along every axis, outputs k_last <= n/2; C2R, the
// inverse FFT of the half spectrum along the other axes, then of each row's Hermitian extension
// (imaginary parts of X_0 and X_(n/2) dropped), real parts.
std::vector<host::cdouble> real_nd_reference(const RealFftNdDesc& d, const std::vector<float>& x, std::size_t b,
                                             bool inverse, double scale) {
  std::vector<std::size_t> half = d.shape;
  const std::size_t n = d.shape.back(), h = half.back() = n / 2 + 1, rank = d.shape.size();
  std::vector<host::cdouble> a;
  std::size_t v = 1;
  for (std::size_t k : inverse ? half : d.shape) v *= k;
  for (std::size_t e = 0; e < v; ++e) {
    const std::size_t p = nd_position(inverse ? d.complex : d.real, inverse ? half : d.shape, b, e);
    a.push_back(inverse ? host::cdouble(x[2 * p], x[2 * p + 1]) : host::cdouble(x[p], 0));
  }
  std::vector<host::cdouble> r;
  if (!inverse) {
    for (std::size_t axis = 0; axis < rank; ++axis) fft_along(a, d.shape, axis, -1);
    for (std::size_t e = 0; e < v; ++e)
      if (e % n < h) r.push_back(a[e] * scale);
    return r;
  }
  for (std::size_t axis = 0; axis + 1 < rank; ++axis) fft_along(a, half, axis, +1);
  r.assign(v / h * n, 0.0);
  for (std::size_t row = 0; row < v / h; ++row)
    for (std::size_t k = 0; k < h; ++k) {
      const bool single = k == 0 || 2 * k == n;
      r[row * n + k] = single ? host::cdouble(a[row * h + k].real(), 0) : a[row * h + k];
      if (!single) r[row * n + n - k] = std::conj(a[row * h + k]);
    }
  fft_along(r, d.shape, rank - 1, +1);
  for (host::cdouble& c : r) c = c.real() * scale;
  return r;
}

// Largest relative L2 error of up to 8 transforms spread over the batch of y (the output side)
// against the reference of x; counts non-finite results.
double real_nd_error(const RealFftNdDesc& d, const std::vector<float>& x, const std::vector<float>& y, bool inverse,
                     double scale, std::size_t* nonfinite) {
  std::vector<std::size_t> half = d.shape;
  half.back() = d.shape.back() / 2 + 1;
  double worst = 0;
  for (std::size_t b = 0; b < d.batch; b += std::max<std::size_t>(1, d.batch / 8)) {
    const std::vector<host::cdouble> ref = real_nd_reference(d, x, b, inverse, scale);
    double num = 0, den = 0;
    for (std::size_t e = 0; e < ref.size(); ++e) {
      const std::size_t p = nd_position(inverse ? d.real : d.complex, inverse ? d.shape : half, b, e);
      const host::cdouble got = inverse ? host::cdouble(y[p], 0) : host::cdouble(y[2 * p], y[2 * p + 1]);
      if (!std::isfinite(got.real()) || !std::isfinite(got.imag())) ++*nonfinite;
      num += std::norm(got - ref[e]);
      den += std::norm(ref[e]);
    }
    worst = std::max(worst, std::sqrt(num / std::max(den, 1e-300)));
  }
  return worst;
}

// `run fft --size NxM[xK],real`: a real-input multi-dimensional plan on contiguous random data,
// R2C and then C2R of its result, each checked against the host reference and timed.
void cmd_run_real_nd_fft(Globals& g, const RunFftOptions& o, const Size& z) {
  if (!g.split.devices.empty() || g.split.mpi || o.stride != 1 || o.distance != 0 || o.inverse)
    throw UsageError(
        "run fft NxM[xK],real: one device, contiguous, R2C then C2R (leave out --devices, --mpi, --stride, "
        "--distance, --inverse)");
  RealFftNdDesc d;
  d.shape = {z.x, z.y};
  if (z.z != 0) d.shape.push_back(z.z);
  d.batch = z.fft_batch((std::size_t{64} << 20) / 2);
  d.in_place = o.in_place;
  d.inverse_scaling = parse_scaling(o.scaling);  // of the C2R
  Session& s = g.session();
  const RealFftNdPlan plan(s.queue, d, g.tuning());
  const RealFftNdDesc& pd = plan.desc();
  std::printf("fft %s batch=%zu R2C then C2R%s on \"%s\"\n%s\n", z.text().c_str(), d.batch,
              o.in_place ? " in place" : "", s.entry.info.name.c_str(), plan.describe().c_str());
  const std::size_t real_floats = pd.real.distance * d.batch, spec_floats = 2 * pd.complex.distance * d.batch;
  const std::vector<float> x = host::random_floats(real_floats, host::default_seed());
  cl::Buffer real(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, const_cast<float*>(x.data()));
  cl::Buffer spec = o.in_place ? real : cl::Buffer(s.context, CL_MEM_READ_WRITE, spec_floats * 4);
  cl::Buffer back = o.in_place ? real : cl::Buffer(s.context, CL_MEM_READ_WRITE, real_floats * 4);
  std::vector<float> y(spec_floats), r(real_floats);
  plan.forward(real, spec);
  detail::check(s.queue.enqueueReadBuffer(spec, CL_TRUE, 0, y.size() * 4, y.data()), "clEnqueueReadBuffer");
  plan.inverse(spec, back);
  detail::check(s.queue.enqueueReadBuffer(back, CL_TRUE, 0, r.size() * 4, r.data()), "clEnqueueReadBuffer");
  const std::size_t points = z.fft_points();
  const double inv_scale = pd.inverse_scaling == FftScaling::OverN       ? 1.0 / double(points)
                           : pd.inverse_scaling == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(points))
                                                                         : 1.0;
  std::size_t nonfinite = 0;
  const double e_fwd = real_nd_error(pd, x, y, false, 1.0, &nonfinite);
  const double e_inv = real_nd_error(pd, y, r, true, inv_scale, &nonfinite);
  double tol = 0;
  for (std::size_t n : d.shape) tol += host::fft_tolerance(n);
  const bool ok = nonfinite == 0 && e_fwd <= tol && e_inv <= tol;
  const bench::Timing tf = bench::time_region(s.queue, [&] { plan.forward(real, spec); });
  const bench::Timing ti = bench::time_region(s.queue, [&] { plan.inverse(spec, back); });
  const double flops = 2.5 * double(points) * std::log2(double(points)) * double(d.batch);
  std::printf("R2C %.4f ms median (%.4f .. %.4f), C2R %.4f ms (%.4f .. %.4f), %.1f / %.1f GFLOP/s, %zu launches\n",
              tf.median_ms, tf.min_ms, tf.max_ms, ti.median_ms, ti.min_ms, ti.max_ms, flops / tf.median_ms / 1e6,
              flops / ti.median_ms / 1e6, plan.launches());
  std::printf("max relative L2 error R2C %.3e, C2R %.3e over %zu checked transforms (tolerance %.3e): %s\n", e_fwd,
              e_inv, (d.batch + std::max<std::size_t>(1, d.batch / 8) - 1) / std::max<std::size_t>(1, d.batch / 8), tol,
              ok ? "ok" : "WRONG");
  if (!ok) throw Error("real fft result differs from the host reference");
}

void cmd_run_fft(Globals& g, RunFftOptions o) {
  const Size z = parse_size("fft", o.size);
  if (z.real && z.y != 0) return cmd_run_real_nd_fft(g, o, z);
  if (z.real) return cmd_run_real_fft(g, o, z);
  if (z.y != 0) return cmd_run_nd_fft(g, o, z);
  o.n = z.x;
  if (!g.split.devices.empty() || g.split.mpi) {
    if (o.in_place || o.stride != 1 || o.distance != 0 || o.scaling != "none" || z.interleaved)
      throw UsageError(
          "run fft --devices: contiguous transforms, out of place, unscaled (leave out --in-place, "
          "--stride, --distance, --scaling, layout=)");
    bench::SplitCase c;
    c.routine = "fft";
    c.x = o.n;
    c.y = z.fft_batch(std::size_t{64} << 20);
    c.inverse = o.inverse;
    return run_on_group(g, c);
  }
  FftDesc d;
  d.n = o.n;
  d.batch = z.fft_batch((std::size_t{64} << 20) / o.stride);
  if (z.interleaved) {
    if (o.stride != 1 || o.distance != 0)
      throw UsageError("run fft: layout=interleaved sets the stride and distance; leave out --stride and --distance");
    o.stride = d.batch;
    o.distance = 1;
  }
  Session& s = g.session();
  d.in.stride = d.out.stride = o.stride;
  d.in.distance = d.out.distance = o.distance;
  d.in_place = o.in_place;
  const FftScaling sc = parse_scaling(o.scaling);
  (o.inverse ? d.inverse_scaling : d.forward_scaling) = sc;
  const std::size_t dist = o.distance != 0 ? o.distance : o.n * o.stride;
  const std::size_t elems = (d.batch - 1) * dist + (o.n - 1) * o.stride + 1;

  const Tuning t = g.tuning();
  const FftPlan plan(s.queue, d, t);
  std::printf("fft n=%zu batch=%zu %s%s on \"%s\"\n", d.n, d.batch, o.inverse ? "inverse" : "forward",
              o.in_place ? " in place" : "", s.entry.info.name.c_str());
  print_plan(plan);

  std::vector<float> x = host::random_floats(2 * elems, host::default_seed());
  cl::Buffer in(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, x.data());
  cl::Buffer out = o.in_place ? in : cl::Buffer(s.context, CL_MEM_READ_WRITE, x.size() * 4);
  if (!o.in_place) detail::check(s.queue.enqueueFillBuffer(out, std::nanf(""), 0, x.size() * 4), "clEnqueueFillBuffer");
  if (o.inverse)
    plan.inverse(in, out);
  else
    plan.forward(in, out);
  std::vector<float> y(x.size());
  detail::check(s.queue.enqueueReadBuffer(out, CL_TRUE, 0, y.size() * 4, y.data()), "clEnqueueReadBuffer");

  // Check up to 64 transforms spread over the batch against FFTW.
  const double scale = sc == FftScaling::OverN       ? 1.0 / o.n
                       : sc == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(o.n))
                                                     : 1.0;
  const std::size_t step = std::max<std::size_t>(1, d.batch / 64);
  double worst = 0;
  std::size_t nonfinite = 0;
  for (std::size_t b = 0; b < d.batch; b += step) {
    const auto ref = host::fftw_batch(x.data(), o.n, 1, o.stride, dist, b * dist, o.inverse, scale);
    const host::FftError e = host::fft_compare(y.data(), o.n, 1, o.stride, dist, b * dist, ref);
    worst = std::max(worst, e.max_rel_l2);
    nonfinite += e.nonfinite;
  }
  const double tol = host::fft_tolerance(o.n);
  const bool ok = nonfinite == 0 && worst <= tol;

  cl::Buffer tin = in, tout = out;
  if (o.in_place) {  // time on a copy so the checked data above stay meaningful
    tin = tout = cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x.size() * 4, x.data());
  }
  const bench::Timing timing = bench::time_region(s.queue, [&] {
    if (o.inverse)
      plan.inverse(tin, tout);
    else
      plan.forward(tin, tout);
  });
  const double bytes = 2.0 * 8.0 * o.n * d.batch;
  const double flops = o.n > 1 ? 5.0 * o.n * std::log2(double(o.n)) * d.batch : 0.0;
  std::printf("%.4f ms median (%.4f .. %.4f, %d runs), %.1f GB/s, %.1f GFLOP/s, %zu launch%s\n", timing.median_ms,
              timing.min_ms, timing.max_ms, timing.reps, bytes / timing.median_ms / 1e6, flops / timing.median_ms / 1e6,
              plan.launches(), plan.launches() == 1 ? "" : "es");
  std::printf("max relative L2 error %.3e over %zu checked transforms (tolerance %.3e): %s\n", worst,
              (d.batch + step - 1) / step, tol, ok ? "ok" : "WRONG");
  if (!ok) throw Error("fft result differs from the FFTW reference");
}

void cmd_bench_fft(Globals& g) {
  Session& s = g.session();
  const bench::BenchOptions opt = g.bench_options("fft");
  bench::fft_cases(opt, s.entry.info);  // a size it cannot read exits here, before the peak probes
  bench::Report report(s.entry.info);
  const bench::Peaks p = bench::routine_peaks(s, report, g.quick);
  bench::bench_fft(s, report, opt, p);
  finish_report(report, g);
}

void register_fft(Apps& apps, Globals& g) {
  static RunFftOptions o;
  auto* rf = apps.run->add_subcommand("fft", "one batched FFT plan on random data, checked against FFTW and timed");
  add_run_size_option(rf, o.size, "fft", "length and batch (default batch: 64 MiB of data)",
                      "; interleaved: stride batch, distance 1");
  rf->add_flag("--inverse", o.inverse, "inverse transform");
  rf->add_flag("--in-place", o.in_place, "in-place plan");
  rf->add_option("--stride", o.stride, "element stride of input and output")
      ->capture_default_str()
      ->check(size_range());
  rf->add_option("--distance", o.distance, "distance between transforms (default n * stride)")->check(size_range());
  rf->add_option("--scaling", o.scaling, "none, n (1/n) or sqrtn (1/sqrt(n))")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "n", "sqrtn"}));
  add_split_options(rf, g.split, false);
  rf->callback([&g] { cmd_run_fft(g, o); });

  auto* bf = apps.bench->add_subcommand(
      "fft", "clforge FFT (complex and real-input R2C, 1-D to 3-D) vs clFFT, VkFFT, cuFFT and FFTW on the same device");
  add_bench_options(bf, g, "fft");
  bf->add_option(
        "--rounds", g.rounds,
        "rounds per size, each running every library once (round k starts with library k); a "
        "library's figure is the median of its rounds' medians (default: 3 on CPU devices without --quick, else 1)")
      ->check(CLI::Range(1, 100));
  bf->callback([&g] { cmd_bench_fft(g); });

  static std::string csize;
  static bench::TimingPlan cp;
  auto* child = apps.bench->add_subcommand("fft-vkfft-child", "the FFT benchmark's VkFFT child process");
  child->group("");  // internal: hidden from help
  child->add_option("--size", csize, "the case in the size grammar: N,batch=B[,real] or NxM[xK],batch=B")->required();
  child->add_option("--reps", cp.min_reps);
  child->add_option("--min-ms", cp.min_time_ms);
  child->add_option("--warmup", cp.warmup);
  child->add_option("--region-ms", cp.region_ms);
  child->callback([&g] { bench::fft_vkfft_child(g.session(), csize, cp); });
}

CLFORGE_CLI_COMMANDS(register_fft);

}  // namespace
}  // namespace clforge::cli
