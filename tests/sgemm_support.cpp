// The sgemm tests' shared pieces (see sgemm_support.hpp).
#include "tests/sgemm_support.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <sstream>

#include "tuning/spec.hpp"

namespace clforge::sgemm_test {

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

SgemmDesc desc_of(const Case& c) {
  const host::GemmShape sh = shape_of(c);
  SgemmDesc d;
  d.layout = c.layout, d.trans_a = c.ta, d.trans_b = c.tb;
  d.m = c.m, d.n = c.n, d.k = c.k, d.alpha = c.alpha, d.beta = c.beta;
  d.a_offset = c.off_a, d.a_ld = sh.lda, d.b_offset = c.off_b, d.b_ld = sh.ldb, d.c_offset = c.off_c, d.c_ld = sh.ldc;
  return d;
}

Outcome run_case(const Case& c, const Tuning& tuning, std::uint64_t seed, cl::CommandQueue& q, const SgemmPlan* plan) {
  auto& s = test::session();
  const host::GemmShape sh = shape_of(c);
  const std::size_t na = c.off_a + host::gemm_span(sh, 'a') + host::kGuardTail;
  const std::size_t nb = c.off_b + host::gemm_span(sh, 'b') + host::kGuardTail;
  const host::PoisonedOutput poison(c.off_c + host::gemm_span(sh, 'c'));
  const std::size_t nc = poison.elements();
  std::vector<float> a = c.nan_inputs ? host::poisoned(na) : host::random_floats(na, seed);
  std::vector<float> b = c.nan_inputs ? host::poisoned(nb) : host::random_floats(nb, seed + 1);
  std::vector<float> c0 = poison.floats();
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
  if (plan != nullptr)
    plan->enqueue(q, ba, bb, bc, {}, &ev);
  else
    sgemm(q, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, {ba, c.off_a, sh.lda}, {bb, c.off_b, sh.ldb}, c.beta,
          {bc, c.off_c, sh.ldc}, {}, &ev, tuning);
  std::vector<float> got(nc);
  const std::vector<cl::Event> deps{ev};
  const cl_int st = q.enqueueReadBuffer(bc, CL_TRUE, 0, nc * 4, got.data(), &deps);
  if (st != CL_SUCCESS) throw OpenCLError(st, "clEnqueueReadBuffer", "reading C back");

  std::vector<bool> inside(nc, false);
  std::vector<float> y;
  std::vector<double> r, mg;
  y.reserve(c.m * c.n);
  r.reserve(c.m * c.n);
  mg.reserve(c.m * c.n);
  for (std::size_t j = 0; j < c.n; ++j)
    for (std::size_t i = 0; i < c.m; ++i) {
      const std::size_t idx = c.off_c + host::gemm_c_index(sh, i, j);
      inside[idx] = true;
      y.push_back(got[idx]);
      r.push_back(ref[idx]);
      mg.push_back(mag[idx]);
    }
  Outcome o;
  o.touched = poison.changed_outside(got.data(), inside, &o.first);
  o.summary = host::compare(y, r).summary();
  o.tolerance = tolerance(c.k);
  o.error = scaled_error(y, r, mg);
  return o;
}

std::string sgemm_problem(const Case& c, const Tuning& tuning, std::uint64_t seed, cl::CommandQueue* queue,
                          const SgemmPlan* plan) {
  auto& s = test::session();
  const Outcome o = run_case(c, tuning, seed, queue ? *queue : s.queue, plan);
  if (o.ok()) return {};
  const auto path = plan ? detail::SgemmPlanAccess::path(*plan)
                         : detail::sgemm_path(s.entry.info, c.m, c.n, c.k, c.alpha, c.beta, tuning);
  std::ostringstream m;
  m << describe(c) << " | path " << detail::to_string(path) << " | params " << describe(tuning) << " | seed " << seed
    << " | " << o.summary << "; scaled error " << o.error << ", tolerance " << o.tolerance
    << " | elements outside the matrix changed: " << o.touched << " (first at " << o.first << ")";
  return m.str();
}

ParamMap vendor_row(VendorClass v, const std::string& kernel, const std::string& variant) {
  return test::vendor_row(kernel, v, variant);
}

std::set<ParamMap> vendor_rows(VendorClass v, const std::string& kernel) {
  std::set<ParamMap> rows{vendor_row(v, kernel)};
  for (const auto& variant : detail::kernel_spec(kernel).variants) rows.insert(vendor_row(v, kernel, variant));
  return rows;
}

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

Tuning forced(detail::SgemmPath p, ParamMap extra) {
  ParamMap o = force(p);
  o.insert(extra.begin(), extra.end());
  return Tuning{o, false};
}

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

}  // namespace clforge::sgemm_test
