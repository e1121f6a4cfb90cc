// The FFT tuner's search space of one length (fft_tune_space.hpp): FFT_LOCAL_MAX, FFT_PASS_MAX
// and the work-items from the length, the parameters that act through its passes collapsed to
// one value per distinct set of passes, and for a length run as passes its splits.
#include "fft/fft_tune_space.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "fft/fft_internal.hpp"

namespace clforge::detail {
namespace {

// One representative per group of values with the same key: the reference's value for its
// group, the first legal value for the others.
template <typename Key>
std::vector<int> collapse(const std::vector<int>& legal, int reference, Key key) {
  std::vector<int> out{reference};
  std::vector<decltype(key(reference))> seen{key(reference)};
  for (int v : legal) {
    const auto k = key(v);
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
    seen.push_back(k);
    out.push_back(v);
  }
  return out;
}

using PassesByRadixMix = std::map<std::pair<int, int>, std::vector<int>>;  // (FFT_RADIX, FFT_MIX) -> radices

// The limits and the work-items of length n: FFT_LOCAL_MAX, FFT_PASS_MAX, FFT_CHUNK, FFT_REG, FFT_VPT.
void narrow_limits(Narrowed& v, std::size_t n, const ParamMap& reference) {
  const KernelSpec& spec = kernel_spec("fft");
  int limit = reference.at("FFT_LOCAL_MAX");
  if (static_cast<std::size_t>(limit) < n) {
    const auto& legal = spec.find("FFT_LOCAL_MAX")->legal;  // ascending; fft_variant keeps n within it
    limit = *std::find_if(legal.begin(), legal.end(), [&](int lm) { return static_cast<std::size_t>(lm) >= n; });
  }
  v["FFT_LOCAL_MAX"] = {limit};
  // The pass limit and the chunk size only shape plans longer than one kernel, whose passes use
  // other lengths' entries: one value each.
  v["FFT_PASS_MAX"] = {reference.at("FFT_PASS_MAX")};
  v["FFT_CHUNK"] = {reference.at("FFT_CHUNK")};
  // One transform per work-item in registers when n <= FFT_REG and n <= 64 (fft_base_shape).
  v["FFT_REG"] = collapse(spec.find("FFT_REG")->legal, reference.at("FFT_REG"),
                          [&](int reg) { return n <= static_cast<std::size_t>(reg) && n <= 64; });
  // Values per work-item: the same work-items per transform, under every radix and merging of
  // odd factors, give the same kernels.
  v["FFT_VPT"] = collapse(spec.find("FFT_VPT")->legal, reference.at("FFT_VPT"), [&](int vpt) {
    std::vector<int> t;
    for (int radix : spec.find("FFT_RADIX")->legal)
      for (int mix : spec.find("FFT_MIX")->legal) {
        ParamMap q = reference;
        q["FFT_VPT"] = vpt;
        q["FFT_RADIX"] = radix;
        q["FFT_MIX"] = mix;
        try {
          t.push_back(fft_base_shape(n, q, 1024).t);
        } catch (const std::exception&) {
          t.push_back(-1);
        }
      }
    return t;
  });
}

// FFT_TWIDDLE 3 and 4 are 0 where no pass's table is large, and 2 and 5 where every table of a
// pass with twiddles is, under every radix and merging.
int twiddle_class(int tw, const PassesByRadixMix& passes) {
  if (tw != 3 && tw != 4) return tw;
  bool any = false, all = true;
  for (const auto& [key, rs] : passes) {
    std::size_t ns = 1;
    for (const int r : rs) {
      if (ns > 1) {
        const bool large = fft_large_table(r, ns);
        any = any || large;
        all = all && large;
      }
      ns *= static_cast<std::size_t>(r);
    }
  }
  return !any ? 0 : all ? (tw == 3 ? 2 : 5) : tw;
}

// The parameters that act through n's passes: FFT_HALVE, FFT_TWIDDLE, FFT_DCHAIN, FFT_RADIX, FFT_MIX.
void narrow_passes(Narrowed& v, std::size_t n, const ParamMap& reference) {
  const KernelSpec& spec = kernel_spec("fft");
  // The passes of n under each legal radix and each merging of odd factors (the rules below
  // hold under every one of them).
  const auto& radix_legal = spec.find("FFT_RADIX")->legal;
  const auto& mix_legal = spec.find("FFT_MIX")->legal;
  PassesByRadixMix passes;
  for (int radix : radix_legal)
    for (int mix : mix_legal) passes.emplace(std::make_pair(radix, mix), fft_radices(n, radix, mix));
  const auto passes_by = [&](bool by_radix, int value) {
    std::vector<std::vector<int>> rs;
    for (const auto& [key, r] : passes)
      if ((by_radix ? key.first : key.second) == value) rs.push_back(r);
    return rs;
  };
  // Exchanges in quarters need even radices after the first; elsewhere FFT_HALVE 2 runs as 1.
  const bool quarters =
      std::any_of(passes.begin(), passes.end(), [](const auto& rp) { return fft_quarter_radices(rp.second); });
  v["FFT_HALVE"] = collapse(spec.find("FFT_HALVE")->legal, reference.at("FFT_HALVE"),
                            [&](int h) { return h == 2 && !quarters ? 1 : h; });
  v["FFT_TWIDDLE"] = collapse(spec.find("FFT_TWIDDLE")->legal, reference.at("FFT_TWIDDLE"),
                              [&](int tw) { return twiddle_class(tw, passes); });
  // One or two chains of double twiddle powers differ only where a pass after the first has a
  // radix above 2 (a chain of two products or more).
  const bool chains = std::any_of(passes.begin(), passes.end(), [](const auto& rp) {
    return std::any_of(rp.second.begin() + std::min<std::size_t>(1, rp.second.size()), rp.second.end(),
                       [](int r) { return r > 2; });
  });
  v["FFT_DCHAIN"] =
      collapse(spec.find("FFT_DCHAIN")->legal, reference.at("FFT_DCHAIN"), [&](int c) { return chains ? c : 1; });
  // Radices, and ways of merging odd factors, that split n into the same passes.
  v["FFT_RADIX"] = collapse(radix_legal, reference.at("FFT_RADIX"), [&](int radix) { return passes_by(true, radix); });
  v["FFT_MIX"] = collapse(mix_legal, reference.at("FFT_MIX"), [&](int mix) { return passes_by(false, mix); });
}

// Adds the values of `more` that `into` lacks, after its own.
void add_values(std::vector<int>& into, const std::vector<int>& more) {
  for (const int x : more)
    if (std::find(into.begin(), into.end(), x) == into.end()) into.push_back(x);
}

// A length run as passes: FFT_PASS_MAX one value per way of splitting n into passes (fewest
// passes first); the
// kernels' parameters the union, over the pass lengths of the reference's split, of the values
// that can change a kernel of that length (each pass is one; the pass lengths of every split
// would make the space about six times larger: 2^20 in 128·128·64 or 32·32·32·32 too); FFT_LOCAL_MAX and
// FFT_CHUNK the reference's, and FFT_COLS. The passes read or write strided on one side at least:
// FFT_STAGE and FFT_ACROSS keep every value.
Narrowed fft_narrow_passes(std::size_t n, const ParamMap& reference, const DeviceInfo& dev) {
  const KernelSpec& spec = kernel_spec("fft");
  const auto split = [&](int pass_max) {
    ParamMap q = reference;
    q["FFT_PASS_MAX"] = pass_max;
    return fft_pass_factors(n, q, dev);
  };
  Narrowed v;
  // The reference's split, then the others by their number of passes (the least traffic first),
  // the most even of equal counts first: the order in which the tuner tries them on its best
  // configuration (TuneTarget::seed_axes).
  std::vector<int>& pass_max = v["FFT_PASS_MAX"] =
      collapse(spec.find("FFT_PASS_MAX")->legal, reference.at("FFT_PASS_MAX"), split);
  std::stable_sort(pass_max.begin() + 1, pass_max.end(),
                   [&](int a, int b) { return split(a).size() < split(b).size(); });
  std::vector<std::size_t> lengths;
  for (const std::size_t len : split(reference.at("FFT_PASS_MAX")))
    if (std::find(lengths.begin(), lengths.end(), len) == lengths.end()) lengths.push_back(len);
  for (const std::size_t len : lengths) {
    Narrowed one;
    narrow_limits(one, len, reference);
    narrow_passes(one, len, reference);
    for (const char* name : {"FFT_REG", "FFT_VPT", "FFT_HALVE", "FFT_TWIDDLE", "FFT_DCHAIN", "FFT_RADIX", "FFT_MIX"})
      add_values(v[name], one[name]);
  }
  v["FFT_LOCAL_MAX"] = {reference.at("FFT_LOCAL_MAX")};
  v["FFT_CHUNK"] = {reference.at("FFT_CHUNK")};
  v["FFT_COLS"] = {reference.at("FFT_COLS")};
  return v;
}

}  // namespace

// Values that cannot change the kernel of length n collapse to one; FFT_LOCAL_MAX stays at or
// above n (a smaller limit would split the length into passes using other lengths' entries).
// A length longer than every kernel searches its passes (fft_narrow_passes).
Narrowed fft_narrow_length(std::size_t n, bool strided, bool passes, const ParamMap& reference, const DeviceInfo& dev) {
  const KernelSpec& spec = kernel_spec("fft");
  if (passes) return fft_narrow_passes(n, reference, dev);
  Narrowed v;
  narrow_limits(v, n, reference);
  narrow_passes(v, n, reference);
  // Contiguous batches have no strided side: the run across transforms is never used,
  // transform-fastest numbering never chosen (FFT_STAGE 3 is 2), nor the column form.
  if (!strided) {
    v["FFT_ACROSS"] = {reference.at("FFT_ACROSS")};
    v["FFT_COLS"] = {reference.at("FFT_COLS")};
    v["FFT_STAGE"] =
        collapse(spec.find("FFT_STAGE")->legal, reference.at("FFT_STAGE"), [](int st) { return st == 3 ? 2 : st; });
  }
  return v;
}

}  // namespace clforge::detail
