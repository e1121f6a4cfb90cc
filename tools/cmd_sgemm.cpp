// `clforge run sgemm` (one multiply on random data, checked against the double-precision
// host reference, timed) and `clforge bench sgemm` (against CLBlast, OpenBLAS and the peak).
#include <array>
#include <cstdio>
#include <iostream>
#include <random>

#include "bench/peak.hpp"
#include "host/data.hpp"
#include "host/gemm.hpp"
#include "runtime/errors.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "tools/cli.hpp"
#include "tuning/spec.hpp"

namespace clforge::cli {
namespace {

struct RunOptions {
  std::string size = "1024";
  std::size_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false, row_major = false;
  float alpha = 1.0f, beta = 0.0f;
  std::size_t batch = 1;  // products of a strided batch (size key batch=B)
};

// A run's operands on the host: `batch` matrices of each, tightly one after the other (strides
// of one matrix's span).
struct RunData {
  host::GemmShape sh;
  std::size_t batch = 1;
  std::array<std::size_t, 3> one{};  // elements of one A, B and C
  std::vector<float> a, b, c0;
};

RunData make_data(const RunOptions& o) {
  RunData d;
  d.sh = host::tight_gemm_shape(o.row_major, o.trans_a, o.trans_b, o.m, o.n, o.k);
  d.batch = o.batch;
  const char which[3] = {'a', 'b', 'c'};
  for (int i = 0; i < 3; ++i) d.one[i] = std::max<std::size_t>(1, host::gemm_span(d.sh, which[i]));
  const std::uint64_t seed = host::default_seed();
  d.a = host::random_floats(d.one[0] * d.batch, seed);
  d.b = host::random_floats(d.one[1] * d.batch, seed + 1);
  d.c0 = o.beta == 0.0f ? host::poisoned(d.one[2] * d.batch) : host::random_floats(d.one[2] * d.batch, seed + 2);
  return d;
}

// The result against the double-precision host reference: every entry of every product up to
// 2048^3 multiply-adds in all, else 1024 entries sampled over the products.
struct RunCheck {
  host::Comparison cmp;
  double err = 0;
  bool full = false;
};
RunCheck check_run(const RunOptions& o, const RunData& d, const std::vector<float>& got) {
  const double work = static_cast<double>(o.m) * o.n * o.k * o.batch;
  std::vector<float> y;
  std::vector<double> r, mag;
  const unsigned threads = d.batch > 1 ? 1 : 0;  // small products: no thread start per product
  const bool full = work <= 2048.0 * 2048.0 * 2048.0;
  std::mt19937_64 rng(host::default_seed());
  for (std::size_t z = 0; z < d.batch; ++z) {
    const float* a = d.a.data() + z * d.one[0];
    const float* b = d.b.data() + z * d.one[1];
    const std::size_t oc = z * d.one[2];
    if (full) {
      std::vector<double> ref(d.one[2], 0.0), mg(d.one[2], 0.0);
      host::gemm(d.sh, o.alpha, a, b, o.beta, d.c0.data() + oc, ref.data(), threads, mg.data());
      for (std::size_t j = 0; j < o.n; ++j)
        for (std::size_t i = 0; i < o.m; ++i) {
          const std::size_t idx = host::gemm_c_index(d.sh, i, j);
          y.push_back(got[oc + idx]);
          r.push_back(ref[idx]);
          mag.push_back(mg[idx]);
        }
      continue;
    }
    std::vector<std::pair<std::size_t, std::size_t>> ij;
    for (std::size_t e = z * 1024 / d.batch; e < (z + 1) * 1024 / d.batch; ++e)
      ij.emplace_back(rng() % o.m, rng() % o.n);
    if (ij.empty()) continue;
    std::vector<double> ref, mg;
    host::gemm_entries(d.sh, o.alpha, a, b, o.beta, d.c0.data() + oc, ij, ref, &mg);
    for (std::size_t e = 0; e < ij.size(); ++e) {
      y.push_back(got[oc + host::gemm_c_index(d.sh, ij[e].first, ij[e].second)]);
      r.push_back(ref[e]);
      mag.push_back(mg[e]);
    }
  }
  return {host::compare(y, r), host::gemm_scaled_error(y.data(), r.data(), mag.data(), y.size()), full};
}

// What the call ran: the plan the free function took from the plan cache, as it describes itself.
void print_plan(Session& s, const RunOptions& o, const RunData& d, const Tuning& t) {
  SgemmDesc desc;
  desc.layout = o.row_major ? Layout::RowMajor : Layout::ColMajor;
  desc.trans_a = o.trans_a ? Transpose::Yes : Transpose::No;
  desc.trans_b = o.trans_b ? Transpose::Yes : Transpose::No;
  desc.m = o.m, desc.n = o.n, desc.k = o.k;
  desc.alpha = o.alpha, desc.beta = o.beta;
  desc.a_ld = d.sh.lda, desc.b_ld = d.sh.ldb, desc.c_ld = d.sh.ldc;
  desc.batch = o.batch, desc.a_stride = d.one[0], desc.b_stride = d.one[1], desc.c_stride = d.one[2];
  const SgemmPlan plan(s.queue, desc, t);
  std::printf("  %s\n", plan.describe().c_str());
  for (const Configuration& cfg : plan.configurations())
    if (cfg.kernel != "sgemm_route")
      std::printf("  %s (variant %s): %s\n", cfg.kernel.c_str(), cfg.variant.c_str(),
                  detail::describe_params(cfg.values).c_str());
}

void cmd_run_sgemm(Globals& g, RunOptions o) {
  const Size z = parse_size("sgemm", o.size);
  o.m = z.x, o.n = z.y, o.k = z.z;
  o.trans_a = z.trans_a, o.trans_b = z.trans_b;
  o.batch = z.batch != 0 ? z.batch : 1;
  if (!g.split.devices.empty() || g.split.mpi) {
    if (z.batch != 0) throw UsageError("size '" + o.size + "': a strided batch runs on one device (leave out batch)");
    bench::SplitCase c;
    c.routine = "sgemm";
    c.x = o.m, c.y = o.n, c.z = o.k;
    c.trans_a = o.trans_a, c.trans_b = o.trans_b, c.row_major = o.row_major;
    c.alpha = o.alpha, c.beta = o.beta;
    return run_on_group(g, c);
  }
  Session& s = g.session();
  const Tuning t = g.tuning();
  const RunData d = make_data(o);
  const std::size_t na = d.a.size(), nb = d.b.size(), nc = d.c0.size();
  cl::Buffer ba(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, na * 4, const_cast<float*>(d.a.data()));
  cl::Buffer bb(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nb * 4, const_cast<float*>(d.b.data()));
  cl::Buffer bc(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, nc * 4, const_cast<float*>(d.c0.data()));
  const Layout layout = o.row_major ? Layout::RowMajor : Layout::ColMajor;
  const Transpose ta = o.trans_a ? Transpose::Yes : Transpose::No, tb = o.trans_b ? Transpose::Yes : Transpose::No;
  auto call = [&] {
    sgemm_strided_batched(s.queue, layout, ta, tb, o.m, o.n, o.k, o.alpha, {ba, 0, d.sh.lda}, d.one[0],
                          {bb, 0, d.sh.ldb}, d.one[1], o.beta, {bc, 0, d.sh.ldc}, d.one[2], o.batch, {}, nullptr, t);
  };
  call();
  std::vector<float> got(nc);
  detail::check(s.queue.enqueueReadBuffer(bc, CL_TRUE, 0, nc * 4, got.data()), "clEnqueueReadBuffer");
  const RunCheck chk = check_run(o, d, got);
  const double tol = host::gemm_tolerance(o.k);
  const bool ok = chk.err <= tol;

  const auto path = detail::sgemm_path(s.entry.info, o.row_major ? o.n : o.m, o.row_major ? o.m : o.n, o.k, o.alpha,
                                       o.beta, t, o.batch);
  const auto timing = bench::time_region(s.queue, call);
  const double gflops = 2.0 * o.m * o.n * o.k * o.batch / timing.median_ms / 1e6;
  const std::string batch = o.batch != 1 ? " batch=" + std::to_string(o.batch) : "";
  std::printf("sgemm %s %c%c m=%zu n=%zu k=%zu%s alpha=%g beta=%g on \"%s\" (path %s): %.4f ms median, %.1f GFLOP/s\n",
              o.row_major ? "row-major" : "column-major", o.trans_a ? 'T' : 'N', o.trans_b ? 'T' : 'N', o.m, o.n, o.k,
              batch.c_str(), o.alpha, o.beta, s.entry.info.name.c_str(), detail::to_string(path), timing.median_ms,
              gflops);
  std::printf("  %s (%s); ||C - ref|| / || |alpha||A||B| + |beta||C| || = %.2e, tolerance %.2e: %s\n",
              chk.cmp.summary().c_str(), chk.full ? "all entries" : "1024 sampled entries", chk.err, tol,
              ok ? "ok" : "WRONG");
  print_plan(s, o, d, t);
  if (!ok) throw Error("sgemm result differs from the host reference");
}

void cmd_bench_sgemm(Globals& g) {
  Session& s = g.session();
  bench::Report report(s.entry.info);
  const bench::Peaks p = bench::routine_peaks(s, report, g.quick);
  bench::bench_sgemm(s, report, g.bench_options("sgemm"), p);
  finish_report(report, g);
  // Summary: clforge against each peer, per shape.
  std::printf("\nsgemm summary (FMA peak %.0f GFLOP/s)\n%-22s %12s %8s %12s %12s %9s\n", p.fma_gflops, "shape",
              "clforge GF/s", "% peak", "CLBlast GF/s", "OpenBLAS GF/s", "vs CLBlast");
  const auto& recs = report.records();
  for (std::size_t i = 0; i < recs.size(); ++i) {
    if (recs[i].routine != "sgemm" || recs[i].library != "clforge") continue;
    double clb = 0, ob = 0;
    for (std::size_t j = i + 1; j < recs.size() && recs[j].library != "clforge"; ++j) {
      if (recs[j].shape != recs[i].shape) continue;
      if (recs[j].library == "CLBlast") clb = recs[j].gflops();
      if (recs[j].library == "OpenBLAS") ob = recs[j].gflops();
    }
    const double cf = recs[i].gflops();
    std::printf("%-22s %12.1f %7.0f%% %12.1f %12.1f %8.2fx\n", recs[i].shape.c_str(), cf,
                p.fma_gflops > 0 ? 100 * cf / p.fma_gflops : 0.0, clb, ob, clb > 0 ? cf / clb : 0.0);
  }
}

void register_sgemm(Apps& apps, Globals& g) {
  static RunOptions o;
  auto* run =
      apps.run->add_subcommand("sgemm", "one sgemm on random data, checked against the host reference and timed");
  add_run_size_option(run, o.size, "sgemm", "C is m x n, the inner dimension k");
  run->add_flag("--row-major", o.row_major, "row-major storage (default column-major)");
  run->add_option("--alpha", o.alpha, "alpha")->capture_default_str();
  run->add_option("--beta", o.beta, "beta (0: C is poisoned with NaN first)")->capture_default_str();
  add_split_options(run, g.split, false);
  run->fallthrough();  // --param and the other global options may follow `run sgemm`
  run->callback([&g] { cmd_run_sgemm(g, o); });

  auto* bench = apps.bench->add_subcommand("sgemm", "clforge sgemm vs CLBlast Gemm (and OpenBLAS on CPU devices)");
  add_bench_options(bench, g, "sgemm");
  bench->fallthrough();
  bench->callback([&g] { cmd_bench_sgemm(g); });
}

CLFORGE_CLI_COMMANDS(register_sgemm);

}  // namespace
}  // namespace clforge::cli
