// Single-precision general matrix multiply with BLAS semantics:
//   C = alpha * op(A) * op(B) + beta * C,   op(X) = X or X^T,
// C is m x n, op(A) is m x k, op(B) is k x n, in row-major or column-major storage; a batch
// computes C_i = alpha * op(A_i) * op(B_i) + beta * C_i for i < batch, its matrices at strides
// or at offsets given per product.
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "clforge/common.hpp"
#include "clforge/tuning.hpp"

namespace clforge {

/// Storage order of every matrix of a call (BLAS CblasRowMajor / CblasColMajor).
enum class Layout { RowMajor, ColMajor };
/// Whether an operand is used as stored (No) or transposed (Yes).
enum class Transpose { No, Yes };

/// What an SgemmPlan computes: C = alpha * op(A) * op(B) + beta * C with the semantics of
/// sgemm() below, on buffers given to enqueue(). Offsets and leading dimensions count elements;
/// a leading dimension of 0 means the smallest legal one (max(1, rows) of the stored matrix in
/// column-major storage, max(1, columns) in row-major storage).
///
/// A strided batch (batch > 1) computes `batch` such products: matrix i of A starts at
/// a_offset + i * a_stride (likewise B and C), strides in elements. A stride of 0 uses one A (or B)
/// for every product. C's matrices must not overlap: with batch > 1, c_stride is at least one C
/// matrix's extent (its ld gaps included), so it is never 0. batch = 1 ignores the strides and is
/// the single product; batch = 0 computes nothing.
///
/// The offsets form (CLBlast's GemmBatched): with a_offsets, b_offsets and c_offsets given (each
/// exactly `batch` entries), matrix i of A starts at a_offsets[i] (likewise B and C), in any
/// order; a_offset, b_offset, c_offset and the strides must then be 0. Products may share an A
/// or a B (equal offsets); C's matrices must not overlap: any two C offsets differ by at least
/// one C matrix's extent (its ld gaps included), as c_stride in the strided form. One alpha and
/// one beta serve every product. Offsets that step evenly (every list an arithmetic progression,
/// non-decreasing) run as the strided batch they are.
struct SgemmDesc {
  Layout layout = Layout::ColMajor;
  Transpose trans_a = Transpose::No, trans_b = Transpose::No;
  std::size_t m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;
  std::size_t a_offset = 0, a_ld = 0;
  std::size_t b_offset = 0, b_ld = 0;
  std::size_t c_offset = 0, c_ld = 0;
  std::size_t batch = 1;
  std::size_t a_stride = 0, b_stride = 0, c_stride = 0;
  std::vector<std::size_t> a_offsets, b_offsets, c_offsets;  ///< the offsets form; empty: strided
};

namespace detail {
struct SgemmPlanAccess;
}

/// An sgemm checked, resolved and compiled once, then enqueued any number of times on any queue
/// of the same context and device. The plan decides everything that does not depend on the
/// buffers' contents: the path (nothing, C = beta * C, the direct kernel, or packing plus a tiled
/// kernel), the tile shapes and k slices, which operands are read in place (that depends on the
/// offsets and leading dimensions of the description), the packing workspace's size and 32- or
/// 64-bit indexing.
///
/// Thread-safety: a plan is immutable after construction (copies share it); enqueue() may run on
/// several threads at once, on one queue or several. Each call uses the calling thread's kernel
/// objects, and a plan that packs leases a workspace buffer from the context's pool for the call
/// and gives it back with the event of its last command: a later call that gets the same buffer,
/// on any queue, waits for that event before it writes the buffer.
class SgemmPlan {
 public:
  /// Throws InvalidArgument (before anything is built) for m, n, k or batch of 2^31 or more, an
  /// unknown layout or transpose, a leading dimension smaller than allowed, a c_stride smaller
  /// than one C matrix's extent (batch > 1), extents that overflow, offset lists (the offsets
  /// form) of another length than batch, beside scalar offsets or strides, or with two C
  /// matrices that overlap, or
  /// unknown or illegal tuning overrides (they may name the parameters of any sgemm kernel);
  /// BuildError when a kernel does not compile.
  SgemmPlan(const cl::CommandQueue& queue, const SgemmDesc& desc, const Tuning& tuning = {});
  /// Waits for wait_list, computes C; *event (if given) completes when all of the work is done.
  /// Throws InvalidArgument, before anything is enqueued, for a null or too-small buffer (A or B
  /// may be null only when it describes no element), C overlapping A or B in the same buffer (in
  /// the offsets form: any product's C overlapping any product's A or B), or a queue of another
  /// context or device.
  void enqueue(cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
               const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  /// A packed once for several calls that share it (e.g. blocks of C's columns against one A):
  /// the bytes of A as the plan's multiply reads it, or 0 when the plan does not pack A (it reads
  /// A in place, takes the direct or no kernel, is row-major, where the internal A is B, or is a
  /// batch of more than one product).
  std::size_t packed_a_bytes() const;
  /// Packs the caller's A into `packed` (packed_a_bytes() bytes from offset 0) exactly as
  /// enqueue() would; waits for wait_list, *event (if given) completes when the pack is done.
  /// Throws InvalidArgument, before anything is enqueued, when the plan does not pack A, for a
  /// null or too-small buffer, `packed` being A's buffer, or a queue of another context or device.
  void pack_a(cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& packed, const EventList& wait_list = {},
              cl::Event* event = nullptr) const;
  /// enqueue() reading A from `packed_a`, filled by pack_a() (its event in wait_list, or the pack
  /// enqueued earlier on the same in-order queue), instead of packing A again. Throws as pack_a()
  /// for packed_a (and for packed_a being C's buffer) and as enqueue() for B and C.
  void enqueue_packed_a(cl::CommandQueue& queue, const cl::Buffer& packed_a, const cl::Buffer& b, const cl::Buffer& c,
                        const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  /// The description with leading dimensions of 0 replaced by the smallest legal ones.
  const SgemmDesc& desc() const;
  /// The path and how it runs, e.g. "sgemm 1000x1000x1000 column-major NN, alpha 1, beta 0: xgemm
  /// with 64x64 C tiles, k tiles of 16, 1 k slice; A packed, B packed; workspace 7.875 MiB".
  std::string describe() const;
  /// Bytes of the packing workspace a call takes from the context's pool (0: none).
  std::size_t workspace_bytes() const;
  /// The resolved parameters of the kernels the plan uses, sgemm_route first, with where each
  /// value came from.
  const std::vector<Configuration>& configurations() const;

  struct Impl;

 private:
  friend struct detail::SgemmPlanAccess;
  explicit SgemmPlan(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

/// Elements spanned by A, B and C of an sgemm call (0 for an operand that describes no
/// element: A and B when k is 0, all three when m or n is 0), from each matrix's first element:
/// what a buffer or host vector must hold past the operand's offset. Throws InvalidArgument
/// naming the first bad argument, as sgemm() does, for m, n or k of 2^31 or more, an unknown
/// layout or transpose, or a leading dimension smaller than allowed.
std::array<std::size_t, 3> sgemm_spans(Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                                       std::size_t n, std::size_t k, std::size_t lda, std::size_t ldb, std::size_t ldc);

/// The same for a strided batch: (batch - 1) * stride plus one matrix's span for each operand
/// that describes an element (all 0 when batch is 0). Throws InvalidArgument as sgemm_spans, and
/// for batch of 2^31 or more, c_stride smaller than one C matrix's span when batch > 1 (C's
/// matrices must not overlap) and an extent that does not fit in size_t.
std::array<std::size_t, 3> sgemm_batched_spans(Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                                               std::size_t n, std::size_t k, std::size_t lda, std::size_t ldb,
                                               std::size_t ldc, std::size_t batch, std::size_t a_stride,
                                               std::size_t b_stride, std::size_t c_stride);

/// C = alpha * op(A) * op(B) + beta * C on the device, asynchronously on `queue`.
///
/// A, B and C are MatrixRefs (buffer, offset and leading dimension in elements). In
/// column-major storage A is an (m x k) matrix, or (k x m) when trans_a is Yes, with
/// a.ld >= max(1, its rows); in row-major storage a.ld >= max(1, its columns). B and C
/// likewise (B is k x n or n x k; C is m x n).
///
/// Semantics follow the reference BLAS exactly: m == 0 or n == 0 does nothing; k == 0 or
/// alpha == 0 sets C = beta * C without reading A or B; beta == 0 writes C without reading
/// it (NaN or Inf already in C does not reach the result); only the m x n elements of C are
/// written. A or B may be a null buffer only when it describes no element (k == 0).
///
/// Throws InvalidArgument naming the argument, before anything is enqueued, for m, n or k
/// of 2^31 or more, a leading dimension smaller than allowed, a null or too-small buffer,
/// C overlapping A or B in the same buffer, or bad tuning overrides. Tuning overrides may
/// name the parameters of any of the sgemm kernels (sgemm_xgemm, sgemm_stream,
/// sgemm_direct, sgemm_pack, sgemm_route; see `clforge params`).
///
/// Runs an SgemmPlan from a bounded per-process cache, after checking every argument: a
/// repeated call with the same shape, layout, offsets, leading dimensions, alpha, beta and
/// tuning costs a lookup, not a resolution.
///
/// Large products of the tiled path use a packing workspace on the device: buffers up to
/// 512 MiB are kept per context and reused (later calls wait for the earlier ones through
/// events, so any queue of the context may be used concurrently); larger ones are allocated
/// per call. `event` (if not null) completes when all of the call's work is done.
void sgemm(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n,
           std::size_t k, float alpha, const MatrixRef& a, const MatrixRef& b, float beta, const MatrixRef& c,
           const EventList& wait_list = {}, cl::Event* event = nullptr, const Tuning& tuning = {});

/// Strided-batched sgemm: C_i = alpha * op(A_i) * op(B_i) + beta * C_i for i < batch, matrix i
/// of each operand at its MatrixRef's offset plus i times its stride (elements), every matrix
/// with the MatrixRef's leading dimension. Semantics, checks and caching as sgemm(), which is
/// this call with batch 1. a_stride or b_stride may be 0 (one A or B for every product);
/// c_stride must be at least one C matrix's extent when batch > 1, so C's matrices never
/// overlap (InvalidArgument otherwise), and C's whole extent must not overlap A's or B's in the
/// same buffer. batch = 0 does nothing. The products run in one launch per kernel, the batch as
/// the kernels' third NDRange dimension (on the tiled paths one launch per group of products
/// whose packed operands share at most 256 MiB of workspace).
void sgemm_strided_batched(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                           std::size_t n, std::size_t k, float alpha, const MatrixRef& a, std::size_t a_stride,
                           const MatrixRef& b, std::size_t b_stride, float beta, const MatrixRef& c,
                           std::size_t c_stride, std::size_t batch, const EventList& wait_list = {},
                           cl::Event* event = nullptr, const Tuning& tuning = {});

/// Batched sgemm with an offset per product (CLBlast's GemmBatched): C_i = alpha * op(A_i) *
/// op(B_i) + beta * C_i for i < batch = a_offsets.size(), matrix i of A at element a_offsets[i]
/// of buffer `a` (likewise B and C), every matrix with the leading dimension lda (ldb, ldc). The
/// offsets may come in any order and products may share an A or a B; C's matrices must not
/// overlap (any two C offsets at least one C matrix's extent apart, its ld gaps included), nor
/// any C an A or B in the same buffer. One alpha and one beta for every product. Semantics,
/// checks and caching as sgemm_strided_batched(), on the same plans and kernels: the offsets go
/// to the device once per plan as a small table that the kernels read per product (offsets in
/// even steps run as the strided batch they are). Throws InvalidArgument, before anything is
/// enqueued, for lists of different lengths, a batch of 2^31 or more, a matrix past its buffer
/// or whose end does not fit in size_t, and overlaps as above. batch 0 does nothing.
void sgemm_batched(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                   std::size_t n, std::size_t k, float alpha, const cl::Buffer& a,
                   const std::vector<std::size_t>& a_offsets, std::size_t lda, const cl::Buffer& b,
                   const std::vector<std::size_t>& b_offsets, std::size_t ldb, float beta, const cl::Buffer& c,
                   const std::vector<std::size_t>& c_offsets, std::size_t ldc, const EventList& wait_list = {},
                   cl::Event* event = nullptr, const Tuning& tuning = {});

/// The offsets form with a scalar pair per product, as CLBlast's GemmBatched takes them: C_i =
/// alphas[i] * op(A_i) * op(B_i) + betas[i] * C_i. The products whose scalars are equal (bit for
/// bit) run together as one offsets batch of the form above, one batch per distinct pair in the
/// order of their first product; every batch waits for wait_list, and `event` (when given)
/// completes when all of them have. A product with alphas[i] = 0 (or k = 0) reads neither A_i nor
/// B_i, one with betas[i] = 0 does not read C_i. Throws InvalidArgument, before anything is
/// enqueued, for alphas or betas of another length than the offset lists, and as above.
void sgemm_batched(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                   std::size_t n, std::size_t k, const std::vector<float>& alphas, const cl::Buffer& a,
                   const std::vector<std::size_t>& a_offsets, std::size_t lda, const cl::Buffer& b,
                   const std::vector<std::size_t>& b_offsets, std::size_t ldb, const std::vector<float>& betas,
                   const cl::Buffer& c, const std::vector<std::size_t>& c_offsets, std::size_t ldc,
                   const EventList& wait_list = {}, cl::Event* event = nullptr, const Tuning& tuning = {});

/// Host-vector convenience, blocking. Leading dimensions as above; the vectors must hold the
/// described matrices. Runs as a group call on the queue's device alone (clforge/group.hpp): A
/// sent once, blocks of C's columns (rows in row-major storage) with their B and C through pinned
/// staging, transfers overlapped with the products.
void sgemm(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n,
           std::size_t k, float alpha, const std::vector<float>& a, std::size_t lda, const std::vector<float>& b,
           std::size_t ldb, float beta, std::vector<float>& c, std::size_t ldc, const Tuning& tuning = {});

}  // namespace clforge
