// Batched routines across the ranks of an MPI communicator (the optional component clforge::mpi,
// built when MPI is found): the items of a job (transforms, columns of C, image rows) are
// distributed over the ranks, each rank holds its contiguous slice in host memory and runs it on
// its own DeviceGroup (clforge/group.hpp). Every function here is collective over the
// communicator. See docs/scale.md.
#pragma once
#include <mpi.h>

#include <complex>
#include <cstddef>
#include <string>
#include <vector>

#include "clforge/errors.hpp"
#include "clforge/group.hpp"

namespace clforge::mpi {

/// A rank failed in a collective call: thrown on every rank, with the failing rank's message.
class RankFailure : public Error {
 public:
  RankFailure(const std::string& what, int rank) : Error(what), rank_(rank) {}
  int rank() const noexcept { return rank_; }  ///< the lowest rank that failed

 private:
  int rank_;
};

/// Options of the collective calls (the same on every rank, except `local`).
struct MpiOptions {
  /// One weight per rank, each >= 0, sum > 0. Empty: each rank's measured throughput for the
  /// routine in its previous call (MPI_Allgather), equal shares until every rank has one.
  std::vector<double> weights;
  SplitOptions local;      ///< how a rank splits its share over its own devices
  double timeout_s = 120;  ///< the longest a rank waits for the others; then every rank is aborted
};

/// Which items each rank owns: rank r holds [first[r], first[r] + count[r]).
struct Distribution {
  std::size_t items = 0;
  std::vector<std::size_t> first, count;
};

/// The distribution of `items` over the ranks by o.weights (or the measured throughputs of
/// `routine`), boundaries on multiples of `granule`. Collective; the same result on every rank.
/// Throws InvalidArgument (on every rank) for bad weights.
Distribution distribute(MPI_Comm comm, const std::string& routine, std::size_t items, const MpiOptions& o,
                        std::size_t granule = 1);

/// Root's array of d.items items of item_bytes each into every rank's slice (`local`, its
/// count[rank] items), and back. Collective; waits at most timeout_s.
void scatter(MPI_Comm comm, int root, const Distribution& d, std::size_t item_bytes, const void* all, void* local,
             double timeout_s = 120);
void gather(MPI_Comm comm, int root, const Distribution& d, std::size_t item_bytes, const void* local, void* all,
            double timeout_s = 120);

/// What one rank did.
struct RankShare {
  int rank = 0;
  std::size_t first = 0, items = 0;
  double seconds = 0;  ///< its local work, halo exchange and broadcasts included
};
/// What a collective call did, the same on every rank.
struct MpiRun {
  std::vector<RankShare> ranks;
  double seconds = 0;  ///< the slowest rank's
};

/// Batched FFT: rank r transforms its count[r] contiguous transforms of length n (local_in to
/// local_out; the same array for in place).
MpiRun fft(MPI_Comm comm, const DeviceGroup& local, const Distribution& d, std::size_t n,
           const std::complex<float>* local_in, std::complex<float>* local_out, bool inverse, const MpiOptions& o);

/// C = alpha op(A) B + beta C, column-major, C (m x n) and B (k x n) distributed by columns
/// (n = d.items): rank r holds B's columns as a k x count[r] matrix (leading dimension k) and
/// C's as m x count[r] (leading dimension m). A (m x k, or k x m when trans_a is Yes, leading
/// dimension lda) is read on `root` only and broadcast once; each rank needs all of A.
MpiRun sgemm(MPI_Comm comm, const DeviceGroup& local, const Distribution& d, int root, Transpose trans_a, std::size_t m,
             std::size_t k, float alpha, const float* a, std::size_t lda, const float* local_b, float beta,
             float* local_c, const MpiOptions& o);

/// Strided-batched sgemm distributed by products (batch = d.items): rank r holds its count[r]
/// products' matrices in its local arrays, matrix i of each operand `stride` elements after the
/// one before (0: one A or B for all of them, which every rank then holds), and computes them on
/// its devices with sgemm_strided_batched(local, ...) (clforge/group.hpp), whose semantics and
/// checks apply to each rank's part. The ranks exchange no matrices: scatter() and gather() with
/// one product's elements as the item move packed batches to and from a root.
MpiRun sgemm_strided_batched(MPI_Comm comm, const DeviceGroup& local, const Distribution& d, Layout layout,
                             Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n, std::size_t k,
                             float alpha, const float* local_a, std::size_t lda, std::size_t a_stride,
                             const float* local_b, std::size_t ldb, std::size_t b_stride, float beta, float* local_c,
                             std::size_t ldc, std::size_t c_stride, const MpiOptions& o);

/// Gaussian blur of a width x d.items image distributed by rows (packed rows of `format`): each
/// rank receives the halo rows its filter reaches from the ranks that own them, blurs its band on
/// its devices and writes its own rows. Auto resolves on rank 0's first device for every rank.
MpiRun gaussian_blur(MPI_Comm comm, const DeviceGroup& local, const Distribution& d, std::size_t width,
                     PixelFormat format, const void* local_in, void* local_out, const BlurOptions& options,
                     const MpiOptions& o);

}  // namespace clforge::mpi
