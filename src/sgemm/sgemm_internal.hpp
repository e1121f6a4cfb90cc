// Internal view of the sgemm family: which path a call takes, for the CLI, the benchmark and
// the tests (the threshold between the direct and the tiled kernels is a tuning parameter, so
// the choice must be observable), the argument checks the plan and the free functions share,
// the kernels' signatures, and plan access for the free function and the tuner.
#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "clforge/device.hpp"
#include "clforge/sgemm.hpp"
#include "clforge/tuning.hpp"
#include "runtime/launch.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/plan_keys.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner.hpp"

namespace clforge::detail {

// The routine name in argument errors and logs.
inline constexpr const char* kSgemmRoutine = "sgemm";

/// The family's kernel specs and tuner targets (listed by src/library/families.cpp).
KernelSpec sgemm_xgemm_spec();
KernelSpec sgemm_stream_spec();
KernelSpec sgemm_direct_spec();
KernelSpec sgemm_pack_spec();
KernelSpec sgemm_route_spec();
TuneTarget sgemm_tune_target();
TuneTarget sgemm_stream_tune_target();
TuneTarget sgemm_direct_tune_target();
TuneTarget sgemm_route_tune_target();
TuneTarget sgemm_pack_tune_target();

struct QueueContext;

enum class SgemmPath {
  Nothing,  ///< m or n is 0, or (k == 0 or alpha == 0) with beta == 1
  Scale,    ///< C = beta * C only (k == 0 or alpha == 0)
  Direct,   ///< sgemm_direct on the user's buffers
  Xgemm,    ///< pack + sgemm_xgemm
  Stream,   ///< pack + sgemm_stream
};
const char* to_string(SgemmPath p);

/// The path sgemm takes on `device` for a batch of m x n x k products (any layout: the choice
/// does not depend on it) with these alpha, beta and tuning overrides.
SgemmPath sgemm_path(const DeviceInfo& device, std::size_t m, std::size_t n, std::size_t k, float alpha, float beta,
                     const Tuning& tuning = {}, std::size_t batch = 1);

/// Size class of an m x n x k product: the database variant the tiled kernels (sgemm_xgemm,
/// sgemm_stream) are resolved with, so that `clforge tune` can store separate entries for
/// small, medium and large products. "small": m*n*k < 1536^3, "medium": < 3072^3, else "large".
/// Shipped rows use "*" (every class). The products of a batch (batch > 1) take the sub-variant
/// "<class>:batch" ("small:batch"), a single product whose C is 8 or more times as wide as tall
/// or as tall as wide "<class>:wide" (512 x 8192 x 512: "small:wide"); each falls back to the
/// class's rows.
std::string sgemm_size_class(std::size_t m, std::size_t n, std::size_t k, std::size_t batch = 1);

/// The variant sgemm_direct is resolved with: for a strided batch (batch > 1) "batch16" for C
/// matrices up to 16 x 16, "batch32" up to 32 x 32 (a C tile fitted to them: the single
/// product's 64 would leave most of each work-group idle) and "batch" for larger ones (a batch
/// fills the device with its products, a single product with its tiles); else "*".
std::string sgemm_direct_variant(std::size_t m, std::size_t n, std::size_t batch);

/// The variant sgemm_route is resolved with: "batch" for a strided or offset batch (batch > 1),
/// else "*".
inline std::string sgemm_route_variant(std::size_t batch) { return batch > 1 ? "batch" : "*"; }

/// Number of k slices sgemm_xgemm runs for an m x n x k product in the internal layout (1: no
/// split): with SGEMM_SPLITK >= 2, enough slices for tiles x slices to reach compute units x
/// SGEMM_SPLIT_WAVES work-groups, at most SGEMM_SPLITK, at least one k tile each (the tiles
/// past the edge strips of SGEMM_EDGE).
std::size_t sgemm_k_slices(const DeviceInfo& device, std::size_t m, std::size_t n, std::size_t k, const Tuning& tuning);

/// Whether sgemm_xgemm's NVRREG reaches the device's compiler (-cl-nv-maxrregcount: NVIDIA's
/// OpenCL); elsewhere every value builds the same kernel.
bool sgemm_register_cap_applies(const DeviceInfo& device);
/// Compiler options the launcher adds to a family's program besides the parameters: 64-bit
/// indexing when needed and, for sgemm_xgemm on NVIDIA's OpenCL, the register cap NVRREG.
std::string sgemm_extra_options(const DeviceInfo& device, const std::string& family, const Configuration& cfg,
                                bool long_index);

/// The overrides of `tuning` that belong to kernel `spec_name` (user-database switch kept).
Tuning sgemm_tuning_for(const Tuning& tuning, const std::string& spec_name);

/// A problem size as the benchmark, the CLI and the tuner write it: "N" (square) or "MxNxK",
/// optionally followed by ":NN", ":NT", ":TN" or ":TT" (op of A, op of B), then optionally by
/// "@B" (a strided batch of B products, tight strides).
struct SgemmSize {
  std::size_t m = 0, n = 0, k = 0;
  bool ta = false, tb = false;
  std::size_t batch = 1;  ///< products of a strided batch ("@B")
};
/// Throws InvalidArgument naming the text when it is not such a size.
SgemmSize parse_sgemm_size(const std::string& text);

/// The checks of the buffers of a call whose operands span `span` elements (sgemm_spans) from
/// `offsets`: each operand that describes an element is a buffer that holds it, and C does not
/// overlap A or B in the same buffer. InvalidArgument naming the operand otherwise.
void sgemm_check_buffers(const std::array<std::size_t, 3>& span, const std::array<const cl::Buffer*, 3>& buffers,
                         const std::array<std::size_t, 3>& offsets);

/// The offsets form of a batch (SgemmDesc's offset lists), checked without buffers: each list
/// holds `batch` entries, the scalar offsets and strides are 0, every matrix's end fits in size_t
/// (in bytes too), and no two C matrices overlap (sorted, each starts at least one C matrix's
/// extent after the one before). `span`: one matrix's elements per operand (sgemm_spans).
struct SgemmOffsets {
  std::array<std::size_t, 3> end{};   ///< per operand, the largest offset + span (0: no element)
  std::vector<std::size_t> c_sorted;  ///< C's offsets in increasing order
};
SgemmOffsets sgemm_check_offsets(const SgemmDesc& d, const std::array<std::size_t, 3>& span);

/// The offsets form's buffer checks: every operand that describes an element is a buffer that
/// holds its last matrix, and no product's A or B overlaps any product's C in the same buffer
/// (InvalidArgument naming the operand and product otherwise).
void sgemm_check_offset_buffers(const SgemmDesc& d, const std::array<std::size_t, 3>& span, const SgemmOffsets& o,
                                const std::array<const cl::Buffer*, 3>& buffers);

/// Throws InvalidArgument unless every override names a parameter of one of the sgemm kernels
/// with a legal value; each family's overrides are resolved (legal combinations, fit on the
/// device) even when a call does not use that family.
void sgemm_validate_overrides(const Tuning& tuning, const DeviceInfo& device);

/// Products of a strided batch per launch: NVIDIA's OpenCL maps the NDRange's third dimension
/// onto a CUDA grid, which has at most 65535 blocks along z; a larger batch takes more launches.
inline constexpr std::size_t kSgemmMaxBatchLaunch = 65535;

/// Bytes of packed operands a strided batch on the tiled paths may hold in its workspace at once
/// (256 MiB, below the pool's 512 MiB): a larger batch runs in groups of products that reuse it.
/// Plans read it when they are built; tests lower it to run groups on small batches.
std::atomic<std::size_t>& sgemm_batch_workspace_limit();

/// The kernels' parameters as cl/sgemm/*.cl declares them, bound by name. The four direct
/// kernels ([trans_a][trans_b]) share one parameter list, and so do the two packing kernels.
extern const KernelSignature kSgemmXgemm;
extern const KernelSignature kSgemmStream;
extern const KernelSignature kSgemmDirect[2][2];
extern const KernelSignature kSgemmPackCopy;
extern const KernelSignature kSgemmPackTrans;
extern const KernelSignature kSgemmPackPair;
extern const KernelSignature kSgemmSumScale;

/// What the library itself does with a plan beyond its public interface.
struct SgemmPlanAccess {
  /// The plan for `desc` on qc's context and device (the tuner builds plans on worker threads,
  /// where it has no queue). Throws as the public constructor.
  static SgemmPlan make(const QueueContext& qc, const SgemmDesc& desc, const Tuning& tuning);
  static SgemmPath path(const SgemmPlan& plan);
  /// k slices of the multiply (1: no split).
  static std::size_t k_slices(const SgemmPlan& plan);
  /// Products per group of tiled launches (the batch when one group takes them all).
  static std::size_t batch_group(const SgemmPlan& plan);
  /// enqueue() without its checks, for callers that checked the buffers and use a queue of the
  /// plan's context and device.
  static void run(const SgemmPlan& plan, cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& b,
                  const cl::Buffer& c, const EventList& wait_list, cl::Event* event);
};

/// The sgemm kernel families, in the order they are listed in the registry.
inline const char* const kSgemmSpecs[] = {"sgemm_xgemm", "sgemm_stream", "sgemm_direct", "sgemm_pack", "sgemm_route"};

}  // namespace clforge::detail
