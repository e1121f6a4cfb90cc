// Strided-batched sgemm (sgemm_strided_batched, SgemmDesc::batch): every product of a batch
// against the double-precision host reference of its own matrices (tests/sgemm_support.hpp:
// tolerance 2 (k + 4) 2^-24 relative to |alpha||op(A)||op(B)| + |beta||C| per matrix), C's
// gaps between matrices and the guard tail poisoned with NaN and unchanged; every transpose
// pair and layout on each kernel path, beta 0 over NaN, broadcast operands (stride 0), the
// quick returns, batch 1 bit for bit equal to sgemm(), and the argument checks. The offsets form
// (sgemm_batched, SgemmDesc's offset lists) likewise, on shuffled offsets with shared operands,
// and with a scalar pair per product.
#include <doctest/doctest.h>

#include <cstring>

#include "host/gemm.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "tests/sgemm_support.hpp"
#include "tests/support.hpp"

using namespace clforge;
using namespace clforge::sgemm_test;

namespace {
// The odd acceptance batch: 17 x 33 x 9, five products, offsets and gaps between the matrices.
Case odd_batch(Layout l, Transpose ta, Transpose tb, float beta) {
  Case c;
  c.layout = l, c.ta = ta, c.tb = tb, c.m = 17, c.n = 33, c.k = 9, c.alpha = -0.75f, c.beta = beta;
  c.batch = 5, c.gap = 3, c.off_a = 2, c.off_b = 1, c.off_c = 5, c.pad_c = 1;
  return c;
}
// Buffers of the refusal cases: A, and C full of NaN that no refused call may change.
struct RefusalBuffers {
  static constexpr std::size_t kBytes = 1024 * 4;
  std::vector<float> poison = host::poisoned(1024);
  cl::Buffer a = cl::Buffer(test::session().context, cl_mem_flags{CL_MEM_READ_WRITE}, kBytes);
  cl::Buffer c = cl::Buffer(test::session().context, cl_mem_flags{CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR}, kBytes,
                            static_cast<void*>(poison.data()));

  void check_untouched() const {
    std::vector<float> got(poison.size());
    test::session().queue.enqueueReadBuffer(c, CL_TRUE, 0, got.size() * 4, got.data());
    CHECK(std::memcmp(got.data(), poison.data(), got.size() * 4) == 0);
  }
};

}  // namespace

TEST_SUITE("sgemm") {
  TEST_CASE("strided batches: every transpose pair and layout on each path, beta 0 over NaN and beta 2.5") {
    std::uint64_t seed = test::seed() + 120000;
    for (detail::SgemmPath p : kKernelPaths)
      for (Layout l : kLayouts)
        for (Transpose ta : kT)
          for (Transpose tb : kT)
            for (float beta : {0.0f, 2.5f}) CHECK(sgemm_problem(odd_batch(l, ta, tb, beta), forced(p), seed++) == "");
    // The shipped route (the direct kernel for this size on every vendor class).
    CHECK(sgemm_problem(odd_batch(Layout::RowMajor, Transpose::Yes, Transpose::No, 1.0f), Tuning{{}, false}, seed) ==
          "");
  }

  TEST_CASE("batches take the direct kernel's batch rows: batch16, batch32 and batch by the size of C") {
    std::uint64_t seed = test::seed() + 125000;
    Case c;
    c.layout = Layout::RowMajor, c.ta = Transpose::Yes, c.k = 23, c.beta = 0.5f, c.gap = 2;
    struct Shape {
      std::size_t m, n, batch;
      const char* variant;
    };
    for (const Shape& sh :
         {Shape{16, 11, 7, "batch16"}, Shape{16, 11, 1, "*"}, Shape{17, 32, 3, "batch32"}, Shape{12, 33, 3, "batch"}}) {
      CAPTURE(sh.variant);
      c.m = sh.m, c.n = sh.n, c.batch = sh.batch;
      const SgemmPlan plan(test::session().queue, desc_of(c), Tuning{{}, false});
      CHECK(plan.configurations().back().kernel == "sgemm_direct");
      CHECK(plan.configurations().back().variant == sh.variant);
      CHECK(sgemm_problem(c, Tuning{{}, false}, seed++, nullptr, &plan) == "");
    }
  }

  TEST_CASE("strided batches: one A or one B for every product (stride 0)") {
    std::uint64_t seed = test::seed() + 121000;
    for (detail::SgemmPath p : kKernelPaths)
      for (Layout l : kLayouts)
        for (int which = 0; which < 3; ++which) {
          Case c = odd_batch(l, which == 1 ? Transpose::Yes : Transpose::No, Transpose::Yes, which == 2 ? 0.0f : 0.5f);
          c.broadcast_a = which != 1, c.broadcast_b = which != 0;
          CHECK(sgemm_problem(c, forced(p), seed++) == "");
        }
  }

  TEST_CASE("strided batches: tiles read in place, k blocks, and the quick returns") {
    std::uint64_t seed = test::seed() + 122000;
    // Tile multiples with tight strides (operands read in place where the row allows it) and
    // k blocks of 128 over k = 300 (three launches, beta 0 over NaN in the first).
    Case c;
    c.m = 64, c.n = 64, c.k = 64, c.batch = 3, c.tb = Transpose::Yes;
    CHECK(sgemm_problem(c, forced(detail::SgemmPath::Xgemm), seed++) == "");
    c.k = 300, c.m = 19, c.n = 21, c.gap = 1;
    CHECK(sgemm_problem(c, forced(detail::SgemmPath::Xgemm, {{"KBLOCK", 128}}), seed++) == "");
    // alpha = 0 and k = 0: C_i = beta C_i without reading A or B (NaN there).
    c = odd_batch(Layout::ColMajor, Transpose::No, Transpose::No, 2.5f);
    c.alpha = 0.0f, c.nan_inputs = true;
    CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
    c.beta = 0.0f;
    CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
    c.alpha = 1.0f, c.k = 0;
    CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
    // batch = 0: nothing at all, null buffers allowed (no element is described).
    auto& s = test::session();
    cl::Event ev;
    sgemm_strided_batched(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, 4, 4, 4, 1.0f, {cl::Buffer(), 0, 4},
                          0, {cl::Buffer(), 0, 4}, 0, 0.0f, {cl::Buffer(), 0, 4}, 0, 0, {}, &ev);
    CHECK(ev.wait() == CL_SUCCESS);
  }

  TEST_CASE("batches of more than 65535 products take more than one launch") {
    std::uint64_t seed = test::seed() + 126000;
    Case c;
    c.m = 2, c.n = 3, c.k = 2, c.batch = detail::kSgemmMaxBatchLaunch + 7, c.beta = 0.5f, c.broadcast_b = true;
    CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");  // the direct kernel
    c.alpha = 0.0f;
    CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");  // C = beta * C
  }

  TEST_CASE("strided batches in groups of products that reuse the packing workspace") {
    std::uint64_t seed = test::seed() + 124000;
    Case c = odd_batch(Layout::ColMajor, Transpose::Yes, Transpose::No, 0.0f);
    const Tuning tiled = forced(detail::SgemmPath::Xgemm);
    auto& limit = detail::sgemm_batch_workspace_limit();
    const std::size_t kept = limit;
    const std::size_t per_product = SgemmPlan(test::session().queue, desc_of(c), tiled).workspace_bytes() / c.batch;
    limit = 2 * per_product;  // groups of 2, 2 and 1 products
    for (int broadcast = 0; broadcast < 2; ++broadcast) {
      c.broadcast_a = broadcast == 1;
      const SgemmPlan plan(test::session().queue, desc_of(c), tiled);
      const std::size_t group = detail::SgemmPlanAccess::batch_group(plan);  // one A packed: more per group
      CHECK((broadcast ? group > 2 && group < c.batch : group == 2));
      CHECK(sgemm_problem(c, tiled, seed++, nullptr, &plan) == "");
    }
    limit = kept;
  }

  TEST_CASE("batch 1 is the single sgemm, bit for bit, whatever the strides say") {
    auto& s = test::session();
    const std::size_t m = 45, n = 31, k = 70;
    const std::vector<float> a = host::random_floats(m * k, test::seed() + 123000);
    const std::vector<float> b = host::random_floats(k * n, test::seed() + 123001);
    const std::vector<float> c0 = host::random_floats(m * n, test::seed() + 123002);
    const cl_mem_flags copy = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    cl::Buffer ba(s.context, copy, a.size() * 4, const_cast<float*>(a.data()));
    cl::Buffer bb(s.context, copy, b.size() * 4, const_cast<float*>(b.data()));
    for (detail::SgemmPath p : kKernelPaths) {
      std::vector<float> single(m * n), batched(m * n);
      for (std::vector<float>* out : {&single, &batched}) {
        cl::Buffer bc(s.context, copy, c0.size() * 4, const_cast<float*>(c0.data()));
        const std::size_t stride = out == &single ? 0 : 1;  // ignored with batch 1
        sgemm_strided_batched(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, m, n, k, 1.5f, {ba, 0, m},
                              stride, {bb, 0, k}, stride, 0.5f, {bc, 0, m}, stride, 1, {}, nullptr, forced(p));
        s.queue.enqueueReadBuffer(bc, CL_TRUE, 0, out->size() * 4, out->data());
      }
      std::vector<float> plain(m * n);
      cl::Buffer bc(s.context, copy, c0.size() * 4, const_cast<float*>(c0.data()));
      sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, m, n, k, 1.5f, {ba, 0, m}, {bb, 0, k}, 0.5f,
            {bc, 0, m}, {}, nullptr, forced(p));
      s.queue.enqueueReadBuffer(bc, CL_TRUE, 0, plain.size() * 4, plain.data());
      CHECK(std::memcmp(single.data(), plain.data(), plain.size() * 4) == 0);
      CHECK(std::memcmp(batched.data(), plain.data(), plain.size() * 4) == 0);
    }
  }

  TEST_CASE("offsets form: every transpose pair and layout on each path, shuffled and shared operands") {
    std::uint64_t seed = test::seed() + 127000;
    for (detail::SgemmPath p : kKernelPaths)
      for (Layout l : kLayouts)
        for (Transpose ta : kT)
          for (Transpose tb : kT)
            for (float beta : {0.0f, 2.5f}) {
              Case c = odd_batch(l, ta, tb, beta);
              c.offsets = shuffled_offsets(c, seed, beta == 0.0f);  // shared A and B with beta 0
              CHECK(sgemm_problem(c, forced(p), seed++) == "");
            }
    // Through a plan: the table path (described as offsets), and unaligned C offsets on the tiled path.
    Case c = odd_batch(Layout::RowMajor, Transpose::Yes, Transpose::No, 1.0f);
    c.m = c.n = 32, c.k = 40, c.offsets = shuffled_offsets(c, seed, true, 1);
    for (detail::SgemmPath p : kKernelPaths) {
      const SgemmPlan plan(test::session().queue, desc_of(c), forced(p));
      CHECK(plan.describe().find("batch 5 (offsets)") != std::string::npos);
      CHECK(sgemm_problem(c, forced(p), seed++, nullptr, &plan) == "");
    }
  }

  TEST_CASE("offsets form: workspace groups, more than 65535 products, quick returns, even steps") {
    std::uint64_t seed = test::seed() + 128000;
    Case c = odd_batch(Layout::ColMajor, Transpose::No, Transpose::Yes, 0.0f);
    c.offsets = shuffled_offsets(c, seed, true);
    const Tuning tiled = forced(detail::SgemmPath::Xgemm);
    auto& limit = detail::sgemm_batch_workspace_limit();
    const std::size_t kept = limit;
    limit = 2 * SgemmPlan(test::session().queue, desc_of(c), tiled).workspace_bytes() / c.batch;
    const SgemmPlan grouped(test::session().queue, desc_of(c), tiled);
    CHECK(detail::SgemmPlanAccess::batch_group(grouped) == 2);  // groups of 2, 2 and 1 products
    CHECK(sgemm_problem(c, tiled, seed++, nullptr, &grouped) == "");
    limit = kept;
    // alpha = 0 and k = 0 over NaN in A and B: C_i = beta C_i through the table.
    c.alpha = 0.0f, c.beta = 2.5f, c.nan_inputs = true;
    CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
    c.alpha = 1.0f, c.k = 0, c.beta = 0.0f;
    CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
    // Two launches of the direct kernel and of C = beta C, each reading its rows of the table.
    Case big;
    big.m = 2, big.n = 3, big.k = 2, big.batch = detail::kSgemmMaxBatchLaunch + 7, big.beta = 0.5f;
    big.offsets = shuffled_offsets(big, seed, true);
    CHECK(sgemm_problem(big, Tuning{{}, false}, seed++) == "");
    big.alpha = 0.0f;
    CHECK(sgemm_problem(big, Tuning{{}, false}, seed++) == "");
    // Offsets in even steps run as the strided batch they are; batch 0 with empty lists does nothing.
    Case even = odd_batch(Layout::ColMajor, Transpose::No, Transpose::No, 0.5f);
    even.offsets = {std::vector<std::size_t>(5, 7), {}, {}};  // one A for every product
    for (std::size_t i = 0; i < 5; ++i) even.offsets[1].push_back(2 + 400 * i), even.offsets[2].push_back(600 * i);
    const SgemmPlan strided(test::session().queue, desc_of(even), Tuning{{}, false});
    CHECK(strided.describe().find("(strides 0/400/600)") != std::string::npos);
    CHECK(sgemm_problem(even, Tuning{{}, false}, seed++, nullptr, &strided) == "");
    cl::Event ev;
    sgemm_batched(test::session().queue, Layout::ColMajor, Transpose::No, Transpose::No, 4, 4, 4, 1.0f, cl::Buffer(),
                  {}, 4, cl::Buffer(), {}, 4, 0.0f, cl::Buffer(), {}, 4, {}, &ev);
    CHECK(ev.wait() == CL_SUCCESS);
  }

  TEST_CASE("offsets form with a scalar pair per product: every transpose pair, beta 0 over NaN, alpha 0") {
    // Seven products, four distinct pairs in an interleaved order (four batches, one event over
    // them); C is NaN where the product's beta is 0, A and B reach no product whose alpha is 0
    // (checked with NaN inputs below).
    std::uint64_t seed = test::seed() + 129000;
    const std::vector<float> alphas = {0.5f, -1.0f, 0.5f, 0.0f, -1.0f, 1.25f, 0.5f};
    const std::vector<float> betas = {0.0f, 2.5f, 0.0f, 1.5f, 2.5f, 0.0f, 0.0f};
    for (Layout l : kLayouts)
      for (Transpose ta : kT)
        for (Transpose tb : kT) {
          Case c = odd_batch(l, ta, tb, 0.0f);
          c.batch = 7;
          c.offsets = shuffled_offsets(c, seed, false);
          c.alphas = alphas, c.betas = betas;
          CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
        }
    Case c = odd_batch(Layout::ColMajor, Transpose::No, Transpose::No, 0.0f);
    c.batch = 7;
    c.offsets = shuffled_offsets(c, seed, true);
    c.alphas = alphas, c.betas = betas;
    CHECK(sgemm_problem(c, forced(detail::SgemmPath::Xgemm), seed++) == "");
    c.alphas.assign(7, 0.0f);  // every product C = beta C over NaN inputs: A and B unread
    c.nan_inputs = true;
    CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
    c.alphas.assign(7, 2.0f), c.betas.assign(7, 0.5f), c.nan_inputs = false;  // one pair: one batch
    CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
    // Lists of another length are refused before anything is enqueued.
    auto& s = test::session();
    RefusalBuffers bufs;
    const auto N = Transpose::No;
    using V = std::vector<std::size_t>;
    test::expect_invalid_argument(
        [&] {
          sgemm_batched(s.queue, Layout::ColMajor, N, N, 4, 4, 4, std::vector<float>{1.0f}, bufs.a, V{0, 16}, 4, bufs.a,
                        V{0, 16}, 4, std::vector<float>{0.0f, 0.0f}, bufs.c, V{0, 16}, 4);
        },
        "1 alphas and 2 betas for 2 products");
    test::expect_invalid_argument(
        [&] {
          sgemm_batched(s.queue, Layout::ColMajor, N, N, 4, 4, 4, std::vector<float>{1.0f, 2.0f}, bufs.a, V{0, 16}, 4,
                        bufs.a, V{0, 16}, 4, std::vector<float>{0.0f, 1.0f}, bufs.c, V{32, 32}, 4);
        },
        "c_offsets 32 and 32 are less than one C matrix's extent");
    bufs.check_untouched();
  }

  TEST_CASE("offsets form: bad lists, extents and overlaps throw InvalidArgument before anything is enqueued") {
    auto& s = test::session();
    RefusalBuffers bufs;
    const cl::Buffer &a = bufs.a, &c = bufs.c;
    const auto N = Transpose::No;
    const auto expect = test::expect_invalid_argument;
    using V = std::vector<std::size_t>;
    const std::size_t top = ~std::size_t(0) - 8;
    auto call = [&](const V& za, const V& zb, const V& zc, const cl::Buffer& cb) {
      sgemm_batched(s.queue, Layout::ColMajor, N, N, 4, 4, 4, 1.0f, a, za, 4, a, zb, 4, 0.0f, cb, zc, 4);
    };
    expect([&] { call({0, 16}, {0}, {0, 16}, c); }, "b_offsets holds 1 offsets, not one per product (batch 2)");
    expect([&] { call({0, 16}, {0, 16}, {32, 32}, c); }, "c_offsets 32 and 32 are less than one C matrix's extent");
    expect([&] { call({0, 16}, {0, 16}, {40, 25}, c); }, "c_offsets 25 and 40");
    expect([&] { call({0, 16}, {top, 0}, {0, 16}, c); }, "b_offsets[0] (18446744073709551607) plus the described");
    expect([&] { call({0, 16}, {0, 16}, {0, 1009}, c); }, "c buffer too small");  // the last C ends past it
    expect([&] { call({1009, 0}, {0, 16}, {0, 16}, c); }, "a buffer too small");  // the first A likewise
    expect(
        [&] {
          call({0, 16}, {0, 0}, {40, 10}, a);
        },
        "c overlaps a in the same buffer: product 0's a at 0 shares elements with the C matrix at 10");
    call({0, 32}, {0, 32}, {16, 48}, a);  // A's and C's matrices interleaved in one buffer: allowed
    SgemmDesc d;
    d.m = d.n = d.k = 4, d.batch = 2, d.a_offsets = d.b_offsets = d.c_offsets = {0, 16};
    d.c_stride = 16;
    expect([&] { SgemmPlan(s.queue, d); }, "offset lists take no a_offset, b_offset, c_offset or strides");
    d.c_stride = 0, d.batch = std::size_t(1) << 31;
    expect([&] { SgemmPlan(s.queue, d); }, "batch (2147483648)");
    bufs.check_untouched();
  }

  TEST_CASE("strided batches: bad strides and extents throw InvalidArgument before anything is enqueued") {
    auto& s = test::session();
    RefusalBuffers bufs;
    const cl::Buffer &a = bufs.a, &c = bufs.c;
    const auto N = Transpose::No;
    const auto col = Layout::ColMajor;
    const auto expect = test::expect_invalid_argument;
    const std::size_t big = std::size_t(1) << 31, half = std::size_t(1) << 63, top = ~std::size_t(0) - 8;
    auto call = [&](std::size_t batch, std::size_t za, std::size_t zb, std::size_t zc, const cl::Buffer& cb,
                    std::size_t c_off) {
      sgemm_strided_batched(s.queue, col, N, N, 4, 4, 4, 1.0f, {a, 0, 4}, za, {a, 0, 4}, zb, 0.0f, {cb, c_off, 4}, zc,
                            batch);
    };
    expect([&] { call(2, 16, 16, 0, c, 0); }, "c_stride (0) is smaller than one C matrix's extent (16");
    expect([&] { call(3, 16, 16, 15, c, 0); }, "c_stride (15)");
    expect([&] { call(big, 0, 0, 16, c, 0); }, "batch (2147483648)");
    expect([&] { call(3, half, 16, 16, c, 0); }, "(batch - 1) * a_stride");
    expect([&] { call(2, 16, top, 16, c, 0); }, "the batch's extent along b_stride");
    expect([&] { call(64, 16, 16, 16, c, 1); }, "c buffer too small");  // the last matrix ends past C
    expect([&] { call(64, 17, 0, 16, c, 0); }, "a buffer too small");   // A's last matrix likewise
    expect([&] { call(4, 16, 16, 16, a, 32); }, "c overlaps a");        // C starts inside A's batch
    SgemmDesc d;
    d.m = d.n = d.k = 4, d.batch = 2, d.c_stride = 3;
    expect([&] { SgemmPlan(s.queue, d); }, "c_stride (3)");
    bufs.check_untouched();
  }
}
