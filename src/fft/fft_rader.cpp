// Rader's algorithm for prime lengths n whose n - 1 is smooth (cl/fft/fft_rader.cl, docs/fft.md
// "Rader"): a gather launch, the two (n - 1)-point FFTs of a cyclic convolution in the plan's
// multi-launch form (passes, or the CPU lane kernel's two launches each), a scatter launch.
// Bluestein convolves about 2n points (a power of two or a 7-smooth length); Rader convolves
// n - 1, which for 65537 is 2^16 against 2^18 (or 133120 in lanes). The tuning space and its
// tune target, the number theory and the two ends of such a plan are here; the routes of fft_plan_build.cpp and
// fft_plan_lanes.cpp place the FFTs between them.
#include "fft/fft_plan_builder.hpp"
#include "tuning/tuner.hpp"

namespace clforge {

namespace detail {

const KernelSignature kFftRaderIn{"fft_rader_in",
                                  {"in", "in_off", "in_dh", "in_S", "out", "out_off", "out_dh", "out_S", "cj_in",
                                   "cj_out", "scale", "perm", "side", "side_off"}};
const KernelSignature kFftRaderOut{"fft_rader_out",
                                   {"in", "in_off", "in_dh", "in_S", "out", "out_off", "out_dh", "out_S", "cj_in",
                                    "cj_out", "scale", "perm", "side", "side_off"}};

KernelSpec fft_rader_spec() {
  KernelSpec s;
  s.name = "fft_rader";
  s.files = {"fft/fft_rader.cl"};
  s.database = "db/fft_rader.json";
  s.params = {
      {"FFT_RADER",
       1,
       {0, 1, 2},
       "prime lengths n whose n - 1 has no prime factor above 13: 0 Bluestein; 1 Rader's algorithm (FFTs of n - 1 "
       "points instead of about 2n) where Bluestein would take more than one launch; 2 Rader wherever the plan's "
       "multi-launch form (passes, or the lane kernel's two launches) can transform n - 1 points",
       true},
      {"FFT_RADER_WG", 256, {32, 64, 128, 256, 512}, "work-items per group of Rader's gather and scatter launches"},
      {"FFT_RADER_VPT",
       16,
       {1, 2, 4, 8, 16, 32, 64},
       "values per work-item of Rader's gather (n - 1 / (this x FFT_RADER_WG) work-groups per transform, at most "
       "1024): fewer values, more groups per transform and fewer transforms in flight, whose scattered reads then "
       "stay in the last-level cache",
       true},
  };
  s.check = [](const ParamMap&, const std::string&) -> std::string { return {}; };
  s.resources = [](const ParamMap& p, const std::string&) {
    Resources r;
    r.local = {static_cast<std::size_t>(p.at("FFT_RADER_WG")), 1, 1};
    r.local_mem_bytes = r.local[0] * 8;
    return r;
  };
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    if (q["FFT_RADER_WG"] <= 32) return std::nullopt;
    q["FFT_RADER_WG"] /= 2;
    return q;
  };
  return s;
}

namespace {
std::size_t mul_mod(std::size_t a, std::size_t b, std::size_t p) {  // p < 2^32: no overflow
  return static_cast<std::size_t>((static_cast<unsigned long long>(a) * b) % p);
}
std::size_t pow_mod(std::size_t g, std::size_t e, std::size_t p) {
  std::size_t r = 1 % p;
  for (g %= p; e > 0; e >>= 1, g = mul_mod(g, g, p))
    if (e & 1) r = mul_mod(r, g, p);
  return r;
}
}  // namespace

bool fft_rader_applies(std::size_t n) {
  // Index tables are 32-bit and the kernels count in int: n below 2^31 (FftDesc allows 2^23 here).
  if (n < 17 || n > static_cast<std::size_t>(INT_MAX) || fft_smooth(n) || !fft_smooth(n - 1)) return false;
  const std::vector<std::size_t> f = fft_prime_factors(n);
  return f.size() == 1;  // prime
}

std::size_t fft_primitive_root(std::size_t p) {
  if (p < 3 || p > static_cast<std::size_t>(INT_MAX) || fft_prime_factors(p).size() != 1)
    throw Error("fft_primitive_root: " + std::to_string(p) + " is not an odd prime below 2^31");
  std::vector<std::size_t> f = fft_prime_factors(p - 1);
  f.erase(std::unique(f.begin(), f.end()), f.end());
  for (std::size_t g = 2; g < p; ++g) {
    bool generates = true;
    for (const std::size_t q : f) generates = generates && pow_mod(g, (p - 1) / q, p) != 1;
    if (generates) return g;
  }
  throw Error("fft_primitive_root: " + std::to_string(p) + " is not prime");
}

// `clforge tune fft_rader`: Rader's rows (kernel fft_rader) are per length too, for the prime
// lengths Rader's algorithm can take; FFT_RADER 0 among the candidates lets Bluestein win.
std::string fft_rader_variant(const std::string& size) {
  const std::size_t n = parse_fft_size(size).n;
  if (!fft_rader_applies(n))
    throw InvalidArgument("fft_rader size '" + size + "': " + std::to_string(n) +
                          " is not a prime from 17 on whose n - 1 has no prime factor above 13");
  return std::to_string(n);
}

TuneTarget fft_rader_tune_target() {
  TuneTarget t = fft_lanes_tune_target();  // candidates as overrides, the plan as the library makes it
  t.routine = "fft_rader";
  t.kernel = "fft_rader";
  t.default_sizes = {"65537"};
  t.variant_of = fft_rader_variant;
  t.narrow = nullptr;  // every legal value: Bluestein or Rader, and the gather's groups
  t.seed_axes = {};
  t.device_types = {};  // Rader's kernels run on every device
  t.supersedes.clear();
  return t;
}

}  // namespace detail

namespace fft_plan_parts {

FftPlanBuilder::RaderEnds FftPlanBuilder::rader_ends(Buf gathered, Buf conv) {
  const Configuration& cfg = *rader_cfg_;
  const std::size_t n = desc_.n, m = n - 1;
  const std::size_t wg = static_cast<std::size_t>(cfg.at("FFT_RADER_WG"));
  // Groups per transform of the gather: FFT_RADER_VPT values per work-item, at most 1024 partial sums.
  const std::size_t per_group = wg * static_cast<std::size_t>(cfg.at("FFT_RADER_VPT"));
  const int groups = static_cast<int>(std::clamp<std::size_t>((m + per_group - 1) / per_group, 1, 1024));
  steps_.rader_groups = groups;
  // perm_in[q] = g^q, perm_out[j - 1] = the q with g^-q = j, b_q = W_n^(g^-q): all mod n.
  const std::size_t g = detail::fft_primitive_root(n), g_inv = detail::pow_mod(g, n - 2, n);
  std::vector<cl_uint> perm_in(m), perm_out(m);
  std::vector<detail::cdouble> b(m);
  for (std::size_t q = 0, up = 1, down = 1; q < m; ++q) {
    perm_in[q] = static_cast<cl_uint>(up);
    perm_out[down - 1] = static_cast<cl_uint>(q);
    b[q] = root(down, n);
    up = detail::mul_mod(up, g, n);
    down = detail::mul_mod(down, g_inv, n);
  }
  std::vector<detail::cdouble> bq = detail::fft_double(b, -1);
  for (auto& v : bq) v /= static_cast<double>(m);
  auto perm = [&](const std::vector<cl_uint>& p) {
    return detail::upload(qc_.context, CL_MEM_READ_ONLY, p.data(), p.size() * sizeof(cl_uint), "fft Rader permutation");
  };
  const FftLayout& li = desc_.in;
  const FftLayout& lo = desc_.out;
  const long long rows = static_cast<long long>(m);
  RaderEnds e;
  e.spectrum = table(to_float2(bq));
  e.gather.kernel.kind = KernelKind::RaderGather;
  e.gather.kernel.cfg = cfg;
  e.gather.io.in = user_side(li, Sign::Dir);  // the caller's layout, gathered
  e.gather.io.out = {gathered, 0, rows, 1, 0, INT_MAX, Sign::Plus};
  e.gather.tables.permutation = perm(perm_in);
  e.gather.role = "Rader gather, " + std::to_string(groups) + (groups == 1 ? " group" : " groups") + " of " +
                  std::to_string(wg) + " work-items per transform";
  e.scatter.kernel.kind = KernelKind::RaderScatter;
  e.scatter.kernel.cfg = cfg;
  e.scatter.io.in = {conv, 0, rows, 1, 0, INT_MAX, Sign::Plus};
  e.scatter.io.out = user_side(lo, Sign::Dir);
  e.scatter.io.scaled = true;
  e.scatter.tables.permutation = perm(perm_out);
  e.scatter.role = "Rader scatter, g = " + std::to_string(g);
  return e;
}

}  // namespace fft_plan_parts
}  // namespace clforge
