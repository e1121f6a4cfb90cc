// FFT plan: argument checks, the decomposition of a plan into fft_local launches (one kernel,
// several passes through global memory, or Bluestein), twiddle and chirp tables, scratch
// buffers, and execution.
//
// Kernel kinds of a plan (each a "stage", all the same entry point with different constants):
//   single      n <= local limit, smooth: the whole batch in one launch
//   passes      smooth n = R_1 * ... * R_P: pass p is a batch of R_p-point FFTs over the
//               Stockham positions (input stride n / R_p, twiddle on load, output split by NS)
//   bluestein   otherwise: one kernel (chirp, FFT, spectrum, FFT, chirp) when M = 2^k >= 2n - 1
//               fits, else the passes of two M-point FFTs, M the smallest 7-smooth length
//               >= 2n - 1, with the chirps fused into the first load and the last store and the
//               spectrum into the store between them.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>

#include "clforge/fft.hpp"
#include "fft/fft_internal.hpp"
#include "fft/fft_math.hpp"
#include "runtime/errors.hpp"
#include "runtime/launch.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"

namespace clforge {

namespace {

using detail::FftShape;
constexpr const char* kRoutine = "fft";
constexpr std::size_t kScratchCap = std::size_t{256} << 20;  // bytes per scratch buffer

enum class Buf { User, A, B };
// Sign rules for the imaginary part on load / store: +1, the direction, -1, minus the direction.
enum class Sign { Plus, Dir, Minus, MinusDir };

float sign_value(Sign s, int dir) {
  switch (s) {
    case Sign::Plus: return 1.0f;
    case Sign::Dir: return static_cast<float>(dir);
    case Sign::Minus: return -1.0f;
    case Sign::MinusDir: return static_cast<float>(-dir);
  }
  return 1.0f;
}

struct Stage {
  FftShape shape;
  Configuration cfg;
  cl::Program program;
  Buf in_buf = Buf::User, out_buf = Buf::User;
  // Per-chunk layout (user-side offsets are shifted by the chunk's first transform).
  long long in_off = 0, in_dh = 0, in_S = 1;
  int in_len = INT_MAX;
  long long out_off = 0, out_dh = 0, out_S = 1;
  int out_len = INT_MAX;
  Sign cj_in = Sign::Dir, cj_out = Sign::Dir;
  bool scaled = false;  // the last stage applies the plan's scaling
  cl::Buffer twl, tw_hi, tw_lo, aux_in, aux_out, bq, tw_b;
  int tw_shift = 0;
  std::string role;
};

cl_float2 to_float2(const detail::cdouble& v) {
  cl_float2 f;
  f.s[0] = static_cast<float>(v.real());
  f.s[1] = static_cast<float>(v.imag());
  return f;
}

std::vector<cl_float2> to_float2(const std::vector<detail::cdouble>& v) {
  std::vector<cl_float2> f(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) f[i] = to_float2(v[i]);
  return f;
}

// exp(-2 pi i k / n) in double, folded to a small argument.
detail::cdouble root(std::size_t k, std::size_t n) { return detail::unit_root(k, n, -1); }

// Complex elements a layout spans from its offset (checked: names the stride or distance that
// wraps), and the end of that span (offset included).
std::size_t layout_span(const char* side, const FftLayout& l, std::size_t n, std::size_t batch) {
  const std::string s(side);
  const std::string d = s + ".distance", t = s + ".stride";
  return detail::region_span(kRoutine, {{batch, l.distance, d.c_str()}, {n, l.stride, t.c_str()}});
}
std::size_t span_of(const FftLayout& l, std::size_t n, std::size_t batch) {
  return detail::add_or_throw(l.offset, layout_span("layout", l, n, batch), kRoutine, "offset plus layout extent");
}

// Called after the spans were checked, so the products below cannot wrap.
bool transforms_disjoint(const FftLayout& l, std::size_t n, std::size_t batch) {
  if (batch == 1 || n == 1) return batch == 1 || l.distance >= 1;
  return l.distance >= (n - 1) * l.stride + 1 || l.stride >= (batch - 1) * l.distance + 1;
}

// Load or store mode of one side: elem_stride is the distance between a transform's elements,
// adjacency the distance between the group's neighbouring transforms (memory units).
int choose_mode(int stage_param, std::size_t elem_stride, std::size_t adjacency, const FftShape& s) {
  if (stage_param == 2 || stage_param == 3) return 0;
  if (stage_param == 1) return elem_stride == 1 ? 1 : 2;
  if (s.tfast) return elem_stride == 1 ? 1 : 0;  // across transforms: direct, coalesced by the numbering
  if (elem_stride == 1) return (s.t >= 8 || s.b == 1) ? 0 : 1;
  if (adjacency == 1 && s.b > 1) return 2;
  return 0;
}

}  // namespace

struct FftPlan::Impl {
  cl::CommandQueue queue;
  detail::QueueContext qc;
  FftDesc desc;
  bool in_order = true;
  std::vector<Stage> stages;
  std::size_t chunk = 1;
  cl::Buffer scratch[2];
  std::size_t scratch_bytes = 0;
  cl::Buffer dummy;
  std::string how;
  float scale_fwd = 1.0f, scale_inv = 1.0f;

  // A read-only table of 8-byte slots (cl_float2 values, or halves of cl_double2 ones).
  cl::Buffer table(const std::vector<cl_float2>& data) {
    return detail::upload(qc.context, CL_MEM_READ_ONLY, data.data(), data.size() * sizeof(cl_float2),
                          "fft twiddle table");
  }

  // Tables built once per plan: stages with the same length or the same passes share them (the
  // two 1024-point passes of 2^20, the two phases of a Bluestein plan).
  std::map<std::size_t, cl::Buffer> root_tables;
  std::map<std::pair<std::vector<int>, int>, cl::Buffer> pass_tables;

  // W_n^k, k < n, as float2.
  cl::Buffer twiddles(std::size_t n) {
    if (const auto it = root_tables.find(n); it != root_tables.end()) return it->second;
    std::vector<detail::cdouble> w(n);
    for (std::size_t k = 0; k < n; ++k) w[k] = root(k, n);
    return root_tables.emplace(n, table(to_float2(w))).first->second;
  }

  // The in-kernel twiddles of a kernel with these radices, in the kernel's order (fft.cl,
  // fft_twiddles), in 8-byte slots: pass by pass, W_(NS*R)^(r * jj) at (r - 1) * NS + jj after the
  // earlier passes, or for a pass with twiddles in double (FFT_TWIDDLE 2, and 3 where the pass's
  // table is large: fft_double_twiddles) only r = 1 in double, two slots per jj, or for a pass of
  // products (FFT_TWIDDLE 5, and 4 where it is large: fft_product_twiddles) W^(k * jj) for k = 1
  // ... S - 1, then k = S, 2S, ... < R, k-major.
  cl::Buffer pass_twiddles(const std::vector<int>& radices, int mode) {
    const auto key = std::make_pair(radices, mode);
    if (const auto it = pass_tables.find(key); it != pass_tables.end()) return it->second;
    std::vector<cl_float2> t;
    std::size_t ns = 1;
    for (const int r : radices) {
      const std::size_t nr = ns * static_cast<std::size_t>(r);
      if (detail::fft_product_twiddles(mode, r, ns)) {
        const int S = detail::fft_product_split(r);
        std::vector<std::size_t> powers;
        for (int l = 1; l < S; ++l) powers.push_back(static_cast<std::size_t>(l));
        for (int h = S; h < r; h += S) powers.push_back(static_cast<std::size_t>(h));
        for (const std::size_t k : powers)
          for (std::size_t jj = 0; jj < ns; ++jj) t.push_back(to_float2(root(k * jj, nr)));
      } else if (detail::fft_double_twiddles(mode, r, ns)) {
        for (std::size_t jj = 0; jj < ns; ++jj) {
          const detail::cdouble w = root(jj, nr);
          const cl_double2 d{{w.real(), w.imag()}};
          cl_float2 slots[2];
          static_assert(sizeof(slots) == sizeof(d), "a double2 fills two float2 slots");
          std::memcpy(slots, &d, sizeof(d));
          t.insert(t.end(), slots, slots + 2);
        }
      } else {
        for (std::size_t k = 1; k < static_cast<std::size_t>(r); ++k)
          for (std::size_t jj = 0; jj < ns; ++jj) t.push_back(to_float2(root(k * jj, nr)));
      }
      ns = nr;
    }
    if (t.empty()) t.push_back(to_float2(root(0, 1)));
    return pass_tables.emplace(key, table(t)).first->second;
  }

  // The kernel of one stage: shape from the length and the configuration, modes from the
  // layout (element stride and the distance between the group's transforms, in memory units).
  Stage make_stage(std::size_t len, const Configuration& cfg, std::size_t in_es, std::size_t in_adj,
                   std::size_t out_es, std::size_t out_adj, bool bluestein = false) {
    const DeviceInfo& dev = *qc.info;
    Stage s;
    s.cfg = cfg;
    s.shape = detail::fft_base_shape(len, cfg.values, dev.max_work_group_size);
    s.shape.bluestein = bluestein;
    const int stage_param = cfg.at("FFT_STAGE");
    const int run = cfg.at("FFT_ACROSS");  // transforms per group wanted on a strided side
    auto modes = [&] {
      s.shape.in_mode = choose_mode(stage_param, in_es, in_adj, s.shape);
      s.shape.out_mode = choose_mode(stage_param, out_es, out_adj, s.shape);
    };
    modes();
    // Staging across transforms coalesces B transforms' elements: aim for B >= FFT_ACROSS (runs
    // of 8 * B bytes) by giving each work-item more butterflies (up to 32 points) when a
    // transform needs many.
    const bool across = stage_param != 2 && ((in_es != 1 && in_adj == 1) || (out_es != 1 && out_adj == 1));
    if (across && s.shape.b < run && !s.shape.priv()) {
      const std::size_t wg = std::min<std::size_t>(static_cast<std::size_t>(cfg.at("FFT_WG")),
                                                   dev.max_work_group_size != 0 ? dev.max_work_group_size : 1024);
      std::size_t t = std::max<std::size_t>(1, wg / static_cast<std::size_t>(run));
      while (t > 1 && (len % t != 0 || len / t > 32)) --t;
      if (t > 1 && t < static_cast<std::size_t>(s.shape.t)) {
        s.shape.t = static_cast<int>(t);
        s.shape.b = static_cast<int>(std::max<std::size_t>(1, wg / t));
      }
    }
    // Automatic staging of a side across transforms: number the group's work-items
    // transform-fastest instead, so that its direct accesses coalesce (B consecutive transforms'
    // element e are B consecutive values) with no exchange through local memory; a side whose
    // transforms are contiguous is then staged transform by transform (FFT_STAGE 0) or direct
    // (3: a warp's 32 lanes cover 32 / B consecutive elements of each of B transforms, runs of
    // 256 / B bytes, and the exchanges can run in quarters; with fewer transforms than
    // FFT_ACROSS too, since the side is never staged).
    s.shape.tfast = across && !s.shape.priv() &&
                    ((stage_param == 0 && s.shape.b >= run) || (stage_param == 3 && s.shape.b > 1));
    for (;;) {
      modes();
      if (s.shape.halve_fallback()) s.cfg.values["FFT_HALVE"] = 1;
      if (detail::fft_fits(s.shape, dev)) break;
      const bool across_now = s.shape.tfast || s.shape.in_mode == 2 || s.shape.out_mode == 2;
      if (across_now && s.shape.b <= run && !s.shape.halve) {
        s.shape.halve = 1;  // keep the transforms for coalescing, halve the local memory instead
        s.cfg.values["FFT_HALVE"] = 1;
        s.cfg.notes.push_back("FFT_HALVE=1 to keep " + std::to_string(s.shape.b) +
                              " transforms per work-group for length " + std::to_string(len));
      } else if (s.shape.b > 1) {
        s.shape.b /= 2;
      } else if (!s.shape.halve) {
        s.shape.halve = 1;
        s.cfg.values["FFT_HALVE"] = 1;
        s.cfg.notes.push_back("FFT_HALVE=1 so that length " + std::to_string(len) + " fits local memory");
      } else if (s.shape.halve == 1 && s.shape.quarter_ok()) {
        s.shape.halve = 2;
        s.cfg.values["FFT_HALVE"] = 2;
        s.cfg.notes.push_back("FFT_HALVE=2 so that length " + std::to_string(len) + " fits local memory");
      } else {
        throw UnsupportedDevice("fft: length " + std::to_string(len) + " does not fit device \"" + dev.name +
                                "\" (" + std::to_string(s.shape.local_bytes()) + " bytes of local memory, " +
                                std::to_string(s.shape.work_group()) + " work-items)");
      }
    }
    if (s.cfg.at("FFT_TWIDDLE") != 1 && len > 1) s.twl = pass_twiddles(s.shape.radices, s.cfg.at("FFT_TWIDDLE"));
    return s;
  }

  void build(const Tuning& tuning);
  void compile();
  void run(int dir, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait, cl::Event* event) const;
};

void FftPlan::Impl::build(const Tuning& tuning) {
  const DeviceInfo& dev = *qc.info;
  const std::size_t n = desc.n, batch = desc.batch;
  const FftLayout& li = desc.in;
  const FftLayout& lo = desc.out;
  const Configuration top = resolve_configuration(kRoutine, std::to_string(n), dev, tuning);
  std::ostringstream how_s;
  how_s << "n=" << n << " batch=" << batch << ": ";

  // One kernel of the length (smooth) or of its power-of-two Bluestein length, where the limit
  // allows it and make_stage fits it with the layout's own access modes (a length that fits only
  // with its exchanges in quarters does not when the layout needs staged accesses); else passes.
  auto single_stage = [&](std::size_t len, const Configuration& cfg, bool bluestein) -> std::optional<Stage> {
    if (len > detail::fft_local_limit(cfg.values, dev, !bluestein)) return std::nullopt;
    try {
      Stage s = make_stage(len, cfg, li.stride, li.distance, lo.stride, lo.distance, bluestein);
      s.in_off = static_cast<long long>(li.offset);
      s.in_dh = static_cast<long long>(li.distance);
      s.in_S = static_cast<long long>(li.stride);
      s.out_off = static_cast<long long>(lo.offset);
      s.out_dh = static_cast<long long>(lo.distance);
      s.out_S = static_cast<long long>(lo.stride);
      s.scaled = true;
      s.shape.inplace = desc.in_place;
      return s;
    } catch (const UnsupportedDevice&) {
      return std::nullopt;
    }
  };

  const bool smooth = detail::fft_smooth(n);
  std::size_t ntot = n;  // length of the FFTs the passes compute (M for Bluestein)
  std::optional<Stage> single;
  if (smooth) {
    single = single_stage(n, top, false);
  } else {
    ntot = detail::fft_bluestein_length(n);
    single = single_stage(ntot, resolve_configuration(kRoutine, std::to_string(ntot), dev, tuning), true);
  }
  if (single && smooth) {
    single->role = "single kernel";
    stages.push_back(std::move(*single));
    how_s << "one kernel";
  } else if (single) {
    Stage s = std::move(*single);
    s.in_len = static_cast<int>(n);
    s.out_len = static_cast<int>(n);
    s.shape.in_check = s.shape.out_check = true;
    s.shape.pre = 2;
    s.shape.post = 1;
    s.cj_in = Sign::Dir;
    s.cj_out = Sign::MinusDir;
    s.role = "Bluestein in one kernel, M=" + std::to_string(ntot);
    stages.push_back(std::move(s));
    how_s << "Bluestein, one kernel of " << ntot << " points";
  } else {
    // Passes through global memory ---------------------------------------------------------
    if (!smooth) ntot = detail::fft_bluestein_length_smooth(n);
    const Configuration cfg_t = smooth ? top : resolve_configuration(kRoutine, std::to_string(ntot), dev, tuning);
    // Passes of at most FFT_PASS_MAX points: a long pass has few transforms per work-group on
    // its strided side (16-byte runs for 1024 points in 128 work-items on the H100), so three
    // passes of 128 can beat two of 1024.
    const std::size_t pass_max = std::min(detail::fft_local_limit(cfg_t.values, dev, false),
                                          static_cast<std::size_t>(cfg_t.at("FFT_PASS_MAX")));
    const std::vector<std::size_t> factors = detail::fft_global_factors(ntot, pass_max);
    if (factors.size() < 2)
      throw UnsupportedDevice("fft: no decomposition of length " + std::to_string(ntot) + " fits device \"" +
                              dev.name + "\"");
    const int phases = smooth ? 1 : 2;
    const std::size_t P = factors.size();
    std::size_t shift = 0;
    while ((std::size_t{1} << (2 * shift)) < ntot) ++shift;  // lo table 2^shift >= sqrt(ntot)
    std::vector<detail::cdouble> hi_t((ntot + (std::size_t{1} << shift) - 1) >> shift), lo_t(std::size_t{1} << shift);
    for (std::size_t q = 0; q < hi_t.size(); ++q) hi_t[q] = root(q << shift, ntot);
    for (std::size_t r = 0; r < lo_t.size(); ++r) lo_t[r] = root(r, ntot);
    const cl::Buffer tw_hi = table(to_float2(hi_t)), tw_lo = table(to_float2(lo_t));
    how_s << (smooth ? "" : "Bluestein M=" + std::to_string(ntot) + ", 2 x ") << P << " passes of ";
    for (std::size_t i = 0; i < P; ++i) how_s << (i ? "*" : "") << factors[i];
    std::map<std::pair<std::size_t, bool>, Configuration> cfgs;  // by (length, later pass)
    int stage_index = 0;
    const int n_stages = static_cast<int>(phases * P);
    for (int ph = 0; ph < phases; ++ph) {
      std::size_t ns = 1;
      for (std::size_t p = 0; p < P; ++p, ++stage_index) {
        const std::size_t r = factors[p];
        const auto key = std::make_pair(r, p > 0);
        if (!cfgs.count(key))
          cfgs.emplace(key, resolve_configuration(kRoutine, detail::fft_pass_variant(r, p > 0), dev, tuning));
        const bool first = stage_index == 0, last = stage_index == n_stages - 1;
        const std::size_t in_mem_s = first ? li.stride : 1, out_mem_s = last ? lo.stride : 1;
        Stage s = make_stage(r, cfgs.at(key), (ntot / r) * in_mem_s, in_mem_s, ns * out_mem_s, out_mem_s);
        s.shape.split = true;
        s.shape.split_l = static_cast<int>(ntot / r);
        s.shape.split_ns = static_cast<int>(ns);
        s.in_buf = first ? Buf::User : (stage_index - 1) % 2 == 0 ? Buf::A : Buf::B;
        s.out_buf = last ? Buf::User : stage_index % 2 == 0 ? Buf::A : Buf::B;
        if (first) {
          s.in_off = static_cast<long long>(li.offset);
          s.in_dh = static_cast<long long>(li.distance);
          s.in_S = static_cast<long long>(li.stride);
        } else {
          s.in_dh = static_cast<long long>(ntot);
        }
        if (last) {
          s.out_off = static_cast<long long>(lo.offset);
          s.out_dh = static_cast<long long>(lo.distance);
          s.out_S = static_cast<long long>(lo.stride);
        } else {
          s.out_dh = static_cast<long long>(ntot);
        }
        if (p > 0) {
          s.shape.pre = 1;
          s.tw_hi = tw_hi;
          s.tw_lo = tw_lo;
          s.tw_shift = static_cast<int>(shift);
          // Direct loads split the pass twiddle per butterfly (fft.cl, FFT_PRE 3): W_(R0*NS)^k.
          if (s.shape.in_mode == 0 && s.cfg.at("FFT_TWIDDLE") != 1) {
            const std::size_t nb = static_cast<std::size_t>(s.shape.radices.front()) * ns;
            s.shape.pre = 3;
            s.tw_b = twiddles(nb);
          }
        }
        s.cj_in = p == 0 && ph == 0 ? Sign::Dir : Sign::Plus;
        s.cj_out = Sign::Plus;
        if (smooth) {
          if (p == P - 1) s.cj_out = Sign::Dir;
        } else {
          if (ph == 0 && p == 0) {  // chirp and zero padding on the user's input
            s.shape.pre = 2;
            s.shape.in_check = true;
            s.in_len = static_cast<int>(n);
          }
          if (ph == 0 && p == P - 1) {  // spectrum of the chirp kernel, then conjugate
            s.shape.post = 1;
            s.cj_out = Sign::Minus;
          }
          if (ph == 1 && p == P - 1) {  // conjugate chirp, result conjugated back, length n
            s.shape.post = 1;
            s.shape.out_check = true;
            s.out_len = static_cast<int>(n);
            s.cj_out = Sign::MinusDir;
          }
        }
        s.scaled = last;
        s.role = std::string(phases == 2 ? (ph == 0 ? "Bluestein forward " : "Bluestein inverse ") : "") + "pass " +
                 std::to_string(p + 1) + "/" + std::to_string(P) + " (" + std::to_string(r) + " points)";
        stages.push_back(std::move(s));
        ns *= r;
      }
    }
    // Scratch: the batch runs in chunks of at most FFT_CHUNK MiB (kScratchCap) per buffer, every
    // pass of a chunk before the next chunk.
    const std::size_t per = ntot * sizeof(cl_float2);
    std::size_t cap = cfg_t.at("FFT_CHUNK") > 0 ? static_cast<std::size_t>(cfg_t.at("FFT_CHUNK")) << 20 : kScratchCap;
    if (dev.max_alloc_size != 0) cap = std::min<std::size_t>(cap, dev.max_alloc_size);
    chunk = std::max<std::size_t>(1, std::min<std::size_t>(batch, cap / per));
    while (chunk > 1 && chunk * ntot > static_cast<std::size_t>(INT_MAX)) chunk /= 2;
    const int buffers = n_stages > 2 ? 2 : 1;
    for (int i = 0; i < buffers; ++i)
      scratch[i] = detail::device_buffer(qc.context, CL_MEM_READ_WRITE, chunk * per, "fft scratch");
    scratch_bytes = buffers * chunk * per;
  }

  // Bluestein tables: chirp w_k = exp(-pi i k^2 / n), its conjugate, and the kernel spectrum.
  if (!smooth) {
    std::vector<detail::cdouble> w(n), wc(n), b(ntot);
    for (std::size_t k = 0; k < n; ++k) {
      const unsigned long long q = (static_cast<unsigned long long>(k) * k) % (2ull * n);
      w[k] = root(static_cast<std::size_t>(q), 2 * n);
      wc[k] = std::conj(w[k]);
    }
    b[0] = wc[0];
    for (std::size_t k = 1; k < n; ++k) b[k] = b[ntot - k] = wc[k];
    std::vector<detail::cdouble> bq = detail::fft_double(b, -1);
    for (auto& v : bq) v /= static_cast<double>(ntot);
    const cl::Buffer bw = table(to_float2(w)), bwc = table(to_float2(wc)), bbq = table(to_float2(bq));
    for (std::size_t i = 0; i < stages.size(); ++i) {
      Stage& s = stages[i];
      s.aux_in = bw;
      s.bq = bbq;
      s.aux_out = (stages.size() == 1 || i == stages.size() - 1) ? bwc : bbq;
    }
  }

  if (stages.size() == 1) chunk = std::min<std::size_t>(batch, std::size_t{1} << 30);
  // 64-bit indices when a user-side address can pass 2^31 - 1.
  const bool long_index = span_of(li, n, batch) > static_cast<std::size_t>(INT_MAX) ||
                          span_of(lo, n, batch) > static_cast<std::size_t>(INT_MAX);
  for (auto& s : stages) {
    s.shape.long_index = long_index;
    s.shape.in_unit = s.in_S == 1;
    s.shape.out_unit = s.out_S == 1;
  }
  for (std::size_t i = 0; i < stages.size(); ++i) how_s << "\n  " << stages[i].role << ": " << stages[i].shape.summary();
  how = how_s.str();
}

void FftPlan::Impl::compile() {
  const detail::KernelSpec& spec = detail::kernel_spec(kRoutine);
  for (auto& s : stages) {
    // The program depends on the routine constants (which already encode the radices, the
    // work-group and the modes) and on the parameters the kernel reads: the launcher-only ones
    // stay out of the build options (ParamInfo::launcher_only), and the local-memory ones of a
    // kernel without local memory take their declared defaults, so equal kernels share one program.
    Configuration key = s.cfg;
    for (const char* name : {"FFT_HALVE", "FFT_PAD"})
      if (!s.shape.uses_local()) key.values[name] = spec.find(name)->default_value;
    s.program = detail::get_program(qc, spec, key, s.shape.options());
  }
}

void FftPlan::Impl::run(int dir, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait,
                        cl::Event* event) const {
  using detail::require;
  const char* R = kRoutine;
  const std::size_t n = desc.n, batch = desc.batch;
  const std::size_t in_span = detail::require_extent(R, "in", in, desc.in.offset, layout_span("in", desc.in, n, batch),
                                                    sizeof(cl_float2));
  const std::size_t out_span = detail::require_extent(R, "out", out, desc.out.offset,
                                                     layout_span("out", desc.out, n, batch), sizeof(cl_float2));
  if (desc.in_place) {
    require(in() == out(), R, "in-place plan: in and out must be the same buffer");
  } else if (in() == out()) {
    const std::size_t a0 = desc.in.offset, a1 = in_span, b0 = desc.out.offset, b1 = out_span;
    require(a1 <= b0 || b1 <= a0, R,
            "out-of-place plan: in and out are the same buffer and their ranges overlap (use an in-place plan)");
  }

  const float scale = dir > 0 ? scale_fwd : scale_inv;
  std::vector<cl::Event> deps = wait;
  const std::size_t chunks = (batch + chunk - 1) / chunk;
  const std::size_t launches = chunks * stages.size();
  std::size_t index = 0;
  for (std::size_t c0 = 0; c0 < batch; c0 += chunk) {
    const std::size_t cnt = std::min(chunk, batch - c0);
    for (const Stage& s : stages) {
      cl::Kernel k = detail::get_kernel(s.program, "fft_local");
      const cl::Buffer& bin = s.in_buf == Buf::User ? in : scratch[s.in_buf == Buf::A ? 0 : 1];
      const cl::Buffer& bout = s.out_buf == Buf::User ? out : scratch[s.out_buf == Buf::A ? 0 : 1];
      const long long in_off = s.in_off + (s.in_buf == Buf::User ? static_cast<long long>(c0 * desc.in.distance) : 0);
      const long long out_off =
          s.out_off + (s.out_buf == Buf::User ? static_cast<long long>(c0 * desc.out.distance) : 0);
      const cl_int total = static_cast<cl_int>(cnt * s.shape.split_l);
      auto idx = [&](cl_uint i, long long v) {
        const cl_int st = s.shape.long_index ? k.setArg(i, static_cast<cl_long>(v)) : k.setArg(i, static_cast<cl_int>(v));
        if (st != CL_SUCCESS) throw OpenCLError(st, "clSetKernelArg", "fft argument " + std::to_string(i));
      };
      detail::set_args(k, total, bin);
      idx(2, in_off);
      idx(3, s.in_dh);
      idx(4, s.in_S);
      detail::set_args_from(k, 5, static_cast<cl_int>(s.in_len), bout);
      idx(7, out_off);
      idx(8, s.out_dh);
      idx(9, s.out_S);
      detail::set_args_from(k, 10, static_cast<cl_int>(s.out_len), sign_value(s.cj_in, dir), sign_value(s.cj_out, dir),
                            s.scaled ? scale : 1.0f, s.twl() ? s.twl : dummy, s.tw_hi() ? s.tw_hi : dummy,
                            s.tw_lo() ? s.tw_lo : dummy, static_cast<cl_int>(s.tw_shift),
                            s.aux_in() ? s.aux_in : dummy, s.aux_out() ? s.aux_out : dummy, s.bq() ? s.bq : dummy,
                            s.tw_b() ? s.tw_b : dummy);
      const std::size_t wg = s.shape.work_group();
      const std::size_t groups = (static_cast<std::size_t>(total) + s.shape.b - 1) / s.shape.b;
      const bool last = ++index == launches;
      cl::Event e;
      const bool want = !in_order || (last && event != nullptr);
      detail::launch(const_cast<cl::CommandQueue&>(queue), k, cl::NDRange(groups * wg), cl::NDRange(wg),
                     deps.empty() ? nullptr : &deps, want ? &e : nullptr, s.role);
      deps.clear();
      if (!in_order) deps.push_back(e);
      if (last && event != nullptr) *event = e;
    }
  }
}

namespace {

// The description with its arguments checked and the default distances filled in.
FftDesc checked_desc(const FftDesc& d) {
  using detail::require;
  const char* R = kRoutine;
  require(d.n >= 1, R, "n must be at least 1 (got 0)");
  require(d.batch >= 1, R, "batch must be at least 1 (got 0)");
  require(d.n <= (std::size_t{1} << 27), R, "n must be at most 2^27 (got " + std::to_string(d.n) + ")");
  require(d.batch <= static_cast<std::size_t>(INT_MAX), R, "batch must be below 2^31");
  require(d.n <= (std::size_t{1} << 23) || detail::fft_smooth(d.n), R,
          "lengths with a prime factor above 13 (Bluestein) must be at most 2^23 (got " + std::to_string(d.n) + ")");
  require(d.in.stride >= 1, R, "in.stride must be at least 1 (got 0)");
  FftDesc desc = d;
  if (desc.in.distance == 0) desc.in.distance = detail::mul_or_throw(desc.n, desc.in.stride, R, "n * in.stride");
  if (desc.in_place) {
    const FftLayout& o = d.out;
    const bool untouched = o.stride == 1 && o.distance == 0 && o.offset == 0;
    const bool same = o.stride == d.in.stride && (o.distance == d.in.distance || o.distance == desc.in.distance) &&
                      o.offset == d.in.offset;
    require(untouched || same, R, "in-place plan: the output layout must equal the input layout (or be left default)");
    desc.out = desc.in;
  } else {
    require(desc.out.stride >= 1, R, "out.stride must be at least 1 (got 0)");
    if (desc.out.distance == 0) desc.out.distance = detail::mul_or_throw(desc.n, desc.out.stride, R, "n * out.stride");
  }
  // Spans first (checked arithmetic), so that the disjointness test below cannot wrap.
  const std::size_t big = std::size_t{1} << 40;
  for (const auto& [side, l] : {std::pair<const char*, const FftLayout*>{"in", &desc.in}, {"out", &desc.out}}) {
    const std::size_t end = detail::add_or_throw(l->offset, layout_span(side, *l, desc.n, desc.batch), R,
                                                 std::string(side) + ".offset plus the layout's extent");
    require(end < big, R, std::string(side) + " layout spans more than 2^40 elements (offset " +
                              std::to_string(l->offset) + ", stride " + std::to_string(l->stride) + ", distance " +
                              std::to_string(l->distance) + ")");
  }
  require(transforms_disjoint(desc.out, desc.n, desc.batch), R,
          std::string(desc.in_place ? "in-place layout" : "output layout") + " makes transforms overlap (stride " +
              std::to_string(desc.out.stride) + ", distance " + std::to_string(desc.out.distance) + ", n " +
              std::to_string(desc.n) + ", batch " + std::to_string(desc.batch) +
              "): need distance >= (n-1)*stride+1 or stride >= (batch-1)*distance+1");
  return desc;
}

}  // namespace

FftPlan::FftPlan(cl::CommandQueue& queue, const FftDesc& d, const Tuning& tuning) : impl_(std::make_unique<Impl>()) {
  const FftDesc desc = checked_desc(d);
  detail::check_override_names(kRoutine, tuning, {kRoutine});
  Impl& im = *impl_;
  im.queue = queue;
  im.qc = detail::queue_context_of(queue);
  im.desc = desc;
  cl_command_queue_properties props = 0;
  detail::check(queue.getInfo(CL_QUEUE_PROPERTIES, &props), "clGetCommandQueueInfo");
  im.in_order = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
  auto factor = [&](FftScaling s) {
    switch (s) {
      case FftScaling::None: return 1.0;
      case FftScaling::OverN: return 1.0 / static_cast<double>(desc.n);
      case FftScaling::OverSqrtN: return 1.0 / std::sqrt(static_cast<double>(desc.n));
    }
    return 1.0;
  };
  im.scale_fwd = static_cast<float>(factor(desc.forward_scaling));
  im.scale_inv = static_cast<float>(factor(desc.inverse_scaling));
  im.build(tuning);
  im.dummy = detail::device_buffer(im.qc.context, CL_MEM_READ_WRITE, 16, "fft placeholder");
  im.compile();
}

void detail::fft_build_programs(const QueueContext& qc, const FftDesc& desc, const Tuning& tuning) {
  FftPlan::Impl im;
  im.qc = qc;
  im.desc = checked_desc(desc);
  im.build(tuning);
  im.compile();
}

FftPlan::~FftPlan() = default;
FftPlan::FftPlan(FftPlan&&) noexcept = default;
FftPlan& FftPlan::operator=(FftPlan&&) noexcept = default;

void FftPlan::forward(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list, cl::Event* event) const {
  impl_->run(+1, in, out, wait_list, event);
}
void FftPlan::inverse(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list, cl::Event* event) const {
  impl_->run(-1, in, out, wait_list, event);
}
void FftPlan::forward(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  detail::require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  impl_->run(+1, data, data, wait_list, event);
}
void FftPlan::inverse(const cl::Buffer& data, const EventList& wait_list, cl::Event* event) const {
  detail::require(impl_->desc.in_place, kRoutine, "the one-buffer form needs an in-place plan");
  impl_->run(-1, data, data, wait_list, event);
}

const FftDesc& FftPlan::desc() const { return impl_->desc; }
std::string FftPlan::describe() const { return impl_->how; }
std::size_t FftPlan::launches() const {
  return ((impl_->desc.batch + impl_->chunk - 1) / impl_->chunk) * impl_->stages.size();
}
std::size_t FftPlan::scratch_bytes() const { return impl_->scratch_bytes; }
std::vector<Configuration> FftPlan::configurations() const {
  std::vector<Configuration> v;
  for (const auto& s : impl_->stages) v.push_back(s.cfg);
  return v;
}

std::vector<std::complex<float>> fft(cl::CommandQueue& queue, const std::vector<std::complex<float>>& x, std::size_t n,
                                     bool inverse, const Tuning& tuning) {
  detail::require(n >= 1, kRoutine, "n must be at least 1 (got 0)");
  detail::require(!x.empty() && x.size() % n == 0, kRoutine,
                  "host vector holds " + std::to_string(x.size()) + " elements, not a positive multiple of n = " +
                      std::to_string(n));
  FftDesc d;
  d.n = n;
  d.batch = x.size() / n;
  FftPlan plan(queue, d, tuning);  // every argument is checked here, before anything is allocated
  const cl::Context ctx = detail::queue_context(queue);
  const std::size_t bytes = detail::mul_or_throw(x.size(), sizeof(std::complex<float>), kRoutine, "the vector's bytes");
  const cl::Buffer bin = detail::upload(ctx, CL_MEM_READ_ONLY, x.data(), bytes, "fft input");
  const cl::Buffer bout = detail::device_buffer(ctx, CL_MEM_READ_WRITE, bytes, "fft output");
  cl::Event done;
  if (inverse) plan.inverse(bin, bout, {}, &done);
  else plan.forward(bin, bout, {}, &done);
  std::vector<std::complex<float>> y(x.size());
  detail::download(queue, bout, bytes, y.data(), {done}, "fft output");
  return y;
}

}  // namespace clforge
