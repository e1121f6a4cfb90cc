// FFT decomposition: prime factors, radix passes inside one kernel, global passes for long
// transforms, and the kernel shape (work-items per transform, transforms per work-group,
// local memory) derived from the length and the tuning parameters.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "clforge/errors.hpp"
#include "fft/fft_internal.hpp"

namespace clforge::detail {

std::vector<std::size_t> fft_prime_factors(std::size_t n) {
  std::vector<std::size_t> f;
  for (std::size_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      f.push_back(p);
      n /= p;
    }
  if (n > 1) f.push_back(n);
  return f;
}

bool fft_smooth(std::size_t n) {
  if (n == 0) return false;
  for (std::size_t p : {2, 3, 5, 7, 11, 13})
    while (n % p == 0) n /= p;
  return n == 1;
}

std::size_t fft_pow2_at_least(std::size_t x) {
  std::size_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

std::size_t fft_bluestein_length(std::size_t n) { return fft_pow2_at_least(2 * n - 1); }

std::size_t fft_bluestein_length_smooth(std::size_t n) {
  for (std::size_t m = 2 * n - 1;; ++m) {
    std::size_t r = m;
    for (std::size_t p : {2, 3, 5, 7})
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

std::vector<int> fft_radices(std::size_t n, int max_radix, int mix) {
  std::vector<int> odd;
  int twos = 0;
  while (n % 2 == 0) {
    n /= 2;
    ++twos;
  }
  for (int p : {3, 5, 7, 11, 13})
    while (n % p == 0) {
      odd.push_back(p);
      n /= p;
    }
  if (n != 1) throw Error("fft_radices: length has a prime factor above 13");
  int bits = 0;
  while ((1 << (bits + 1)) <= max_radix) ++bits;
  bits = std::max(bits, 1);
  std::vector<int> r;
  if (twos > 0) {
    const int passes = (twos + bits - 1) / bits;
    for (int i = 0; i < passes; ++i) r.push_back(1 << (twos / passes + (i < twos % passes ? 1 : 0)));
  }
  // Pairs of odd primes into one butterfly: 5 * 5 (mix 2), then 3 * 5, then 3 * 3.
  const auto merge = [&odd](int a, int b) {
    for (;;) {
      const auto ia = std::find(odd.begin(), odd.end(), a);
      if (ia == odd.end()) return;
      const auto ib = std::find(a == b ? ia + 1 : odd.begin(), odd.end(), b);
      if (ib == odd.end()) return;
      *ia = a * b;
      odd.erase(ib);
    }
  };
  if (mix >= 2) merge(5, 5);
  if (mix >= 1) {
    merge(3, 5);
    merge(3, 3);
  }
  std::sort(odd.rbegin(), odd.rend());
  r.insert(r.end(), odd.begin(), odd.end());
  return r;
}

std::vector<std::size_t> fft_global_factors(std::size_t n, std::size_t local_max) {
  std::vector<std::size_t> primes = fft_prime_factors(n);
  std::sort(primes.rbegin(), primes.rend());
  if (primes.empty() || primes.front() > local_max) return {};
  for (std::size_t passes = 2; passes <= 64; ++passes) {
    // Largest-first assignment to the group with the smallest product keeps groups balanced.
    std::vector<std::size_t> g(passes, 1);
    for (std::size_t p : primes) *std::min_element(g.begin(), g.end()) *= p;
    if (*std::max_element(g.begin(), g.end()) <= local_max) {
      g.erase(std::remove(g.begin(), g.end(), std::size_t{1}), g.end());
      std::sort(g.rbegin(), g.rend());
      return g;
    }
  }
  return {};
}

std::size_t FftShape::local_bytes() const {
  // A real plan's post-processing staged by the group (FFT_POST 3, fft.cl): zbuf's rows of n + 1
  // unless the rows of staged accesses hold whole values.
  const bool zbuf = post == 3 && !(uses_local() && !halve);
  const std::size_t post_bytes = zbuf ? static_cast<std::size_t>(b) * (static_cast<std::size_t>(n) + 1) * 8 : 0;
  if (!uses_local()) return post_bytes;
  const std::size_t shift = halve ? 5 : 4;
  const std::size_t row = halve == 2 ? static_cast<std::size_t>(n) / 2 : static_cast<std::size_t>(n);
  const std::size_t lstride = pad ? row + (row >> shift) + 1 : row;
  return static_cast<std::size_t>(b) * lstride * (halve ? 4 : 8) + post_bytes;
}

bool fft_quarter_radices(const std::vector<int>& radices) {
  return radices.size() >= 2 && std::all_of(radices.begin() + 1, radices.end(), [](int r) { return r % 2 == 0; });
}

bool FftShape::quarter_ok() const {
  return !priv() && in_mode == 0 && out_mode == 0 && !bluestein && fft_quarter_radices(radices);
}

bool FftShape::halve_fallback() {
  if (halve != 2 || quarter_ok()) return false;
  halve = 1;
  return true;
}

std::string FftShape::options() const {
  std::ostringstream o;
  o << "-DFFT_N=" << n << " -DFFT_NPASS=" << radices.size();
  for (std::size_t i = 0; i < radices.size(); ++i) o << " -DFFT_R" << i << "=" << radices[i];
  o << " -DFFT_T=" << t << " -DFFT_B=" << b << " -DFFT_IN_MODE=" << in_mode << " -DFFT_OUT_MODE=" << out_mode
    << " -DFFT_PRE=" << pre << " -DFFT_POST=" << post << " -DFFT_IN_CHECK=" << in_check
    << " -DFFT_OUT_CHECK=" << out_check << " -DFFT_SPLIT=" << split << " -DFFT_BLUESTEIN=" << bluestein
    << " -DFFT_INPLACE=" << inplace << " -DFFT_TWBIG=" << kFftTwiddleBig;
  if (split) o << " -DFFT_SL=" << split_l << " -DFFT_SNS=" << split_ns;
  if (cols) o << " -DFFT_COLS=1";
  if (tfast) o << " -DFFT_TFAST=1";
  if (long_index) o << " -DCLF_LONG_INDEX=1";
  if (in_unit) o << " -DFFT_IN_UNIT=1";
  if (out_unit) o << " -DFFT_OUT_UNIT=1";
  if (in_real) o << " -DFFT_IN_REAL=1";
  if (out_real) o << " -DFFT_OUT_REAL=1";
  if (in_herm > 0) o << " -DFFT_IN_HERM=" << in_herm;
  return o.str();
}

std::string FftShape::summary() const {
  std::ostringstream o;
  o << "radix ";
  if (radices.empty()) o << "-";
  for (std::size_t i = 0; i < radices.size(); ++i) o << (i ? "*" : "") << radices[i];
  o << ", " << t << " work-item" << (t == 1 ? "" : "s") << " x " << b << " transform" << (b == 1 ? "" : "s");
  static const char* modes[] = {"direct", "staged", "staged-across"};
  o << ", load " << modes[in_mode] << ", store " << modes[out_mode];
  if (tfast) o << ", transform-fastest";
  if (cols) o << ", columns";
  if (halve == 2)
    o << ", local memory in quarters";
  else if (halve)
    o << ", halved local memory";
  return o.str();
}

FftShape fft_base_shape(std::size_t n, const ParamMap& p, std::size_t max_wg) {
  FftShape s;
  s.n = static_cast<int>(n);
  s.halve = p.at("FFT_HALVE");
  s.pad = p.at("FFT_PAD");
  const std::size_t wg = std::min<std::size_t>(p.at("FFT_WG"), max_wg == 0 ? 1024 : max_wg);
  if (max_wg == 0) max_wg = 1024;
  if (n <= static_cast<std::size_t>(p.at("FFT_REG")) && n <= 64) {
    s.radices = fft_radices(n, p.at("FFT_RADIX"), p.at("FFT_MIX"));
    s.t = 1;
    s.b = static_cast<int>(std::max<std::size_t>(1, wg));
    return s;
  }
  int radix = p.at("FFT_RADIX");
  for (;;) {
    s.radices = fft_radices(n, radix, p.at("FFT_MIX"));
    // Merging odd factors into one butterfly for the whole length would leave one work-item per
    // transform (and its values staged through local memory): keep the primes' passes then.
    if (s.radices.size() == 1 && p.at("FFT_MIX") > 0) s.radices = fft_radices(n, radix, 0);
    const int rmax = s.radices.empty() ? 1 : *std::max_element(s.radices.begin(), s.radices.end());
    s.t = static_cast<int>(n / rmax);
    if (static_cast<std::size_t>(s.t) <= max_wg || radix >= 16) break;
    radix *= 2;  // fewer, larger passes need fewer work-items
  }
  if (static_cast<std::size_t>(s.t) > max_wg) {
    // More butterflies per work-item: the largest divisor of n that fits one work-group.
    std::size_t t = max_wg;
    while (t > 1 && n % t != 0) --t;
    s.t = static_cast<int>(t);
    if (n / t > 256)
      throw UnsupportedDevice("fft: length " + std::to_string(n) + " needs more than " + std::to_string(max_wg) +
                              " work-items per work-group");
  }
  s.b = static_cast<int>(std::max<std::size_t>(1, wg / s.t));
  // FFT_VPT values per work-item: several butterflies of a pass each, on the largest divisor of
  // n that leaves at least that many values. The transforms per group stay as they were (and
  // with them the local memory); the group gets smaller.
  // Fewer values (a value below the largest radix): the smallest divisor of n that leaves at most
  // that many and fits the group; a pass with fewer butterflies than work-items leaves the rest idle.
  const std::size_t vpt = static_cast<std::size_t>(p.at("FFT_VPT"));
  const std::size_t have = n / static_cast<std::size_t>(s.t);
  if (vpt > have) {
    std::size_t t = std::max<std::size_t>(1, n / vpt);
    while (t > 1 && n % t != 0) --t;
    s.t = static_cast<int>(t);
  } else if (vpt > 0 && vpt < have) {
    std::size_t t = (n + vpt - 1) / vpt;
    while (t <= max_wg && n % t != 0) ++t;
    if (t <= max_wg) s.t = static_cast<int>(t);
  }
  return s;
}

bool fft_fits(const FftShape& s, const DeviceInfo& dev) {
  if (dev.max_work_group_size != 0 && s.work_group() > dev.max_work_group_size) return false;
  if (dev.local_mem_size != 0 && s.local_bytes() > dev.local_mem_size) return false;
  return true;
}

bool fft_fits_quartered(FftShape& s, const DeviceInfo& dev) {
  if (fft_fits(s, dev)) return true;
  if (s.halve == 2 || !s.quarter_ok()) return false;
  FftShape q = s;
  q.halve = 2;
  if (!fft_fits(q, dev)) return false;
  s = q;
  return true;
}

std::size_t fft_local_limit(const ParamMap& p, const DeviceInfo& dev, bool quartered) {
  std::size_t lm = static_cast<std::size_t>(p.at("FFT_LOCAL_MAX"));
  for (; lm > 64; lm /= 2) {
    try {
      FftShape s = fft_base_shape(lm, p, dev.max_work_group_size);
      s.b = 1;
      s.in_mode = 1;  // a staged load: the local memory the kernel may need
      s.halve_fallback();
      if (fft_fits(s, dev)) return lm;
      s.in_mode = 0;  // or direct loads and stores with the exchanges in quarters
      if (quartered && fft_fits_quartered(s, dev)) return lm;
    } catch (const UnsupportedDevice&) {
    }
  }
  return lm;
}

// Passes of at most FFT_PASS_MAX points: a long pass has few transforms per work-group on its
// strided side (16-byte runs for 1024 points in 128 work-items on the H100), so three passes of
// 128 can beat two of 1024.
std::vector<std::size_t> fft_pass_factors(std::size_t n, const ParamMap& params, const DeviceInfo& dev) {
  const std::size_t pass_max =
      std::min(fft_local_limit(params, dev, false), static_cast<std::size_t>(params.at("FFT_PASS_MAX")));
  return fft_global_factors(n, pass_max);
}

}  // namespace clforge::detail
