// BlurPlan: built once, enqueued many times on fresh random data (each method and pixel
// format, against the double host reference), refusing bad buffers and queues with nothing
// enqueued, enqueued from several threads at once, and the free function's plan cache.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "host/blur.hpp"
#include "host/guard.hpp"
#include "runtime/host_io.hpp"
#include "tests/blur_support.hpp"
#include "tests/safety_support.hpp"
#include "tests/support.hpp"

using namespace clforge;
using namespace clforge::test::blur;

namespace {

// Programs looked up (built, or found in the memory or disk cache) in this process.
std::uint64_t lookups(const CacheStats& c = cache_stats()) { return c.memory_hits + c.disk_hits + c.compiles; }

std::size_t channels(PixelFormat f) { return f == PixelFormat::R32F ? 1 : 4; }

// The buffers of one enqueue: fresh input (floats in [-1, 1], or random bytes), the output
// poisoned (NaN, or 0xA5 bytes) up to a guard tail, and the input as compact floats.
struct Images {
  cl::Buffer in, out;
  host::PoisonedOutput poison;  // with the guard tail after the output image (host/guard.hpp)
  std::vector<float> compact;
};

Images make_images(const cl::Context& ctx, const BlurDesc& d, std::uint64_t seed) {
  const std::size_t c = channels(d.format), pb = pixel_bytes(d.format);
  const std::size_t in_px = d.in_offset + (d.height - 1) * d.in_pitch + d.width;
  const std::size_t out_span = d.out_offset + (d.height - 1) * d.out_pitch + d.width;
  const bool bytes = d.format == PixelFormat::RGBA8;
  std::vector<unsigned char> in(in_px * pb);
  Images m{{}, {}, bytes ? host::PoisonedOutput(out_span, pb, 0xA5) : host::PoisonedOutput(out_span, pb), {}};
  if (bytes) {
    std::mt19937_64 rng(seed);
    for (auto& v : in) v = static_cast<unsigned char>(rng() & 0xff);
  } else {
    const std::vector<float> f = host::random_floats(in_px * c, seed);
    std::memcpy(in.data(), f.data(), in.size());
  }
  m.compact.resize(d.width * d.height * c);
  for (std::size_t y = 0; y < d.height; ++y)
    for (std::size_t x = 0; x < d.width; ++x)
      for (std::size_t ch = 0; ch < c; ++ch) {
        const unsigned char* p = in.data() + (d.in_offset + y * d.in_pitch + x) * pb;
        float v;
        if (d.format == PixelFormat::RGBA8)
          v = p[ch];
        else
          std::memcpy(&v, p + 4 * ch, 4);
        m.compact[(y * d.width + x) * c + ch] = v;
      }
  m.in = cl::Buffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size(), in.data());
  m.out = cl::Buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, m.poison.bytes(),
                     const_cast<unsigned char*>(m.poison.data()));
  return m;
}

// The output buffer read back after `done`.
std::vector<unsigned char> read_back(cl::CommandQueue& q, const Images& m, const cl::Event& done) {
  std::vector<unsigned char> got(m.poison.bytes());
  const std::vector<cl::Event> deps{done};
  REQUIRE(q.enqueueReadBuffer(m.out, CL_TRUE, 0, got.size(), got.data(), &deps) == CL_SUCCESS);
  return got;
}

// Checks an output against the double host reference of the plan's method, and that nothing
// outside the image changed.
void check_output(const BlurPlan& plan, const Images& m, const std::vector<unsigned char>& got) {
  const BlurDesc& d = plan.desc();
  const std::size_t c = channels(d.format), pb = pixel_bytes(d.format), W = d.width, H = d.height;
  const bool rec = plan.method() == BlurMethod::Recursive;
  const std::vector<double> ref =
      rec ? host::recursive_blur(m.compact.data(), W, H, c, W, d.sigma_x, d.sigma_y, d.border)
          : host::gaussian_blur(m.compact.data(), W, H, c, W, d.sigma_x, d.sigma_y, d.border);
  std::vector<float> out(W * H * c);
  int worst = 0;
  std::size_t off_by_one = 0;
  for (std::size_t y = 0; y < H; ++y)
    for (std::size_t x = 0; x < W; ++x) {
      const std::size_t p = d.out_offset + y * d.out_pitch + x;
      for (std::size_t ch = 0; ch < c; ++ch) {
        const std::size_t i = (y * W + x) * c + ch;
        if (d.format == PixelFormat::RGBA8) {
          const double r = std::min(255.0, std::max(0.0, std::nearbyint(ref[i])));
          const int diff = std::abs(static_cast<int>(got[p * 4 + ch]) - static_cast<int>(r));
          worst = std::max(worst, diff);
          off_by_one += diff == 1;
        } else {
          std::memcpy(&out[i], got.data() + p * pb + 4 * ch, 4);
        }
      }
    }
  std::vector<bool> inside(m.poison.elements(), false);
  host::mark_rows(inside, d.out_offset, H, W, d.out_pitch);
  const std::size_t outside = m.poison.changed_outside(got.data(), inside);
  INFO(plan.describe());
  CHECK(outside == 0);
  if (d.format == PixelFormat::RGBA8) {
    INFO("worst difference " << worst << ", " << off_by_one << " values off by one (float rounding at .5)");
    CHECK(worst <= 1);
    CHECK(off_by_one < W * H / 20);
    return;
  }
  const host::Comparison cmp = host::compare(out, ref);
  const double tol =
      rec ? host::recursive_blur_tolerance(d.sigma_x, d.sigma_y) : host::truncated_blur_tolerance(d.sigma_x, d.sigma_y);
  INFO("against the same filter: " << cmp.summary() << " (tolerance " << tol << ")");
  if (nearly_constant(W, H, d.sigma_x, d.sigma_y)) {
    CHECK(cmp.nonfinite == 0);
    CHECK(cmp.max_abs_error <= tol);
  } else {
    CHECK(cmp.ok(tol));
  }
}

// One enqueue of the plan on fresh data, checked.
void check_enqueue(const BlurPlan& plan, cl::CommandQueue& q, std::uint64_t seed) {
  const Images m = make_images(test::session().context, plan.desc(), seed);
  cl::Event done;
  plan.enqueue(q, m.in, m.out, {}, &done);
  check_output(plan, m, read_back(q, m, done));
}

}  // namespace

TEST_SUITE("blur") {
  TEST_CASE("BlurPlan: built once, enqueued repeatedly on fresh data, each method and pixel format") {
    auto& s = test::session();
    std::uint64_t seed = test::seed() + 1100;
    // Recursive: separate transposes (TransposePlan steps) on one channel, fused transposes
    // with the horizontal carries from the vertical pass on four, whole columns on RGBA8.
    const ParamMap recursive[] = {
        {{"BLUR_R_BLOCK", 16}, {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 0}},
        {{"BLUR_R_BLOCK", 16}, {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 1}, {"BLUR_R_LX", 16}},
        {{"BLUR_R_BLOCK", 0}, {"BLUR_R_FUSE_T", 0}},
    };
    const PixelFormat formats[] = {PixelFormat::R32F, PixelFormat::RGBA32F, PixelFormat::RGBA8};
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive})
      for (int f = 0; f < 3; ++f) {
        BlurDesc d;
        d.width = 45;
        d.height = 23;
        d.format = formats[f];
        d.sigma_x = 1.7;
        d.sigma_y = 3.1;
        d.border = f == 1 ? BlurBorder::Zero : BlurBorder::Mirror;
        d.method = m;
        d.in_offset = 5;
        d.in_pitch = 48;
        d.out_offset = 3;  // out_pitch 0: packed
        const Tuning t{m == BlurMethod::Recursive ? recursive[f] : ParamMap{}, false};
        const BlurPlan plan(s.queue, d, t);
        CAPTURE(plan.describe());
        CHECK(plan.method() == m);
        CHECK(plan.desc().out_pitch == 45);
        CHECK(plan.desc().in_pitch == 48);
        CHECK(plan.configurations().front().kernel == "blur");
        const char* method_kernel = m == BlurMethod::Direct      ? "blur_direct"
                                    : m == BlurMethod::Separable ? "blur_separable"
                                                                 : "blur_recursive";
        CHECK(plan.configurations()[1].kernel == method_kernel);
        // Separate transposes: one configuration each, after the method's.
        const std::size_t transposes = m == BlurMethod::Recursive && f != 1 ? 2 : 0;
        CHECK(plan.configurations().size() == 2 + transposes);
        if (transposes > 0) CHECK(plan.configurations().back().kernel == "transpose");
        CHECK(plan.describe().find("blur 45x23 " + std::string(to_string(formats[f]))) == 0);
        check_enqueue(plan, s.queue, seed++);
        // Later enqueues look nothing up and allocate nothing: programs, constant tables and
        // the scratch layout belong to the plan, the scratch buffer comes back from the pool.
        const std::uint64_t buffers = detail::activity().buffers, programs = lookups();
        for (int rep = 0; rep < 3; ++rep) check_enqueue(plan, s.queue, seed++);
        CHECK(detail::activity().buffers == buffers);
        CHECK(lookups() == programs);
      }
  }

  TEST_CASE("BlurPlan: bad descriptions, buffers and queues are refused with nothing built or enqueued") {
    auto& s = test::session();
    const auto refused = [](const std::function<void()>& fn, const std::string& needle) {
      const test::Footprint before = test::Footprint::now();
      test::expect_invalid_argument(fn, needle);
      CHECK(test::Footprint::now() == before);
    };
    BlurDesc d;
    d.width = 16;
    d.height = 8;
    d.method = BlurMethod::Recursive;
    d.sigma_x = d.sigma_y = 2;
    // Descriptions: refused before anything is built or allocated.
    constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
    auto with = [&](const std::function<void(BlurDesc&)>& change) {
      BlurDesc e = d;
      change(e);
      return e;
    };
    refused([&] { BlurPlan(s.queue, with([](BlurDesc& e) { e.in_pitch = 15; })); }, "in.pitch");
    refused([&] { BlurPlan(s.queue, with([](BlurDesc& e) { e.width = 0; })); }, "at least 1");
    refused([&] { BlurPlan(s.queue, with([](BlurDesc& e) { e.sigma_y = 0.4; })); }, "below 0.5");
    refused([&] { BlurPlan(s.queue, with([](BlurDesc& e) { e.sigma_x = 0; })); }, "sigma_x");
    refused([&] { BlurPlan(s.queue, with([](BlurDesc& e) { e.format = static_cast<PixelFormat>(7); })); },
            "unknown pixel format");
    refused([&] { BlurPlan(s.queue, with([](BlurDesc& e) { e.out_offset = kMax - 20; })); }, "out.offset");
    refused(
        [&] {
          BlurPlan(s.queue, d, Tuning{{{"BLUR_R_BLOCK", 0}, {"BLUR_R_FUSE_T", 1}}, false});
        },
        "BLUR_R_FUSE_T=1 needs BLUR_R_BLOCK > 0");
    // Buffers and queues: refused by enqueue before anything is enqueued or allocated.
    const BlurPlan plan(s.queue, d, Tuning{{}, false});
    const std::size_t bytes = 16 * 8 * 4;
    cl::Buffer a(s.context, CL_MEM_READ_WRITE, bytes), b(s.context, CL_MEM_READ_WRITE, bytes),
        small(s.context, CL_MEM_READ_WRITE, bytes - 4);
    refused([&] { plan.enqueue(s.queue, small, b); }, "in buffer too small");
    refused([&] { plan.enqueue(s.queue, a, small); }, "out buffer too small");
    refused([&] { plan.enqueue(s.queue, cl::Buffer(), b); }, "null buffer");
    refused([&] { plan.enqueue(s.queue, a, a); }, "different buffers");
    cl::Context other(s.entry.device);
    cl::CommandQueue oq(other, s.entry.device);
    cl::Buffer x(other, CL_MEM_READ_WRITE, bytes), y(other, CL_MEM_READ_WRITE, bytes);
    refused([&] { plan.enqueue(oq, x, y); }, "another context");
    refused([&] { plan.enqueue(s.queue, x, b); }, "in belongs to another context");
    refused([&] { plan.enqueue(s.queue, a, y); }, "out belongs to another context");
    refused(
        [&] {
          gaussian_blur(s.queue, 16, 8, PixelFormat::R32F, {a, 0, 16}, {y, 0, 16}, BlurOptions{});
        },
        "out belongs to another context");
    // And it still runs.
    check_enqueue(plan, s.queue, test::seed() + 1200);
  }

  TEST_CASE("BlurPlan: enqueued from several threads at once, on their own queues and on a shared one") {
    // Each enqueue leases its own scratch from the pool, so concurrent enqueues of one plan give
    // the same bits as one alone.
    auto& s = test::session();
    BlurDesc d;
    d.width = 70;
    d.height = 50;
    d.sigma_x = 3;
    d.sigma_y = 2;
    d.method = BlurMethod::Recursive;
    const ParamMap blocks{{"BLUR_R_BLOCK", 16}, {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 0}};
    const BlurPlan rec(s.queue, d, Tuning{blocks, false});
    d.method = BlurMethod::Separable;
    d.format = PixelFormat::RGBA8;
    const BlurPlan sep(s.queue, d, Tuning{{}, false});
    const Images mr = make_images(s.context, rec.desc(), test::seed() + 1300);
    const Images ms = make_images(s.context, sep.desc(), test::seed() + 1301);
    cl::Event e1, e2;
    rec.enqueue(s.queue, mr.in, mr.out, {}, &e1);
    sep.enqueue(s.queue, ms.in, ms.out, {}, &e2);
    const std::vector<unsigned char> want_rec = read_back(s.queue, mr, e1), want_sep = read_back(s.queue, ms, e2);
    check_output(rec, mr, want_rec);
    check_output(sep, ms, want_sep);
    cl::CommandQueue shared(s.context, s.entry.device);
    std::atomic<int> right{0}, failed{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        try {
          cl::CommandQueue own(s.context, s.entry.device);
          cl::CommandQueue& q = t < 2 ? own : shared;
          // Per thread: its own output buffers, the same inputs.
          cl::Buffer out_rec(s.context, CL_MEM_READ_WRITE, mr.poison.bytes()),
              out_sep(s.context, CL_MEM_READ_WRITE, ms.poison.bytes());
          for (int i = 0; i < 10; ++i) {
            cl::Event a, b;
            rec.enqueue(q, mr.in, out_rec, {}, &a);
            sep.enqueue(q, ms.in, out_sep, {}, &b);
            std::vector<unsigned char> got_rec(want_rec.size()), got_sep(want_sep.size());
            const std::vector<cl::Event> da{a}, db{b};
            q.enqueueReadBuffer(out_rec, CL_TRUE, 0, got_rec.size(), got_rec.data(), &da);
            q.enqueueReadBuffer(out_sep, CL_TRUE, 0, got_sep.size(), got_sep.data(), &db);
            // Compare the images only (the rest of the fresh buffers is undefined).
            auto same = [](const BlurDesc& dd, const std::vector<unsigned char>& x,
                           const std::vector<unsigned char>& y) {
              const std::size_t pb = pixel_bytes(dd.format);
              for (std::size_t r = 0; r < dd.height; ++r)
                if (std::memcmp(x.data() + (dd.out_offset + r * dd.out_pitch) * pb,
                                y.data() + (dd.out_offset + r * dd.out_pitch) * pb, dd.width * pb) != 0)
                  return false;
              return true;
            };
            right += same(rec.desc(), got_rec, want_rec) && same(sep.desc(), got_sep, want_sep);
          }
        } catch (...) {
          ++failed;
        }
      });
    for (auto& t : threads) t.join();
    CHECK(failed == 0);
    CHECK(right == 40);
  }

  TEST_CASE("gaussian_blur runs cached plans: a repeated call looks nothing up and allocates nothing") {
    auto& s = test::session();
    clear_memory_cache();  // plans of earlier cases go too
    const std::size_t W = 41, H = 27;
    const std::vector<float> in = host::random_floats(W * H, test::seed() + 1400);
    cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size() * 4, const_cast<float*>(in.data()));
    cl::Buffer bout(s.context, CL_MEM_READ_WRITE, in.size() * 4);
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive}) {
      BlurOptions o;
      o.sigma_x = 2.5;
      o.sigma_y = 1.5;
      o.method = m;
      const Tuning t{{{"BLUR_R_BLOCK", 16}, {"BLUR_R_NARROW", 1 << 30}, {"BLUR_R_FUSE_T", 0}}, false};
      auto run = [&](const BlurOptions& opt) {
        cl::Event ev;
        CHECK(gaussian_blur(s.queue, W, H, PixelFormat::R32F, {bin, 0, W}, {bout, 0, W}, opt, {}, &ev, t) == m);
        std::vector<float> out(in.size());
        const std::vector<cl::Event> deps{ev};
        s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, out.size() * 4, out.data(), &deps);
        const auto ref = m == BlurMethod::Recursive
                             ? host::recursive_blur(in.data(), W, H, 1, W, opt.sigma_x, opt.sigma_y, opt.border)
                             : host::gaussian_blur(in.data(), W, H, 1, W, opt.sigma_x, opt.sigma_y, opt.border);
        CHECK(host::compare(out, ref).ok(m == BlurMethod::Recursive
                                             ? host::recursive_blur_tolerance(opt.sigma_x, opt.sigma_y)
                                             : host::truncated_blur_tolerance(opt.sigma_x, opt.sigma_y)));
      };
      CAPTURE(to_string(m));
      run(o);
      const std::uint64_t buffers = detail::activity().buffers, programs = lookups();
      run(o);  // the same call: the cached plan
      CHECK(detail::activity().buffers == buffers);
      CHECK(lookups() == programs);
      o.sigma_x = 2.0;  // another sigma: another plan (the programs come from the compile cache)
      run(o);
      CHECK(lookups() > programs);
    }
  }

  TEST_CASE("BlurPlan: a window of output rows, bitwise as the whole image's, and the halo") {
    auto& s = test::session();
    BlurDesc d;
    d.width = 33;
    d.height = 40;
    d.format = PixelFormat::R32F;
    d.sigma_x = 1.3;
    d.sigma_y = 2.0;
    d.method = BlurMethod::Separable;
    const BlurPlan plan(s.queue, d);
    REQUIRE(plan.writes_row_windows());
    std::vector<float> in(d.width * d.height);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 29 + 7) % 97);
    const cl::Buffer bin = detail::upload(s.context, CL_MEM_READ_ONLY, in.data(), in.size() * 4, "test");
    const cl::Buffer whole = detail::device_buffer(s.context, CL_MEM_READ_WRITE, in.size() * 4, "test");
    const std::size_t first = 10, count = 12;
    const cl::Buffer window = detail::device_buffer(s.context, CL_MEM_READ_WRITE, count * d.width * 4, "test");
    plan.enqueue(s.queue, bin, whole);
    plan.enqueue_rows(s.queue, bin, window, first, count);
    std::vector<float> all(in.size()), part(count * d.width);
    detail::download(s.queue, whole, all.size() * 4, all.data(), {}, "test");
    detail::download(s.queue, window, part.size() * 4, part.data(), {}, "test");
    CHECK(std::equal(part.begin(), part.end(), all.begin() + first * d.width));

    test::expect_invalid_argument([&] { plan.enqueue_rows(s.queue, bin, window, 30, 12); }, "not a window");
    test::expect_invalid_argument([&] { plan.enqueue_rows(s.queue, bin, window, 0, 0); }, "not a window");
    test::expect_invalid_argument([&] { plan.enqueue_rows(s.queue, bin, window, 0, 13); }, "out");
    BlurDesc direct = d;
    direct.method = BlurMethod::Direct;
    const BlurPlan no_window(s.queue, direct);
    CHECK(!no_window.writes_row_windows());
    test::expect_invalid_argument([&] { no_window.enqueue_rows(s.queue, bin, window, first, count); },
                                  "cannot write a window");

    // Direct and separable read r = ceil(3 sigma_y) rows; the recursive filter's halo is where
    // its impulse response has decayed below 2^-30, far beyond that.
    CHECK(blur_halo_rows(BlurMethod::Separable, 2.0) == 6);
    CHECK(blur_halo_rows(BlurMethod::Direct, 2.5) == 8);
    CHECK(blur_halo_rows(BlurMethod::Recursive, 2.0) > 6);
    CHECK(blur_desc(7, 5, PixelFormat::RGBA8, BlurOptions{}).height == 5);
    test::expect_invalid_argument([&] { check_blur_arguments(0, 5, PixelFormat::R32F, BlurOptions{}); }, "at least 1");
  }
}
