// Single-precision general matrix multiply with BLAS semantics:
//   C = alpha * op(A) * op(B) + beta * C,   op(X) = X or X^T,
// C is m x n, op(A) is m x k, op(B) is k x n, in row-major or column-major storage.
#pragma once
#include <cstddef>
#include <vector>

#include "clforge/common.hpp"
#include "clforge/tuning.hpp"

namespace clforge {

/// Storage order of every matrix of a call (BLAS CblasRowMajor / CblasColMajor).
enum class Layout { RowMajor, ColMajor };
/// Whether an operand is used as stored (No) or transposed (Yes).
enum class Transpose { No, Yes };

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
/// Large products of the tiled path use a packing workspace on the device: buffers up to
/// 512 MiB are kept per context and reused (later calls wait for the earlier ones through
/// events, so any queue of the context may be used concurrently); larger ones are allocated
/// per call. `event` (if not null) completes when all of the call's work is done.
void sgemm(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n,
           std::size_t k, float alpha, const MatrixRef& a, const MatrixRef& b, float beta, const MatrixRef& c,
           const EventList& wait_list = {}, cl::Event* event = nullptr, const Tuning& tuning = {});

/// Host-vector convenience: copies A, B and C to the device, multiplies, copies C back
/// (blocking). Leading dimensions as above; the vectors must hold the described matrices.
void sgemm(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n,
           std::size_t k, float alpha, const std::vector<float>& a, std::size_t lda, const std::vector<float>& b,
           std::size_t ldb, float beta, std::vector<float>& c, std::size_t ldc, const Tuning& tuning = {});

}  // namespace clforge
