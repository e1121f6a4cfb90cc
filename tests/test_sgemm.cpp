// sgemm against the double-precision host reference (host/gemm.hpp): the acceptance shapes
// with every transpose pair, both layouts and alpha/beta values (beta = 0 with NaN already in
// C), leading dimensions larger than needed and offsets, the BLAS quick-return rules, each
// path (direct, xgemm, stream) forced by the routing parameters in both directions, every
// shipped vendor-class parameter set of each kernel family, two random legal parameter sets
// per family, events, concurrency, the tuning target, and argument checks.
//
// Tolerance: ||C - C_ref||_F <= 2 * (k + 4) * 2^-24 * ||M||_F, where C_ref is the double
// reference and M = |alpha| |op(A)| |op(B)| + |beta| |C| (element-wise): a c*k*eps bound on
// the relative Frobenius error (single-precision accumulation over k terms plus the
// alpha/beta update), normalised by the magnitude of the terms as GEMM error bounds are, so
// that cancellation in a tiny product (1x1x1) cannot fail a correct result. The plain
// ||C - C_ref|| / ||C_ref|| is reported as well. Every element of C's buffer outside the
// m x n matrix (the offset prefix, the ld gaps and a 127-element guard tail) is NaN before
// the call and must still hold the same bits afterwards.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <thread>

#include "host/gemm.hpp"
#include "runtime/program_cache.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "tests/support.hpp"
#include "tuning/spec.hpp"

using namespace clforge;

namespace {

constexpr std::size_t kGuard = 127;

struct Case {
  Layout layout = Layout::ColMajor;
  Transpose ta = Transpose::No, tb = Transpose::No;
  std::size_t m = 1, n = 1, k = 1;
  float alpha = 1.0f, beta = 0.0f;
  std::size_t pad_a = 0, pad_b = 0, pad_c = 0;  // ld beyond the minimum
  std::size_t off_a = 0, off_b = 0, off_c = 0;  // buffer offsets in elements
  bool nan_inputs = false;                      // A and B filled with NaN (must not be read)
};

std::string describe(const Case& c) {
  std::ostringstream o;
  o << (c.layout == Layout::RowMajor ? "row-major " : "column-major ") << (c.ta == Transpose::Yes ? 'T' : 'N')
    << (c.tb == Transpose::Yes ? 'T' : 'N') << " m=" << c.m << " n=" << c.n << " k=" << c.k << " alpha=" << c.alpha
    << " beta=" << c.beta << " pads " << c.pad_a << "/" << c.pad_b << "/" << c.pad_c << " offsets " << c.off_a << "/"
    << c.off_b << "/" << c.off_c << (c.nan_inputs ? " (A and B are NaN)" : "");
  return o.str();
}

std::string describe(const Tuning& t) {
  std::string p;
  for (const auto& [k, v] : t.overrides) p += k + "=" + std::to_string(v) + " ";
  return p.empty() ? "(shipped)" : p;
}

double tolerance(std::size_t k) { return host::gemm_tolerance(k); }

double scaled_error(const std::vector<float>& y, const std::vector<double>& ref, const std::vector<double>& mag) {
  return host::gemm_scaled_error(y.data(), ref.data(), mag.data(), y.size());
}

host::GemmShape shape_of(const Case& c) {
  host::GemmShape s;
  s.row_major = c.layout == Layout::RowMajor;
  s.trans_a = c.ta == Transpose::Yes;
  s.trans_b = c.tb == Transpose::Yes;
  s.m = c.m, s.n = c.n, s.k = c.k;
  auto tight = [&](std::size_t rows, std::size_t cols) { return std::max<std::size_t>(1, s.row_major ? cols : rows); };
  s.lda = (s.trans_a ? tight(c.k, c.m) : tight(c.m, c.k)) + c.pad_a;
  s.ldb = (s.trans_b ? tight(c.n, c.k) : tight(c.k, c.n)) + c.pad_b;
  s.ldc = tight(c.m, c.n) + c.pad_c;
  return s;
}

// One call on poisoned C with guard tail; checks the matrix against the reference and that
// nothing outside it changed. Returns the path taken.
void check_sgemm(const Case& c, const Tuning& tuning, std::uint64_t seed, cl::CommandQueue* queue = nullptr) {
  auto& s = test::session();
  cl::CommandQueue& q = queue ? *queue : s.queue;
  const host::GemmShape sh = shape_of(c);
  const std::size_t na = c.off_a + host::gemm_span(sh, 'a') + kGuard;
  const std::size_t nb = c.off_b + host::gemm_span(sh, 'b') + kGuard;
  const std::size_t nc = c.off_c + host::gemm_span(sh, 'c') + kGuard;
  std::vector<float> a = c.nan_inputs ? host::poisoned(na) : host::random_floats(na, seed);
  std::vector<float> b = c.nan_inputs ? host::poisoned(nb) : host::random_floats(nb, seed + 1);
  std::vector<float> c0 = host::poisoned(nc);
  if (c.beta != 0.0f) {
    const std::vector<float> r = host::random_floats(c.m * c.n, seed + 2);
    for (std::size_t j = 0; j < c.n; ++j)
      for (std::size_t i = 0; i < c.m; ++i) c0[c.off_c + host::gemm_c_index(sh, i, j)] = r[i + j * c.m];
  }
  std::vector<double> ref(nc, 0.0), mag(nc, 0.0);
  host::gemm(sh, c.alpha, a.data() + c.off_a, b.data() + c.off_b, c.beta, c0.data() + c.off_c, ref.data() + c.off_c, 0,
             mag.data() + c.off_c);

  cl::Buffer ba(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, na * 4, a.data());
  cl::Buffer bb(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nb * 4, b.data());
  cl::Buffer bc(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, nc * 4, c0.data());
  cl::Event ev;
  sgemm(q, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, {ba, c.off_a, sh.lda}, {bb, c.off_b, sh.ldb}, c.beta,
        {bc, c.off_c, sh.ldc}, {}, &ev, tuning);
  std::vector<float> got(nc);
  const std::vector<cl::Event> deps{ev};
  REQUIRE(q.enqueueReadBuffer(bc, CL_TRUE, 0, nc * 4, got.data(), &deps) == CL_SUCCESS);

  std::vector<char> inside(nc, 0);
  std::vector<float> y;
  std::vector<double> r, mg;
  y.reserve(c.m * c.n);
  r.reserve(c.m * c.n);
  mg.reserve(c.m * c.n);
  for (std::size_t j = 0; j < c.n; ++j)
    for (std::size_t i = 0; i < c.m; ++i) {
      const std::size_t idx = c.off_c + host::gemm_c_index(sh, i, j);
      inside[idx] = 1;
      y.push_back(got[idx]);
      r.push_back(ref[idx]);
      mg.push_back(mag[idx]);
    }
  std::size_t touched = 0, first = 0;
  for (std::size_t i = 0; i < nc; ++i)
    if (!inside[i] && std::memcmp(&got[i], &c0[i], 4) != 0 && touched++ == 0) first = i;
  const host::Comparison cmp = host::compare(y, r);
  const double tol = tolerance(c.k);
  const auto path = detail::sgemm_path(s.entry.info, c.m, c.n, c.k, c.alpha, c.beta, tuning);
  const double err = scaled_error(y, r, mg);
  INFO(describe(c) << " | path " << std::string(detail::to_string(path)) << " | params " << describe(tuning)
                   << " | seed " << seed);
  INFO(cmp.summary() << "; scaled error " << err << ", tolerance " << tol);
  INFO("elements outside the matrix changed: " << touched << " (first at " << first << ")");
  CHECK(touched == 0);
  CHECK(err <= tol);
}

// The shipped row of a vendor class, resolved on a fake device of that class.
ParamMap vendor_row(VendorClass v, const std::string& kernel, const std::string& variant = "*") {
  return test::vendor_row(kernel, v, variant);
}

// Every distinct shipped configuration of a vendor class over the kernel's variants.
std::set<ParamMap> vendor_rows(VendorClass v, const std::string& kernel) {
  std::set<ParamMap> rows{vendor_row(v, kernel)};
  for (const auto& variant : detail::kernel_spec(kernel).variants) rows.insert(vendor_row(v, kernel, variant));
  return rows;
}

// Overrides that force a path regardless of size.
ParamMap force(detail::SgemmPath p) {
  switch (p) {
    case detail::SgemmPath::Direct:
      return {{"SGEMM_DIRECT_MAX", 16384}};
    case detail::SgemmPath::Stream:
      return {{"SGEMM_DIRECT_MAX", 0}, {"SGEMM_TILED", 1}};
    default:
      return {{"SGEMM_DIRECT_MAX", 0}, {"SGEMM_TILED", 0}};
  }
}
Tuning forced(detail::SgemmPath p, ParamMap extra = {}) {
  ParamMap o = force(p);
  o.insert(extra.begin(), extra.end());
  return Tuning{o, false};
}

const detail::SgemmPath kKernelPaths[] = {detail::SgemmPath::Direct, detail::SgemmPath::Xgemm,
                                          detail::SgemmPath::Stream};

struct Dims {
  std::size_t m, n, k;
};
// The acceptance shapes that are cheap enough for every combination.
const Dims kSmall[] = {{1, 1, 1}, {1, 7, 1}, {17, 33, 5}, {64, 64, 64}, {65, 127, 33}};
const Transpose kT[] = {Transpose::No, Transpose::Yes};
const Layout kLayouts[] = {Layout::ColMajor, Layout::RowMajor};

// A random configuration of a kernel family that passes its checks and fits this device.
// Limited to at most 64 work-items and 64 accumulators per work-item so that PoCL's compile
// time keeps the suite short; every other parameter ranges over its whole legal set.
ParamMap random_legal(const std::string& kernel, std::mt19937_64& rng) {
  const auto& spec = detail::kernel_spec(kernel);
  const DeviceInfo& dev = test::session().entry.info;
  for (int tries = 0; tries < 500000; ++tries) {
    ParamMap p;
    for (const auto& info : spec.params) p[info.name] = info.legal[rng() % info.legal.size()];
    if (!spec.check(p, "*").empty() || !detail::fit_problem(spec, p, "*", dev).empty()) continue;
    const auto res = spec.resources(p, "*");
    if (res.work_group() > 64) continue;
    if (kernel == "sgemm_xgemm" && (p["MWG"] / p["MDIMC"]) * (p["NWG"] / p["NDIMC"]) > 64) continue;
    if (kernel == "sgemm_direct" && (p["WGD"] / p["MDIMCD"]) * (p["WGD"] / p["NDIMCD"]) > 64) continue;
    if (kernel == "sgemm_stream" && p["SGS_MWI"] * p["SGS_N"] > 64) continue;
    return p;
  }
  FAIL("no legal configuration of " << kernel << " found");
  return {};
}

}  // namespace

TEST_SUITE("sgemm") {
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
                check_sgemm(c, Tuning{{}, false}, seed++);
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
              check_sgemm(c, forced(path), seed++);
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
          check_sgemm(c, Tuning{{}, false}, seed++);
          for (auto path : kKernelPaths) check_sgemm(c, forced(path), seed++);
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
        check_sgemm(c, Tuning{{}, false}, seed++);
        ++i;
      }
    Case c;
    c.m = c.n = c.k = 1000, c.alpha = -0.5f, c.beta = 2.5f, c.ta = Transpose::Yes;
    check_sgemm(c, forced(detail::SgemmPath::Direct), seed++);
    c.layout = Layout::RowMajor;
    check_sgemm(c, forced(detail::SgemmPath::Stream), seed++);
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
              check_sgemm(c, forced(path), seed++);
            }
  }

  TEST_CASE("BLAS quick returns: m or n = 0 is a no-op; k = 0 or alpha = 0 scale C without reading A or B") {
    std::uint64_t seed = test::seed() + 40000;
    for (Layout l : kLayouts)
      for (float beta : {0.0f, 1.0f, 2.5f}) {
        Case c;
        c.layout = l, c.m = 33, c.n = 17, c.k = 0, c.beta = beta, c.pad_c = 2, c.off_c = 3, c.nan_inputs = true;
        check_sgemm(c, Tuning{{}, false}, seed++);  // k = 0
        c.k = 65;
        c.alpha = 0.0f;
        check_sgemm(c, Tuning{{}, false}, seed++);  // alpha = 0, A and B full of NaN
        check_sgemm(c, forced(detail::SgemmPath::Xgemm), seed++);
      }
    CHECK(detail::sgemm_path(test::session().entry.info, 4, 4, 0, 1.0f, 1.0f) == detail::SgemmPath::Nothing);
    CHECK(detail::sgemm_path(test::session().entry.info, 4, 4, 4, 0.0f, 2.0f) == detail::SgemmPath::Scale);

    // m = 0 or n = 0: C (and everything else) untouched; the event completes. An operand that
    // describes no element (A when m = 0, B when n = 0) may be a null buffer.
    auto& s = test::session();
    std::vector<float> poison = host::poisoned(64);
    const cl_mem_flags copy = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    cl::Buffer bc(s.context, copy, poison.size() * 4, poison.data());
    cl::Buffer bin(s.context, copy, poison.size() * 4, poison.data());
    for (auto [m, n] : {std::pair<std::size_t, std::size_t>{0, 5}, {5, 0}, {0, 0}}) {
      cl::Event ev;
      sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, m, n, 3, 1.0f, {m ? bin : cl::Buffer(), 0, 8},
            {n ? bin : cl::Buffer(), 0, 8}, 0.0f, {bc, 0, 8}, {}, &ev);
      CHECK(ev.wait() == CL_SUCCESS);
    }
    std::vector<float> got(64);
    s.queue.enqueueReadBuffer(bc, CL_TRUE, 0, 64 * 4, got.data());
    CHECK(std::memcmp(got.data(), poison.data(), 64 * 4) == 0);
  }

  TEST_CASE("the direct/tiled threshold SGEMM_DIRECT_MAX routes both ways") {
    const DeviceInfo& dev = test::session().entry.info;
    using detail::SgemmPath;
    // m*n*k <= SGEMM_DIRECT_MAX^3: direct; above: the tiled kernel SGEMM_TILED names.
    CHECK(detail::sgemm_path(dev, 64, 64, 64, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 64}}, false}) == SgemmPath::Direct);
    CHECK(detail::sgemm_path(dev, 64, 64, 65, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 64}}, false}) == SgemmPath::Xgemm);
    CHECK(detail::sgemm_path(dev, 64, 64, 65, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 64}, {"SGEMM_TILED", 1}}, false}) ==
          SgemmPath::Stream);
    CHECK(detail::sgemm_path(dev, 1, 1, 1, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 0}}, false}) == SgemmPath::Xgemm);
    CHECK(detail::sgemm_path(dev, 4096, 4096, 4096, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 4096}}, false}) ==
          SgemmPath::Direct);
    // The same odd product computed on both sides of the threshold.
    std::uint64_t seed = test::seed() + 50000;
    Case c;
    c.m = 97, c.n = 45, c.k = 71, c.alpha = -0.5f, c.beta = 1.0f, c.tb = Transpose::Yes;
    check_sgemm(c, Tuning{{{"SGEMM_DIRECT_MAX", 96}}, false}, seed++);  // 97*45*71 <= 96^3: direct
    check_sgemm(c, Tuning{{{"SGEMM_DIRECT_MAX", 64}}, false}, seed++);  // above 64^3: tiled
    CHECK(detail::sgemm_path(dev, c.m, c.n, c.k, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 96}}, false}) == SgemmPath::Direct);
    CHECK(detail::sgemm_path(dev, c.m, c.n, c.k, 1, 0, Tuning{{{"SGEMM_DIRECT_MAX", 64}}, false}) == SgemmPath::Xgemm);
  }

  TEST_CASE("split k: partial products summed into C, every transpose pair, beta with NaN in C, offsets") {
    const DeviceInfo& dev = test::session().entry.info;
    std::uint64_t seed = test::seed() + 55000;
    // Waves x compute units far above the tile count forces a split on any device; 32 x 32
    // tiles of a GPU-like shape (local tiles, double buffering) and the CPU row's register blocks.
    const ParamMap gpu_like = {{"MWG", 32}, {"NWG", 32}, {"KWG", 16}, {"MDIMC", 8}, {"NDIMC", 8}, {"MDIMA", 8},
                               {"NDIMB", 8}, {"KWI", 2}, {"VWM", 2}, {"VWN", 2}, {"STRM", 1}, {"STRN", 1},
                               {"SA", 1}, {"SB", 1}, {"DBUF", 1}, {"NVRREG", 0}};
    for (int splitk : {2, 8}) {
      ParamMap p = splitk == 2 ? ParamMap{} : gpu_like;
      p["SGEMM_SPLITK"] = splitk;
      p["SGEMM_SPLIT_WAVES"] = 64;
      const Tuning t = forced(detail::SgemmPath::Xgemm, p);
      CAPTURE(splitk);
      int i = 0;
      for (Transpose ta : {Transpose::No, Transpose::Yes})
        for (Transpose tb : {Transpose::No, Transpose::Yes}) {
          Case c;
          c.m = 65 + 7 * i, c.n = 47 + 3 * i, c.k = 333 - 40 * i;
          c.ta = ta, c.tb = tb;
          c.alpha = i % 2 ? -0.5f : 1.0f;
          c.beta = i == 0 ? 0.0f : i == 1 ? 1.0f : 2.5f;  // beta 0: C holds NaN and must not be read
          c.layout = i == 3 ? Layout::RowMajor : Layout::ColMajor;
          c.off_c = i, c.pad_c = 3 * i, c.off_a = i % 2;
          const std::size_t slices = detail::sgemm_k_slices(dev, c.m, c.n, c.k, t);
          CHECK(slices >= 2);
          CHECK(slices <= static_cast<std::size_t>(splitk));
          check_sgemm(c, t, seed++);
          ++i;
        }
    }
    // Never more slices than k tiles, never a split when off or with enough tiles.
    ParamMap one = gpu_like;
    one["SGEMM_SPLITK"] = 16;
    one["SGEMM_SPLIT_WAVES"] = 64;
    const Tuning one_tile = forced(detail::SgemmPath::Xgemm, one);
    CHECK(detail::sgemm_k_slices(dev, 20, 20, 40, one_tile) == 3);  // 3 k tiles of 16
    CHECK(detail::sgemm_k_slices(dev, 20, 20, 16, one_tile) == 1);  // a single k tile
    CHECK(detail::sgemm_k_slices(dev, 20, 20, 400, forced(detail::SgemmPath::Xgemm, {{"SGEMM_SPLITK", 0}})) == 1);
    CHECK(detail::sgemm_k_slices(dev, 20, 20, 400, forced(detail::SgemmPath::Stream, {{"SGEMM_SPLITK", 8}})) == 1);
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
            check_sgemm(c, t, seed++);
          }
          // Tile-multiple sizes with k-major operands: the tiled kernels read them in place.
          Case c;
          c.m = 256, c.n = 128, c.k = 64, c.tb = Transpose::Yes, c.beta = 0.0f;
          check_sgemm(c, t, seed++);
        }
      }
      // The shipped route row: a 40^3 and a 200^3 product (small and larger than every threshold).
      for (std::size_t n : {40, 200}) {
        Case c;
        c.m = c.n = c.k = n, c.alpha = 1.0f, c.beta = 1.0f, c.ta = Transpose::Yes;
        check_sgemm(c, Tuning{vendor_row(v, "sgemm_route"), false}, seed++);
      }
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
        check_sgemm(c, t, seed++);
      }
    }
  }

  TEST_CASE("wait lists are honoured and the output event covers all of the work, on every path") {
    auto& s = test::session();
    const std::size_t m = 70, n = 50, k = 40;
    std::vector<float> a = host::random_floats(m * k, test::seed() + 80000),
                       b = host::random_floats(k * n, test::seed() + 80001);
    cl::Buffer ba(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.size() * 4, a.data());
    cl::Buffer bb(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b.size() * 4, b.data());
    host::GemmShape sh;
    sh.m = m, sh.n = n, sh.k = k, sh.lda = m, sh.ldb = k, sh.ldc = m;
    for (auto path : kKernelPaths) {
      for (float alpha : {1.0f, 0.0f}) {
        CAPTURE(detail::to_string(path));
        CAPTURE(alpha);
        std::vector<float> c0 = host::random_floats(m * n, test::seed() + 80002);
        cl::Buffer bc(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, c0.size() * 4, c0.data());
        cl::UserEvent gate(s.context);
        cl::Event done;
        sgemm(s.queue, Layout::ColMajor, Transpose::No, Transpose::No, m, n, k, alpha, {ba, 0, m}, {bb, 0, k}, 0.5f,
              {bc, 0, m}, {gate}, &done, forced(path));
        cl_int status = CL_COMPLETE;
        done.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status);
        CHECK(status != CL_COMPLETE);  // still waiting for the gate
        gate.setStatus(CL_COMPLETE);
        REQUIRE(done.wait() == CL_SUCCESS);
        std::vector<float> got(m * n);
        s.queue.enqueueReadBuffer(bc, CL_TRUE, 0, got.size() * 4, got.data());
        std::vector<double> ref(m * n), mag(m * n);
        host::gemm(sh, alpha, a.data(), b.data(), 0.5, c0.data(), ref.data(), 0, mag.data());
        CHECK(scaled_error(got, ref, mag) <= tolerance(k));
      }
    }
  }

  TEST_CASE("concurrent calls from several threads and queues share the packing workspace safely") {
    auto& s = test::session();
    std::vector<std::thread> threads;
    std::vector<int> failures(4, 0);
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        cl::CommandQueue q(s.context, s.entry.device);
        for (int rep = 0; rep < 3; ++rep) {
          const std::size_t m = 90 + 7 * t, n = 60 + 5 * rep, k = 50 + t;
          const std::vector<float> a = host::random_floats(m * k, 900 + t), b = host::random_floats(k * n, 901 + rep);
          std::vector<float> c(m * n, 0.0f);
          sgemm(q, Layout::RowMajor, Transpose::No, Transpose::No, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n,
                forced(detail::SgemmPath::Xgemm));
          host::GemmShape sh;
          sh.row_major = true, sh.m = m, sh.n = n, sh.k = k, sh.lda = k, sh.ldb = n, sh.ldc = n;
          std::vector<double> ref(m * n), mag(m * n);
          host::gemm(sh, 1.0, a.data(), b.data(), 0.0, nullptr, ref.data(), 1, mag.data());
          if (!(scaled_error(c, ref, mag) <= tolerance(k))) ++failures[t];
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) CHECK(failures[t] == 0);
  }

  TEST_CASE("host-vector convenience overload") {
    auto& s = test::session();
    const std::size_t m = 19, n = 23, k = 11;
    const std::vector<float> a = host::random_floats(k * m, test::seed() + 90000);  // A^T stored: k x m, row-major
    const std::vector<float> b = host::random_floats(k * n, test::seed() + 90001);
    std::vector<float> c = host::random_floats(m * n, test::seed() + 90002);
    const std::vector<float> c_in = c;
    sgemm(s.queue, Layout::RowMajor, Transpose::Yes, Transpose::No, m, n, k, 2.0f, a, m, b, n, -1.0f, c, n);
    host::GemmShape sh;
    sh.row_major = true, sh.trans_a = true, sh.m = m, sh.n = n, sh.k = k, sh.lda = m, sh.ldb = n, sh.ldc = n;
    std::vector<double> ref(m * n), mag(m * n);
    host::gemm(sh, 2.0, a.data(), b.data(), -1.0, c_in.data(), ref.data(), 0, mag.data());
    CHECK(scaled_error(c, ref, mag) <= tolerance(k));
    std::vector<float> small(5);
    CHECK_THROWS_AS(
        sgemm(s.queue, Layout::RowMajor, Transpose::Yes, Transpose::No, m, n, k, 1.0f, small, m, b, n, 0.0f, c, n),
        InvalidArgument);
  }

  TEST_CASE("bad arguments throw InvalidArgument naming the problem, before anything is enqueued") {
    auto& s = test::session();
    const std::vector<float> poison = host::poisoned(64 * 64);
    cl::Buffer a(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4), b(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4);
    const cl_mem_flags copy = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
    cl::Buffer c(s.context, copy, poison.size() * 4, const_cast<float*>(poison.data()));
    const auto N = Transpose::No, T = Transpose::Yes;
    const auto col = Layout::ColMajor, row = Layout::RowMajor;
    const auto expect = test::expect_invalid_argument;
    const std::size_t big = std::size_t(1) << 31;
    expect([&] { sgemm(s.queue, col, N, N, big, 4, 4, 1, {a, 0, big}, {b, 0, 4}, 0, {c, 0, big}); }, "m (");
    expect([&] { sgemm(s.queue, col, N, N, 4, big, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}); }, "n (");
    expect([&] { sgemm(s.queue, col, N, N, 4, 4, big, 1, {a, 0, 4}, {b, 0, big}, 0, {c, 0, 4}); }, "k (");
    expect([&] { sgemm(s.queue, col, N, N, 8, 4, 4, 1, {a, 0, 7}, {b, 0, 4}, 0, {c, 0, 8}); }, "a.ld (7)");
    expect([&] { sgemm(s.queue, col, T, N, 8, 4, 5, 1, {a, 0, 4}, {b, 0, 5}, 0, {c, 0, 8}); }, "a.ld (4)");
    expect([&] { sgemm(s.queue, row, N, N, 8, 4, 5, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}); }, "a.ld (4)");
    expect([&] { sgemm(s.queue, col, N, N, 8, 4, 5, 1, {a, 0, 8}, {b, 0, 4}, 0, {c, 0, 8}); }, "b.ld (4)");
    expect([&] { sgemm(s.queue, col, N, T, 8, 4, 5, 1, {a, 0, 8}, {b, 0, 3}, 0, {c, 0, 8}); }, "b.ld (3)");
    expect([&] { sgemm(s.queue, col, N, N, 8, 4, 5, 1, {a, 0, 8}, {b, 0, 5}, 0, {c, 0, 7}); }, "c.ld (7)");
    expect([&] { sgemm(s.queue, row, N, N, 8, 4, 5, 1, {a, 0, 5}, {b, 0, 4}, 0, {c, 0, 3}); }, "c.ld (3)");
    expect([&] { sgemm(s.queue, col, N, N, 8, 4, 0, 1, {a, 0, 0}, {b, 0, 1}, 0, {c, 0, 8}); }, "a.ld (0)");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 64, 64, 65, 1, {a, 0, 64}, {b, 0, 65}, 0, {c, 0, 64});
        },
        "a buffer too small");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 64, 64, 64, 1, {a, 0, 64}, {b, 1, 64}, 0, {c, 0, 64});
        },
        "b buffer too small");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 64, 64, 64, 1, {a, 0, 64}, {b, 0, 64}, 0, {c, 0, 65});
        },
        "c buffer too small");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {cl::Buffer(), 0, 4}, {b, 0, 4}, 0, {c, 0, 4});
        },
        "a is a null buffer");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {cl::Buffer(), 0, 4});
        },
        "c is a null buffer");
    expect([&] { sgemm(s.queue, col, N, N, 4, 4, 4, 1, {c, 10, 4}, {b, 0, 4}, 0, {c, 20, 4}); }, "c overlaps a");
    expect([&] { sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {c, 0, 4}, 0, {c, 8, 4}); }, "c overlaps b");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}, {}, nullptr,
                Tuning{{{"NOPE", 1}}, true});
        },
        "unknown parameter 'NOPE'");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}, {}, nullptr,
                Tuning{{{"MWG", 12}}, true});
        },
        "not legal");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}, {}, nullptr,
                Tuning{{{"MWG", 8}, {"MDIMC", 16}}, true});
        },
        "MWG must be a multiple of MDIMC*VWM");
    expect(
        [&] {
          sgemm(s.queue, col, N, N, 4, 4, 4, 1, {a, 0, 4}, {b, 0, 4}, 0, {c, 0, 4}, {}, nullptr,
                Tuning{{{"PACK_TILE", 8}, {"PACK_WPT", 16}}, true});
        },
        "PACK_WPT must not exceed PACK_TILE");
    // Disjoint ranges of one buffer are fine.
    CHECK_NOTHROW(sgemm(s.queue, col, N, N, 4, 4, 4, 1, {c, 0, 4}, {c, 16, 4}, 0, {c, 32, 4}));
    s.queue.finish();
    // Nothing was enqueued by the failed calls: C beyond the one valid call is still poison.
    std::vector<float> got(64 * 64);
    s.queue.enqueueReadBuffer(c, CL_TRUE, 0, got.size() * 4, got.data());
    CHECK(std::memcmp(got.data() + 48, poison.data() + 48, (got.size() - 48) * 4) == 0);
  }

  TEST_CASE("clforge tune sgemm verifies candidates and stores the entry the launcher then uses") {
    auto& s = test::session();
    test::ScopedEnv user_dir("CLFORGE_USER_TUNING_DIR", test::temp_dir("sgemm-tune"));
    const DeviceInfo& dev = s.entry.info;
    TuneOptions o;
    o.sizes = {"96x80x64:NT"};
    o.compile_threads = 1;
    o.min_reps = 2, o.max_reps = 3, o.min_time_ms = 0;
    // A two-candidate space around the shipped CPU row (KWI = 2 or 4, the row has 4): the
    // KWI=2 candidate is made to look fastest, the other one is corrupted and must be rejected.
    for (const auto& [name, value] : vendor_row(VendorClass::CPU, "sgemm_xgemm")) o.param_values[name] = {value};
    o.param_values["KWI"] = {2, 4};
    o.fault = [](const ParamMap& p) {
      TuneFault f;
      if (p.at("KWI") == 2) f.time_scale = 1e-3;
      else f.corrupt_output = true;
      return f;
    };
    const TuneResult r = tune(s.queue, "sgemm", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(r.kernel == "sgemm_xgemm");
    CHECK(c.variant == detail::sgemm_size_class(96, 80, 64));
    CHECK(c.rejected >= 1);
    REQUIRE(c.has_best);
    CHECK(c.best.at("KWI") == 2);
    CHECK(c.stored);
    const Configuration cfg = resolve_configuration("sgemm_xgemm", c.variant, dev);
    CHECK(cfg.values == c.best);
    CHECK(cfg.sources.at("KWI").find("user") == 0);
    // The stored entry is what the next call uses, and it computes the right answer.
    Case k;
    k.m = 96, k.n = 80, k.k = 64, k.tb = Transpose::Yes, k.alpha = -0.5f, k.beta = 2.5f;
    check_sgemm(k, Tuning{force(detail::SgemmPath::Xgemm), true}, test::seed() + 110000);
  }

  TEST_CASE("every sgemm program also builds with 64-bit indexing (-DCLF_LONG_INDEX=1)") {
    // Buffers of more than 2^31 elements cannot be allocated here; the launcher switches to
    // 64-bit indices for them, so at least the programs of those calls must build.
    auto& s = test::session();
    const detail::QueueContext qc = detail::queue_context_of(s.queue);
    for (const char* kernel : {"sgemm_xgemm", "sgemm_stream", "sgemm_direct", "sgemm_pack"})
      for (VendorClass v : {VendorClass::NVIDIA, VendorClass::CPU}) {
        Configuration cfg = resolve_configuration(kernel, "*", s.entry.info, Tuning{vendor_row(v, kernel), false});
        CAPTURE(kernel);
        CHECK_NOTHROW(detail::get_program(qc, detail::kernel_spec(kernel), cfg, "-DCLF_LONG_INDEX=1"));
      }
  }

  TEST_CASE("larger shapes (CLFORGE_LONG_TESTS=1)") {
    const char* on = std::getenv("CLFORGE_LONG_TESTS");
    if (on == nullptr || std::string(on) != "1") return;
    std::uint64_t seed = test::seed() + 100000;
    const Dims dims[] = {{2048, 2048, 2048}, {4097, 257, 1025}, {1025, 2049, 515}, {8192, 64, 512}};
    for (const auto& d : dims)
      for (Transpose ta : kT)
        for (Transpose tb : kT) {
          Case c;
          c.m = d.m, c.n = d.n, c.k = d.k, c.ta = ta, c.tb = tb, c.alpha = -0.5f, c.beta = 2.5f;
          c.layout = (seed % 2) ? Layout::RowMajor : Layout::ColMajor;
          check_sgemm(c, Tuning{{}, false}, seed++);
        }
  }
}
