// clforge sgemm against CLBlast's Gemm on the same device in the same run, OpenBLAS
// cblas_sgemm on CPU devices (host wall clock; its kernels chosen and named as bench/openblas.hpp
// says), cuBLAS on NVIDIA devices (loaded at run time unless built with -DCLFORGE_WITH_CUDA=OFF;
// cudaEvent timing), and the device's measured FMA peak. A strided batch ("MxNxK@B") is timed
// whole against CLBlast's GemmStridedBatched, cuBLAS's cublasSgemmStridedBatched and OpenBLAS
// called once per product.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "bench/openblas.hpp"
#include "bench/routines.hpp"
#include "clforge/sgemm.hpp"
#include "host/data.hpp"
#include "host/gemm.hpp"
#include "runtime/errors.hpp"
#include "sgemm/sgemm_internal.hpp"

#if CLFORGE_HAVE_CLBLAST
#include <clblast.h>
#endif
#if CLFORGE_BENCH_CUDA
#include "bench/cuda_runtime.hpp"
#endif

namespace clforge::bench {

namespace {

struct GemmCase {
  std::size_t m, n, k;
  bool ta = false, tb = false;
  std::size_t batch = 1;  // products of a strided batch, tightly packed one after the other
  std::string label() const {
    std::string s = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    if (ta || tb) s += std::string(" ") + (ta ? "T" : "N") + (tb ? "T" : "N");
    if (batch != 1) s += " batch=" + std::to_string(batch);
    return s;
  }
};

// "N", "MxNxK", optionally ":NN" .. ":TT" (the library's parse_sgemm_size), then "@B" for a batch.
GemmCase parse_case(const std::string& text) {
  const auto at = text.find('@');
  const detail::SgemmSize z = detail::parse_sgemm_size(text.substr(0, at));
  GemmCase c{z.m, z.n, z.k, z.ta, z.tb};
  if (at != std::string::npos) {
    const std::string b = text.substr(at + 1);
    if (b.empty() || b.find_first_not_of("0123456789") != std::string::npos || b.size() > 9 || std::stoul(b) == 0)
      throw InvalidArgument("sgemm size '" + text + "': the batch after '@' is not a count from 1 to 999999999");
    c.batch = std::stoul(b);
  }
  return c;
}

std::vector<std::string> default_sizes(bool quick, bool cpu) {
  if (quick) return {"256", "1000", "129x257x65"};
  if (cpu)  // the CPU list stops where CLBlast needs minutes per call (batches: 0.33 s at 64^3 x 10^4,
            // 2.6 s at 128^3 on 2 PoCL cores)
    return {"256",     "512",     "1000",    "1024",     "1935",     "2048",    "512x8192x512",
            "1024:NT", "1024:TN", "1024:TT", "16@10000", "32@10000", "64@10000"};
  return {"256",          "512",       "1000",          "1024",    "2048",     "4096",     "8192",
          "16384",        "903",       "1935",          "3999",    "8127",     "4097",     "8192x512x8192",
          "512x8192x512", "4096:NT",   "4096:TN",       "4096:TT", "16@10000", "32@10000", "64@10000",
          "128@10000",    "256@10000", "512x512x64@256"};  // strided batches last
}

// Errors of C (column-major, ldc = m) against the double reference: every element when
// m*n*k <= 2048^3, else 1024 random entries. Returns the relative error ||C - ref|| / ||ref||,
// the scaled error ||C - ref|| / || |A||B| || that host::gemm_tolerance(k) bounds, and what was checked.
struct Check {
  double rel = 0, scaled = 0;
  std::string what;
};
Check check_matrix(const GemmCase& gc, const float* a, const float* b, const float* c, float alpha) {
  host::GemmShape s;
  s.trans_a = gc.ta;
  s.trans_b = gc.tb;
  s.m = gc.m, s.n = gc.n, s.k = gc.k;
  s.lda = gc.ta ? gc.k : gc.m;
  s.ldb = gc.tb ? gc.n : gc.k;
  s.ldc = gc.m;
  const double work = static_cast<double>(gc.m) * gc.n * gc.k;
  if (work <= 2048.0 * 2048.0 * 2048.0) {
    std::vector<double> ref(gc.m * gc.n), mag(gc.m * gc.n);
    host::gemm(s, alpha, a, b, 0.0, nullptr, ref.data(), gc.batch > 1 ? 1 : 0, mag.data());
    return {host::compare(c, ref.data(), ref.size()).rel_error,
            host::gemm_scaled_error(c, ref.data(), mag.data(), ref.size()), "all entries"};
  }
  const std::size_t samples = 1024;
  std::mt19937_64 rng(gc.m * 31 + gc.n * 17 + gc.k);
  std::vector<std::pair<std::size_t, std::size_t>> ij(samples);
  for (auto& e : ij) e = {rng() % gc.m, rng() % gc.n};
  std::vector<double> ref, mag;
  host::gemm_entries(s, alpha, a, b, 0.0, nullptr, ij, ref, &mag);
  std::vector<float> got(samples);
  for (std::size_t e = 0; e < samples; ++e) got[e] = c[host::gemm_c_index(s, ij[e].first, ij[e].second)];
  return {host::compare(got.data(), ref.data(), samples).rel_error,
          host::gemm_scaled_error(got.data(), ref.data(), mag.data(), samples),
          std::to_string(samples) + " sampled entries"};
}

// check_matrix on the first, the middle and the last product of a batch (each matrix tightly
// packed after the one before); the largest errors count.
Check check_result(const GemmCase& gc, const std::vector<float>& a, const std::vector<float>& b,
                   const std::vector<float>& c, float alpha) {
  const std::size_t na = gc.m * gc.k, nb = gc.k * gc.n, nc = gc.m * gc.n;
  const auto worse = [](double& w, double v) {  // the larger error; a NaN stays
    if (!(v <= w) && !std::isnan(w)) w = v;
  };
  Check worst;
  for (std::size_t z : {std::size_t(0), gc.batch / 2, gc.batch - 1}) {
    const Check one = check_matrix(gc, a.data() + z * na, b.data() + z * nb, c.data() + z * nc, alpha);
    worse(worst.rel, one.rel), worse(worst.scaled, one.scaled);
    worst.what = one.what;
    if (gc.batch == 1) return one;
  }
  worst.what += " of products 0, " + std::to_string(gc.batch / 2) + " and " + std::to_string(gc.batch - 1);
  return worst;
}

Record make_record(const char* library, const std::string& shape) { return Record::of("sgemm", library, shape); }

#if CLFORGE_BENCH_CUDA
// cuBLAS of CUDA 11-13 loaded at run time with its libcudart (bench/cuda_runtime.hpp).
struct Cublas : cuda::Library {
  int (*create)(void**) = nullptr;
  int (*set_math_mode)(void*, int) = nullptr;
  int (*sgemm)(void*, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*, float*,
               int) = nullptr;
  int (*sgemm_batched)(void*, int, int, int, int, int, const float*, const float*, int, long long, const float*, int,
                       long long, const float*, float*, int, long long, int) = nullptr;
  void* handle = nullptr;
  Cublas() : cuda::Library(cuda::open_library(cuda::kCublasSonames)) {
    if (!problem.empty()) return;
    bind(create, "cublasCreate_v2");
    bind(set_math_mode, "cublasSetMathMode");
    bind(sgemm, "cublasSgemm_v2");
    bind(sgemm_batched, "cublasSgemmStridedBatched");
    if (!problem.empty()) return;
    if (create(&handle) != 0) problem = "cublasCreate failed";
    // CUBLAS_DEFAULT_MATH (0): FP32 arithmetic, TF32 tensor cores off.
    else if (set_math_mode(handle, 0) != 0)
      problem = "cublasSetMathMode failed";
  }
};

// Loaded on first use and kept (with its handle) for the life of the process.
const Cublas& cublas() {
  static const Cublas* c = new Cublas;
  return *c;
}
#endif

// params["percent_of_fma_peak"]: null when the record or the peak was not measured.
nlohmann::json percent_of_peak(const Record& r, const Peaks& peaks) {
  if (!r.measured() || peaks.fma_gflops <= 0) return nullptr;
  return 100 * r.gflops() / peaks.fma_gflops;
}

std::string percent(double gflops, const Peaks& peaks) {
  if (peaks.fma_gflops <= 0) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%% of FMA peak", 100 * gflops / peaks.fma_gflops);
  return b;
}

}  // namespace

std::vector<std::string> sgemm_sizes(const BenchOptions& opt, const DeviceInfo& dev) {
  return opt.sizes.empty() ? default_sizes(opt.quick, dev.type == "CPU") : opt.sizes;
}
std::size_t sgemm_cases(const BenchOptions& opt, const DeviceInfo& dev) { return sgemm_sizes(opt, dev).size(); }

void bench_sgemm(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks) {
  const bool cpu = s.entry.info.type == "CPU";
  std::vector<std::string> sizes = opt.sizes.empty() ? default_sizes(opt.quick, cpu) : opt.sizes;
  const ProgressScope scope(sizes.size());
  const OpenBlas* blas = cpu ? &openblas() : nullptr;
  const CblasSgemm cblas = blas != nullptr ? blas->sgemm : nullptr;
  const float alpha = 1.0f, beta = 0.0f;

  for (const auto& text : sizes) {
    progress_step();
    const GemmCase gc = parse_case(text);
    const std::string shape = gc.label();
    const std::size_t lda = gc.ta ? gc.k : gc.m, ldb = gc.tb ? gc.n : gc.k, ldc = gc.m;
    // One product's elements (a batch's strides), and the batch's.
    const std::size_t na1 = gc.m * gc.k, nb1 = gc.k * gc.n, nc1 = gc.m * gc.n;
    const std::size_t na = na1 * gc.batch, nb = nb1 * gc.batch, nc = nc1 * gc.batch;
    const Transpose ta = gc.ta ? Transpose::Yes : Transpose::No, tb = gc.tb ? Transpose::Yes : Transpose::No;
    const double flops = 2.0 * gc.m * gc.n * gc.k * gc.batch;

    std::vector<float> ha = host::random_floats(na, 11 + na), hb = host::random_floats(nb, 13 + nb);
    std::vector<float> hc = host::poisoned(nc);
    cl_int st = CL_SUCCESS;
    cl::Buffer a(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, na * 4, ha.data(), &st);
    detail::check(st, "clCreateBuffer", "sgemm benchmark A");
    cl::Buffer b(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, nb * 4, hb.data(), &st);
    detail::check(st, "clCreateBuffer", "sgemm benchmark B");
    cl::Buffer c(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, nc * 4, hc.data(), &st);
    detail::check(st, "clCreateBuffer", "sgemm benchmark C");

    // clforge: correctness first (C poisoned with NaN, beta = 0), then timing (below, with CLBlast).
    Record r = make_record("clforge", shape);
    r.flops = flops;
    r.bytes = 4.0 * (na + nb + nc);
    SgemmDesc desc;
    desc.trans_a = ta;
    desc.trans_b = tb;
    desc.m = gc.m;
    desc.n = gc.n;
    desc.k = gc.k;
    desc.alpha = alpha;
    desc.beta = beta;
    desc.a_ld = lda;
    desc.b_ld = ldb;
    desc.c_ld = ldc;
    desc.batch = gc.batch, desc.a_stride = na1, desc.b_stride = nb1, desc.c_stride = nc1;
    const SgemmPlan plan(s.queue, desc, opt.tuning);
    // The parameters of the plan's multiply kernel (configurations() also holds the route and
    // the packing kernel's).
    for (const Configuration& cfg : plan.configurations())
      if (cfg.kernel == "sgemm_direct" || cfg.kernel == "sgemm_stream" || cfg.kernel == "sgemm_xgemm")
        r.params = params_json(cfg);
    const detail::SgemmPath path =
        detail::sgemm_path(s.entry.info, gc.m, gc.n, gc.k, alpha, beta, opt.tuning, gc.batch);
    r.params["path"] = detail::to_string(path);
    r.params["plan"] = plan.describe();
    const auto run_clforge = [&] { plan.enqueue(s.queue, a, b, c); };
    run_clforge();
    detail::check(s.queue.enqueueReadBuffer(c, CL_TRUE, 0, nc * 4, hc.data()), "clEnqueueReadBuffer");
    const Check chk = check_result(gc, ha, hb, hc, alpha);
    const double err = chk.rel;
    const std::string& what = chk.what;
    r.error = err;
    const double tol = host::gemm_tolerance(gc.k);
    r.params["error_checked_on"] = what;
    r.params["scaled_error"] = chk.scaled;
    r.params["tolerance"] = tol;
    if (!(chk.scaled <= tol))
      r.status = "failed: scaled error " + std::to_string(chk.scaled) + " above " + std::to_string(tol);
    // clforge and CLBlast (the same queue) are timed in interleaved regions, as in bench
    // transpose: a device whose speed drifts treats them alike.
    std::vector<std::function<void()>> calls{run_clforge};
#if CLFORGE_HAVE_CLBLAST
    Record cb = make_record("CLBlast", shape);
    cb.flops = flops;
    cb.bytes = r.bytes;
    cl_command_queue q = s.queue();
    const auto cta = gc.ta ? clblast::Transpose::kYes : clblast::Transpose::kNo;
    const auto ctb = gc.tb ? clblast::Transpose::kYes : clblast::Transpose::kNo;
    const auto call_clblast = [&] {
      if (gc.batch > 1)
        return clblast::GemmStridedBatched<float>(clblast::Layout::kColMajor, cta, ctb, gc.m, gc.n, gc.k, alpha, a(), 0,
                                                  lda, na1, b(), 0, ldb, nb1, beta, c(), 0, ldc, nc1, gc.batch, &q,
                                                  nullptr);
      return clblast::Gemm<float>(clblast::Layout::kColMajor, cta, ctb, gc.m, gc.n, gc.k, alpha, a(), 0, lda, b(), 0,
                                  ldb, beta, c(), 0, ldc, &q, nullptr);
    };
    if (opt.peers) {
      const auto status = call_clblast();
      if (status != clblast::StatusCode::kSuccess) {
        cb.status = "refused: CLBlast status " + std::to_string(static_cast<int>(status));
      } else {
        std::vector<float> got(nc);
        detail::check(s.queue.enqueueReadBuffer(c, CL_TRUE, 0, nc * 4, got.data()), "clEnqueueReadBuffer");
        cb.error = check_result(gc, ha, hb, got, alpha).rel;
        calls.push_back([&] { call_clblast(); });
      }
    }
#endif
    const std::vector<Timing> timings = time_regions(s.queue, calls, opt.plan);
    r.timing = timings[0];
    r.params["percent_of_fma_peak"] = percent_of_peak(r, peaks);
    char line[320];
    std::snprintf(line, sizeof line, "sgemm %s clforge (%s): %.3f ms, %.1f GFLOP/s, %s, rel err %.2e (%s)",
                  shape.c_str(), detail::to_string(path), r.timing.median_ms, r.gflops(),
                  percent(r.gflops(), peaks).c_str(), err, what.c_str());
    progress(line);
    const double clforge_gflops = r.gflops();
    report.add(r);
#if CLFORGE_HAVE_CLBLAST
    if (timings.size() > 1) {
      cb.timing = timings[1];
      cb.params["percent_of_fma_peak"] = percent_of_peak(cb, peaks);
    }
    if (opt.peers) {
      std::snprintf(line, sizeof line, "sgemm %s CLBlast: %.3f ms, %.1f GFLOP/s, %s; clforge / CLBlast = %.2f",
                    shape.c_str(), cb.timing.median_ms, cb.gflops(), percent(cb.gflops(), peaks).c_str(),
                    cb.gflops() > 0 ? clforge_gflops / cb.gflops() : 0.0);
      progress(line);
      report.add(cb);
    }
#endif

#if CLFORGE_BENCH_CUDA
    if (opt.peers) {
      Record cu = make_record("cuBLAS", shape);
      cu.flops = flops;
      cu.bytes = r.bytes;
      cu.status = cuda::refusal(s.entry.info, cuda::kCublasSonames, cublas);
      if (cu.status.empty()) {
        const Cublas& cb = cublas();
        const cuda::Runtime& rt = *cb.runtime;
        cuda::DeviceBuffer da(rt, na * 4), db(rt, nb * 4), dc(rt, nc * 4);
        const auto call = [&] {
          if (gc.batch > 1)
            return cb.sgemm_batched(
                cb.handle, gc.ta ? 1 : 0, gc.tb ? 1 : 0, static_cast<int>(gc.m), static_cast<int>(gc.n),
                static_cast<int>(gc.k), &alpha, static_cast<const float*>(da.get()), static_cast<int>(lda),
                static_cast<long long>(na1), static_cast<const float*>(db.get()), static_cast<int>(ldb),
                static_cast<long long>(nb1), &beta, static_cast<float*>(dc.get()), static_cast<int>(ldc),
                static_cast<long long>(nc1), static_cast<int>(gc.batch));
          return cb.sgemm(cb.handle, gc.ta ? 1 : 0, gc.tb ? 1 : 0, static_cast<int>(gc.m), static_cast<int>(gc.n),
                          static_cast<int>(gc.k), &alpha, static_cast<const float*>(da.get()), static_cast<int>(lda),
                          static_cast<const float*>(db.get()), static_cast<int>(ldb), &beta,
                          static_cast<float*>(dc.get()), static_cast<int>(ldc));
        };
        std::vector<float> got(nc);
        if (!da.upload(ha.data(), na * 4) || !db.upload(hb.data(), nb * 4) || dc.get() == nullptr) {
          cu.status = "refused: cudaMalloc/cudaMemcpy failed";
        } else if (call() != 0 || !dc.download(got.data(), nc * 4)) {
          cu.status = "refused: cublasSgemm failed";
        } else {
          try {
            cu.error = check_result(gc, ha, hb, got, alpha).rel;
            cu.timing = cuda::time_events(
                rt, [&] { call(); }, opt.plan);
            cu.status = "ok (cudaEvent timing, TF32 off, " + cb.from + ")";
          } catch (const Error& e) {
            cu.status = std::string("failed: ") + e.what();
          }
        }
      }
      if (cu.status.rfind("ok", 0) == 0)
        std::snprintf(line, sizeof line, "sgemm %s cuBLAS: %.3f ms, %.1f GFLOP/s; clforge / cuBLAS = %.2f (%s)",
                      shape.c_str(), cu.timing.median_ms, cu.gflops(),
                      cu.gflops() > 0 ? clforge_gflops / cu.gflops() : 0.0, cu.status.c_str());
      else
        std::snprintf(line, sizeof line, "sgemm %s cuBLAS: %s", shape.c_str(), cu.status.c_str());
      progress(line);
      report.add(cu);
    }
#endif

    if (opt.peers && cblas != nullptr) {
      // Host wall clock over the same plan: the host library has no device events.
      Record ob = make_record("OpenBLAS", shape);
      ob.flops = flops;
      ob.bytes = r.bytes;
      ob.status = "ok (host wall clock, " + blas->from + ", " + blas->core + " kernels)";
      ob.params = {{"openblas_core", blas->core}, {"openblas_config", blas->config}, {"kernels_chosen", blas->choice}};
      std::vector<float> oc(nc);
      const auto once = [&] {  // one call per product of a batch
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t z = 0; z < gc.batch; ++z)
          cblas(102 /* CblasColMajor */, gc.ta ? 112 : 111, gc.tb ? 112 : 111, static_cast<int>(gc.m),
                static_cast<int>(gc.n), static_cast<int>(gc.k), alpha, ha.data() + z * na1, static_cast<int>(lda),
                hb.data() + z * nb1, static_cast<int>(ldb), beta, oc.data() + z * nc1, static_cast<int>(ldc));
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      };
      ob.timing = detail::sample_runs(opt.plan, {once}).front();
      ob.error = check_result(gc, ha, hb, oc, alpha).rel;
      ob.params["percent_of_fma_peak"] = percent_of_peak(ob, peaks);
      std::snprintf(line, sizeof line, "sgemm %s OpenBLAS (host, %s kernels): %.3f ms, %.1f GFLOP/s", shape.c_str(),
                    blas->core.c_str(), ob.timing.median_ms, ob.gflops());
      progress(line);
      report.add(ob);
    }
  }
}

}  // namespace clforge::bench
