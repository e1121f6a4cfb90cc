// Internals of the FFT plan shared by its construction (fft_plan_build.cpp, fft_plan_lanes.cpp,
// fft_rader.cpp, fft_plan_tables.cpp) and its execution and checks (fft_plan.cpp): the steps of a
// plan (stages: kernel, inputs and outputs, tables), the scratch they lease, and FftPlan::Impl.
#pragma once
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <utility>

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
namespace detail {
class Execution;
}  // namespace detail
namespace fft_plan_parts {

using detail::FftShape;
constexpr const char* kRoutine = "fft";
constexpr std::size_t kScratchCap = std::size_t{256} << 20;  // bytes per scratch buffer
// Work-groups along an NDRange dimension after the first, at most (NVIDIA's OpenCL maps them to
// CUDA's grid, 65535 in y and z).
constexpr std::size_t kMaxGroupsYZ = 65535;
constexpr std::size_t kFftRealWg = 64;  // work-items per group of the real-input ends (FFT_REAL_WG)
constexpr std::size_t kFftRealTb = 4;   // transforms per group of the real-input ends (FFT_REAL_TB)
// Scratch buffer B starts at a multiple of this many elements (4 KiB) after A in the leased workspace.
constexpr std::size_t kScratchAlign = 512;

// Where a stage reads or writes: the caller's buffer, or scratch buffer A or B (two regions of the
// workspace an execution leases; StageSide::offset holds the region's start), or C, the complex
// rows of a real-input plan (a workspace of their own).
enum class Buf { User, A, B, C };
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

// The entry point a stage launches: fft_local (cl/fft/fft.cl), the CPU lane kernel
// (cl/fft/fft_lanes.cl), or Rader's gather (fft_rader_in: the caller's input to rows of n - 1 in
// scratch) or scatter (fft_rader_out: the convolution to the caller's output), or one of the
// two ends of a real-input transform (cl/fft/fft_real.cl: pack, post, pre, unpack).
enum class KernelKind { Local, Lanes, RaderGather, RaderScatter, RealPack, RealPost, RealPre, RealUnpack };

// The launch form of a lane kernel stage (its routine constants, fft_lanes.cl).
struct LaneForm {
  // 0: one row, the chunk's transforms (the sides' lane distances are the caller's distances);
  // else a row per transform of the chunk, this many transforms of length shape.n per row (the
  // two-launch forms).
  int transforms_per_row = 0;
  int bluestein_length = 0;  // Bluestein in one launch (FFT_LANE_BLUE): the transform's length
  // Launches of two or four: lane_factors multiplies the loads or the results by element (index
  // c + e count of lane c, element e); from valid_length on (0: none) the loads read zeros, the
  // results are not stored.
  bool multiply_loads = false, multiply_results = false;
  long long valid_length = 0;
  // A real plan's post-processing on the store (FFT_LANE_RPOST): X_k, k <= n, of the lanes'
  // transforms Z of n points, W_(2n)^k from lane_factors.
  bool real_post = false;
  // An odd-length real plan's ends in the one launch (FFT_LANE_RODD): 1 the forward (real rows
  // in, X_0 .. X_(n/2) out), 2 the inverse (the half spectrum in, the real parts out).
  int real_odd = 0;
};

// What a stage launches: the entry point, its routine constants and tuning, the program.
struct StageKernel {
  KernelKind kind = KernelKind::Local;
  FftShape shape;     // fft_local's shape; the lane kernel's length (n) and radices
  Configuration cfg;  // of fft_local, fft_lanes or fft_rader
  LaneForm lanes;
  cl::Program program;
};

// One side of a stage, per chunk (the caller's offsets are shifted by the chunk's first transform).
struct StageSide {
  Buf buffer = Buf::User;
  long long offset = 0;
  long long distance = 0;       // between consecutive transforms
  long long stride = 1;         // between consecutive elements of a transform
  long long lane_distance = 0;  // lane kernel: between the transforms of neighbouring lanes
  int length = INT_MAX;         // elements read (beyond: zeros) or stored (Bluestein's bounds)
  Sign sign = Sign::Dir;        // conjugation of the loads (in) or the stores (out)
  // The caller's real values read or written as complex pairs (a real plan's rows): offset and
  // distance, and the execution's steps, count floats; the kernel gets them halved.
  bool pairs = false;
};

// The caller's layout as a stage side: the user's buffer, every element, conjugated by `sign`.
inline StageSide user_side(const FftLayout& l, Sign sign) {
  return {Buf::User,
          static_cast<long long>(l.offset),
          static_cast<long long>(l.distance),
          static_cast<long long>(l.stride),
          0,
          INT_MAX,
          sign};
}

struct StageIo {
  StageSide in, out;
  bool scaled = false;  // the last stage applies the plan's scaling
};

// Read-only tables a stage reads (empty where it reads none).
struct StageTables {
  cl::Buffer twiddles;  // fft_local: its passes' in-kernel twiddles; lane kernel: W_n^k
  // fft_local passes after the first: W_N^k = hi[k >> shift] * lo[k & (2^shift - 1)].
  cl::Buffer twiddles_hi, twiddles_lo;
  int twiddles_shift = 0;
  cl::Buffer butterfly_twiddles;  // W_(R0*NS)^k of a pass whose direct loads split its twiddle
  // Bluestein and Rader on fft_local: the factors of the loads (the chirp) and of the stores (the
  // conjugate chirp or the convolution's spectrum), and the spectrum.
  cl::Buffer load_factors, store_factors, spectrum;
  // Lane kernel: the two-launch twiddles W_m^(k1 j2) (or the chirp of Bluestein in one launch),
  // and the factors of LaneForm's loads or results (or the spectrum of Bluestein in one launch).
  cl::Buffer lane_twiddles, lane_factors;
  cl::Buffer permutation;  // Rader's gather and scatter: the index table
};

struct Stage {
  StageKernel kernel;
  StageIo io;
  StageTables tables;
  std::string role;  // in describe() and the kernel profile
};

// Scratch leased from the workspace pool per execution: bytes in all (0: none), of which b_bytes
// in a second workspace for buffer B when A and B do not fit one allocation, and c_bytes in one
// for buffer C (real-input plans); elements complex elements in the first workspace, Rader's
// side values from side_offset on.
struct ScratchLayout {
  std::size_t bytes = 0, b_bytes = 0, c_bytes = 0, elements = 0;
  std::size_t side_offset = 0;
};

// A further level of the batch (a multi-dimensional pass): `count` positions of the whole batch,
// the caller's sides `in_distance` and `out_distance` elements apart.
struct Repeat {
  std::size_t count = 1;
  std::size_t in_distance = 0, out_distance = 0;
};

// What a plan runs: the stages, every one of a chunk of at most `chunk` transforms before the
// next chunk, the scratch, the gather's work-groups per transform (Rader), and describe()'s text.
// With repeats, the batch runs once per position of the repeats, the last position at the
// described offsets and every other one back from them (so that the index width chosen for the
// described layout covers all). `in_kernel` is one more level that every launch covers itself
// (the NDRange's second dimension: fft_local's and the lane kernel's in_dr, out_dr), so that
// each stage runs as one launch instead of one per position (set_repeats).
struct FftSteps {
  std::vector<Stage> stages;
  std::size_t chunk = 1;
  ScratchLayout scratch;
  int rader_groups = 1;
  std::string how;
  std::vector<Repeat> repeats;
  Repeat in_kernel;
  std::size_t in_kernel_scratch = 0;  // elements between the scratch blocks of in_kernel's positions
};

// Positions of the repeats (1 without), and how far position p lies back from the described
// offsets on the input and the output side.
std::size_t repeat_positions(const std::vector<Repeat>& r);
std::pair<std::size_t, std::size_t> repeat_back(const std::vector<Repeat>& r, std::size_t p);
// Gives steps `st` of plan `desc` the repeats r (their first the largest): the first becomes the
// launches' own level where every stage of st is fft_local or the lane kernel on the caller's
// sides or scratch A and B, in one chunk (the level fits the NDRange: at most kMaxGroupsYZ
// positions); the scratch then holds a block per position (at most kScratchCap bytes in all).
void set_repeats(FftSteps& st, const FftDesc& desc, const DeviceInfo& dev, std::vector<Repeat> r);

// The stages of a checked description (fft_plan_kernels.cpp), with their tables and without programs.
/// real_inside: the complex FFT of a real-input plan, which resolves its length's ":real" rows.
FftSteps build_steps(const detail::QueueContext& qc, const FftDesc& desc, const Tuning& tuning,
                     bool real_inside = false);
// Compiles (through the compile cache) the programs of the stages.
void compile_steps(const detail::QueueContext& qc, const FftDesc& desc, FftSteps& steps);

// The plan's scale factor for a scaling of length n.
inline double scale_factor(FftScaling s, std::size_t n) {
  switch (s) {
    case FftScaling::None:
      return 1.0;
    case FftScaling::OverN:
      return 1.0 / static_cast<double>(n);
    case FftScaling::OverSqrtN:
      return 1.0 / std::sqrt(static_cast<double>(n));
  }
  return 1.0;
}

// Argument checks shared by the complex and the real-input plans (fft_plan.cpp) -------------------

// Throws InvalidArgument unless n and batch are within FftDesc's limits.
void check_length(std::size_t n, std::size_t batch);
// The layout of `count` elements per transform with its stride and extent (below 2^40 elements,
// arithmetic that cannot wrap) checked and a distance of 0 replaced by count * stride.
FftLayout checked_layout(const std::string& side, FftLayout l, std::size_t count, std::size_t batch);
// Throws InvalidArgument unless the transforms of a written layout are disjoint (`what` names it).
void require_disjoint(const std::string& what, const FftLayout& l, std::size_t count, std::size_t batch);
// The complex description with its arguments checked and the default distances filled in.
FftDesc checked_desc(const FftDesc& d);
// The real-input description checked the same way (fft_real.cpp).
RealFftDesc checked_real_desc(const RealFftDesc& d);

// One side of an execution: its name in errors, its buffer, its layout of `count` elements of
// elem_bytes per transform.
struct IoSide {
  const char* name;
  const cl::Buffer& buffer;
  const FftLayout& layout;
  std::size_t count;
  std::size_t elem_bytes;
};
// Checks the buffers of one execution before anything is enqueued: large enough for their
// layouts, the same buffer for an in-place plan, disjoint byte ranges for an out-of-place plan
// given one buffer twice.
void check_io(bool in_place, std::size_t batch, const IoSide& in, const IoSide& out);
// The same for sides given by their first element and span in elements (multi-dimensional layouts).
struct IoExtent {
  const char* name;
  const cl::Buffer& buffer;
  std::size_t offset, span, elem_bytes;
};
void check_io_extents(bool in_place, const IoExtent& in, const IoExtent& out);

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

}  // namespace fft_plan_parts
using namespace fft_plan_parts;  // this header is included by the plan's own files only

// The scratch one execution leases for several plans' steps run one after the other in it: each
// buffer as large as the largest plan's.
inline ScratchLayout covering(const ScratchLayout& x, const ScratchLayout& y) {
  ScratchLayout r;
  r.b_bytes = std::max(x.b_bytes, y.b_bytes);
  r.c_bytes = std::max(x.c_bytes, y.c_bytes);
  r.bytes = std::max(x.bytes - x.b_bytes - x.c_bytes, y.bytes - y.b_bytes - y.c_bytes) + r.b_bytes + r.c_bytes;
  return r;
}

struct FftPlan::Impl {
  // Of forward() and inverse() without a queue argument; mutable because the launch layer takes
  // queues by reference to non-const (enqueueing does not change the handle).
  mutable cl::CommandQueue queue;
  detail::QueueContext qc;
  FftDesc desc;
  FftSteps steps;
  cl::Buffer dummy;  // bound where a stage reads no table
  float scale_fwd = 1.0f, scale_inv = 1.0f;

  // The scratch buffers an execution leased (ScratchLayout): A (and Rader's side values), B
  // where it has a workspace of its own (else null: B lies in A), C.
  struct Scratch {
    const cl::Buffer* a;
    const cl::Buffer* b;
    const cl::Buffer* c;
  };

  // Checks the description, builds and compiles the steps (the constructor's work).
  // real_inside: the complex FFT of a real-input plan (build_steps).
  void build(const cl::CommandQueue& q, const FftDesc& d, const Tuning& tuning, bool real_inside = false);

  // Checks the buffers (and a queue other than the plan's), then enqueues one execution.
  void run(cl::CommandQueue& queue, int dir, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait,
           cl::Event* event) const;

  // One execution of `st` (this plan's steps, or a real-input plan's around them): the caller's
  // sides move by in_distance and out_distance elements per transform from chunk to chunk.
  void execute(cl::CommandQueue& q, int dir, const FftSteps& st, const cl::Buffer& in, const cl::Buffer& out,
               std::size_t in_distance, std::size_t out_distance, float scale, const EventList& wait,
               cl::Event* event) const;
  // A queue other than the plan's must be of its context and device.
  void check_queue(const cl::CommandQueue& q) const;
  // Leases `sl`'s scratch for execution x (before its first launch).
  Scratch lease(detail::Execution& x, const ScratchLayout& sl) const;
  // Enqueues `st` (as execute) into x on leased scratch; `final`: its last launch is x's last.
  void enqueue_steps(detail::Execution& x, const Scratch& scratch, int dir, const FftSteps& st, const cl::Buffer& in,
                     const cl::Buffer& out, std::size_t in_distance, std::size_t out_distance, float scale,
                     bool final) const;

  struct Launch;  // one stage of one chunk (fft_plan.cpp)

 private:
  void enqueue_stage(const Launch& l, detail::Execution& x) const;
  void enqueue_local(const Launch& l, detail::Execution& x) const;
  void enqueue_lanes(const Launch& l, detail::Execution& x) const;
  void enqueue_rader(const Launch& l, detail::Execution& x) const;
  void enqueue_real(const Launch& l, detail::Execution& x) const;
};

struct RealFftPlan::Impl {
  FftPlan::Impl complex;  // m points, in place on the rows in C, unscaled
  RealFftDesc desc;
  FftSteps forward, inverse;  // pack, the complex stages, post; pre, the complex stages, unpack
                              // (without pack and unpack where the rows are read as pairs)
  float scale_fwd = 1.0f, scale_inv = 1.0f;

  // Checks the description, builds the complex plan and places the two ends (the constructor's
  // work). even_steps: every step the execution will add to the real side's offset is even
  // (a multi-dimensional plan's repeats), so that its rows may be read as complex pairs.
  void build(const cl::CommandQueue& q, const RealFftDesc& d, const Tuning& tuning, bool even_steps = true);
};

}  // namespace clforge
