// The read-only tables of an FFT plan's stages: twiddles of the lane kernel and of fft_local's
// passes (in the kernel's order), and Bluestein's chirps and spectrum. Built on the host in double
// and uploaded as float2 (or double2 in two float2 slots) once per plan.
#include "fft/fft_plan_builder.hpp"

namespace clforge::fft_plan_parts {

// A read-only table of 8-byte slots (cl_float2 values, or halves of cl_double2 ones).
cl::Buffer FftPlanBuilder::table(const std::vector<cl_float2>& data) const {
  return detail::upload(qc_.context, CL_MEM_READ_ONLY, data.data(), data.size() * sizeof(cl_float2),
                        "fft twiddle table");
}

// Bluestein's tables for length n and convolution length m: the chirp w_k = exp(-pi i k^2 / n),
// its conjugate (both zero from n to pad >= n), and the spectrum of the conjugate chirp's
// circular extension over m points, divided by m.
FftPlanBuilder::BluesteinTables FftPlanBuilder::bluestein_tables(std::size_t n, std::size_t m, std::size_t pad) const {
  std::vector<detail::cdouble> w(pad), wc(pad), b(m);
  for (std::size_t k = 0; k < n; ++k) {
    const unsigned long long q = (static_cast<unsigned long long>(k) * k) % (2ull * n);
    w[k] = root(static_cast<std::size_t>(q), 2 * n);
    wc[k] = std::conj(w[k]);
  }
  b[0] = wc[0];
  for (std::size_t k = 1; k < n; ++k) b[k] = b[m - k] = wc[k];
  std::vector<detail::cdouble> bq = detail::fft_double(b, -1);
  for (auto& v : bq) v /= static_cast<double>(m);
  return {table(to_float2(w)), table(to_float2(wc)), table(to_float2(bq))};
}

// W_n^k, k < n, as float2.
cl::Buffer FftPlanBuilder::twiddles(std::size_t n) {
  if (const auto it = root_tables_.find(n); it != root_tables_.end()) return it->second;
  std::vector<detail::cdouble> w(n);
  for (std::size_t k = 0; k < n; ++k) w[k] = root(k, n);
  return root_tables_.emplace(n, table(to_float2(w))).first->second;
}

namespace {

// One pass's twiddles W_nr^(k * jj), jj < ns, for each k of `powers`, k-major.
void append_powers(std::vector<cl_float2>& t, const std::vector<std::size_t>& powers, std::size_t ns, std::size_t nr) {
  for (const std::size_t k : powers)
    for (std::size_t jj = 0; jj < ns; ++jj) t.push_back(to_float2(root(k * jj, nr)));
}

// One pass's twiddles in double: W_nr^jj, jj < ns, two float2 slots each.
void append_doubles(std::vector<cl_float2>& t, std::size_t ns, std::size_t nr) {
  for (std::size_t jj = 0; jj < ns; ++jj) {
    const detail::cdouble w = root(jj, nr);
    const cl_double2 d{{w.real(), w.imag()}};
    cl_float2 slots[2];
    static_assert(sizeof(slots) == sizeof(d), "a double2 fills two float2 slots");
    std::memcpy(slots, &d, sizeof(d));
    t.insert(t.end(), slots, slots + 2);
  }
}

}  // namespace

// The in-kernel twiddles of a kernel with these radices, in the kernel's order (fft_pass.cl,
// fft_twiddles), in 8-byte slots: pass by pass, W_(NS*R)^(r * jj) at (r - 1) * NS + jj after the
// earlier passes, or for a pass with twiddles in double (FFT_TWIDDLE 2, and 3 where the pass's
// table is large: fft_double_twiddles) only r = 1 in double, two slots per jj, or for a pass of
// products (FFT_TWIDDLE 5, and 4 where it is large: fft_product_twiddles) W^(k * jj) for k = 1
// ... S - 1, then k = S, 2S, ... < R, k-major.
cl::Buffer FftPlanBuilder::pass_twiddles(const std::vector<int>& radices, int mode) {
  const auto key = std::make_pair(radices, mode);
  if (const auto it = pass_tables_.find(key); it != pass_tables_.end()) return it->second;
  std::vector<cl_float2> t;
  std::size_t ns = 1;
  for (const int r : radices) {
    const std::size_t nr = ns * static_cast<std::size_t>(r);
    std::vector<std::size_t> powers;
    if (detail::fft_product_twiddles(mode, r, ns)) {
      const int S = detail::fft_product_split(r);
      for (int l = 1; l < S; ++l) powers.push_back(static_cast<std::size_t>(l));
      for (int h = S; h < r; h += S) powers.push_back(static_cast<std::size_t>(h));
      append_powers(t, powers, ns, nr);
    } else if (detail::fft_double_twiddles(mode, r, ns)) {
      append_doubles(t, ns, nr);
    } else {
      for (std::size_t k = 1; k < static_cast<std::size_t>(r); ++k) powers.push_back(k);
      append_powers(t, powers, ns, nr);
    }
    ns = nr;
  }
  if (t.empty()) t.push_back(to_float2(root(0, 1)));
  return pass_tables_.emplace(key, table(t)).first->second;
}

}  // namespace clforge::fft_plan_parts
