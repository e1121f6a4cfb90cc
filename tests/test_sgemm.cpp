// sgemm against the double-precision host reference (host/gemm.hpp, tolerance and poison in
// tests/sgemm_support.hpp): the acceptance shapes with every transpose pair, both layouts and
// alpha/beta values (beta = 0 with NaN already in C), leading dimensions larger than needed and
// offsets, each path (direct, xgemm, stream) forced by the routing parameters, every shipped
// vendor-class parameter set of each kernel family and two random legal parameter sets per
// family. Semantics, events and argument checks: test_sgemm_semantics.cpp; plans, the tuning
// target and the kernels' signatures: test_sgemm_plan.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "host/gemm.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/sources.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "tests/sgemm_support.hpp"
#include "tests/support.hpp"
#include "tuning/spec.hpp"

using namespace clforge;
using namespace clforge::sgemm_test;

TEST_SUITE("sgemm") {
  // The tuner's sampled check: entries of C on threads, op(A)'s row converted once per run of
  // entries in one row. Against each entry's dot product written out here, in another order of
  // summation: equal within 1e-13 of the sum of magnitudes (double's rounding over k = 301 terms).
  TEST_CASE("host reference: gemm_entries equals the definition on every layout and transpose") {
    std::uint64_t seed = test::seed();
    for (const bool row_major : {false, true})
      for (const bool ta : {false, true})
        for (const bool tb : {false, true}) {
          const std::size_t m = 37, n = 23, k = 301;
          const host::GemmShape sh = host::tight_gemm_shape(row_major, ta, tb, m, n, k);
          const std::vector<float> a = host::random_floats(host::gemm_span(sh, 'a'), seed++),
                                   b = host::random_floats(host::gemm_span(sh, 'b'), seed++),
                                   c = host::random_floats(host::gemm_span(sh, 'c'), seed++);
          std::vector<std::pair<std::size_t, std::size_t>> ij;
          for (std::size_t e = 0; e < 3000; ++e) ij.emplace_back((e * 7) % m, (e * 13) % n);  // runs and jumps of rows
          std::vector<double> out, mag;
          host::gemm_entries(sh, -0.75, a.data(), b.data(), 0.5, c.data(), ij, out, &mag);
          REQUIRE(out.size() == ij.size());
          for (std::size_t e = 0; e < ij.size(); ++e) {
            const auto [i, j] = ij[e];
            double ab = 0, mab = 0;
            for (std::size_t p = 0; p < k; ++p) {
              const double x = ta ? (row_major ? a[p * sh.lda + i] : a[i * sh.lda + p])
                                  : (row_major ? a[i * sh.lda + p] : a[p * sh.lda + i]);
              const double y = tb ? (row_major ? b[j * sh.ldb + p] : b[p * sh.ldb + j])
                                  : (row_major ? b[p * sh.ldb + j] : b[j * sh.ldb + p]);
              ab += x * y;
              mab += std::fabs(x * y);
            }
            const double cij = row_major ? c[i * sh.ldc + j] : c[j * sh.ldc + i];
            const double bound = 1e-13 * (mab + 1);
            CHECK(std::fabs(out[e] - (-0.75 * ab + 0.5 * cij)) <= bound);
            CHECK(std::fabs(mag[e] - (0.75 * mab + 0.5 * std::fabs(cij))) <= bound);
          }
        }
  }

  TEST_CASE("small acceptance shapes: every transpose pair, layout, alpha and beta (shipped parameters)") {
    std::uint64_t seed = test::seed();
    for (const auto& d : kSmall)
      for (Layout l : kLayouts)
        for (Transpose ta : kT)
          for (Transpose tb : kT)
            for (float alpha : {1.0f, -0.5f, 0.0f})
              for (float beta : {0.0f, 1.0f, 2.5f}) {
                Case c;
                c.layout = l, c.ta = ta, c.tb = tb, c.m = d.m, c.n = d.n, c.k = d.k, c.alpha = alpha, c.beta = beta;
                CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
              }
  }

  TEST_CASE("small acceptance shapes through each kernel family: every transpose pair and layout") {
    std::uint64_t seed = test::seed() + 10000;
    for (auto path : kKernelPaths)
      for (const auto& d : kSmall)
        for (Layout l : kLayouts)
          for (Transpose ta : kT)
            for (Transpose tb : kT) {
              Case c;
              c.layout = l, c.ta = ta, c.tb = tb, c.m = d.m, c.n = d.n, c.k = d.k;
              c.alpha = -0.5f;
              c.beta = (seed % 2) ? 2.5f : 0.0f;
              CAPTURE(detail::to_string(path));
              CHECK(sgemm_problem(c, forced(path), seed++) == "");
            }
  }

  TEST_CASE("333x1000x17 and 1000x1000x1000: every transpose pair, both layouts, each kernel family") {
    std::uint64_t seed = test::seed() + 20000;
    // 333 x 1000 x 17: everything, on the shipped route and on each kernel family.
    for (Layout l : kLayouts)
      for (Transpose ta : kT)
        for (Transpose tb : kT) {
          Case c;
          c.layout = l, c.ta = ta, c.tb = tb, c.m = 333, c.n = 1000, c.k = 17;
          c.alpha = (seed % 3 == 0) ? 1.0f : -0.5f;
          c.beta = (seed % 2) ? 0.0f : 2.5f;
          CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
          for (auto path : kKernelPaths) CHECK(sgemm_problem(c, forced(path), seed++) == "");
        }
    // 1000^3: each transpose pair once (layouts and alpha/beta alternate), plus the direct
    // and the streaming kernel once each.
    const float alphas[] = {1.0f, -0.5f, -0.5f, 1.0f}, betas[] = {0.0f, 2.5f, 1.0f, 0.0f};
    int i = 0;
    for (Transpose ta : kT)
      for (Transpose tb : kT) {
        Case c;
        c.layout = i % 2 ? Layout::RowMajor : Layout::ColMajor;
        c.ta = ta, c.tb = tb, c.m = c.n = c.k = 1000, c.alpha = alphas[i], c.beta = betas[i];
        CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
        ++i;
      }
    Case c;
    c.m = c.n = c.k = 1000, c.alpha = -0.5f, c.beta = 2.5f, c.ta = Transpose::Yes;
    CHECK(sgemm_problem(c, forced(detail::SgemmPath::Direct), seed++) == "");
    c.layout = Layout::RowMajor;
    CHECK(sgemm_problem(c, forced(detail::SgemmPath::Stream), seed++) == "");
  }

  TEST_CASE("leading dimensions larger than needed, and buffer offsets") {
    std::uint64_t seed = test::seed() + 30000;
    const Dims dims[] = {{17, 33, 5}, {65, 127, 33}, {128, 64, 48}};
    for (auto path : kKernelPaths)
      for (const auto& d : dims)
        for (Layout l : kLayouts)
          for (Transpose ta : kT)
            for (Transpose tb : kT) {
              Case c;
              c.layout = l, c.ta = ta, c.tb = tb, c.m = d.m, c.n = d.n, c.k = d.k;
              c.alpha = 1.0f, c.beta = 2.5f;
              c.pad_a = 3, c.pad_b = 16, c.pad_c = 5;
              c.off_a = 1, c.off_b = 7, c.off_c = 13;
              CAPTURE(detail::to_string(path));
              CHECK(sgemm_problem(c, forced(path), seed++) == "");
            }
  }

  TEST_CASE("every shipped vendor-class parameter set of each kernel family computes the right answer here") {
    std::uint64_t seed = test::seed() + 60000;
    const Dims dims[] = {{65, 127, 33}, {300, 200, 100}};
    for (VendorClass v :
         {VendorClass::NVIDIA, VendorClass::AMD, VendorClass::Intel, VendorClass::CPU, VendorClass::Other}) {
      CAPTURE(to_string(v));
      struct Family {
        const char* kernel;
        detail::SgemmPath path;
      };
      for (const Family f :
           {Family{"sgemm_xgemm", detail::SgemmPath::Xgemm}, Family{"sgemm_stream", detail::SgemmPath::Stream},
            Family{"sgemm_direct", detail::SgemmPath::Direct}, Family{"sgemm_pack", detail::SgemmPath::Xgemm}}) {
        for (const ParamMap& row : vendor_rows(v, f.kernel)) {  // every size class's row
          const Tuning t = forced(f.path, row);
          // NN on one shape and TT (row-major) on the other: both operand mappings of the
          // direct kernel and both packing kernels, with few programs to compile.
          for (int i = 0; i < 2; ++i) {
            Case c;
            c.m = dims[i].m, c.n = dims[i].n, c.k = dims[i].k, c.alpha = -0.5f, c.beta = 2.5f;
            c.ta = c.tb = i ? Transpose::Yes : Transpose::No;
            c.layout = i ? Layout::RowMajor : Layout::ColMajor;
            CHECK(sgemm_problem(c, t, seed++) == "");
          }
          // Tile-multiple sizes with k-major operands: the tiled kernels read them in place.
          Case c;
          c.m = 256, c.n = 128, c.k = 64, c.tb = Transpose::Yes, c.beta = 0.0f;
          CHECK(sgemm_problem(c, t, seed++) == "");
        }
      }
      // The shipped route row: a 40^3 and a 200^3 product (small and larger than every threshold).
      for (std::size_t n : {40, 200}) {
        Case c;
        c.m = c.n = c.k = n, c.alpha = 1.0f, c.beta = 1.0f, c.ta = Transpose::Yes;
        CHECK(sgemm_problem(c, Tuning{vendor_row(v, "sgemm_route"), false}, seed++) == "");
      }
    }
  }

  TEST_CASE("every shipped architecture row of the tiled and direct kernels computes the right answer here") {
    // Rows measured on one architecture (sm_90, x86_64-skylake-avx512, ...), resolved for a
    // made-up device of that vendor and architecture with this device's limits.
    using namespace clforge::detail;
    std::uint64_t seed = test::seed() + 65000;
    for (const auto& [kernel, path] :
         {std::pair{"sgemm_xgemm", SgemmPath::Xgemm}, std::pair{"sgemm_direct", SgemmPath::Direct}}) {
      const auto j = nlohmann::json::parse(load_kernel_source(kernel_spec(kernel).database).text);
      int rows = 0;
      for (const auto& e : j["entries"]) {
        if (!e.contains("architecture")) continue;
        VendorClass v = VendorClass::Other;
        for (VendorClass c : {VendorClass::NVIDIA, VendorClass::AMD, VendorClass::Intel, VendorClass::CPU})
          if (e["vendor"].get<std::string>() == to_string(c)) v = c;
        REQUIRE(v != VendorClass::Other);
        const std::string arch = e["architecture"].get<std::string>();
        const std::string variant = e.value("variant", "*");
        const DeviceInfo fake = test::fake_device(v, arch);
        const Configuration cfg = resolve_configuration(kernel, variant, fake, Tuning{{}, false});
        CAPTURE(kernel);
        CAPTURE(arch);
        CAPTURE(variant);
        for (const auto& [k, val] : e["params"].items()) CHECK(cfg.values.at(k) == val.get<int>());  // this row
        ++rows;
        const Tuning t = forced(path, cfg.values);
        Case c;
        c.m = 300, c.n = 200, c.k = 100, c.alpha = -0.5f, c.beta = 2.5f;
        CHECK(sgemm_problem(c, t, seed++) == "");
        c.m = 256, c.n = 128, c.k = 64, c.tb = Transpose::Yes, c.beta = 0.0f;
        CHECK(sgemm_problem(c, t, seed++) == "");
      }
      // sgemm_xgemm: sm_90's default, small, small:batch and small:wide rows, x86_64-skylake-avx512's
      // small and medium; sgemm_direct: sm_90's single-product and three batch rows
      CHECK(rows >= 4);
    }
  }

  TEST_CASE("random legal parameter sets of each kernel family") {
    std::uint64_t seed = test::seed() + 70000;
    std::mt19937_64 rng(seed);
    struct Family {
      const char* kernel;
      detail::SgemmPath path;
    };
    for (const Family f :
         {Family{"sgemm_xgemm", detail::SgemmPath::Xgemm}, Family{"sgemm_stream", detail::SgemmPath::Stream},
          Family{"sgemm_direct", detail::SgemmPath::Direct}, Family{"sgemm_pack", detail::SgemmPath::Xgemm}}) {
      for (int i = 0; i < 2; ++i) {
        const Tuning t = forced(f.path, random_legal(f.kernel, rng));
        Case c;
        c.m = 67 + 13 * i, c.n = 129 - 17 * i, c.k = 45 + 11 * i;
        c.alpha = -0.5f, c.beta = (i % 2) ? 0.0f : 2.5f;
        c.ta = i ? Transpose::Yes : Transpose::No;
        c.tb = i ? Transpose::No : Transpose::Yes;
        c.layout = i ? Layout::RowMajor : Layout::ColMajor;
        c.pad_c = i, c.off_a = i;
        CHECK(sgemm_problem(c, t, seed++) == "");
      }
    }
  }

  TEST_CASE("larger shapes (CLFORGE_LONG_TESTS=1)") {
    if (!test::long_tests()) return;
    std::uint64_t seed = test::seed() + 100000;
    const Dims dims[] = {{2048, 2048, 2048}, {4097, 257, 1025}, {1025, 2049, 515}, {8192, 64, 512}};
    for (const auto& d : dims)
      for (Transpose ta : kT)
        for (Transpose tb : kT) {
          Case c;
          c.m = d.m, c.n = d.n, c.k = d.k, c.ta = ta, c.tb = tb, c.alpha = -0.5f, c.beta = 2.5f;
          c.layout = (seed % 2) ? Layout::RowMajor : Layout::ColMajor;
          CHECK(sgemm_problem(c, Tuning{{}, false}, seed++) == "");
        }
  }
}
