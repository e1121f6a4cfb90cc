// sgemm launcher: argument checks, the mapping of every call onto one internal layout, the
// choice between the direct and the tiled kernels, operand packing and the launches.
//
// Internal layout: column-major. A row-major call C = op(A) op(B) is the column-major call
// C^T = op(B)^T op(A)^T on the same buffers, so it swaps m <-> n, A <-> B and trans_a <->
// trans_b; C's buffer and leading dimension stay as they are.
//
// Paths (src/sgemm/sgemm_internal.hpp):
//   m or n == 0                    nothing (a marker carries the event)
//   k == 0 or alpha == 0           C = beta * C (sgemm_sum_scale with no slices), A and B are not read
//   m*n*k <= SGEMM_DIRECT_MAX^3    sgemm_direct_{nn,nt,tn,tt} on the user's buffers
//   otherwise                      pack A and B into k-major zero-padded form (sgemm_pack_*,
//                                  skipped for an operand that already has it), then
//                                  sgemm_xgemm (SGEMM_TILED=0) or sgemm_stream (1); both
//                                  write C in place with edge guards (no C copies).
#include "clforge/sgemm.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <memory>
#include <mutex>

#include "runtime/errors.hpp"
#include "runtime/launch.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/workspace.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "tuning/spec.hpp"

namespace clforge {
namespace detail {

const char* to_string(SgemmPath p) {
  switch (p) {
    case SgemmPath::Nothing:
      return "nothing";
    case SgemmPath::Scale:
      return "scale";
    case SgemmPath::Direct:
      return "direct";
    case SgemmPath::Xgemm:
      return "xgemm";
    case SgemmPath::Stream:
      return "stream";
  }
  return "?";
}

std::string sgemm_size_class(std::size_t m, std::size_t n, std::size_t k) {
  const double w = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (w < 1536.0 * 1536.0 * 1536.0) return "small";
  if (w < 3072.0 * 3072.0 * 3072.0) return "medium";
  return "large";
}

std::string sgemm_extra_options(const DeviceInfo& device, const std::string& family, const Configuration& cfg,
                                bool long_index) {
  std::string extra = long_index ? "-DCLF_LONG_INDEX=1" : "";
  // NVIDIA's compiler takes a register cap; other platforms would reject the option.
  if (family == "sgemm_xgemm" && cfg.at("NVRREG") > 0 && device.platform_name.find("NVIDIA CUDA") != std::string::npos)
    extra += (extra.empty() ? "" : " ") + std::string("-cl-nv-maxrregcount=") + std::to_string(cfg.at("NVRREG"));
  return extra;
}

Tuning sgemm_tuning_for(const Tuning& tuning, const std::string& spec_name) { return overrides_for(tuning, spec_name); }

namespace {

// Every override must belong to one of the sgemm kernels; each family's overrides are
// validated (legal values, combinations, fit) even if that family is not used by this call.
void validate_overrides(const Tuning& tuning, const DeviceInfo& dev) {
  if (tuning.overrides.empty()) return;
  check_override_names("sgemm", tuning, std::vector<std::string>(std::begin(kSgemmSpecs), std::end(kSgemmSpecs)));
  for (const char* s : kSgemmSpecs) {
    const Tuning t = sgemm_tuning_for(tuning, s);
    if (!t.overrides.empty()) resolve_configuration(s, "*", dev, t);
  }
}

// k slices of sgemm_xgemm for `tiles` C tiles and `ktiles` k tiles under the route row (1: no
// split); see sgemm_k_slices.
std::size_t k_slices_for(const Configuration& route, const DeviceInfo& dev, std::size_t tiles, std::size_t ktiles) {
  const std::size_t max_split = route.at("SGEMM_SPLITK");
  const std::size_t target = std::max<std::size_t>(1, dev.compute_units) * route.at("SGEMM_SPLIT_WAVES");
  if (max_split < 2 || route.at("SGEMM_TILED") || tiles >= target || ktiles < 2) return 1;
  const std::size_t want = std::min({max_split, ceil_div(target, tiles), ktiles});
  const std::size_t per = ceil_div(ktiles, want);
  return ceil_div(ktiles, per);  // no empty slice
}

bool use_direct(const Configuration& route, std::size_t m, std::size_t n, std::size_t k) {
  const double d = route.at("SGEMM_DIRECT_MAX");
  return static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <= d * d * d;
}

// The internal (column-major) problem.
struct Problem {
  std::size_t m, n, k;
  bool ta, tb;
  float alpha, beta;
  MatrixRef a, b, c;
};

std::size_t col_span(std::size_t rows, std::size_t cols, std::size_t ld) {
  return rows == 0 || cols == 0 ? 0 : (cols - 1) * ld + rows;
}

// Sets kernel arguments with element indices as cl_int or cl_long (CLF_LONG_INDEX).
struct IndexArg {
  bool long_index;
  std::size_t value;
};

void set_one(cl::Kernel& k, cl_uint i, const IndexArg& v) {
  const cl_int st =
      v.long_index ? k.setArg(i, static_cast<cl_long>(v.value)) : k.setArg(i, static_cast<cl_int>(v.value));
  if (st != CL_SUCCESS) throw OpenCLError(st, "clSetKernelArg", "argument " + std::to_string(i));
}
template <typename T>
void set_one(cl::Kernel& k, cl_uint i, const T& v) {
  const cl_int st = k.setArg(i, v);
  if (st != CL_SUCCESS) throw OpenCLError(st, "clSetKernelArg", "argument " + std::to_string(i));
}
inline void set_all(cl::Kernel&, cl_uint) {}
template <typename T, typename... Rest>
void set_all(cl::Kernel& k, cl_uint i, const T& v, const Rest&... rest) {
  set_one(k, i, v);
  set_all(k, i + 1, rest...);
}

EventList joined(const EventList& a, const EventList& b) {
  EventList l = a;
  l.insert(l.end(), b.begin(), b.end());
  return l;
}

// The sgemm_pack program (packing and sgemm_sum_scale) and its work-group shape:
// PACK_TILE x (PACK_TILE / PACK_WPT) work-items per PACK_TILE x PACK_TILE tile.
struct PackProgram {
  cl::Program program;
  std::size_t t = 0, ly = 0;
  // Global range covering an x-by-y tile grid (x along the work-group's first dimension).
  cl::NDRange global(std::size_t x, std::size_t y) const { return cl::NDRange(round_up(x, t), ceil_div(y, t) * ly); }
  cl::NDRange local() const { return cl::NDRange(t, ly); }
};

PackProgram pack_program(const QueueContext& qc, const Tuning& tuning, bool long_index) {
  const Configuration cfg = resolve_configuration("sgemm_pack", "*", *qc.info, sgemm_tuning_for(tuning, "sgemm_pack"));
  PackProgram pp;
  pp.program = get_program(qc, kernel_spec("sgemm_pack"), cfg, long_index ? "-DCLF_LONG_INDEX=1" : "");
  pp.t = cfg.at("PACK_TILE");
  pp.ly = pp.t / cfg.at("PACK_WPT");
  return pp;
}

// Enqueues C = beta * C for an m x n column-major C.
void launch_scale(cl::CommandQueue& queue, const QueueContext& qc, const Problem& p, const Tuning& tuning,
                  const EventList& wait, cl::Event* event) {
  const bool li = p.c.offset + col_span(p.m, p.n, p.c.ld) > INT_MAX;
  const PackProgram pp = pack_program(qc, tuning, li);
  cl::Kernel k = get_kernel(pp.program, "sgemm_sum_scale");
  // No slices to add: C = beta * C (the slice arguments are not read).
  set_all(k, 0, static_cast<cl_int>(p.m), static_cast<cl_int>(p.n), cl_int{0}, p.c.buffer, IndexArg{li, 0},
          IndexArg{li, 1}, IndexArg{li, 0}, p.beta, p.c.buffer, IndexArg{li, p.c.offset}, IndexArg{li, p.c.ld});
  launch(queue, k, pp.global(p.m, p.n), pp.local(), &wait, event);
}

void launch_direct(cl::CommandQueue& queue, const QueueContext& qc, const Problem& p, const Tuning& tuning,
                   const EventList& wait, cl::Event* event) {
  const Configuration cfg =
      resolve_configuration("sgemm_direct", "*", *qc.info, sgemm_tuning_for(tuning, "sgemm_direct"));
  const std::size_t a_span = p.ta ? col_span(p.k, p.m, p.a.ld) : col_span(p.m, p.k, p.a.ld);
  const std::size_t b_span = p.tb ? col_span(p.n, p.k, p.b.ld) : col_span(p.k, p.n, p.b.ld);
  const bool li = p.a.offset + a_span > INT_MAX || p.b.offset + b_span > INT_MAX ||
                  p.c.offset + col_span(p.m, p.n, p.c.ld) > INT_MAX;
  cl::Program prog = get_program(qc, kernel_spec("sgemm_direct"), cfg, li ? "-DCLF_LONG_INDEX=1" : "");
  const char* names[2][2] = {{"sgemm_direct_nn", "sgemm_direct_nt"}, {"sgemm_direct_tn", "sgemm_direct_tt"}};
  cl::Kernel k = get_kernel(prog, names[p.ta][p.tb]);
  const std::size_t wgd = cfg.at("WGD"), lx = cfg.at("MDIMCD"), ly = cfg.at("NDIMCD");
  set_all(k, 0, static_cast<cl_int>(p.m), static_cast<cl_int>(p.n), static_cast<cl_int>(p.k), p.alpha, p.beta,
          p.a.buffer, IndexArg{li, p.a.offset}, IndexArg{li, p.a.ld}, p.b.buffer, IndexArg{li, p.b.offset},
          IndexArg{li, p.b.ld}, p.c.buffer, IndexArg{li, p.c.offset}, IndexArg{li, p.c.ld});
  launch(queue, k, cl::NDRange(ceil_div(p.m, wgd) * lx, ceil_div(p.n, wgd) * ly), cl::NDRange(lx, ly), &wait, event);
}

// Tile geometry of the chosen tiled kernel.
struct TiledShape {
  std::size_t mt, nt, kt;  // C tile rows, columns, k-tile depth: packing multiples
  std::size_t va, vb;      // vector widths of the A and B reads (alignment of the packed rows)
};

void launch_tiled(cl::CommandQueue& queue, const QueueContext& qc, const Problem& p, const Configuration& route,
                  bool stream, const Tuning& tuning, const EventList& wait, cl::Event* event) {
  const char* fam = stream ? "sgemm_stream" : "sgemm_xgemm";
  const Configuration cfg =
      resolve_configuration(fam, sgemm_size_class(p.m, p.n, p.k), *qc.info, sgemm_tuning_for(tuning, fam));
  TiledShape ts;
  if (stream) {
    ts = {static_cast<std::size_t>(cfg.at("SGS_WG") * cfg.at("SGS_MWI")), static_cast<std::size_t>(cfg.at("SGS_N")),
          static_cast<std::size_t>(cfg.at("SGS_K")), static_cast<std::size_t>(cfg.at("SGS_MWI")), 1};
  } else {
    ts = {static_cast<std::size_t>(cfg.at("MWG")), static_cast<std::size_t>(cfg.at("NWG")),
          static_cast<std::size_t>(cfg.at("KWG")), static_cast<std::size_t>(cfg.at("VWM")),
          static_cast<std::size_t>(cfg.at("VWN"))};
  }
  const std::size_t mp = round_up(p.m, ts.mt), np = round_up(p.n, ts.nt), kp = round_up(p.k, ts.kt);
  require(mp <= INT_MAX && np <= INT_MAX && kp <= INT_MAX, "sgemm", "padded sizes must be below 2^31");

  // An operand already in k-major form with tile-multiple sizes and aligned rows is read in
  // place; the others are packed into the workspace.
  const bool a_in_place = !p.ta && p.m == mp && p.k == kp && p.a.ld % ts.va == 0 && p.a.offset % ts.va == 0;
  const bool b_in_place = p.tb && p.n == np && p.k == kp && p.b.ld % ts.vb == 0 && p.b.offset % ts.vb == 0;
  const std::size_t a_elems = a_in_place ? 0 : round_up(kp * mp, 64);
  const std::size_t b_elems = b_in_place ? 0 : round_up(kp * np, 64);
  // Split k: `slices` partial products of mp x np floats each, after the packed operands.
  const std::size_t ktiles = kp / ts.kt;
  const std::size_t slices = stream ? 1 : k_slices_for(route, *qc.info, (mp / ts.mt) * (np / ts.nt), ktiles);
  const std::size_t kt_split = ceil_div(ktiles, slices);
  const std::size_t w_elems = slices > 1 ? slices * mp * np : 0;

  const std::size_t a_span = p.ta ? col_span(p.k, p.m, p.a.ld) : col_span(p.m, p.k, p.a.ld);
  const std::size_t b_span = p.tb ? col_span(p.n, p.k, p.b.ld) : col_span(p.k, p.n, p.b.ld);
  const bool li = p.a.offset + a_span > INT_MAX || p.b.offset + b_span > INT_MAX ||
                  p.c.offset + col_span(p.m, p.n, p.c.ld) > INT_MAX || a_elems + b_elems + w_elems > INT_MAX;
  cl::Program prog = get_program(qc, kernel_spec(fam), cfg, sgemm_extra_options(*qc.info, fam, cfg, li));
  cl::Kernel k = get_kernel(prog, stream ? "sgemm_stream" : "sgemm_xgemm");

  std::unique_ptr<WorkspaceLease> ws;
  EventList gemm_wait = wait;
  MatrixRef pa = p.a, pb = p.b;  // what the kernel reads: offset and ld in floats
  EventList pack_wait = wait;
  if (a_elems + b_elems + w_elems > 0) {
    ws = std::make_unique<WorkspaceLease>(
        workspace_pool().acquire(qc.context, (a_elems + b_elems + w_elems) * sizeof(float), "sgemm packing workspace"));
    // The packs (or the multiply) wait for the previous user of the workspace.
    pack_wait = joined(wait, ws->last_use());
    gemm_wait = pack_wait;
  }
  // Packing and the split-k sum share the sgemm_pack program.
  PackProgram pp;
  if (a_elems + b_elems > 0 || slices > 1) pp = pack_program(qc, tuning, li);
  if (a_elems + b_elems > 0) {
    gemm_wait.clear();
    // Packs one operand: rows p < kp of xp floats at `dst_off` of the workspace.
    auto pack = [&](const MatrixRef& src, bool trans, std::size_t x, std::size_t xp, std::size_t dst_off) {
      cl::Kernel pk = get_kernel(pp.program, trans ? "sgemm_pack_trans" : "sgemm_pack_copy");
      cl::Buffer dst = ws->buffer();
      set_all(pk, 0, static_cast<cl_int>(p.k), static_cast<cl_int>(x), static_cast<cl_int>(kp), static_cast<cl_int>(xp),
              src.buffer, IndexArg{li, src.offset}, IndexArg{li, src.ld}, dst, IndexArg{li, dst_off}, IndexArg{li, xp});
      cl::Event e;
      launch(queue, pk, pp.global(xp, kp), pp.local(), &pack_wait, &e);
      gemm_wait.push_back(e);
      ws->used_until(gemm_wait);
    };
    if (!a_in_place) {
      pack(p.a, p.ta, p.m, mp, 0);
      pa = MatrixRef{ws->buffer(), 0, mp};
    }
    if (!b_in_place) {
      pack(p.b, !p.tb, p.n, np, a_elems);
      pb = MatrixRef{ws->buffer(), a_elems, np};
    }
    if (a_in_place || b_in_place) gemm_wait.insert(gemm_wait.end(), pack_wait.begin(), pack_wait.end());
  }

  // Without a split the kernel writes C; with one, alpha times each partial product goes to
  // its slice of the workspace (beta 0, whole vectors: mp is a multiple of the tile).
  const std::size_t w_off = a_elems + b_elems;
  const MatrixRef out = slices > 1 ? MatrixRef{ws->buffer(), w_off, mp} : p.c;
  const cl_int c_vec = (out.offset % ts.va == 0 && out.ld % ts.va == 0) ? 1 : 0;
  cl::NDRange global, local;
  if (stream) {
    set_all(k, 0, static_cast<cl_int>(p.m), static_cast<cl_int>(p.n), static_cast<cl_int>(kp), p.alpha, p.beta,
            pa.buffer, IndexArg{li, pa.offset / ts.va}, IndexArg{li, pa.ld / ts.va}, pb.buffer,
            IndexArg{li, pb.offset / ts.vb}, IndexArg{li, pb.ld / ts.vb}, p.c.buffer, IndexArg{li, p.c.offset},
            IndexArg{li, p.c.ld}, c_vec);
    global = cl::NDRange(mp / ts.mt * cfg.at("SGS_WG"), np / ts.nt);
    local = cl::NDRange(cfg.at("SGS_WG"), 1);
  } else {
    set_all(k, 0, static_cast<cl_int>(p.m), static_cast<cl_int>(p.n), static_cast<cl_int>(kp), p.alpha,
            slices > 1 ? 0.0f : p.beta, pa.buffer, IndexArg{li, pa.offset / ts.va}, IndexArg{li, pa.ld / ts.va},
            pb.buffer, IndexArg{li, pb.offset / ts.vb}, IndexArg{li, pb.ld / ts.vb}, out.buffer,
            IndexArg{li, out.offset}, IndexArg{li, out.ld}, c_vec, static_cast<cl_int>(kt_split),
            IndexArg{li, slices > 1 ? mp * np : 0});
    global = cl::NDRange(mp / ts.mt * cfg.at("MDIMC"), np / ts.nt * cfg.at("NDIMC"), slices);
    local = cl::NDRange(cfg.at("MDIMC"), cfg.at("NDIMC"), 1);
  }
  cl::Event done;
  launch(queue, k, global, local, &gemm_wait, &done);
  if (slices > 1) {
    cl::Kernel sk = get_kernel(pp.program, "sgemm_sum_scale");
    set_all(sk, 0, static_cast<cl_int>(p.m), static_cast<cl_int>(p.n), static_cast<cl_int>(slices), ws->buffer(),
            IndexArg{li, w_off}, IndexArg{li, mp}, IndexArg{li, mp * np}, p.beta, p.c.buffer,
            IndexArg{li, p.c.offset}, IndexArg{li, p.c.ld});
    const EventList sum_wait{done};
    cl::Event summed;
    launch(queue, sk, pp.global(p.m, p.n), pp.local(), &sum_wait, &summed);
    done = summed;
  }
  if (ws) ws->used_until({done});
  if (event != nullptr) *event = done;
}

void marker(cl::CommandQueue& queue, const EventList& wait, cl::Event* event) {
  if (event != nullptr) enqueue_marker(queue, wait, event);
}

}  // namespace

namespace {
// The path of a product under the route row (sgemm_path without the lookup).
SgemmPath path_for(const Configuration& route, std::size_t m, std::size_t n, std::size_t k, float alpha, float beta) {
  if (m == 0 || n == 0) return SgemmPath::Nothing;
  if (k == 0 || alpha == 0.0f) return beta == 1.0f ? SgemmPath::Nothing : SgemmPath::Scale;
  if (use_direct(route, m, n, k)) return SgemmPath::Direct;
  return route.at("SGEMM_TILED") ? SgemmPath::Stream : SgemmPath::Xgemm;
}

Configuration route_of(const DeviceInfo& device, const Tuning& tuning) {
  return resolve_configuration("sgemm_route", "*", device, sgemm_tuning_for(tuning, "sgemm_route"));
}
}  // namespace

SgemmPath sgemm_path(const DeviceInfo& device, std::size_t m, std::size_t n, std::size_t k, float alpha, float beta,
                     const Tuning& tuning) {
  return path_for(route_of(device, tuning), m, n, k, alpha, beta);
}

std::size_t sgemm_k_slices(const DeviceInfo& device, std::size_t m, std::size_t n, std::size_t k,
                           const Tuning& tuning) {
  const Configuration cfg =
      resolve_configuration("sgemm_xgemm", sgemm_size_class(m, n, k), device, sgemm_tuning_for(tuning, "sgemm_xgemm"));
  return k_slices_for(route_of(device, tuning), device, ceil_div(m, cfg.at("MWG")) * ceil_div(n, cfg.at("NWG")),
                      ceil_div(k, cfg.at("KWG")));
}

}  // namespace detail

namespace detail {
namespace {
// Elements spanned by A, B and C of a call (0 for an operand that describes no element),
// after the size and leading-dimension checks shared by the buffer and host-vector forms.
std::array<std::size_t, 3> sgemm_spans(Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                                       std::size_t n, std::size_t k, std::size_t lda, std::size_t ldb,
                                       std::size_t ldc) {
  const char* R = "sgemm";
  require(m <= kMaxDim, R, "m (" + std::to_string(m) + ") must be below 2^31");
  require(n <= kMaxDim, R, "n (" + std::to_string(n) + ") must be below 2^31");
  require(k <= kMaxDim, R, "k (" + std::to_string(k) + ") must be below 2^31");
  require(layout == Layout::RowMajor || layout == Layout::ColMajor, R, "unknown layout");
  require(trans_a == Transpose::No || trans_a == Transpose::Yes, R, "unknown trans_a");
  require(trans_b == Transpose::No || trans_b == Transpose::Yes, R, "unknown trans_b");
  const bool row = layout == Layout::RowMajor, ta = trans_a == Transpose::Yes, tb = trans_b == Transpose::Yes;
  // Stored shape of each operand (rows x cols) and its contiguous extent.
  struct Stored {
    const char* name;
    const char* ld_name;
    std::size_t ld, rows, cols;
  };
  const Stored ops[3] = {{"a", "a.ld", lda, ta ? k : m, ta ? m : k},
                         {"b", "b.ld", ldb, tb ? n : k, tb ? k : n},
                         {"c", "c.ld", ldc, m, n}};
  std::array<std::size_t, 3> span{};
  for (int i = 0; i < 3; ++i) {
    const Stored& s = ops[i];
    const std::size_t inner = row ? s.cols : s.rows, outer = row ? s.rows : s.cols;
    const std::size_t need = std::max<std::size_t>(1, inner);
    require(s.ld >= need, R,
            std::string(s.ld_name) + " (" + std::to_string(s.ld) + ") is smaller than " +
                (row ? "the columns" : "the rows") + " of " + s.name + " (" + std::to_string(need) + ", " +
                (row ? "row" : "column") + "-major " + std::to_string(s.rows) + " x " + std::to_string(s.cols) + ")");
    span[i] = matrix_span(R, s.ld_name, outer, inner, s.ld);
  }
  return span;
}
}  // namespace
}  // namespace detail

void sgemm(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n,
           std::size_t k, float alpha, const MatrixRef& a, const MatrixRef& b, float beta, const MatrixRef& c,
           const EventList& wait_list, cl::Event* event, const Tuning& tuning) {
  using namespace detail;
  const char* R = "sgemm";
  const std::array<std::size_t, 3> span = sgemm_spans(layout, trans_a, trans_b, m, n, k, a.ld, b.ld, c.ld);
  const bool row = layout == Layout::RowMajor, ta = trans_a == Transpose::Yes, tb = trans_b == Transpose::Yes;
  const MatrixRef* refs[3] = {&a, &b, &c};
  const char* names[3] = {"a", "b", "c"};
  std::size_t end[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i)
    if (span[i] > 0) end[i] = require_extent(R, names[i], refs[i]->buffer, refs[i]->offset, span[i], sizeof(float));
  for (int i = 0; i < 2; ++i) {
    if (span[i] == 0 || span[2] == 0 || refs[i]->buffer() != c.buffer()) continue;
    require(!ranges_overlap(refs[i]->offset, end[i], c.offset, end[2]), R,
            std::string("c overlaps ") + names[i] + " in the same buffer (C must not alias an input)");
  }
  const QueueContext qc = queue_context_of(queue);
  validate_overrides(tuning, *qc.info);

  // Internal column-major problem.
  Problem p{m, n, k, ta, tb, alpha, beta, a, b, c};
  if (row) {
    std::swap(p.m, p.n);
    std::swap(p.ta, p.tb);
    std::swap(p.a, p.b);
  }
  const Configuration route = route_of(*qc.info, tuning);  // resolved once per call
  const SgemmPath path = path_for(route, p.m, p.n, p.k, alpha, beta);
  switch (path) {
    case SgemmPath::Nothing:
      marker(queue, wait_list, event);
      return;
    case SgemmPath::Scale:
      launch_scale(queue, qc, p, tuning, wait_list, event);
      return;
    case SgemmPath::Direct:
      launch_direct(queue, qc, p, tuning, wait_list, event);
      return;
    case SgemmPath::Xgemm:
      launch_tiled(queue, qc, p, route, false, tuning, wait_list, event);
      return;
    case SgemmPath::Stream:
      launch_tiled(queue, qc, p, route, true, tuning, wait_list, event);
      return;
  }
}

void sgemm(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n,
           std::size_t k, float alpha, const std::vector<float>& a, std::size_t lda, const std::vector<float>& b,
           std::size_t ldb, float beta, std::vector<float>& c, std::size_t ldc, const Tuning& tuning) {
  using namespace detail;
  const char* R = "sgemm";
  // Every argument is checked before anything is allocated: shapes and leading dimensions,
  // the vectors' sizes, then the tuning overrides.
  const std::array<std::size_t, 3> span = sgemm_spans(layout, trans_a, trans_b, m, n, k, lda, ldb, ldc);
  const std::vector<float>* vecs[3] = {&a, &b, &c};
  const char* names[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i)
    require(vecs[i]->size() >= span[i], R,
            std::string("host vector ") + names[i] + " holds " + std::to_string(vecs[i]->size()) +
                " elements, the described matrix needs " + std::to_string(span[i]));
  const QueueContext qc = queue_context_of(queue);
  validate_overrides(tuning, *qc.info);
  if (m == 0 || n == 0) return;  // C is not touched (BLAS)
  auto to_device = [&](int i, cl_mem_flags flags) {
    // An operand that describes no element (k == 0) is passed as a null buffer.
    if (span[i] == 0) return cl::Buffer();
    return upload(qc.context, flags, vecs[i]->data(), span[i] * sizeof(float), std::string("sgemm host vector ") + names[i]);
  };
  const cl::Buffer ba = to_device(0, CL_MEM_READ_ONLY), bb = to_device(1, CL_MEM_READ_ONLY),
                   bc = to_device(2, CL_MEM_READ_WRITE);
  cl::Event done;
  sgemm(queue, layout, trans_a, trans_b, m, n, k, alpha, MatrixRef{ba, 0, lda}, MatrixRef{bb, 0, ldb}, beta,
        MatrixRef{bc, 0, ldc}, {}, &done, tuning);
  download(queue, bc, span[2] * sizeof(float), c.data(), {done}, "sgemm host vector c");
}

}  // namespace clforge
