// Hostile arguments. Every routine gets safety_cases() random and adversarial argument sets
// (sizes near SIZE_MAX, 2^31, 2^32, 2^63, products that wrap, null buffers, sub-buffers of
// sentinel-filled parents). Each call is either refused with InvalidArgument (nothing
// allocated, built or enqueued; both parents unchanged) or accepted, and then its described
// output is correct (tolerances below) and no byte outside it changed.
//
// Where an input and the output are different buffers over the same memory (a parent and a
// sub-buffer of it), the result is unspecified and only the "nothing outside" part is checked.
// Tolerances: transpose bit-exact; sgemm per element 2 * gemm_tolerance(k) times the element's
// magnitude sum; FFT relative L2 per transform 2 * fft_tolerance(n); blur relative L2 2x the
// method's stated bound (direct and separable: truncated_blur_tolerance, recursive:
// recursive_blur_tolerance), 8-bit RGBA within one step.
#include <dirent.h>
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

#include <cmath>
#include <ctime>
#include <fstream>
#include <complex>

#include "host/blur.hpp"
#include "host/fft.hpp"
#include "host/gemm.hpp"
#include "host/reference.hpp"
#include "runtime/util.hpp"
#include "tests/safety_support.hpp"

using namespace clforge;
using test::Arena;
using test::FuzzCounts;
using test::Hostile;
using test::Parent;
using test::Slot;

namespace {

std::string text(const Slot& s, std::size_t offset, std::size_t ld) {
  return std::string(s.null ? "null" : s.parent == Parent::Dst ? "dst" : "src") + "@" + std::to_string(s.origin) +
         " off " + std::to_string(offset) + " ld " + std::to_string(ld);
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

void report(const std::string& routine, const FuzzCounts& c) {
  MESSAGE(routine << ": " << c.refused + c.accepted << " argument sets, " << c.refused << " refused, " << c.accepted
                  << " accepted");
  CHECK(c.refused + c.accepted >= test::safety_cases());
  CHECK(c.accepted > 0);
  CHECK(c.refused > 0);
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
          [&] { transpose(s.queue, rows, cols, elem, {in.buffer, in_off, in_ld}, {out.buffer, out_off, out_ld}); },
          [&] {
            auto& want = arena.expected(Parent::Dst);
            std::vector<unsigned char> got(Arena::kBytes);
            REQUIRE(s.queue.enqueueReadBuffer(arena.buffer(Parent::Dst), CL_TRUE, 0, got.size(), got.data()) == 0);
            const bool alias = hidden_alias(in, out);
            const std::vector<unsigned char> src = arena.expected(in.parent);
            for (std::size_t r = 0; r < rows; ++r)
              for (std::size_t c = 0; c < cols; ++c) {
                const std::size_t o = out.origin + (out_off + c * out_ld + r) * elem;
                const unsigned char* from = alias ? got.data() + o : src.data() + in.origin + (in_off + r * in_ld + c) * elem;
                std::memcpy(want.data() + o, from, elem);
              }
            return true;
          });
    }
    report("transpose", counts);
  }

  TEST_CASE("sgemm under hostile arguments") {
    auto& s = test::session();
    Arena arena(test::seed() + 3);
    Hostile h(test::seed() + 4);
    FuzzCounts counts;
    const float alphas[] = {1.0f, -0.5f, 2.25f, 0.0f}, betas[] = {0.0f, 1.0f, 0.5f, -1.0f};
    for (std::size_t i = 0; i < test::safety_cases(); ++i) {
      const double pw = h.chance(0.5) ? 0.15 : 0.0;
      host::GemmShape g;
      g.row_major = h.chance(0.5);
      g.trans_a = h.chance(0.5);
      g.trans_b = h.chance(0.5);
      g.m = h.size(0, 20, pw);
      g.n = h.size(0, 20, pw);
      g.k = h.size(0, 20, pw);
      auto inner = [&](std::size_t rows, std::size_t cols) { return std::max<std::size_t>(1, g.row_major ? cols : rows); };
      g.lda = near(h, inner(g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k), pw);
      g.ldb = near(h, inner(g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n), pw);
      g.ldc = near(h, inner(g.m, g.n), pw);
      const float alpha = alphas[h.below(4)], beta = betas[h.below(4)];
      const Slot a = arena.pick(h, h.chance(0.85) ? Parent::Src : Parent::Dst, 0.08);
      const Slot b = arena.pick(h, h.chance(0.85) ? Parent::Src : Parent::Dst, 0.08);
      const Slot c = arena.pick(h, Parent::Dst);
      const std::size_t ao = h.size(0, 40, pw), bo = h.size(0, 40, pw), co = h.size(0, 40, pw);
      const std::string what = "sgemm " + std::string(g.row_major ? "row" : "col") + (g.trans_a ? " T" : " N") +
                               (g.trans_b ? "T " : "N ") + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" +
                               std::to_string(g.k) + " a " + text(a, ao, g.lda) + " b " + text(b, bo, g.ldb) +
                               " c " + text(c, co, g.ldc) + " alpha " + std::to_string(alpha) + " beta " +
                               std::to_string(beta);
      test::fuzz_one(
          arena, what, counts,
          [&] {
            sgemm(s.queue, g.row_major ? Layout::RowMajor : Layout::ColMajor, g.trans_a ? Transpose::Yes : Transpose::No,
                  g.trans_b ? Transpose::Yes : Transpose::No, g.m, g.n, g.k, alpha, {a.buffer, ao, g.lda},
                  {b.buffer, bo, g.ldb}, beta, {c.buffer, co, g.ldc});
          },
          [&] {
            auto& want = arena.expected(Parent::Dst);
            std::vector<unsigned char> got(Arena::kBytes);
            REQUIRE(s.queue.enqueueReadBuffer(arena.buffer(Parent::Dst), CL_TRUE, 0, got.size(), got.data()) == 0);
            const bool alias = hidden_alias(a, c) || hidden_alias(b, c);
            const std::size_t span = host::gemm_span(g, 'c');
            std::vector<double> ref(span), mag(span);
            // Pointers only into memory the call described (an operand of no element may carry any
            // offset: forming a pointer from it would overflow).
            if (span == 0) return true;
            const bool reads = alpha != 0.0f && g.k > 0;
            host::gemm(g, alpha, reads ? reinterpret_cast<const float*>(at(arena, a, ao, 4)) : nullptr,
                       reads ? reinterpret_cast<const float*>(at(arena, b, bo, 4)) : nullptr, beta,
                       reinterpret_cast<const float*>(at(arena, c, co, 4)), ref.data(), 1, mag.data());
            bool ok = true;
            for (std::size_t i2 = 0; i2 < g.m; ++i2)
              for (std::size_t j = 0; j < g.n; ++j) {
                const std::size_t e = host::gemm_c_index(g, i2, j);
                const std::size_t byte = c.origin + (co + e) * 4;
                float y;
                std::memcpy(&y, got.data() + byte, 4);
                if (!alias && !(std::fabs(y - ref[e]) <= 2 * host::gemm_tolerance(g.k) * mag[e] + 1e-30)) {
                  if (ok) FAIL_CHECK(what << ": C(" << i2 << "," << j << ") = " << y << ", reference " << ref[e]);
                  ok = false;
                }
                std::memcpy(want.data() + byte, got.data() + byte, 4);
              }
            return ok;
          });
    }
    report("sgemm", counts);
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
                         (d.in_place ? " in-place" : "") + " in " + std::to_string(d.in.offset) + "/" +
                         std::to_string(d.in.stride) + "/" + std::to_string(d.in.distance) + " out " +
                         std::to_string(d.out.offset) + "/" + std::to_string(d.out.stride) + "/" +
                         std::to_string(d.out.distance);
      std::unique_ptr<FftPlan> plan;
      test::fuzz_one(arena, what + " (plan)", counts, [&] { plan = std::make_unique<FftPlan>(s.queue, d); },
                     [] { return true; });
      if (!plan) continue;
      --counts.accepted;  // a plan alone is no accepted transform
      const FftDesc& pd = plan->desc();
      const Slot in = arena.pick(h, d.in_place || h.chance(0.2) ? Parent::Dst : Parent::Src);
      const Slot out = d.in_place ? in : arena.pick(h, Parent::Dst);
      what += " on " + text(in, pd.in.offset, 0) + " -> " + text(out, pd.out.offset, 0);
      test::fuzz_one(
          arena, what, counts,
          [&] {
            if (inverse) plan->inverse(in.buffer, out.buffer);
            else plan->forward(in.buffer, out.buffer);
          },
          [&] {
            auto& want = arena.expected(Parent::Dst);
            std::vector<unsigned char> got(Arena::kBytes);
            REQUIRE(s.queue.enqueueReadBuffer(arena.buffer(Parent::Dst), CL_TRUE, 0, got.size(), got.data()) == 0);
            const FftScaling sc = inverse ? pd.inverse_scaling : pd.forward_scaling;
            const double scale = sc == FftScaling::OverN       ? 1.0 / pd.n
                                 : sc == FftScaling::OverSqrtN ? 1.0 / std::sqrt(double(pd.n))
                                                               : 1.0;
            const bool alias = hidden_alias(in, out);
            const float* x = reinterpret_cast<const float*>(at(arena, in, 0, 8));
            const auto ref = host::fft_batch(x, pd.n, pd.batch, pd.in.stride, pd.in.distance, pd.in.offset, inverse, scale);
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
            used = gaussian_blur(s.queue, w, ht, format, {in.buffer, in_off, in_pitch}, {out.buffer, out_off, out_pitch},
                                 o);
          },
          [&] {
            auto& want = arena.expected(Parent::Dst);
            std::vector<unsigned char> got(Arena::kBytes);
            REQUIRE(s.queue.enqueueReadBuffer(arena.buffer(Parent::Dst), CL_TRUE, 0, got.size(), got.data()) == 0);
            const bool u8 = format == PixelFormat::RGBA8;
            const std::size_t c = format == PixelFormat::R32F ? 1 : 4, pb = pixel_bytes(format);
            std::vector<float> x(w * ht * c);  // compact float input
            for (std::size_t y = 0; y < ht; ++y)
              for (std::size_t xx = 0; xx < w; ++xx) {
                const unsigned char* p = at(arena, in, in_off + y * in_pitch + xx, pb);
                for (std::size_t ch = 0; ch < c; ++ch) {
                  float v;
                  if (u8) v = p[ch];
                  else std::memcpy(&v, p + 4 * ch, 4);
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

namespace {

// Expects InvalidArgument mentioning `needle`, with nothing allocated, built or enqueued.
void expect_refused(const std::function<void()>& fn, const std::string& needle) {
  const test::Footprint before = test::Footprint::now();
  test::expect_invalid_argument(fn, needle);
  CHECK(test::Footprint::now() == before);
}

}  // namespace

TEST_SUITE("safety") {
  TEST_CASE("extents that wrap size_t are refused and named (sub-buffer of a sentinel parent)") {
    auto& s = test::session();
    Arena arena(test::seed() + 11);
    Hostile h(test::seed() + 12);
    Slot out;
    while (out.origin == 0 || out.null) out = arena.pick(h, Parent::Dst, 0);
    const cl::Buffer in = arena.buffer(Parent::Src);
    constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
    // The cases that wrote before the output buffer or crashed before the checks were overflow-proof.
    expect_refused([&] {
      sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, 11, 1, 4, 1.0f, {in, 0, 11}, {in, 0, 4}, 0.0f,
            {out.buffer, kMax - 10, 11});
    }, "c.offset");
    expect_refused([&] {
      sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, 8, 64, 8, 1.0f, {in, 0, 8}, {in, 0, 8}, 0.0f,
            {out.buffer, 0, kMax / 63 + 1});
    }, "c.ld");
    expect_refused([&] { transpose(s.queue, 2, 3, 4, {in, 0, 3}, {out.buffer, kMax - 5, 2}); }, "out.offset");
    expect_refused([&] { transpose(s.queue, 3, 2, 4, {in, 0, kMax / 2 + 1}, {out.buffer, 0, 3}); }, "in.ld");
    {
      FftDesc d;
      d.n = 4;
      d.out.offset = kMax - 3;
      expect_refused([&] { FftPlan(s.queue, d); }, "out.offset");
      FftDesc e;
      e.n = 16;
      e.in.stride = kMax / 15 + 1;
      expect_refused([&] { FftPlan(s.queue, e); }, "in.stride");
    }
    BlurOptions o;
    o.method = BlurMethod::Separable;
    expect_refused([&] {
      gaussian_blur(s.queue, 4, 2, PixelFormat::R32F, {in, 0, 4}, {out.buffer, kMax - 7, 4}, o);
    }, "out.offset");
    expect_refused([&] {
      gaussian_blur(s.queue, 4, 3, PixelFormat::R32F, {in, 0, kMax / 2 + 1}, {out.buffer, 0, 4}, o);
    }, "in.pitch");
    CHECK(arena.verify("the refused calls"));
  }

  TEST_CASE("host-vector overloads allocate nothing before refusing and leave nothing running after a throw") {
    auto& s = test::session();
    const std::size_t rows = 1024, cols = 1024;  // 4 MiB
    std::vector<float> a = host::random_floats(rows * cols, test::seed() + 13);
    const Tuning bad_transpose{{{"TRA_TILE", 3}}, false}, bad_fft{{{"FFT_WG", 3}}, false};
    expect_refused([&] { transpose(s.queue, rows, cols, a, bad_transpose); }, "TRA_TILE");
    expect_refused([&] { transpose(s.queue, rows, cols + 1, a); }, "host vector holds");
    expect_refused([&] { transpose(s.queue, std::size_t{1} << 33, std::size_t{1} << 31, a); }, "below 2^31");
    std::vector<std::complex<float>> x(1 << 16);
    expect_refused([&] { fft(s.queue, x, 256, false, bad_fft); }, "FFT_WG");
    expect_refused([&] { fft(s.queue, x, 0); }, "n must be at least 1");
    std::vector<float> c(64 * 64);
    expect_refused([&] {
      sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, 64, 64, 64, 1.0f, a, 64, a, 64, 0.0f, c, 63);
    }, "c.ld");
    expect_refused([&] {
      sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, 64, 64, 64, 1.0f, a, 64, a, 64, 0.0f, c, 64,
            Tuning{{{"NOPE", 1}}, false});
    }, "unknown parameter");
    BlurOptions o;
    expect_refused([&] { gaussian_blur(s.queue, 1024, 1024, 1, a, o, Tuning{{{"BLUR_S_LOCAL", 7}}, false}); },
                   "BLUR_S_LOCAL");
    expect_refused([&] { gaussian_blur(s.queue, std::size_t{1} << 32, std::size_t{1} << 32, 1, a, o); },
                   "width and height must be at most 2^30");
    // A failure after the upload (every kernel build fails): the error arrives, and the caller's
    // memory can be released at once (under AddressSanitizer a late read of it is reported).
    {
      test::ScopedEnv bad("CLFORGE_BUILD_OPTIONS", std::string("-cl-no-such-option-") + std::to_string(test::seed()));
      const detail::Activity before = detail::activity();
      for (int routine = 0; routine < 4; ++routine) {
        auto doomed = std::make_unique<std::vector<float>>(a);
        bool threw = false;
        try {
          if (routine == 0) transpose(s.queue, rows, cols, *doomed);
          if (routine == 1) gaussian_blur(s.queue, 1024, 1024, 1, *doomed, o);
          if (routine == 2) {
            std::vector<float> cc(64 * 64);
            sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, 64, 64, 64, 1.0f, *doomed, 64, *doomed, 64,
                  0.0f, cc, 64);
          }
          if (routine == 3) {
            std::vector<std::complex<float>> xx(reinterpret_cast<const std::complex<float>*>(doomed->data()),
                                                reinterpret_cast<const std::complex<float>*>(doomed->data()) + 4096);
            fft(s.queue, xx, 64);
          }
        } catch (const Error& e) {
          threw = true;
          INFO(e.what());
          CHECK((dynamic_cast<const BuildError*>(&e) != nullptr || dynamic_cast<const OpenCLError*>(&e) != nullptr));
        }
        CHECK(threw);
        std::fill(doomed->begin(), doomed->end(), 0.0f);
        doomed.reset();
        REQUIRE(s.queue.finish() == CL_SUCCESS);
      }
      CHECK(detail::activity().enqueued == before.enqueued);  // no transfer was ever enqueued
    }
  }

  TEST_CASE("smaller holes: unknown enums, plans that allocate before refusing") {
    auto& s = test::session();
    Arena arena(test::seed() + 14);
    const cl::Buffer in = arena.buffer(Parent::Src), out = arena.buffer(Parent::Dst);
    BlurOptions o;
    o.method = static_cast<BlurMethod>(17);
    expect_refused([&] { gaussian_blur(s.queue, 8, 8, PixelFormat::R32F, {in, 0, 8}, {out, 0, 8}, o); },
                   "unknown blur method");
    o.method = BlurMethod::Separable;
    o.border = static_cast<BlurBorder>(5);
    expect_refused([&] { gaussian_blur(s.queue, 8, 8, PixelFormat::R32F, {in, 0, 8}, {out, 0, 8}, o); },
                   "unknown border");
    expect_refused([&] {
      sgemm(s.queue, static_cast<Layout>(3), Transpose::No, Transpose::No, 2, 2, 2, 1.0f, {in, 0, 2}, {in, 0, 2},
            0.0f, {out, 0, 2});
    }, "unknown layout");
    FftDesc d;
    d.n = 64;
    expect_refused([&] { FftPlan(s.queue, d, Tuning{{{"FFT_WG", 3}}, false}); }, "FFT_WG");
    expect_refused([&] { FftPlan(s.queue, d, Tuning{{{"TRA_TILE", 16}}, false}); }, "unknown parameter");
    CHECK(arena.verify("the refused calls"));
  }

  TEST_CASE("a corrupt user tuning database fails only its kernels, and says how to bypass it") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("corrupt-user-db");
    test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", dir);
    const std::string path = user_database_path(s.entry.info);
    std::vector<float> a = host::random_floats(6 * 5, test::seed() + 15);
    auto fft_fails = [&](const std::string& needle) {
      FftDesc d;
      d.n = 32;
      try {
        FftPlan plan(s.queue, d);
        FAIL("no TuningError");
      } catch (const TuningError& e) {
        INFO(e.what());
        CHECK(std::string(e.what()).find(path) != std::string::npos);
        CHECK(std::string(e.what()).find(needle) != std::string::npos);
        CHECK(std::string(e.what()).find("CLFORGE_TUNING=off") != std::string::npos);
      }
    };
    // One bad entry of the fft kernel: transpose still runs from the same database.
    detail::write_file_atomic(path, R"({"entries": [{"kernel": "fft", "variant": "32", "params": {"FFT_WG": 3}},
                                         {"kernel": "transpose", "params": {"TRA_PAD": 1}}]})");
    const std::vector<float> t = transpose(s.queue, 6, 5, a);
    CHECK(t[1] == a[5]);
    fft_fails("FFT_WG");
    CHECK(resolve_configuration("transpose", "4", s.entry.info).sources.at("TRA_PAD").find("user") == 0);
    // Not JSON at all: every kernel reports it, with the same way out.
    detail::write_file_atomic(path, "{ not json");
    fft_fails("not valid JSON");
    try {
      transpose(s.queue, 6, 5, a);
      FAIL("no TuningError");
    } catch (const TuningError& e) {
      CHECK(std::string(e.what()).find("--no-user-tuning") != std::string::npos);
    }
    CHECK(transpose(s.queue, 6, 5, a, Tuning{{}, false})[1] == a[5]);  // the bypass works
  }

  TEST_CASE("the compile cache folder stays under its limit") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("cache-evict");
    test::ScopedEnv cache("CLFORGE_CACHE_DIR", dir);
    test::ScopedEnv limit("CLFORGE_CACHE_MAX_MB", std::string("1"));
    // Three old entries of 600 KiB (1.8 MiB) and a temp file a killed writer left two hours ago.
    const std::string junk(600 << 10, 'x');
    for (int i = 0; i < 3; ++i) detail::write_file_atomic(dir + "/old" + std::to_string(i) + ".bin", junk);
    detail::write_file_atomic(dir + "/dead.bin.tmp.1.2", junk);
    for (const char* f : {"/old0.bin", "/old1.bin", "/old2.bin", "/dead.bin.tmp.1.2"}) {
      const struct utimbuf when{std::time(nullptr) - 7200, std::time(nullptr) - 7200};
      REQUIRE(::utime((dir + f).c_str(), &when) == 0);
    }
    test::ScopedEnv opts("CLFORGE_BUILD_OPTIONS", "-DCLF_EVICTION_PROBE=" + std::to_string(test::seed()));
    clear_memory_cache();
    std::vector<float> a = host::random_floats(3 * 7, test::seed() + 16);
    transpose(s.queue, 3, 7, a, Tuning{{}, false});  // compiles and stores a program: evicts
    std::uint64_t total = 0;
    int fresh = 0;
    CHECK(detail::stamp_of(dir + "/dead.bin.tmp.1.2").size < 0);  // the left-over temp file is removed
    std::string out;
    REQUIRE(test::run_command("ls -l '" + dir + "'", out) == 0);
    INFO(out);
    DIR* d = ::opendir(dir.c_str());
    REQUIRE(d != nullptr);
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() < 4 || n.compare(n.size() - 4, 4, ".bin") != 0) continue;
      total += static_cast<std::uint64_t>(detail::stamp_of(dir + "/" + n).size);
      fresh += n.rfind("old", 0) != 0;
    }
    ::closedir(d);
    CHECK(total <= (1u << 20));
    CHECK(fresh >= 1);  // the new entry is kept (the oldest go first)
    clear_memory_cache();
  }
}

#ifdef CLFORGE_CLI
TEST_SUITE("safety") {
  TEST_CASE("clforge: sizes that are not counts are usage errors, not OpenCL or allocation failures") {
    auto& s = test::session();
    const std::string cli = std::string(CLFORGE_CLI) + " --device " + s.entry.info.index_string() + " run ";
    for (const std::string args : {"transpose --rows 0", "transpose --rows -3", "transpose --cols 99999999999",
                                   "transpose --elem 5", "sgemm --m -1", "fft --n 0", "fft --batch -2"}) {
      std::string out;
      const int rc = test::run_command(cli + args, out);
      INFO(args << ": " << out);
      CHECK(rc > 0);  // an exit status, not a signal
      CHECK(out.find(args.substr(args.find("--"), args.find(' ', args.find("--")) - args.find("--"))) != std::string::npos);
      CHECK(out.find("CL_") == std::string::npos);
      CHECK(out.find("vector") == std::string::npos);
    }
  }

  TEST_CASE("clforge blur interrupted while writing leaves no temp file") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("blur-kill");
    const std::size_t W = 1536, H = 1536;
    {
      const std::vector<float> img = host::random_floats(W * H * 4, test::seed() + 17);
      std::ofstream(dir + "/in.f32", std::ios::binary)
          .write(reinterpret_cast<const char*>(img.data()), static_cast<std::streamsize>(img.size() * 4));
    }
    const std::string cmd = "exec " + std::string(CLFORGE_CLI) + " --device " + s.entry.info.index_string() + " blur '" +
                            dir + "/in.f32' '" + dir + "/out.png' --size " + std::to_string(W) + "x" +
                            std::to_string(H) + " --channels 4 --bits 16 --sigma 1 --reps 0 > /dev/null 2>&1";
    auto temps = [&] {
      int n = 0;
      DIR* d = ::opendir(dir.c_str());
      if (d == nullptr) return -1;
      while (const dirent* e = ::readdir(d)) n += std::string(e->d_name).rfind("out.png.tmp-", 0) == 0;
      ::closedir(d);
      return n;
    };
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Interrupt it as soon as its temp file appears (or let it finish if it never shows).
    bool interrupted = false;
    int status = 0;
    for (;;) {
      const pid_t done = ::waitpid(pid, &status, WNOHANG);
      if (done == pid) break;
      if (!interrupted && temps() > 0) {
        ::kill(pid, SIGTERM);
        interrupted = true;
      }
      ::usleep(500);
    }
    MESSAGE(std::string(interrupted ? "blur interrupted while its temp file existed" : "blur finished before a temp file was seen"));
    CHECK(temps() == 0);
    if (interrupted) CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM));
    else CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
}
#endif
