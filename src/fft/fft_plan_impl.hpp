// Internals of the FFT plan shared by its construction (fft_plan_build.cpp, fft_plan_lanes.cpp) and its execution
// and checks (fft_plan.cpp): stage descriptions, table helpers, and FftPlan::Impl.
#pragma once
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
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/launch.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"

namespace clforge {
namespace fft_plan_parts {

using detail::FftShape;
constexpr const char* kRoutine = "fft";
constexpr std::size_t kScratchCap = std::size_t{256} << 20;  // bytes per scratch buffer
// Scratch buffer B starts at a multiple of this many elements (4 KiB) after A in the leased workspace.
constexpr std::size_t kScratchAlign = 512;

// Where a stage reads or writes: the caller's buffer, or scratch buffer A or B (two regions of the
// workspace an execution leases; Stage::in_off / out_off hold the region's start).
enum class Buf { User, A, B };
// Sign rules for the imaginary part on load / store: +1, the direction, -1, minus the direction.
enum class Sign { Plus, Dir, Minus, MinusDir };

inline float sign_value(Sign s, int dir) {
  switch (s) {
    case Sign::Plus:
      return 1.0f;
    case Sign::Dir:
      return static_cast<float>(dir);
    case Sign::Minus:
      return -1.0f;
    case Sign::MinusDir:
      return static_cast<float>(-dir);
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
  bool lanes = false;  // the lane kernel (fft_lanes.cl): shape.n and shape.radices, cfg of fft_lanes
  // Lane kernel of a two-launch plan: a row per transform of the chunk, lane_count transforms of
  // length shape.n per row, in_dc / out_dc apart; tw2 the first launch's table (FFT_LANE_TW).
  int lane_count = 0;  // 0: one row, the chunk's transforms (in_dc, out_dc the caller's distances)
  long long in_dc = 0, out_dc = 0;
  int lane_len = 0;  // Bluestein in one lane launch (FFT_LANE_BLUE): the transform's length
  // Launches of two or four: tab multiplies the loads (lane_pre) or the results (lane_post) by
  // element (index c + e count of lane c, element e); from lane_glen on (0: none) the loads read
  // zeros (lane_pre), the results are not stored (lane_post).
  bool lane_pre = false, lane_post = false;
  long long lane_glen = 0;
  cl::Buffer tw2;  // two launches: W_m^(k1 j2); Bluestein in one launch: the chirp (tab its spectrum)
  cl::Buffer tab;
  // Rader's gather (1, fft_rader_in: the caller's input to rows of n - 1 in scratch) or scatter
  // (2, fft_rader_out: the convolution to the caller's output); perm its index table.
  int rader = 0;
  cl::Buffer perm;
};

inline cl_float2 to_float2(const detail::cdouble& v) {
  cl_float2 f;
  f.s[0] = static_cast<float>(v.real());
  f.s[1] = static_cast<float>(v.imag());
  return f;
}

inline std::vector<cl_float2> to_float2(const std::vector<detail::cdouble>& v) {
  std::vector<cl_float2> f(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) f[i] = to_float2(v[i]);
  return f;
}

// exp(-2 pi i k / n) in double, folded to a small argument.
inline detail::cdouble root(std::size_t k, std::size_t n) { return detail::unit_root(k, n, -1); }

// Complex elements a layout spans from its offset (checked: names the stride or distance that
// wraps), and the end of that span (offset included).
inline std::size_t layout_span(const char* side, const FftLayout& l, std::size_t n, std::size_t batch) {
  const std::string s(side);
  const std::string d = s + ".distance", t = s + ".stride";
  return detail::region_span(kRoutine, {{batch, l.distance, d.c_str()}, {n, l.stride, t.c_str()}});
}
inline std::size_t span_of(const FftLayout& l, std::size_t n, std::size_t batch) {
  return detail::add_or_throw(l.offset, layout_span("layout", l, n, batch), kRoutine, "offset plus layout extent");
}

// Called after the spans were checked, so the products below cannot wrap.
inline bool transforms_disjoint(const FftLayout& l, std::size_t n, std::size_t batch) {
  if (batch == 1 || n == 1) return batch == 1 || l.distance >= 1;
  return l.distance >= (n - 1) * l.stride + 1 || l.stride >= (batch - 1) * l.distance + 1;
}

// Load or store mode of one side: elem_stride is the distance between a transform's elements,
// adjacency the distance between the group's neighbouring transforms (memory units).
inline int choose_mode(int stage_param, std::size_t elem_stride, std::size_t adjacency, const FftShape& s) {
  if (stage_param == 2 || stage_param == 3) return 0;
  if (stage_param == 1) return elem_stride == 1 ? 1 : 2;
  if (s.tfast) return elem_stride == 1 ? 1 : 0;  // across transforms: direct, coalesced by the numbering
  if (elem_stride == 1) return (s.t >= 8 || s.b == 1) ? 0 : 1;
  if (adjacency == 1 && s.b > 1) return 2;
  return 0;
}

}  // namespace fft_plan_parts
using namespace fft_plan_parts;  // this header is included by the plan's own files only

struct FftPlan::Impl {
  cl::CommandQueue queue;  // of forward() and inverse() without a queue argument
  detail::QueueContext qc;
  FftDesc desc;
  std::vector<Stage> stages;
  std::size_t chunk = 1;
  // Scratch leased from the workspace pool per execution: scratch_bytes in all (0: none), of
  // which scratch_b_bytes in a second workspace for buffer B when A and B do not fit one
  // allocation; scratch_elems complex elements in the first workspace.
  std::size_t scratch_bytes = 0, scratch_b_bytes = 0, scratch_elems = 0;
  // Rader plans: the gather's work-groups per transform, and where in the first workspace the
  // side values (x_0 and the groups' partial sums, rader_groups + 1 per transform) start.
  int rader_groups = 1;
  std::size_t side_off = 0;
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

  // Bluestein's tables for length n and convolution length m: the chirp w_k = exp(-pi i k^2 / n),
  // its conjugate (both zero from n to pad), and the spectrum of the conjugate chirp's circular
  // extension over m points, divided by m.
  struct BluesteinTables {
    cl::Buffer w, wc, bq;
  };
  BluesteinTables bluestein_tables(std::size_t n, std::size_t m, std::size_t pad) {  // w, wc: pad >= n entries
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
  cl::Buffer twiddles(std::size_t n) {
    if (const auto it = root_tables.find(n); it != root_tables.end()) return it->second;
    std::vector<detail::cdouble> w(n);
    for (std::size_t k = 0; k < n; ++k) w[k] = root(k, n);
    return root_tables.emplace(n, table(to_float2(w))).first->second;
  }

  // The in-kernel twiddles of a kernel with these radices, in the kernel's order (fft_pass.cl,
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
  Stage make_stage(std::size_t len, const Configuration& cfg, std::size_t in_es, std::size_t in_adj, std::size_t out_es,
                   std::size_t out_adj, bool bluestein = false) {
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
    s.shape.tfast =
        across && !s.shape.priv() && ((stage_param == 0 && s.shape.b >= run) || (stage_param == 3 && s.shape.b > 1));
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
        throw UnsupportedDevice("fft: length " + std::to_string(len) + " does not fit device \"" + dev.name + "\" (" +
                                std::to_string(s.shape.local_bytes()) + " bytes of local memory, " +
                                std::to_string(s.shape.work_group()) + " work-items)");
      }
    }
    if (s.cfg.at("FFT_TWIDDLE") != 1 && len > 1) s.twl = pass_twiddles(s.shape.radices, s.cfg.at("FFT_TWIDDLE"));
    return s;
  }

  // A stage of the whole transform: it reads and writes the caller's layouts and scales.
  void user_sides(Stage& s) const {
    s.in_off = static_cast<long long>(desc.in.offset);
    s.in_dh = static_cast<long long>(desc.in.distance);
    s.in_S = static_cast<long long>(desc.in.stride);
    s.out_off = static_cast<long long>(desc.out.offset);
    s.out_dh = static_cast<long long>(desc.out.distance);
    s.out_S = static_cast<long long>(desc.out.stride);
    s.scaled = true;
  }

  // Scratch for transforms of ntot points: the batch runs in chunks of at most FFT_CHUNK MiB
  // (kScratchCap) per buffer, every stage of a chunk before the next chunk. Every execution
  // leases its scratch (run()), so that executions of one plan can overlap: buffer A at the start
  // of one workspace and, where two are needed, buffer B after it, or in a workspace of its own
  // where the two together would pass the device's largest allocation. The stages' sides on B
  // get B's offset. `side` elements per transform (Rader's side values) follow in the first
  // workspace, at side_off.
  void lay_out_scratch(std::size_t ntot, const Configuration& cfg, bool two, std::size_t side = 0) {
    const DeviceInfo& dev = *qc.info;
    const std::size_t per = (ntot + side) * sizeof(cl_float2);
    std::size_t cap = cfg.at("FFT_CHUNK") > 0 ? static_cast<std::size_t>(cfg.at("FFT_CHUNK")) << 20 : kScratchCap;
    if (dev.max_alloc_size != 0) cap = std::min<std::size_t>(cap, dev.max_alloc_size);
    if (side > 0) cap -= kScratchAlign * sizeof(cl_float2);  // the side values' alignment
    chunk = std::max<std::size_t>(1, std::min<std::size_t>(desc.batch, cap / per));
    while (chunk > 1 && chunk * ntot > static_cast<std::size_t>(INT_MAX)) chunk /= 2;
    const std::size_t region = chunk * ntot;
    std::size_t b_off = 0;
    scratch_elems = region;
    const std::size_t extra = side > 0 ? kScratchAlign + chunk * side : 0;
    if (two) {
      const std::size_t joint = detail::round_up(region, kScratchAlign) + region;
      if (dev.max_alloc_size == 0 || (joint + extra) * sizeof(cl_float2) <= dev.max_alloc_size) {
        b_off = joint - region;
        scratch_elems = joint;
      } else {
        scratch_b_bytes = region * sizeof(cl_float2);
      }
    }
    if (side > 0) {
      side_off = detail::round_up(scratch_elems, kScratchAlign);
      scratch_elems = side_off + chunk * side;
    }
    scratch_bytes = scratch_elems * sizeof(cl_float2) + scratch_b_bytes;
    for (Stage& s : stages) {
      if (s.in_buf == Buf::B) s.in_off = static_cast<long long>(b_off);
      if (s.out_buf == Buf::B) s.out_off = static_cast<long long>(b_off);
    }
  }

  void build(const Tuning& tuning);
  // The lane kernel's plans (fft_plan_lanes.cpp): false where the device's lane row or the
  // length does not call for them. rader_cfg: Rader's configuration of this length (nullptr where
  // Rader's algorithm does not apply).
  bool build_lanes(const Tuning& tuning, const Configuration& top, const Configuration* rader_cfg,
                   std::ostringstream& how_s);
  // Rader's algorithm (fft_rader.cpp): the fft_rader configuration of this plan's length, and the
  // launches before and after the convolution's FFTs: the gather writes rows of n - 1 to
  // `gathered`, the scatter reads the convolution from `conv`; spectrum is FFT(b) / (n - 1), for
  // the store of the forward FFT's last launch. Sets rader_groups.
  struct RaderEnds {
    Stage gather, scatter;
    cl::Buffer spectrum;
  };
  Configuration rader_setting(const Tuning& tuning) const;
  RaderEnds rader_ends(const Configuration& cfg, Buf gathered, Buf conv);
  void compile();
  // Checks the buffers (and a queue other than the plan's), then enqueues one execution.
  void run(cl::CommandQueue& queue, int dir, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait,
           cl::Event* event) const;
};

}  // namespace clforge
