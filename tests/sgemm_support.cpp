// The sgemm tests' shared pieces (see sgemm_support.hpp).
#include "tests/sgemm_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
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
  if (!c.offsets[2].empty()) {
    o << " batch " << c.batch << " at offsets (A, B, C):";
    for (std::size_t i = 0; i < c.batch && i < 8; ++i)
      o << " " << c.offsets[0][i] << "/" << c.offsets[1][i] << "/" << c.offsets[2][i];
    if (c.batch > 8) o << " ...";
  } else if (c.batch != 1) {
    const auto z = strides_of(c);
    o << " batch " << c.batch << " strides " << z[0] << "/" << z[1] << "/" << z[2];
  }
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

std::array<std::size_t, 3> strides_of(const Case& c) {
  const host::GemmShape sh = shape_of(c);
  return {c.broadcast_a ? 0 : host::gemm_span(sh, 'a') + c.gap, c.broadcast_b ? 0 : host::gemm_span(sh, 'b') + c.gap,
          host::gemm_span(sh, 'c') + c.gap};
}

std::size_t matrix_at(const Case& c, int op, std::size_t i) {
  if (!c.offsets[op].empty()) return c.offsets[op][i];
  const std::size_t off[3] = {c.off_a, c.off_b, c.off_c};
  return off[op] + i * strides_of(c)[op];
}

std::array<std::vector<std::size_t>, 3> shuffled_offsets(const Case& c, std::uint64_t seed, bool share,
                                                         std::size_t first) {
  const host::GemmShape sh = shape_of(c);
  const std::size_t span[3] = {host::gemm_span(sh, 'a'), host::gemm_span(sh, 'b'), host::gemm_span(sh, 'c')};
  std::mt19937_64 rng(seed);
  std::array<std::vector<std::size_t>, 3> o;
  for (int op = 0; op < 3; ++op) {
    std::vector<std::size_t> slot(c.batch);
    for (std::size_t i = 0; i < c.batch; ++i) slot[i] = i;
    std::shuffle(slot.begin(), slot.end(), rng);
    for (std::size_t i = 0; i < c.batch; ++i) o[op].push_back(first + slot[i] * (span[op] + c.gap + op));
    if (share && op < 2)
      for (std::size_t i = 1; i < c.batch; i += 2) o[op][i] = o[op][i - 1];
  }
  return o;
}

SgemmDesc desc_of(const Case& c) {
  const host::GemmShape sh = shape_of(c);
  SgemmDesc d;
  d.layout = c.layout, d.trans_a = c.ta, d.trans_b = c.tb;
  d.m = c.m, d.n = c.n, d.k = c.k, d.alpha = c.alpha, d.beta = c.beta;
  d.a_offset = c.off_a, d.a_ld = sh.lda, d.b_offset = c.off_b, d.b_ld = sh.ldb, d.c_offset = c.off_c, d.c_ld = sh.ldc;
  const auto z = strides_of(c);
  d.batch = c.batch, d.a_stride = z[0], d.b_stride = z[1], d.c_stride = z[2];
  if (!c.offsets[2].empty()) {
    d.a_offset = d.b_offset = d.c_offset = d.a_stride = d.b_stride = d.c_stride = 0;
    d.a_offsets = c.offsets[0], d.b_offsets = c.offsets[1], d.c_offsets = c.offsets[2];
  }
  return d;
}

namespace {
// Elements of an operand's buffer: up to the end of its last-ending matrix, and the guard tail.
std::size_t batch_elems(const Case& c, int op, std::size_t span) {
  std::size_t end = matrix_at(c, op, 0) + span;
  for (std::size_t i = 1; i < c.batch; ++i) end = std::max(end, matrix_at(c, op, i) + span);
  return end + host::kGuardTail;
}

// Enqueues the case: through `plan`, sgemm() (a single product) or sgemm_strided_batched().
void enqueue_case(const Case& c, const Tuning& tuning, cl::CommandQueue& q, const SgemmPlan* plan,
                  const std::array<cl::Buffer, 3>& buf, cl::Event* ev) {
  const host::GemmShape sh = shape_of(c);
  const auto z = strides_of(c);
  const MatrixRef a{buf[0], c.off_a, sh.lda}, b{buf[1], c.off_b, sh.ldb}, out{buf[2], c.off_c, sh.ldc};
  if (plan != nullptr)
    plan->enqueue(q, buf[0], buf[1], buf[2], {}, ev);
  else if (!c.alphas.empty())
    sgemm_batched(q, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alphas, buf[0], c.offsets[0], sh.lda, buf[1], c.offsets[1],
                  sh.ldb, c.betas, buf[2], c.offsets[2], sh.ldc, {}, ev, tuning);
  else if (!c.offsets[2].empty())
    sgemm_batched(q, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, buf[0], c.offsets[0], sh.lda, buf[1], c.offsets[1],
                  sh.ldb, c.beta, buf[2], c.offsets[2], sh.ldc, {}, ev, tuning);
  else if (c.batch == 1)
    sgemm(q, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, a, b, c.beta, out, {}, ev, tuning);
  else
    sgemm_strided_batched(q, c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, a, z[0], b, z[1], c.beta, out, z[2], c.batch,
                          {}, ev, tuning);
}
}  // namespace

Outcome run_case(const Case& c, const Tuning& tuning, std::uint64_t seed, cl::CommandQueue& q, const SgemmPlan* plan) {
  auto& s = test::session();
  const host::GemmShape sh = shape_of(c);
  const std::size_t na = batch_elems(c, 0, host::gemm_span(sh, 'a'));
  const std::size_t nb = batch_elems(c, 1, host::gemm_span(sh, 'b'));
  const host::PoisonedOutput poison(batch_elems(c, 2, host::gemm_span(sh, 'c')) - host::kGuardTail);
  const std::size_t nc = poison.elements();
  std::vector<float> a = c.nan_inputs ? host::poisoned(na) : host::random_floats(na, seed);
  std::vector<float> b = c.nan_inputs ? host::poisoned(nb) : host::random_floats(nb, seed + 1);
  std::vector<float> c0 = poison.floats();
  // Matrix `i`'s element (row, column) of C in the buffer.
  const auto c_at = [&](std::size_t i, std::size_t row, std::size_t col) {
    return matrix_at(c, 2, i) + host::gemm_c_index(sh, row, col);
  };
  const std::vector<float> r = host::random_floats(c.batch * c.m * c.n, seed + 2);
  for (std::size_t i = 0; i < c.batch; ++i) {
    if (c.beta_of(i) == 0.0f) continue;  // C stays NaN: it must not be read
    for (std::size_t j = 0; j < c.n; ++j)
      for (std::size_t row = 0; row < c.m; ++row) c0[c_at(i, row, j)] = r[(i * c.n + j) * c.m + row];
  }
  std::vector<double> ref(nc, 0.0), mag(nc, 0.0);
  for (std::size_t i = 0; i < c.batch; ++i) {
    const std::size_t oc = matrix_at(c, 2, i);
    host::gemm(sh, c.alpha_of(i), a.data() + matrix_at(c, 0, i), b.data() + matrix_at(c, 1, i), c.beta_of(i),
               c0.data() + oc, ref.data() + oc, c.batch > 1 ? 1 : 0, mag.data() + oc);  // no threads per small product
  }

  const std::array<cl::Buffer, 3> buf{
      cl::Buffer(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, na * 4, a.data()),
      cl::Buffer(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nb * 4, b.data()),
      cl::Buffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, nc * 4, c0.data())};
  cl::Event ev;
  enqueue_case(c, tuning, q, plan, buf, &ev);
  std::vector<float> got(nc);
  const std::vector<cl::Event> deps{ev};
  const cl_int st = q.enqueueReadBuffer(buf[2], CL_TRUE, 0, nc * 4, got.data(), &deps);
  if (st != CL_SUCCESS) throw OpenCLError(st, "clEnqueueReadBuffer", "reading C back");

  // Each matrix against its reference (the largest scaled error counts), then the rest of C.
  std::vector<bool> inside(nc, false);
  std::vector<float> all_y;
  std::vector<double> all_r;
  Outcome o;
  o.tolerance = tolerance(c.k);
  for (std::size_t i = 0; i < c.batch; ++i) {
    std::vector<float> y;
    std::vector<double> r, mg;
    for (std::size_t j = 0; j < c.n; ++j)
      for (std::size_t row = 0; row < c.m; ++row) {
        const std::size_t idx = c_at(i, row, j);
        inside[idx] = true;
        y.push_back(got[idx]);
        r.push_back(ref[idx]);
        mg.push_back(mag[idx]);
      }
    const double e = scaled_error(y, r, mg);
    if (std::isnan(e) || e > o.error) o.error = e;  // a NaN stays
    all_y.insert(all_y.end(), y.begin(), y.end());
    all_r.insert(all_r.end(), r.begin(), r.end());
  }
  o.touched = poison.changed_outside(got.data(), inside, &o.first);
  o.summary = host::compare(all_y, all_r).summary();
  return o;
}

std::string sgemm_problem(const Case& c, const Tuning& tuning, std::uint64_t seed, cl::CommandQueue* queue,
                          const SgemmPlan* plan) {
  auto& s = test::session();
  const Outcome o = run_case(c, tuning, seed, queue ? *queue : s.queue, plan);
  if (o.ok()) return {};
  const auto path = plan ? detail::SgemmPlanAccess::path(*plan)
                         : detail::sgemm_path(s.entry.info, c.m, c.n, c.k, c.alpha, c.beta, tuning, c.batch);
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
