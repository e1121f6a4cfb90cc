// Transpose against the host reference: odd and degenerate shapes, every element size,
// padded leading dimensions and offsets, every shipped vendor-class parameter set and a few
// others. Transposition moves bits, so results must be exact.
#include <doctest/doctest.h>
#include <utime.h>

#include <atomic>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "host/guard.hpp"
#include "host/reference.hpp"
#include "tests/support.hpp"
#include "transpose/transpose_internal.hpp"

using namespace clforge;

namespace {

struct Shape {
  std::size_t rows, cols;
};

// Runs one transpose on the device with poisoned output and guard tail (host/guard.hpp); checks
// that the result equals the host reference bit for bit and nothing outside the matrix changed.
void check_transpose(std::size_t rows, std::size_t cols, std::size_t elem, std::size_t in_pad, std::size_t out_pad,
                     std::size_t in_off, std::size_t out_off, const Tuning& tuning, std::uint64_t seed) {
  auto& s = test::session();
  const std::size_t fpe = elem / 4;  // floats per element
  const std::size_t in_ld = cols + in_pad, out_ld = rows + out_pad;
  const std::size_t in_n = (in_off + (rows - 1) * in_ld + cols) * fpe;
  const host::PoisonedOutput poison(out_off + (cols - 1) * out_ld + rows, elem);
  const std::size_t out_n = poison.bytes() / 4;
  std::vector<float> in = host::random_floats(in_n, seed);
  std::vector<float> out = poison.floats();
  std::vector<float> ref = out;
  host::transpose(rows, cols, elem, in.data() + in_off * fpe, in_ld, ref.data() + out_off * fpe, out_ld);

  cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_n * 4, in.data());
  cl::Buffer bout(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out_n * 4, out.data());
  cl::Event ev;
  transpose(s.queue, rows, cols, elem, MatrixRef{bin, in_off, in_ld}, MatrixRef{bout, out_off, out_ld}, {}, &ev,
            tuning);
  std::vector<cl::Event> deps{ev};
  s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, out_n * 4, out.data(), &deps);
  INFO("rows " << rows << " cols " << cols << " elem " << elem << " in_ld " << in_ld << " out_ld " << out_ld
               << " offsets " << in_off << "/" << out_off << " seed " << seed << " params " << [&] {
                    std::string p;
                    for (auto& [k, v] : tuning.overrides) p += k + "=" + std::to_string(v) + " ";
                    return p;
                  }());
  // Exact, bit for bit: the matrix equals the reference and the poison outside it stays.
  std::size_t first = 0;
  const std::size_t mismatches = poison.differences(out.data(), ref.data(), &first);
  INFO("first mismatch at element " << first);
  CHECK(mismatches == 0);
}

ParamMap vendor_row(VendorClass v, const std::string& variant) { return test::vendor_row("transpose", v, variant); }

}  // namespace

TEST_SUITE("transpose") {
  TEST_CASE("shapes and element sizes with the device's own parameters") {
    const Shape shapes[] = {{1, 1},   {1, 37},    {37, 1},     {17, 33},  {33, 17},
                            {64, 64}, {128, 256}, {1000, 999}, {4097, 31}};
    std::uint64_t seed = test::seed();
    for (std::size_t elem : {4, 8, 16})
      for (const auto& sh : shapes) check_transpose(sh.rows, sh.cols, elem, 0, 0, 0, 0, {}, seed++);
  }

  TEST_CASE("leading dimensions larger than a row, and offsets") {
    std::uint64_t seed = test::seed() + 1000;
    for (std::size_t elem : {4, 8, 16}) {
      check_transpose(17, 33, elem, 5, 3, 7, 11, {}, seed++);
      check_transpose(100, 3, elem, 1, 29, 0, 1, {}, seed++);
      check_transpose(65, 127, elem, 64, 0, 100, 0, {}, seed++);
    }
  }

  TEST_CASE("every shipped vendor-class parameter set computes the right answer here") {
    std::uint64_t seed = test::seed() + 2000;
    for (VendorClass v :
         {VendorClass::NVIDIA, VendorClass::AMD, VendorClass::Intel, VendorClass::CPU, VendorClass::Other})
      for (std::size_t elem : {4, 8, 16}) {
        Tuning t{vendor_row(v, std::to_string(elem)), false};
        CAPTURE(to_string(v));
        check_transpose(1000, 999, elem, 0, 0, 0, 0, t, seed++);
        check_transpose(31, 4097, elem, 3, 0, 5, 0, t, seed++);
      }
  }

  TEST_CASE("plans sharing one program on one thread: every argument that differs is bound again") {
    // One parameter set and no vector alignment option, so all of these compile to one program
    // and run on this thread's one kernel object; Args skips re-binding a scalar that holds the
    // value already, so stale sizes, offsets or leading dimensions would show here.
    const Tuning t{{{"TRA_TILE", 8}, {"TRA_WPT", 2}, {"TRA_VW", 1}}, false};
    std::uint64_t seed = test::seed() + 500;
    for (int round = 0; round < 3; ++round) {
      check_transpose(29, 31, 4, 0, 0, 0, 0, t, seed++);
      check_transpose(31, 29, 4, 3, 1, 5, 7, t, seed++);
      check_transpose(29, 31, 4, 0, 0, 0, 0, t, seed++);  // the first again after another shape
      check_transpose(8, 8, 4, 0, 0, 0, 0, t, seed++);
    }
  }

  TEST_CASE("other legal parameter sets, including square powers of two") {
    std::uint64_t seed = test::seed() + 3000;
    // Each set names its path (TRA_LOCAL): an unnamed one would take the device's row's.
    const ParamMap sets[] = {
        {{"TRA_TILE", 8}, {"TRA_WPT", 8}, {"TRA_VW", 1}, {"TRA_PAD", 0}, {"TRA_DIAG", 1}, {"TRA_LOCAL", 1}},
        {{"TRA_TILE", 64}, {"TRA_WPT", 8}, {"TRA_VW", 2}, {"TRA_PAD", 1}, {"TRA_DIAG", 1}, {"TRA_LOCAL", 1}},
        {{"TRA_TILE", 16}, {"TRA_WPT", 2}, {"TRA_VW", 4}, {"TRA_PAD", 0}, {"TRA_DIAG", 0}, {"TRA_LOCAL", 1}},
        {{"TRA_TILE", 32}, {"TRA_WPT", 1}, {"TRA_VW", 2}, {"TRA_PAD", 1}, {"TRA_DIAG", 1}, {"TRA_LOCAL", 1}},
        {{"TRA_TILE", 16}, {"TRA_WPT", 16}, {"TRA_VW", 4}, {"TRA_LOCAL", 0}, {"TRA_DIAG", 1}},
        {{"TRA_TILE", 64}, {"TRA_WPT", 16}, {"TRA_VW", 8}, {"TRA_LOCAL", 0}},
        {{"TRA_TILE", 8}, {"TRA_WPT", 2}, {"TRA_VW", 8}, {"TRA_LOCAL", 0}},
        // Band swizzles whose width does not divide the tile grid (a narrower last band).
        {{"TRA_TILE", 16}, {"TRA_WPT", 4}, {"TRA_VW", 4}, {"TRA_SWZ", 8}, {"TRA_LOCAL", 1}},
        {{"TRA_TILE", 32}, {"TRA_WPT", 8}, {"TRA_VW", 1}, {"TRA_SWZ", 32}, {"TRA_LOCAL", 1}},
        {{"TRA_TILE", 8}, {"TRA_WPT", 4}, {"TRA_VW", 2}, {"TRA_SWZ", 4}, {"TRA_LOCAL", 0}},
        {{"TRA_TILE", 16}, {"TRA_WPT", 8}, {"TRA_VW", 8}, {"TRA_SWZ", 1}, {"TRA_LOCAL", 0}},  // down the columns
        {{"TRA_TILE", 8}, {"TRA_WPT", 2}, {"TRA_VW", 4}, {"TRA_SWZ", 2}, {"TRA_LOCAL", 1}},
    };
    for (const auto& p : sets)
      for (std::size_t n : {16, 256, 512}) check_transpose(n, n, 4, 0, 0, 0, 0, Tuning{p, false}, seed++);
    for (const auto& p : sets) check_transpose(129, 67, 8, 2, 1, 3, 4, Tuning{p, false}, seed++);
  }

  TEST_CASE("every tile / rows-per-item / vector-width combination, aligned (vector) and unaligned paths") {
    // 64 x 64 (leading dimensions multiples of 8) takes the whole-vector paths (TRA_ALIGN_IN/OUT;
    // with TRA_LOCAL = 0 and TRA_WPT a multiple of TRA_VW = 4 or 8 the square blocks turned by
    // shuffles, with and without non-temporal stores); 40 x 72 at leading dimensions 81 and 41 the
    // scalar paths on both sides, full tiles and partial ones; 33 x 70 a vector load and a scalar
    // store.
    std::uint64_t seed = test::seed() + 5000;
    for (int local : {0, 1})
      for (int tile : {8, 16, 32})
        for (int wpt : {1, 2, 4, 8, 16})
          for (int vw : {1, 2, 4, 8}) {
            if (wpt > tile || vw > tile) continue;
            const Tuning t{{{"TRA_TILE", tile},
                            {"TRA_WPT", wpt},
                            {"TRA_VW", vw},
                            {"TRA_LOCAL", local},
                            {"TRA_PAD", 1},
                            {"TRA_DIAG", (tile + wpt) % 2},
                            {"TRA_SWZ", (tile + wpt) % 2 ? 0 : 4},
                            {"TRA_NT", (tile / 8 + wpt) % 2}},
                           false};
            check_transpose(64, 64, 4, 0, 0, 0, 0, t, seed++);
            check_transpose(40, 72, 4, 9, 1, 16, 0, t, seed++);
            if (vw == 2) check_transpose(33, 70, 4, 0, 0, 0, 0, t, seed++);
          }
  }

  TEST_CASE("host-vector convenience overload") {
    auto& s = test::session();
    const std::size_t rows = 19, cols = 23;
    std::vector<float> in = host::random_floats(rows * cols, test::seed() + 4000);
    std::vector<float> out = transpose(s.queue, rows, cols, in);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) REQUIRE(out[c * rows + r] == in[r * cols + c]);
    CHECK_THROWS_AS(transpose(s.queue, rows, cols + 1, in), InvalidArgument);
  }

  TEST_CASE("bad arguments throw InvalidArgument naming the problem, before anything is enqueued") {
    auto& s = test::session();
    cl::Buffer a(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4), b(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4);
    const auto expect = test::expect_invalid_argument;
    expect([&] { transpose(s.queue, 0, 4, 4, {a, 0, 4}, {b, 0, 4}); }, "at least 1");
    expect([&] { transpose(s.queue, 4, 4, 3, {a, 0, 4}, {b, 0, 4}); }, "elem_size");
    expect([&] { transpose(s.queue, 4, 8, 4, {a, 0, 4}, {b, 0, 8}); }, "in.ld");
    expect([&] { transpose(s.queue, 8, 4, 4, {a, 0, 4}, {b, 0, 4}); }, "out.ld");
    expect([&] { transpose(s.queue, 64, 64, 16, {a, 0, 64}, {b, 0, 64}); }, "too small");
    expect([&] { transpose(s.queue, 64, 64, 4, {a, 1, 64}, {b, 0, 64}); }, "in buffer too small");
    expect([&] { transpose(s.queue, 4, 4, 4, {cl::Buffer(), 0, 4}, {b, 0, 4}); }, "null buffer");
    expect([&] { transpose(s.queue, 4, 4, 4, {a, 0, 4}, {a, 0, 4}); }, "different buffers");
    expect(
        [&] {
          transpose(s.queue, 4, 4, 4, {a, 0, 4}, {b, 0, 4}, {}, nullptr, Tuning{{{"TRA_NOPE", 1}}, true});
        },
        "unknown parameter");
    expect(
        [&] {
          transpose(s.queue, 4, 4, 4, {a, 0, 4}, {b, 0, 4}, {}, nullptr, Tuning{{{"TRA_TILE", 12}}, true});
        },
        "not legal");
    expect(
        [&] {
          transpose(s.queue, 4, 4, 4, {a, 0, 4}, {b, 0, 4}, {}, nullptr,
                    Tuning{{{"TRA_TILE", 4}, {"TRA_WPT", 8}}, true});
        },
        "TRA_WPT must not exceed TRA_TILE");
  }
}

namespace {

// Programs looked up (built, or found in the memory or disk cache) in this process.
std::uint64_t lookups(const CacheStats& c = cache_stats()) { return c.memory_hits + c.disk_hits + c.compiles; }

// The host transpose of a packed rows x cols float matrix.
std::vector<float> host_transposed(std::size_t rows, std::size_t cols, const std::vector<float>& in) {
  std::vector<float> out(in.size());
  host::transpose(rows, cols, 4, in.data(), cols, out.data(), rows);
  return out;
}

std::vector<float> device_transpose(const TransposePlan& plan, cl::CommandQueue& q, const std::vector<float>& in) {
  auto& s = test::session();
  const TransposeDesc& d = plan.desc();
  cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size() * 4, const_cast<float*>(in.data()));
  std::vector<float> out = host::poisoned(d.rows * d.cols);
  cl::Buffer bout(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size() * 4, out.data());
  cl::Event ev;
  plan.enqueue(q, bin, bout, {}, &ev);
  const std::vector<cl::Event> deps{ev};
  q.enqueueReadBuffer(bout, CL_TRUE, 0, out.size() * 4, out.data(), &deps);
  return out;
}

}  // namespace

TEST_SUITE("transpose") {
  TEST_CASE("the launcher names the kernel's parameters as its source declares them") {
    CHECK(test::declared_params("transpose/transpose.cl", "transpose_tiled") ==
          std::vector<std::string>(detail::kTransposeTiled.args.begin(), detail::kTransposeTiled.args.end()));
  }

  TEST_CASE(
      "a matrix of 16 MiB or more takes the \":large\" variant (\":large:odd\" off the float4 grid), which falls back "
      "to its element size's rows") {
    CHECK(detail::transpose_variant(2048, 2048, 4) == "4:large");  // 16 MiB
    CHECK(detail::transpose_variant(2047, 2048, 4) == "4");
    CHECK(detail::transpose_variant(4097, 31, 4) == "4");
    CHECK(detail::transpose_variant(1024, 1024, 16) == "16:large");
    CHECK(detail::transpose_variant(1024, 1024, 8) == "8");
    CHECK(detail::transpose_variant(std::size_t{1} << 40, std::size_t{1} << 40, 16) == "16:large");  // no wrap
    // Large float matrices off the float4 grid are a class of their own; other element sizes
    // never move whole float vectors, and small matrices are bound by the call.
    CHECK(detail::transpose_variant(2048, 2049, 4, false) == "4:large:odd");
    CHECK(detail::transpose_variant(2048, 2048, 8, false) == "8:large");
    CHECK(detail::transpose_variant(2047, 2049, 4, false) == "4");
    // The tuner's classes are the variants the launcher resolves.
    const detail::TuneTarget target = detail::transpose_tune_target();
    CHECK(target.variant_of("2048") == "4:large");
    CHECK(target.variant_of("8191x8193") == "4:large:odd");
    CHECK(target.variant_of("2050x2048") == "4:large:odd");
    CHECK(target.variant_of("4097x31") == "4");
    CHECK(target.variant_of("1024:16") == "16:large");
    CHECK(target.check_sizes("16:large", {"1024:16"}) == std::vector<std::string>{"67x131:16"});
    auto& s = test::session();
    const std::string dir = test::temp_dir("transpose-large");
    const test::ScopedEnv user("CLFORGE_USER_TUNING_DIR", dir);
    const test::ScopedEnv file("CLFORGE_TUNING_FILE", std::nullopt);
    const test::ScopedEnv on("CLFORGE_TUNING", std::nullopt);
    TransposeDesc large, small;
    large.rows = 2048, large.cols = 2048;
    small.rows = 2047, small.cols = 2048;
    const ParamMap rows4 = resolve_configuration("transpose", "4", s.entry.info, Tuning{{}, false}).values;
    // Without a row of its own the large variant takes the element size's.
    CHECK(TransposePlan(s.queue, large).configuration().variant == "4:large");
    CHECK(TransposePlan(s.queue, large).configuration().values == rows4);
    CHECK(TransposePlan(s.queue, small).configuration().variant == "4");
    // Stores `row` for `variant`: a plan of d then takes it and computes right.
    const auto stored_row_serves = [&](const char* variant, const ParamMap& row, const TransposeDesc& d,
                                       std::uint64_t seed) {
      store_user_entry(s.entry.info, "transpose", variant, row, "test");
      const TransposePlan plan(s.queue, d);
      CHECK(plan.configuration().values == row);
      const std::vector<float> x = host::random_floats(d.rows * d.cols, seed);
      CHECK(device_transpose(plan, s.queue, x) == host_transposed(d.rows, d.cols, x));
    };
    // A row stored for it serves the large matrices only.
    ParamMap other = rows4;
    other["TRA_TILE"] = rows4.at("TRA_TILE") == 32 ? 16 : 32;
    other["TRA_PAD"] = 1 - rows4.at("TRA_PAD");
    stored_row_serves("4:large", other, large, test::seed() + 73);
    CHECK(TransposePlan(s.queue, small).configuration().values == rows4);
    // A large matrix off the float4 grid (an odd side, or an offset) is not served by that row
    // but by its own class's, and falls back to the element size's.
    TransposeDesc odd = large, shifted = large;
    odd.cols = 2049;
    shifted.in_offset = 2;
    shifted.in_ld = 2050;
    CHECK(TransposePlan(s.queue, odd).configuration().variant == "4:large:odd");
    CHECK(TransposePlan(s.queue, odd).configuration().values == rows4);
    CHECK(TransposePlan(s.queue, shifted).configuration().variant == "4:large:odd");
    ParamMap odd_row = other;
    odd_row["TRA_PAD"] = rows4.at("TRA_PAD");
    stored_row_serves("4:large:odd", odd_row, odd, test::seed() + 74);
    CHECK(TransposePlan(s.queue, large).configuration().values == other);
  }

  TEST_CASE("TransposePlan: built once, enqueued many times, from several threads, on its own device only") {
    auto& s = test::session();
    TransposeDesc d;
    d.rows = 37;
    d.cols = 53;
    const TransposePlan plan(s.queue, d, Tuning{{}, false});
    CHECK(plan.desc().in_ld == 53);  // 0: packed
    CHECK(plan.desc().out_ld == 37);
    CHECK(plan.describe().find("37x53") != std::string::npos);
    CHECK(plan.configuration().values ==
          resolve_configuration("transpose", "4", s.entry.info, Tuning{{}, false}).values);
    const std::vector<float> a = host::random_floats(37 * 53, test::seed() + 71);
    const std::vector<float> ref = host_transposed(37, 53, a);
    // Enqueues look nothing up: no program is built or found in a cache.
    const auto before = cache_stats();
    for (int i = 0; i < 3; ++i) CHECK(device_transpose(plan, s.queue, a) == ref);
    CHECK(lookups() == lookups(before));
    // Several threads, each with its own queue of the same context.
    std::vector<std::thread> threads;
    std::atomic<int> right{0};
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        cl::CommandQueue q(s.context, s.entry.device);
        for (int i = 0; i < 20; ++i) right += device_transpose(plan, q, a) == ref;
      });
    for (auto& t : threads) t.join();
    CHECK(right == 80);
    // A queue of another context is refused.
    cl::Context other(s.entry.device);
    cl::CommandQueue oq(other, s.entry.device);
    cl::Buffer x(other, CL_MEM_READ_WRITE, 37 * 53 * 4), y(other, CL_MEM_READ_WRITE, 37 * 53 * 4);
    test::expect_invalid_argument([&] { plan.enqueue(oq, x, y); }, "another context");
    // Bad descriptions: refused before anything is built.
    d.in_ld = 52;
    test::expect_invalid_argument([&] { TransposePlan(s.queue, d); }, "in.ld");
  }

  TEST_CASE("the free function runs cached plans, and sees tuning changes") {
    auto& s = test::session();
    clear_memory_cache();  // plans of earlier cases with these shapes go too
    const std::vector<float> a = host::random_floats(29 * 31, test::seed() + 72);
    const std::vector<float> ref = host_transposed(29, 31, a);
    cl::Buffer bin(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.size() * 4, const_cast<float*>(a.data()));
    cl::Buffer bout(s.context, CL_MEM_READ_WRITE, a.size() * 4);
    auto run = [&](const Tuning& t) {
      cl::Event ev;
      transpose(s.queue, 29, 31, 4, {bin, 0, 31}, {bout, 0, 29}, {}, &ev, t);
      ev.wait();
      std::vector<float> out(a.size());
      s.queue.enqueueReadBuffer(bout, CL_TRUE, 0, out.size() * 4, out.data());
      return out;
    };
    CHECK(run(Tuning{{}, false}) == ref);
    const auto warm = cache_stats();
    CHECK(run(Tuning{{}, false}) == ref);  // the same call again: the cached plan
    CHECK(lookups() == lookups(warm));
    CHECK(run(Tuning{{{"TRA_TILE", 8}, {"TRA_WPT", 2}}, false}) == ref);  // other overrides: another plan
    CHECK(lookups() > lookups(warm));
    // A tuning file set between two calls takes effect on the next call.
    const std::string file = test::temp_dir("transpose-plan-cache") + "/t.json";
    std::ofstream(file)
        << R"({"entries": [{"kernel": "transpose", "params": {"TRA_TILE": 4, "TRA_WPT": 1, "TRA_VW": 1}}]})";
    ::utime(file.c_str(), nullptr);
    struct utimbuf old {
      std::time(nullptr) - 10, std::time(nullptr) - 10
    };
    REQUIRE(::utime(file.c_str(), &old) == 0);  // an older stamp: trusted, so cached
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    const auto before = cache_stats();
    CHECK(run(Tuning{{}, false}) == ref);
    CHECK(lookups() > lookups(before));
    const auto again = cache_stats();
    CHECK(run(Tuning{{}, false}) == ref);
    CHECK(lookups() == lookups(again));
  }
}
