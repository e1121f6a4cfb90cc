// Gaussian blur against the double host references: direct and separable against the same
// truncated Gaussian (tight), recursive against the same recursive filter (tight) and against
// the exact Gaussian (looser, the filter is an approximation); every border mode, degenerate
// and odd shapes, radius wider than the image, sigma 0.5 .. 50, pitches and offsets, 4-channel
// and 8-bit RGBA paths, every shipped vendor-class parameter set, events, bad arguments, and
// the `clforge blur` command on PNG files made here. Set CLFORGE_LONG_TESTS=1 for larger sizes.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "blur/blur_plan.hpp"
#include "host/blur.hpp"
#include "runtime/util.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {

bool long_tests() {
  const char* v = std::getenv("CLFORGE_LONG_TESTS");
  return v != nullptr && std::string(v) == "1";
}

// Tolerances against the double reference of the same filter: host::truncated_blur_tolerance
// (direct, separable) and host::recursive_blur_tolerance (host/blur.hpp, shared with clforge demo).

// Recursive filter against the exact Gaussian on random data: the approximation error of the
// Young-van Vliet design (measured 2-D: 0.15-0.17 at sigma 0.5-1, 0.09 at 2, 0.06 at 5, 0.04 at
// 10), largest at small sigma where high frequencies dominate.
double exact_tolerance(double sigma_min) { return sigma_min < 2 ? 0.20 : sigma_min < 5 ? 0.10 : 0.07; }
// An image whose every side is 1 or shorter than 4 sigma of its axis blurs to nearly its
// mean, which may be close to zero, so there the error is bounded in absolute terms instead
// (inputs lie in [-1, 1]).
constexpr double kExactAbsTolerance = 0.02;
bool nearly_constant(std::size_t w, std::size_t h, double sx, double sy) {
  auto flat = [](std::size_t n, double s) { return n == 1 || static_cast<double>(n) < 4 * s; };
  return flat(w, sx) && flat(h, sy);
}

struct Case {
  std::size_t w = 1, h = 1, c = 1;
  double sx = 1, sy = 1;
  BlurBorder border = BlurBorder::Clamp;
  BlurMethod method = BlurMethod::Separable;
  std::size_t in_pad = 0, out_pad = 0, in_off = 0, out_off = 0;
  Tuning tuning{};
};

std::string describe(const Case& k, std::uint64_t seed) {
  std::string s = std::to_string(k.w) + "x" + std::to_string(k.h) + "x" + std::to_string(k.c) + " sigma " +
                  std::to_string(k.sx) + "/" + std::to_string(k.sy) + " " + to_string(k.border) + " " +
                  to_string(k.method) + " pads " + std::to_string(k.in_pad) + "/" + std::to_string(k.out_pad) +
                  " offsets " + std::to_string(k.in_off) + "/" + std::to_string(k.out_off) + " seed " +
                  std::to_string(seed) + " params";
  for (const auto& [n, v] : k.tuning.overrides) s += " " + n + "=" + std::to_string(v);
  return s;
}

struct Outcome {
  host::Comparison cmp;          // against the reference of the same filter
  host::Comparison exact;        // recursive only: against the exact Gaussian
  std::size_t outside_touched = 0;
  BlurMethod used = BlurMethod::Auto;
};

// Runs one float blur with poisoned output (and a 127-pixel guard tail) and compares it.
Outcome run_float(const Case& k, std::uint64_t seed, bool with_exact = false) {
  auto& s = test::session();
  const std::size_t c = k.c, in_pitch = k.w + k.in_pad, out_pitch = k.w + k.out_pad, guard = 127;
  const std::size_t in_px = k.in_off + (k.h - 1) * in_pitch + k.w;
  const std::size_t out_px = k.out_off + (k.h - 1) * out_pitch + k.w + guard;
  const std::vector<float> in = host::random_floats(in_px * c, seed);
  std::vector<float> out = host::poisoned(out_px * c);
  const std::vector<float> poison = out;
  cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size() * 4, const_cast<float*>(in.data()));
  cl::Buffer bout(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size() * 4, out.data());
  BlurOptions o;
  o.sigma_x = k.sx;
  o.sigma_y = k.sy;
  o.border = k.border;
  o.method = k.method;
  cl::Event ev;
  Outcome r;
  r.used = gaussian_blur(s.queue, k.w, k.h, c == 1 ? PixelFormat::R32F : PixelFormat::RGBA32F,
                         {bin, k.in_off, in_pitch}, {bout, k.out_off, out_pitch}, o, {}, &ev, k.tuning);
  const std::vector<cl::Event> deps{ev};
  s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, out.size() * 4, out.data(), &deps);

  const float* src = in.data() + k.in_off * c;
  std::vector<double> ref = r.used == BlurMethod::Recursive
                                ? host::recursive_blur(src, k.w, k.h, c, in_pitch, k.sx, k.sy, k.border)
                                : host::gaussian_blur(src, k.w, k.h, c, in_pitch, k.sx, k.sy, k.border);
  std::vector<float> got(k.w * k.h * c);
  std::vector<bool> inside(out_px, false);
  for (std::size_t y = 0; y < k.h; ++y)
    for (std::size_t x = 0; x < k.w; ++x) {
      const std::size_t p = k.out_off + y * out_pitch + x;
      inside[p] = true;
      for (std::size_t ch = 0; ch < c; ++ch) got[(y * k.w + x) * c + ch] = out[p * c + ch];
    }
  for (std::size_t p = 0; p < out_px; ++p)
    if (!inside[p] && std::memcmp(&out[p * c], &poison[p * c], c * 4) != 0) ++r.outside_touched;
  r.cmp = host::compare(got, ref);
  if (with_exact) {
    const std::vector<double> exact = host::gaussian_blur(src, k.w, k.h, c, in_pitch, k.sx, k.sy, k.border, 8.0);
    r.exact = host::compare(got, exact);
  }
  return r;
}

void check_float(const Case& k, std::uint64_t seed) {
  const bool rec = k.method == BlurMethod::Recursive;
  const Outcome r = run_float(k, seed, rec);
  const double tol = rec ? host::recursive_blur_tolerance(k.sx, k.sy) : host::truncated_blur_tolerance(k.sx, k.sy);
  INFO(describe(k, seed));
  INFO("against the same filter: " << r.cmp.summary() << " (tolerance " << tol << ")");
  CHECK(r.outside_touched == 0);
  if (nearly_constant(k.w, k.h, k.sx, k.sy)) {  // output near its mean, maybe near zero: error against the input scale 1
    CHECK(r.cmp.nonfinite == 0);
    CHECK(r.cmp.max_abs_error <= tol);
  } else {
    CHECK(r.cmp.ok(tol));
  }
  if (rec) {
    // Images with a side shorter than 4 sigma of its axis (a 1-pixel side under the zero border
    // keeps only the centre tap, where the approximation is weakest; nearly constant outputs
    // may have a mean near zero): relative error 0.30, or max abs error 0.02 against inputs in
    // [-1, 1].
    const bool short_side = k.w == 1 || k.h == 1 || k.w < 4 * k.sx || k.h < 4 * k.sy;
    const double etol = short_side ? 0.30 : exact_tolerance(std::min(k.sx, k.sy));
    INFO("against the exact Gaussian: " << r.exact.summary() << " (tolerance " << etol
                                        << (short_side ? ", or max abs 0.02)" : ")"));
    CHECK(r.exact.nonfinite == 0);
    CHECK((r.exact.ok(etol) || (short_side && r.exact.max_abs_error <= kExactAbsTolerance)));
  }
}

// A shipped vendor-class row of one blur kernel, as overrides.
using test::vendor_row;

// ---------------------------------------------------------------- PNG files for the CLI tests
// A minimal PNG writer (stored deflate blocks), so the test makes its own input files.
std::uint32_t crc32(const unsigned char* p, std::size_t n, std::uint32_t c = 0xffffffffu) {
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return c;
}

void put32(std::string& s, std::uint32_t v) {
  for (int i = 3; i >= 0; --i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

void chunk(std::string& png, const char* type, const std::string& data) {
  put32(png, static_cast<std::uint32_t>(data.size()));
  std::string td = std::string(type, 4) + data;
  png += td;
  put32(png, crc32(reinterpret_cast<const unsigned char*>(td.data()), td.size()) ^ 0xffffffffu);
}

// samples: h rows of w * channels values (big-endian 16-bit when depth is 16).
std::string make_png(std::size_t w, std::size_t h, int channels, int depth, const std::vector<unsigned>& samples) {
  std::string raw;
  for (std::size_t y = 0; y < h; ++y) {
    raw += '\0';  // filter: none
    for (std::size_t i = 0; i < w * channels; ++i) {
      const unsigned v = samples[y * w * channels + i];
      if (depth == 16) raw += static_cast<char>(v >> 8);
      raw += static_cast<char>(v & 0xff);
    }
  }
  std::string z = "\x78\x01";
  std::uint32_t a = 1, b = 0;
  for (unsigned char ch : raw) {
    a = (a + ch) % 65521;
    b = (b + a) % 65521;
  }
  for (std::size_t pos = 0; pos == 0 || pos < raw.size(); pos += 65535) {
    const std::size_t len = std::min<std::size_t>(65535, raw.size() - pos);
    z += static_cast<char>(pos + len >= raw.size() ? 1 : 0);
    z += static_cast<char>(len & 0xff);
    z += static_cast<char>(len >> 8);
    z += static_cast<char>(~len & 0xff);
    z += static_cast<char>((~len >> 8) & 0xff);
    z += raw.substr(pos, len);
    if (len == 0) break;
  }
  put32(z, (b << 16) | a);
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  put32(ihdr, static_cast<std::uint32_t>(w));
  put32(ihdr, static_cast<std::uint32_t>(h));
  const int color = channels == 1 ? 0 : channels == 3 ? 2 : 6;
  ihdr += static_cast<char>(depth);
  ihdr += static_cast<char>(color);
  ihdr += std::string(3, '\0');
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", "");
  return png;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<float> read_floats(const std::string& path) {
  const auto text = detail::read_file(path);
  REQUIRE(text.has_value());
  std::vector<float> v(text->size() / 4);
  std::memcpy(v.data(), text->data(), v.size() * 4);
  return v;
}


// Files in a folder (to prove that no temp file was left behind).
std::size_t count_files(const std::string& dir) {
  std::string out;
  test::run_command("ls -A '" + dir + "' | wc -l", out);
  return static_cast<std::size_t>(std::atol(out.c_str()));
}

}  // namespace

TEST_SUITE("blur") {
  TEST_CASE("host references: direct = separable, Triggs-Sdika boundary = long extension, design checks") {
    const std::vector<float> img = host::random_floats(13 * 11 * 4, test::seed());
    for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero})
      for (double s : {0.5, 1.3, 6.0}) {
        const auto d = host::gaussian_blur_direct(img.data(), 11, 13, 4, 11, s, s * 0.7 + 0.1, b);
        const auto p = host::gaussian_blur(img.data(), 11, 13, 4, 11, s, s * 0.7 + 0.1, b);
        double m = 0;
        for (std::size_t i = 0; i < d.size(); ++i) m = std::max(m, std::fabs(d[i] - p[i]));
        CHECK(m < 1e-13);
      }
    // The boundary matrix gives what an explicit, very long constant extension gives.
    std::vector<double> x(40), y1(40), y2(40);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7 * i) + 0.3;
    for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero})
      for (double s : {0.5, 2.0, 9.0, 30.0}) {
        const auto g = host::recursive_gaussian(s);
        host::recursive_line(x.data(), x.size(), 1, y1.data(), g, b);
        host::recursive_line_extended(x.data(), x.size(), y2.data(), g, b, static_cast<std::size_t>(200 * s + 200));
        double m = 0;
        for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::fabs(y1[i] - y2[i]));
        INFO("sigma " << s << " border " << std::string(to_string(b)));
        CHECK(m < 1e-10);
      }
    // The cascade reproduces the published direct-form feedback, and has unit DC gain.
    for (double s : {0.5, 1.0, 2.49, 2.5, 10.0, 100.0}) {
      const auto g = host::recursive_gaussian(s);
      CHECK(std::fabs((g.p1 + g.c1) - g.b1 / g.b0) < 1e-12);
      CHECK(std::fabs((g.c2 - g.p1 * g.c1) - g.b2 / g.b0) < 1e-12);
      CHECK(std::fabs(-g.p1 * g.c2 - g.b3 / g.b0) < 1e-12);
      std::vector<double> ones(50, 1.0), out(50);
      host::recursive_line(ones.data(), 50, 1, out.data(), g, BlurBorder::Clamp);
      for (double v : out) CHECK(std::fabs(v - 1) < 1e-12);
    }
    CHECK_THROWS_AS(host::recursive_gaussian(0.49), InvalidArgument);
    // Mirror border index: reflection about the edge with period 2n.
    CHECK(host::blur_border_index(-1, 5, BlurBorder::Mirror) == 0);
    CHECK(host::blur_border_index(5, 5, BlurBorder::Mirror) == 4);
    CHECK(host::blur_border_index(-7, 5, BlurBorder::Mirror) == 3);
    CHECK(host::blur_border_index(12, 5, BlurBorder::Mirror) == 2);
    CHECK(host::blur_border_index(-3, 1, BlurBorder::Mirror) == 0);
    CHECK(host::blur_border_index(-3, 5, BlurBorder::Clamp) == 0);
    CHECK(host::blur_border_index(9, 5, BlurBorder::Zero) == -1);
  }

  TEST_CASE("direct and separable match the truncated Gaussian: shapes, borders, sigma, radius wider than the image") {
    std::uint64_t seed = test::seed() + 100;
    struct Shape {
      std::size_t w, h;
    };
    const Shape shapes[] = {{1, 1}, {1, 17}, {17, 1}, {33, 65}, {64, 3}};
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable})
      for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero})
        for (const auto& sh : shapes)
          for (double s : {0.5, 2.0, 11.0}) {  // 11: radius 33, wider than every image here but one
            Case k;
            k.w = sh.w;
            k.h = sh.h;
            k.sx = s;
            k.sy = s * 0.6 + 0.2;
            k.border = b;
            k.method = m;
            check_float(k, seed++);
          }
  }

  TEST_CASE("large image, sigma 0.5 .. 50, padded pitches and offsets") {
    std::uint64_t seed = test::seed() + 200;
    const std::size_t W = 1000, H = 999;
    for (double s : {0.8, 5.0, 50.0}) {
      Case k;
      k.w = W;
      k.h = H;
      k.sx = s;
      k.sy = s;
      k.border = s == 5.0 ? BlurBorder::Mirror : BlurBorder::Clamp;
      k.in_pad = 3;
      k.out_pad = 17;
      k.in_off = 5;
      k.out_off = 2;
      check_float(k, seed++);
      k.method = BlurMethod::Recursive;
      k.border = s == 5.0 ? BlurBorder::Zero : BlurBorder::Mirror;
      check_float(k, seed++);
    }
    Case d;  // direct on the big image with a small radius
    d.w = W;
    d.h = H;
    d.sx = 1.0;
    d.sy = 0.5;
    d.method = BlurMethod::Direct;
    d.border = BlurBorder::Zero;
    check_float(d, seed++);
    if (long_tests()) {
      for (BlurMethod m : {BlurMethod::Separable, BlurMethod::Recursive}) {
        Case k;
        k.w = 4097;
        k.h = 2049;
        k.sx = 20;
        k.sy = 3;
        k.method = m;
        check_float(k, seed++);
      }
    }
  }

  TEST_CASE("recursive matches the same recursive filter tightly and the exact Gaussian loosely") {
    std::uint64_t seed = test::seed() + 300;
    struct Shape {
      std::size_t w, h;
    };
    const Shape shapes[] = {{1, 1}, {1, 17}, {17, 1}, {33, 65}, {130, 70}};
    // Whole columns, blocks with a separate transpose, blocks with the fused transpose, and
    // blocks as wide as a work-group, whose vertical pass writes the horizontal carries; the
    // link kernel with one work-item per column and with runs of blocks per work-item.
    const ParamMap schemes[] = {
        {{"BLUR_R_BLOCK", 0}, {"BLUR_R_FUSE_T", 0}, {"BLUR_R_BATCH", 16}},
        {{"BLUR_R_BLOCK", 16}, {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 0}, {"BLUR_R_BATCH", 2},
         {"BLUR_R_LINK_SPLIT", 4}},
        {{"BLUR_R_BLOCK", 32}, {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 1}, {"BLUR_R_LX", 16}, {"BLUR_R_BATCH", 8}},
        {{"BLUR_R_BLOCK", 16}, {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 1}, {"BLUR_R_LX", 16}, {"BLUR_R_BATCH", 4},
         {"BLUR_R_LINK_SPLIT", 2}},
    };
    const auto& dev = test::session().entry.info;
    for (int i = 0; i < 4; ++i) {
      BlurOptions o;
      o.method = BlurMethod::Recursive;
      const bool fused_carries = i == 3;
      CHECK(detail::plan_blur(dev, 130, 70, PixelFormat::R32F, o, Tuning{schemes[i], false}).carry_fused == fused_carries);
      if (fused_carries) {  // and not when switched off
        ParamMap off = schemes[i];
        off["BLUR_R_NEXT_CARRY"] = 0;
        CHECK_FALSE(detail::plan_blur(dev, 130, 70, PixelFormat::R32F, o, Tuning{off, false}).carry_fused);
      }
    }
    for (const auto& scheme : schemes)
      for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero})
        for (const auto& sh : shapes)
          for (double s : {0.5, 3.0, 20.0}) {
            Case k;
            k.w = sh.w;
            k.h = sh.h;
            k.sx = s;
            k.sy = s == 0.5 ? 1.5 : s / 2;
            k.border = b;
            k.method = BlurMethod::Recursive;
            k.tuning = Tuning{scheme, false};
            if (sh.w == 130) {
              k.in_pad = 2;
              k.in_off = 3;
              k.out_pad = 1;
              k.out_off = 7;
            }
            check_float(k, seed++);
          }
    // Sigma from 0.5 to 50 on a mid-size image; larger images make the exact comparison
    // meaningful at large sigma.
    for (double s : {0.5, 1.0, 2.0, 5.0, 10.0, 50.0}) {
      Case k;
      k.w = 300;
      k.h = 257;
      k.sx = s;
      k.sy = s;
      k.border = BlurBorder::Mirror;
      k.method = BlurMethod::Recursive;
      check_float(k, seed++);
    }
  }

  TEST_CASE("4-channel float images on every method") {
    std::uint64_t seed = test::seed() + 400;
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive})
      for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Mirror, BlurBorder::Zero}) {
        Case k;
        k.w = 37;
        k.h = 29;
        k.c = 4;
        k.sx = 2.5;
        k.sy = 1.0;
        k.border = b;
        k.method = m;
        k.in_pad = 4;
        k.out_off = 3;
        check_float(k, seed++);
        k.w = 1;
        k.h = 9;
        k.sx = k.sy = 6;
        check_float(k, seed++);
      }
  }

  TEST_CASE("8-bit RGBA through the conversion kernels: rounded to nearest and saturated") {
    auto& s = test::session();
    std::uint64_t seed = test::seed() + 500;
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive})
      for (BlurBorder b : {BlurBorder::Clamp, BlurBorder::Zero}) {
        const std::size_t W = 45, H = 23, pitch = 48, off = 5, guard = 127;
        std::mt19937_64 rng(seed++);
        std::vector<unsigned char> in((off + H * pitch) * 4);
        for (auto& v : in) v = static_cast<unsigned char>(rng() & 0xff);
        for (std::size_t i = 0; i < 64; ++i) in[(off + i) * 4 + 1] = 255;  // saturated runs
        const std::size_t out_n = (off + (H - 1) * pitch + W + guard) * 4;
        std::vector<unsigned char> out(out_n, 0xA5);
        cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size(), in.data());
        cl::Buffer bout(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size(), out.data());
        BlurOptions o;
        o.sigma_x = 1.7;
        o.sigma_y = 3.1;
        o.method = m;
        o.border = b;
        gaussian_blur(s.queue, W, H, PixelFormat::RGBA8, {bin, off, pitch}, {bout, off, pitch}, o);
        s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, out.size(), out.data());
        std::vector<float> f(H * pitch * 4);
        for (std::size_t i = 0; i < f.size(); ++i) f[i] = in[off * 4 + i];
        const auto ref = m == BlurMethod::Recursive ? host::recursive_blur(f.data(), W, H, 4, pitch, 1.7, 3.1, b)
                                                    : host::gaussian_blur(f.data(), W, H, 4, pitch, 1.7, 3.1, b);
        int worst = 0;
        std::size_t off_by_one = 0, outside = 0;
        for (std::size_t y = 0; y < H; ++y)
          for (std::size_t x = 0; x < W; ++x)
            for (std::size_t ch = 0; ch < 4; ++ch) {
              const double r = std::min(255.0, std::max(0.0, std::nearbyint(ref[(y * W + x) * 4 + ch])));
              const int d = std::abs(static_cast<int>(out[((off + y * pitch + x) * 4) + ch]) - static_cast<int>(r));
              worst = std::max(worst, d);
              off_by_one += d == 1;
            }
        for (std::size_t p = 0; p < out_n / 4; ++p) {
          const bool in_image = p >= off && (p - off) / pitch < H && (p - off) % pitch < W;
          if (!in_image)
            for (int ch = 0; ch < 4; ++ch) outside += out[p * 4 + ch] != 0xA5;
        }
        INFO(to_string(m) << " " << to_string(b) << ": worst difference " << worst << ", " << off_by_one
                          << " values off by one (float rounding at .5)");
        CHECK(worst <= 1);
        CHECK(off_by_one < W * H / 20);
        CHECK(outside == 0);
      }
  }

  TEST_CASE("every shipped vendor-class parameter set computes the right answer here") {
    std::uint64_t seed = test::seed() + 600;
    for (VendorClass v : {VendorClass::NVIDIA, VendorClass::AMD, VendorClass::Intel, VendorClass::CPU, VendorClass::Other})
      for (std::size_t c : {1, 4}) {
        const std::string variant = std::to_string(c);
        // The rows go in through a tuning file, so that they keep database semantics here (a
        // local tile that does not fit this device falls back to global-memory taps, where an
        // explicit override would be refused).
        nlohmann::json rows = nlohmann::json::array();
        for (const char* kernel : {"blur", "blur_direct", "blur_separable", "blur_recursive"}) {
          const std::string kv = kernel == std::string("blur") ? "*" : variant;
          nlohmann::json params = nlohmann::json::object();
          for (const auto& [n, val] : vendor_row(kernel, v, kv)) params[n] = val;
          rows.push_back({{"kernel", kernel}, {"variant", kv}, {"params", params}});
        }
        const std::string file = test::temp_dir("blur-vendor-rows") + "/rows.json";
        std::ofstream(file) << nlohmann::json{{"entries", rows}}.dump();
        test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
        const Tuning t{{}, false};
        CAPTURE(to_string(v));
        for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive, BlurMethod::Auto}) {
          Case k;
          k.w = c == 1 ? 301 : 97;
          k.h = c == 1 ? 203 : 66;
          k.c = c;
          k.sx = m == BlurMethod::Direct ? 1.5 : 4.0;
          k.sy = m == BlurMethod::Direct ? 2.0 : 7.5;
          k.border = BlurBorder::Mirror;
          k.method = m;
          k.tuning = t;
          k.in_pad = 1;
          k.out_off = 2;
          check_float(k, seed++);
        }
      }
  }

  TEST_CASE("other legal parameter sets, including local tiles that do not fit") {
    std::uint64_t seed = test::seed() + 700;
    const ParamMap sets[] = {
        {{"BLUR_S_ROW_VW", 4}, {"BLUR_S_ROW_LX", 16}, {"BLUR_S_ROW_LY", 8}, {"BLUR_S_COL_WPT", 16}, {"BLUR_S_COL_LY", 1}},
        {{"BLUR_S_ROW_VW", 1}, {"BLUR_S_LOCAL", 1}, {"BLUR_S_COL_LX", 128}, {"BLUR_S_COL_WPT", 1}, {"BLUR_S_COL_LY", 2}},
        {{"BLUR_S_LOCAL", 0}, {"BLUR_S_COL_WPT", 2}, {"BLUR_D_LOCAL", 0}, {"BLUR_D_WPT", 8}, {"BLUR_D_LY", 1}},
        {{"BLUR_D_LX", 64}, {"BLUR_D_LY", 2}, {"BLUR_D_WPT", 4}, {"BLUR_D_LOCAL", 1}},
    };
    for (const auto& p : sets)
      for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable})
        for (double s : {0.6, 3.3}) {
          Case k;
          k.w = 131;
          k.h = 77;
          k.sx = s;
          k.sy = s + 1;
          k.method = m;
          k.border = BlurBorder::Mirror;
          k.tuning = Tuning{p, false};
          check_float(k, seed++);
        }
    // A row halo that exceeds the device's local memory (16-byte pixels, 8 rows of
    // 16 + 2 * 12288 pixels = 3.1 MiB). From a database row, the launcher takes the global-memory
    // path for it; as an explicit override it is an argument error (README: an explicit override
    // that does not fit is an error).
    auto& s = test::session();
    BlurOptions o;
    o.sigma_x = 4096;
    o.sigma_y = 1;
    o.method = BlurMethod::Separable;
    const bool fits = 16ull * 8 * (16 + 2 * 12288) <= s.entry.info.local_mem_size;
    const ParamMap big{{"BLUR_S_LOCAL", 1}, {"BLUR_S_ROW_LX", 16}, {"BLUR_S_ROW_LY", 8}, {"BLUR_S_ROW_VW", 1}};
    {
      const std::string dir = test::temp_dir("blur-big-tile");
      const std::string file = dir + "/t.json";
      std::ofstream(file) << R"({"entries": [{"kernel": "blur_separable", "variant": "4", "params": {"BLUR_S_LOCAL": 1,
                                "BLUR_S_ROW_LX": 16, "BLUR_S_ROW_LY": 8, "BLUR_S_ROW_VW": 1}}]})";
      test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
      const auto plan = detail::plan_blur(s.entry.info, 50, 40, PixelFormat::RGBA32F, o, Tuning{{}, false});
      CHECK(plan.local_tiles == fits);
      Case k;
      k.w = 50;
      k.h = 40;
      k.c = 4;
      k.sx = 4096;
      k.sy = 1;
      k.method = BlurMethod::Separable;
      k.tuning = Tuning{{}, false};
      check_float(k, seed++);
    }
    if (!fits) {
      test::expect_invalid_argument(
          [&] { detail::plan_blur(s.entry.info, 50, 40, PixelFormat::RGBA32F, o, Tuning{big, false}); },
          "BLUR_S_LOCAL=1 was asked for");
      BlurOptions od;
      od.sigma_x = od.sigma_y = 2000;
      od.method = BlurMethod::Direct;
      test::expect_invalid_argument(
          [&] {
            detail::plan_blur(s.entry.info, 50, 40, PixelFormat::R32F, od, Tuning{{{"BLUR_D_LOCAL", 1}}, false});
          },
          "BLUR_D_LOCAL=1 was asked for");
    }
    // Direct with weights beyond 64 KiB (18008 floats): they move from __constant to __global.
    Case d;
    d.w = 5;
    d.h = 4;
    d.sx = 3000;
    d.sy = 1;
    d.method = BlurMethod::Direct;
    d.border = BlurBorder::Mirror;
    check_float(d, seed++);
  }

  TEST_CASE("auto picks by the crossovers in the tuning database") {
    auto& s = test::session();
    const Tuning t{{{"BLUR_AUTO_SIGMA_DIRECT", 12}, {"BLUR_AUTO_SIGMA_RECURSIVE", 60}, {"BLUR_AUTO_RECURSIVE_MIN_KPIX", 4}},
                   false};
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 1.2, 0.7, t) == BlurMethod::Direct);
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 1.3, 0.7, t) == BlurMethod::Separable);
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 5.9, 5.9, t) == BlurMethod::Separable);
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 6.0, 1.0, t) == BlurMethod::Recursive);
    CHECK(resolve_blur_method(s.queue, 60, 60, PixelFormat::R32F, 6.0, 1.0, t) == BlurMethod::Separable);  // < 4 Ki px
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 6.0, 0.4, t) == BlurMethod::Separable);
    const Tuning never{{{"BLUR_AUTO_SIGMA_DIRECT", 0}, {"BLUR_AUTO_SIGMA_RECURSIVE", 0}}, false};
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 0.5, 0.5, never) == BlurMethod::Separable);
    CHECK(resolve_blur_method(s.queue, 100, 100, PixelFormat::R32F, 500, 500, never) == BlurMethod::Separable);
    // The same crossover from a tuning file, and the method reported by the call.
    const std::string dir = test::temp_dir("blur-auto");
    const std::string file = dir + "/t.json";
    std::ofstream(file) << R"({"entries": [{"kernel": "blur", "params": {"BLUR_AUTO_SIGMA_RECURSIVE": 25,
                              "BLUR_AUTO_RECURSIVE_MIN_KPIX": 0}}]})";
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    CHECK(resolve_blur_method(s.queue, 20, 20, PixelFormat::RGBA8, 2.5, 3.0, Tuning{{}, false}) == BlurMethod::Recursive);
    Case k;
    k.w = 40;
    k.h = 30;
    k.sx = 2.5;
    k.sy = 2.5;
    k.method = BlurMethod::Auto;
    const Outcome r = run_float(k, test::seed() + 800);
    CHECK(r.used == BlurMethod::Recursive);
    CHECK(r.cmp.ok(host::recursive_blur_tolerance(2.5, 2.5)));
  }

  TEST_CASE("wait list, output event and an out-of-order queue") {
    auto& s = test::session();
    cl_int st = CL_SUCCESS;
    cl::CommandQueue ooo(s.context, s.entry.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &st);
    if (st != CL_SUCCESS) ooo = s.queue;  // the device has no out-of-order queues: still checks events
    const std::size_t W = 70, H = 50;
    const std::vector<float> in = host::random_floats(W * H, test::seed() + 900);
    std::vector<float> out = host::poisoned(W * H);
    cl::Buffer bin(s.context, CL_MEM_READ_WRITE, W * H * 4), bout(s.context, CL_MEM_READ_WRITE, W * H * 4);
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive}) {
      cl::Event wrote, poisoned, blurred;
      ooo.enqueueWriteBuffer(bin, CL_FALSE, 0, W * H * 4, in.data(), nullptr, &wrote);
      ooo.enqueueWriteBuffer(bout, CL_FALSE, 0, W * H * 4, out.data(), nullptr, &poisoned);
      BlurOptions o;
      o.sigma_x = 3;
      o.sigma_y = 2;
      o.method = m;
      const Tuning t{{{"BLUR_R_BLOCK", 16}, {"BLUR_R_NARROW", 1 << 30}}, false};
      gaussian_blur(ooo, W, H, PixelFormat::R32F, {bin, 0, W}, {bout, 0, W}, o, {wrote, poisoned}, &blurred, t);
      std::vector<float> got(W * H);
      const std::vector<cl::Event> deps{blurred};
      ooo.enqueueReadBuffer(bout, CL_TRUE, 0, W * H * 4, got.data(), &deps);
      const auto ref = m == BlurMethod::Recursive ? host::recursive_blur(in.data(), W, H, 1, W, 3, 2, BlurBorder::Clamp)
                                                  : host::gaussian_blur(in.data(), W, H, 1, W, 3, 2, BlurBorder::Clamp);
      const auto cmp = host::compare(got, ref);
      INFO(to_string(m) << ": " << cmp.summary());
      CHECK(cmp.ok(m == BlurMethod::Recursive ? host::recursive_blur_tolerance(3, 2)
                                              : host::truncated_blur_tolerance(3, 2)));
    }
  }

  TEST_CASE("host-vector convenience and a reused workspace") {
    auto& s = test::session();
    const std::vector<float> in = host::random_floats(19 * 23 * 4, test::seed() + 950);
    BlurOptions o;
    o.sigma_x = 1.5;
    o.sigma_y = 2.5;
    o.method = BlurMethod::Separable;
    BlurWorkspace ws;
    o.workspace = &ws;
    for (int rep = 0; rep < 2; ++rep) {
      const std::vector<float> out = gaussian_blur(s.queue, 19, 23, 4, in, o);
      const auto cmp = host::compare(out, host::gaussian_blur(in.data(), 19, 23, 4, 19, 1.5, 2.5, BlurBorder::Clamp));
      CHECK(cmp.ok(host::truncated_blur_tolerance(1.5, 2.5)));
      o.method = BlurMethod::Recursive;
      const std::vector<float> r = gaussian_blur(s.queue, 19, 23, 4, in, o);
      CHECK(host::compare(r, host::recursive_blur(in.data(), 19, 23, 4, 19, 1.5, 2.5, BlurBorder::Clamp))
                .ok(host::recursive_blur_tolerance(1.5, 2.5)));
      o.method = BlurMethod::Separable;
    }
    CHECK_THROWS_AS(gaussian_blur(s.queue, 19, 23, 3, in, o), InvalidArgument);
    CHECK_THROWS_AS(gaussian_blur(s.queue, 19, 22, 4, in, o), InvalidArgument);
  }

  TEST_CASE("bad arguments throw InvalidArgument naming the problem, before anything is enqueued") {
    auto& s = test::session();
    cl::Buffer a(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4), b(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4);
    const auto expect = test::expect_invalid_argument;
    BlurOptions o;
    auto with = [&](double sx, double sy, BlurMethod m) {
      BlurOptions p = o;
      p.sigma_x = sx;
      p.sigma_y = sy;
      p.method = m;
      return p;
    };
    const auto F = PixelFormat::R32F;
    expect([&] { gaussian_blur(s.queue, 0, 4, F, {a, 0, 4}, {b, 0, 4}, o); }, "at least 1");
    expect([&] { gaussian_blur(s.queue, 4, 0, F, {a, 0, 4}, {b, 0, 4}, o); }, "at least 1");
    expect([&] { gaussian_blur(s.queue, 8, 4, F, {a, 0, 4}, {b, 0, 8}, o); }, "in.pitch");
    expect([&] { gaussian_blur(s.queue, 8, 4, F, {a, 0, 8}, {b, 0, 7}, o); }, "out.pitch");
    expect([&] { gaussian_blur(s.queue, 64, 64, PixelFormat::RGBA32F, {a, 0, 64}, {b, 0, 64}, o); }, "too small");
    expect([&] { gaussian_blur(s.queue, 64, 64, F, {a, 1, 64}, {b, 0, 64}, o); }, "in buffer too small");
    expect([&] { gaussian_blur(s.queue, 64, 64, F, {a, 0, 64}, {b, 0, 65}, o); }, "out buffer too small");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {cl::Buffer(), 0, 4}, {b, 0, 4}, o); }, "null buffer");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {a, 0, 4}, o); }, "different buffers");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(0, 1, BlurMethod::Auto)); }, "sigma_x");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(1, -2, BlurMethod::Auto)); }, "sigma_y");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(NAN, 1, BlurMethod::Direct)); }, "sigma_x");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(1, 1e6, BlurMethod::Direct)); }, "sigma_y");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(0.4, 1, BlurMethod::Recursive)); },
           "below 0.5");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, o, {}, nullptr, Tuning{{{"BLUR_NOPE", 1}}, true}); },
           "unknown parameter");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, o, {}, nullptr, Tuning{{{"BLUR_S_ROW_VW", 2}}, true}); },
           "not legal");
    expect([&] {
      gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(3, 3, BlurMethod::Recursive), {}, nullptr,
                    Tuning{{{"BLUR_R_BLOCK", 0}, {"BLUR_R_FUSE_T", 1}}, true});
    }, "BLUR_R_FUSE_T=1 needs BLUR_R_BLOCK > 0");
    expect([] { parse_blur_border("wrap"); }, "wrap");
    expect([] { parse_blur_method("fft"); }, "fft");
    CHECK(parse_blur_border(" Mirror") == BlurBorder::Mirror);
    CHECK(parse_blur_method("RECURSIVE") == BlurMethod::Recursive);
  }

#ifdef CLFORGE_CLI
  TEST_CASE("clforge blur: PNG round trip, raw floats, and clear failures that leave no output") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("blur-cli");
    const std::string cli = std::string("CLFORGE_USER_TUNING_DIR='") + dir + "/tuning' " + CLFORGE_CLI +
                            " --device " + s.entry.info.index_string() + " blur ";
    const std::size_t W = 23, H = 17;
    std::mt19937_64 rng(test::seed() + 1000);
    std::string out;
    for (int depth : {8, 16})
      for (int ch : {1, 3, 4}) {
        CAPTURE(depth);
        CAPTURE(ch);
        const unsigned maxv = depth == 8 ? 255 : 65535;
        std::vector<unsigned> px(W * H * ch);
        for (auto& v : px) v = static_cast<unsigned>(rng() % (maxv + 1));
        const std::string in_png = dir + "/in.png", out_png = dir + "/out.png", raw = dir + "/out.f32",
                          back = dir + "/back.f32";
        write_bytes(in_png, make_png(W, H, ch, depth, px));
        // PNG -> raw floats: checks the reading and the blur (values scaled to 0..1).
        int rc = test::run_command(cli + "'" + in_png + "' '" + raw + "' --sigma 1.5 --sigma-y 2 --method separable --border mirror", out);
        INFO(out);
        REQUIRE(rc == 0);
        CHECK(out.find("separable") != std::string::npos);
        CHECK(out.find(" ms") != std::string::npos);
        const int c4 = ch == 1 ? 1 : 4;  // gray stays one channel; RGB gains an opaque alpha
        std::vector<float> img(W * H * c4);
        for (std::size_t p = 0; p < W * H; ++p)
          for (int k = 0; k < c4; ++k)
            img[p * c4 + k] = k < ch ? static_cast<float>(px[p * ch + k]) / maxv : 1.0f;
        const auto ref = host::gaussian_blur(img.data(), W, H, c4, W, 1.5, 2.0, BlurBorder::Mirror);
        const std::vector<float> got = read_floats(raw);
        REQUIRE(got.size() == ref.size());
        if (depth == 8 && ch > 1) {  // the RGBA8 path: results rounded to whole 8-bit steps
          double worst = 0;
          for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(got[i] - ref[i]) * 255);
          CHECK(worst <= 0.5 + 1e-3);
        } else {
          CHECK(host::compare(got, ref).ok(host::truncated_blur_tolerance(1.5, 2)));
        }
        // PNG -> PNG, then decoded again by the command with an identity blur (sigma 0.01 has
        // weights exactly 0, 1, 0): the written PNG holds the rounded blur.
        rc = test::run_command(cli + "'" + in_png + "' '" + out_png + "' --sigma 1.5 --sigma-y 2 --method separable --border mirror", out);
        REQUIRE(rc == 0);
        rc = test::run_command(cli + "'" + out_png + "' '" + back + "' --sigma 0.01", out);
        REQUIRE(rc == 0);
        const std::vector<float> dec = read_floats(back);
        REQUIRE(dec.size() == ref.size());
        double worst = 0;
        for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(dec[i] - ref[i]) * maxv);
        CHECK(worst <= 1.0);  // 8-bit RGBA goes through the device's RGBA8 path: rounding may differ by one
      }
    // Raw float input with an explicit size, both channel counts.
    {
      const std::vector<float> img = host::random_floats(W * H * 4, test::seed() + 1001);
      write_bytes(dir + "/in.f32", std::string(reinterpret_cast<const char*>(img.data()), img.size() * 4));
      const int rc = test::run_command(cli + "'" + dir + "/in.f32' '" + dir + "/o.f32' --size " + std::to_string(W) + "x" +
                                     std::to_string(H) + " --channels 4 --sigma 3 --method recursive --border zero",
                                 out);
      INFO(out);
      REQUIRE(rc == 0);
      CHECK(out.find("recursive") != std::string::npos);
      const auto ref = host::recursive_blur(img.data(), W, H, 4, W, 3, 3, BlurBorder::Zero);
      CHECK(host::compare(read_floats(dir + "/o.f32"), ref).ok(host::recursive_blur_tolerance(3, 3)));
    }
    // Failures: non-zero exit, a message naming the problem, no output file, no temp file.
    const std::string good = make_png(W, H, 3, 8, std::vector<unsigned>(W * H * 3, 77));
    struct Bad {
      std::string name, bytes, needle;
    };
    std::string bad_crc = good;
    bad_crc[40] ^= 0x55;  // inside IDAT: the CRC no longer matches
    const Bad bad[] = {
        {"truncated.png", good.substr(0, good.size() / 2), "truncated.png"},
        {"crc.png", bad_crc, "crc.png"},
        {"notpng.png", "hello, this is not an image\n", "notpng.png"},
        {"empty.png", "", "empty.png"},
    };
    for (const auto& b : bad) {
      const std::string fail_dir = test::temp_dir("blur-cli-fail");
      write_bytes(fail_dir + "/" + b.name, b.bytes);
      const int rc = test::run_command(cli + "'" + fail_dir + "/" + b.name + "' '" + fail_dir + "/out.png' --sigma 2", out);
      INFO(b.name << ": " << out);
      CHECK(rc != 0);
      CHECK(out.find(b.needle) != std::string::npos);
      CHECK(!detail::file_exists(fail_dir + "/out.png"));
      CHECK(count_files(fail_dir) == 1);
    }
    int rc = test::run_command(cli + "'" + dir + "/missing.png' '" + dir + "/x.png' --sigma 2", out);
    CHECK(rc != 0);
    CHECK(out.find("missing.png") != std::string::npos);
    write_bytes(dir + "/ok.png", good);
    rc = test::run_command(cli + "'" + dir + "/ok.png' '" + dir + "/no/such/dir/x.png' --sigma 2", out);
    CHECK(rc != 0);
    CHECK(out.find("no/such/dir") != std::string::npos);
    rc = test::run_command(cli + "'" + dir + "/ok.png' '" + dir + "/x.png' --sigma 0", out);
    CHECK(rc != 0);
    CHECK(!detail::file_exists(dir + "/x.png"));
    rc = test::run_command(cli + "'" + dir + "/in.f32' '" + dir + "/x.png' --sigma 1", out);  // raw without --size
    CHECK(rc != 0);
    CHECK(out.find("--size") != std::string::npos);
    CHECK(!detail::file_exists(dir + "/x.png"));

    // The measured crossovers land in the user database, where method auto finds them.
    const std::string tdir = dir + "/crossover";
    rc = test::run_command("CLFORGE_USER_TUNING_DIR='" + tdir + "' " + CLFORGE_CLI + " --device " +
                         s.entry.info.index_string() + " tune blur-crossover --size 48x40",
                     out);
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find("recursive from sigma") != std::string::npos);
    test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", tdir);
    const Configuration cfg = resolve_configuration("blur", "*", s.entry.info, Tuning{});
    CHECK(cfg.sources.at("BLUR_AUTO_SIGMA_RECURSIVE").find("user") == 0);
    CHECK(cfg.sources.at("BLUR_AUTO_SIGMA_DIRECT").find("user") == 0);
    CHECK(cfg.sources.at("BLUR_CV_WG").find("shipped") == 0);
  }
#endif
}
