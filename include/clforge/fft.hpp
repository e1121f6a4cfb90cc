// Batched 1-D complex FFT (single precision, interleaved complex): a plan describes the length,
// the batch and the layout of input and output (the cufftPlanMany / clFFT model); it compiles its
// kernels once and then is enqueued, forward or inverse, any number of times.
#pragma once
#include <complex>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "clforge/common.hpp"
#include "clforge/tuning.hpp"

namespace clforge {

/// Where the transforms of a batch lie in a buffer, counted in complex elements (8 bytes):
/// element k of transform b is at offset + b * distance + k * stride.
struct FftLayout {
  std::size_t stride = 1;    ///< between consecutive elements of one transform (>= 1)
  std::size_t distance = 0;  ///< between the first elements of consecutive transforms; 0: n * stride
  std::size_t offset = 0;    ///< of the first element of the first transform
};

/// Scaling applied to a transform's result.
enum class FftScaling {
  None,       ///< unnormalised: y_k = sum_j x_j exp(-+2 pi i jk/n)
  OverN,      ///< times 1/n
  OverSqrtN,  ///< times 1/sqrt(n)
};

/// The direction of a transform: forward y_k = sum_j x_j exp(-2 pi i jk/n), inverse with +2 pi i.
enum class FftDirection {
  Forward,  ///< scaled by FftDesc::forward_scaling
  Inverse,  ///< scaled by FftDesc::inverse_scaling
};

/// What an FftPlan computes.
struct FftDesc {
  std::size_t n = 0;      ///< transform length: 1 .. 2^27 (radix passes), any other up to 2^23 (Bluestein)
  std::size_t batch = 1;  ///< number of transforms (>= 1)
  bool in_place = false;  ///< true: the result replaces the input (output layout = input layout)
  FftLayout in;           ///< input layout
  FftLayout out;          ///< output layout (ignored when in_place)
  FftScaling forward_scaling = FftScaling::None;  ///< applied by FftPlan::forward
  FftScaling inverse_scaling = FftScaling::None;  ///< applied by FftPlan::inverse (OverN: a true inverse)
};

/// A compiled batched FFT. Forward: y_k = sum_j x_j exp(-2 pi i jk/n); inverse: the same with
/// +2 pi i. Kernels are built at construction through the compile cache (memory, then disk: a
/// new process creating the same plan loads them from disk); twiddle tables are owned by the
/// plan. Multi-pass plans lease scratch_bytes() of device scratch per execution from a pool
/// shared by the calls on the plan's context (the buffer goes back with the execution's last
/// command, and the next user waits for it).
///
/// Lengths with prime factors 2, 3, 5, 7, 11, 13 run as radix passes in one kernel up to
/// FFT_LOCAL_MAX points (4096 by default), longer ones in several passes through global
/// memory; any other length uses Bluestein's algorithm on a power-of-two FFT.
///
/// Thread safety: a plan is immutable after construction (copies share it). enqueue(),
/// forward() and inverse() (and the const accessors) may run concurrently on several host
/// threads, on the plan's queue or on other queues of its context and device (each execution
/// leases its own scratch; each thread uses its own kernel objects), as long as the executions
/// write different buffers. Assignment and destruction must not overlap with other calls on the
/// same plan object.
class FftPlan {
 public:
  /// Throws InvalidArgument for n or batch 0, stride 0, a distance that makes transforms of the
  /// output (or an in-place input) overlap, n above 2^27 (2^23 for lengths with a prime factor
  /// above 13), batch of 2^31 or more, or an unknown/illegal tuning override; UnsupportedDevice
  /// when no configuration fits the device;
  /// BuildError when a kernel fails to compile.
  FftPlan(const cl::CommandQueue& queue, const FftDesc& desc, const Tuning& tuning = {});
  ~FftPlan();
  FftPlan(const FftPlan&);
  FftPlan& operator=(const FftPlan&);
  FftPlan(FftPlan&&) noexcept;
  FftPlan& operator=(FftPlan&&) noexcept;

  /// Enqueues one transform of the batch on `queue`, the plan's queue or another queue of its
  /// context and device: reads `in` (never written by an out-of-place plan), writes `out` (for
  /// an in-place plan pass the same buffer twice). Throws InvalidArgument, before anything is
  /// enqueued, for a queue of another context or device, null buffers, buffers too small for the
  /// described layout, an in-place plan given two buffers, or input and output ranges that
  /// overlap in an out-of-place plan. Waits for wait_list; *event (if given) completes when the
  /// whole transform is done.
  void enqueue(cl::CommandQueue& queue, FftDirection direction, const cl::Buffer& in, const cl::Buffer& out,
               const EventList& wait_list = {}, cl::Event* event = nullptr) const;

  /// enqueue() of a forward transform on the plan's queue: reads `in` (never written), writes
  /// `out`. For an in-place plan `in` and `out` must be the same buffer. Throws as enqueue().
  void forward(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;
  /// Inverse transform, as forward().
  void inverse(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;
  /// In-place forms (the plan must be in-place).
  void forward(const cl::Buffer& data, const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  void inverse(const cl::Buffer& data, const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  /// enqueue() of a forward or an inverse transform (for an in-place plan pass the buffer twice).
  void forward(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;
  void inverse(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;

  const FftDesc& desc() const;
  /// How the plan computes, e.g. "n=1024 batch=64: 1 kernel, radix 16*8*8, 64 work-items x 4 transforms".
  std::string describe() const;
  /// Kernel launches per execution.
  std::size_t launches() const;
  /// Bytes of device scratch memory an execution leases (0 for single-kernel plans).
  std::size_t scratch_bytes() const;
  /// Resolved tuning parameters of each kernel of the plan, with where each value came from.
  std::vector<Configuration> configurations() const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

/// What a RealFftPlan computes: transforms of n real values x_j and their half spectrum, the
/// n/2 + 1 complex values X_k = sum_j x_j exp(-2 pi i jk/n), k = 0 .. n/2 (the others are
/// conj X_(n-k)). The inverse (C2R) computes x_j = sum_k X_k exp(+2 pi i jk/n) over the whole
/// Hermitian spectrum; the imaginary parts of X_0 and, for even n, X_(n/2) are ignored.
struct RealFftDesc {
  std::size_t n = 0;      ///< real length: the limits of FftDesc::n (any n >= 1, odd and prime too)
  std::size_t batch = 1;  ///< number of transforms (>= 1)
  /// true: the half spectrum replaces the real values in one buffer, in rows as FFTW and cuFFT pad
  /// them: `complex` (stride 1) describes the rows, a real row takes the 2 * (n/2 + 1) floats of
  /// its complex row; `real` must be left default or equal {1, 2 * complex.distance, 2 * complex.offset}.
  bool in_place = false;
  FftLayout
      real;  ///< counted in floats: x_j of transform b at offset + b * distance + j * stride (distance 0: n * stride)
  FftLayout complex;  ///< counted in complex elements: X_k at offset + b * distance + k * stride (distance 0: (n/2+1) *
                      ///< stride)
  FftScaling forward_scaling = FftScaling::None;  ///< applied by RealFftPlan::forward (R2C)
  FftScaling inverse_scaling = FftScaling::None;  ///< applied by RealFftPlan::inverse (C2R; OverN: a true inverse)
};

/// A compiled batched real-input FFT: forward R2C (real values to half spectrum) and inverse
/// C2R. Built on the complex FFT (FftPlan's kernels and routes): even n as a complex FFT of n/2
/// points of the real values taken as pairs, then a post-processing launch (and the reverse
/// for C2R); odd n as a complex FFT of n points. Every execution leases scratch_bytes() of
/// device scratch (the complex rows, plus what the complex FFT leases), so neither direction
/// writes its input in an out-of-place plan. The contract is FftPlan's: arguments checked at
/// construction, buffers at every call before anything is enqueued; immutable and thread-safe.
class RealFftPlan {
 public:
  /// Throws InvalidArgument as FftPlan does, for either layout (the real side counts n floats
  /// per transform, the complex side n/2 + 1 complex elements), and for an in-place plan whose
  /// complex stride is not 1 or whose real layout differs from the one its rows imply;
  /// UnsupportedDevice and BuildError as FftPlan.
  RealFftPlan(const cl::CommandQueue& queue, const RealFftDesc& desc, const Tuning& tuning = {});
  ~RealFftPlan();
  RealFftPlan(const RealFftPlan&);
  RealFftPlan& operator=(const RealFftPlan&);
  RealFftPlan(RealFftPlan&&) noexcept;
  RealFftPlan& operator=(RealFftPlan&&) noexcept;

  /// Enqueues one execution on `queue` (the plan's queue or another of its context and device).
  /// Forward: `in` holds the real values, `out` receives the half spectrum; inverse: `in` holds
  /// the half spectrum, `out` receives the real values. `in` is never written by an out-of-place
  /// plan; an in-place plan takes the same buffer twice. Throws InvalidArgument, before anything
  /// is enqueued, as FftPlan::enqueue (sizes in bytes from the two layouts).
  void enqueue(cl::CommandQueue& queue, FftDirection direction, const cl::Buffer& in, const cl::Buffer& out,
               const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  /// R2C on the plan's queue: reads `real`, writes `complex`.
  void forward(const cl::Buffer& real, const cl::Buffer& complex, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;
  /// C2R on the plan's queue: reads `complex`, writes `real`.
  void inverse(const cl::Buffer& complex, const cl::Buffer& real, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;
  /// In-place forms (the plan must be in-place).
  void forward(const cl::Buffer& data, const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  void inverse(const cl::Buffer& data, const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  /// The same on another queue of the plan's context and device.
  void forward(cl::CommandQueue& queue, const cl::Buffer& real, const cl::Buffer& complex,
               const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  void inverse(cl::CommandQueue& queue, const cl::Buffer& complex, const cl::Buffer& real,
               const EventList& wait_list = {}, cl::Event* event = nullptr) const;

  /// The description with default distances filled in.
  const RealFftDesc& desc() const;
  /// How the plan computes, e.g. "n=1000 real batch=4: pack, complex FFT of 500 points (...), post".
  std::string describe() const;
  /// Kernel launches per execution in a direction (they differ where only one direction's end
  /// of the real transform folds into the complex FFT's kernel).
  std::size_t launches(FftDirection direction = FftDirection::Forward) const;
  /// Bytes of device scratch memory an execution leases.
  std::size_t scratch_bytes() const;
  /// Resolved tuning parameters of each kernel of the complex FFT inside.
  std::vector<Configuration> configurations() const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

/// Where the transforms of a multi-dimensional batch lie in a buffer, counted in complex elements:
/// element (i_0, ..., i_(r-1)) of transform b is at offset + b * distance + sum_k i_k * strides[k].
struct FftNdLayout {
  /// One per axis, slowest first (>= 1); empty: contiguous row-major, the last axis fastest
  /// (numpy's and FFTW's order): strides[r-1] = 1, strides[k] = strides[k+1] * shape[k+1].
  std::vector<std::size_t> strides;
  std::size_t distance = 0;  ///< between the first elements of consecutive transforms; 0: max_k shape[k] * strides[k]
  std::size_t offset = 0;    ///< of the first element of the first transform
};

/// What an FftNdPlan computes: batched 2-D and 3-D (and 1-D) complex transforms,
/// y_(k_0..k_(r-1)) = sum_j x_(j_0..j_(r-1)) exp(-+2 pi i sum_a j_a k_a / shape[a]).
struct FftNdDesc {
  std::vector<std::size_t> shape;  ///< lengths, slowest axis first: 1 to 3 axes, each within FftDesc::n's limits
  std::size_t batch = 1;           ///< number of transforms (>= 1)
  bool in_place = false;           ///< true: the result replaces the input (output layout = input layout)
  FftNdLayout in;                  ///< input layout
  FftNdLayout out;                 ///< output layout (ignored when in_place)
  FftScaling forward_scaling = FftScaling::None;  ///< OverN: times 1/(product of the lengths); OverSqrtN: its root
  FftScaling inverse_scaling = FftScaling::None;  ///< as forward_scaling (OverN: a true inverse)
};

/// A compiled batched multi-dimensional complex FFT: one 1-D complex plan per axis longer than 1
/// (FftPlan's kernels and routes, any length), run one after the other. The first pass (the last axis)
/// reads the input and writes the output; the others run in place on the output, each along its
/// axis with the axis' stride, so an out-of-place plan never writes its input. Each pass covers
/// the other axes and the batch as the 1-D plan's batch where their strides nest (rows of a
/// contiguous batch: one 1-D batch of batch * shape[0] * ... rows), and otherwise as further
/// positions of the same 1-D plan within the pass (columns of each image of a batch: a batch of
/// shape[1] columns at distance 1, once per image). The contract is FftPlan's: arguments checked
/// at construction, buffers at every call before anything is enqueued; immutable and thread-safe.
class FftNdPlan {
 public:
  /// Throws InvalidArgument for 0 or more than 3 axes, a length or batch outside FftDesc's
  /// limits, a stride count other than the rank, a stride of 0, a layout spanning 2^40 elements
  /// or more, an output (or in-place) layout whose elements overlap (its strides and distance,
  /// sorted, must each exceed the extent of the smaller ones), or an in-place plan whose output
  /// layout differs from its input layout; UnsupportedDevice and BuildError as FftPlan.
  FftNdPlan(const cl::CommandQueue& queue, const FftNdDesc& desc, const Tuning& tuning = {});
  ~FftNdPlan();
  FftNdPlan(const FftNdPlan&);
  FftNdPlan& operator=(const FftNdPlan&);
  FftNdPlan(FftNdPlan&&) noexcept;
  FftNdPlan& operator=(FftNdPlan&&) noexcept;

  /// As FftPlan::enqueue: reads `in` (never written by an out-of-place plan), writes `out` (an
  /// in-place plan takes the same buffer twice); throws InvalidArgument before anything is
  /// enqueued for a foreign queue, null or too small buffers, or overlapping in and out ranges.
  void enqueue(cl::CommandQueue& queue, FftDirection direction, const cl::Buffer& in, const cl::Buffer& out,
               const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  void forward(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;
  void inverse(const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;
  /// In-place forms (the plan must be in-place).
  void forward(const cl::Buffer& data, const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  void inverse(const cl::Buffer& data, const EventList& wait_list = {}, cl::Event* event = nullptr) const;

  /// The description with default strides and distances filled in.
  const FftNdDesc& desc() const;
  /// How the plan computes: one line per axis pass, its 1-D plan and its positions.
  std::string describe() const;
  /// Kernel launches per execution.
  std::size_t launches() const;
  /// Bytes of device scratch the largest pass leases.
  std::size_t scratch_bytes() const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

/// What a RealFftNdPlan computes: batched 1-D, 2-D and 3-D transforms of real arrays x and their
/// half spectrum, y_(k_0..k_(r-1)) = sum_j x_j exp(-2 pi i sum_a j_a k_a / shape[a]) for
/// k_(r-1) = 0 .. shape[r-1]/2 along the last axis (the others are conj y at -k modulo the shape).
/// The inverse (C2R) runs the inverse complex transforms along the other axes, then the 1-D C2R
/// of RealFftDesc along the last axis (which ignores the imaginary parts of its first and, for an
/// even length, its last value): for a Hermitian spectrum the real array whose spectrum it is,
/// for any other input what numpy.fft.irfftn returns.
struct RealFftNdDesc {
  /// Real lengths, slowest axis first: 1 to 3 axes, each within FftDesc::n's limits. The complex
  /// side has the same lengths but shape.back() / 2 + 1 along the last axis.
  std::vector<std::size_t> shape;
  std::size_t batch = 1;  ///< number of transforms (>= 1)
  /// true: the half spectrum replaces the real values in one buffer, in rows as FFTW and cuFFT pad
  /// them: `complex` (strides.back() 1) describes the rows, a real row takes the first
  /// shape.back() of its complex row's 2 * (shape.back()/2 + 1) floats; `real` must be left
  /// default or equal {2 * complex.strides (the last: 1), 2 * complex.distance, 2 * complex.offset}.
  bool in_place = false;
  FftNdLayout real;     ///< counted in floats; default: row-major, shape.back() floats per row
  FftNdLayout complex;  ///< counted in complex elements; default: row-major, shape.back()/2 + 1 per row
  FftScaling forward_scaling = FftScaling::None;  ///< OverN: times 1/(product of the real lengths); OverSqrtN: its root
  FftScaling inverse_scaling = FftScaling::None;  ///< as forward_scaling (OverN: a true inverse)
};

/// A compiled batched multi-dimensional real-input FFT: forward R2C, a RealFftPlan's transform
/// along the last axis (real values to n/2 + 1 complex ones) then complex passes along the other
/// axes in place on the half spectrum (FftNdPlan's passes); inverse C2R, the complex passes then
/// the C2R along the last axis. Neither direction writes its input in an out-of-place plan: the
/// inverse's first complex pass writes the half spectrum into leased scratch (the size of the
/// complex layout's extent), where the other passes and the C2R read it, so scratch_bytes() of
/// such a plan includes it (FFTW's and cuFFT's multi-dimensional C2R overwrite their input
/// instead). The contract is FftPlan's: arguments checked at construction, buffers at every call
/// before anything is enqueued; immutable and thread-safe.
class RealFftNdPlan {
 public:
  /// Throws InvalidArgument as FftNdPlan does for either layout (the real side counts shape
  /// floats, the complex side the half spectrum's complex elements; each is written by one
  /// direction, so each must be free of overlap), and for an in-place plan whose complex layout's
  /// last stride is not 1 or whose real layout differs from the padded rows it implies;
  /// UnsupportedDevice and BuildError as FftPlan.
  RealFftNdPlan(const cl::CommandQueue& queue, const RealFftNdDesc& desc, const Tuning& tuning = {});
  ~RealFftNdPlan();
  RealFftNdPlan(const RealFftNdPlan&);
  RealFftNdPlan& operator=(const RealFftNdPlan&);
  RealFftNdPlan(RealFftNdPlan&&) noexcept;
  RealFftNdPlan& operator=(RealFftNdPlan&&) noexcept;

  /// As RealFftPlan::enqueue: forward, `in` holds the real arrays and `out` receives the half
  /// spectra; inverse, the other way round. `in` is never written by an out-of-place plan; an
  /// in-place plan takes the same buffer twice. Throws InvalidArgument before anything is
  /// enqueued for a foreign queue, null or too small buffers, or overlapping in and out ranges.
  void enqueue(cl::CommandQueue& queue, FftDirection direction, const cl::Buffer& in, const cl::Buffer& out,
               const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  /// R2C on the plan's queue: reads `real`, writes `complex`.
  void forward(const cl::Buffer& real, const cl::Buffer& complex, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;
  /// C2R on the plan's queue: reads `complex`, writes `real`.
  void inverse(const cl::Buffer& complex, const cl::Buffer& real, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;
  /// In-place forms (the plan must be in-place).
  void forward(const cl::Buffer& data, const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  void inverse(const cl::Buffer& data, const EventList& wait_list = {}, cl::Event* event = nullptr) const;

  /// The description with default strides and distances filled in.
  const RealFftNdDesc& desc() const;
  /// How the plan computes: one line per axis pass (the last axis' real transform first).
  std::string describe() const;
  /// Kernel launches per execution in a direction (they differ where only one direction's end
  /// of the real transform folds into the complex FFT's kernel).
  std::size_t launches(FftDirection direction = FftDirection::Forward) const;
  /// Bytes of device scratch an execution leases at most (an out-of-place inverse: with the half spectrum).
  std::size_t scratch_bytes() const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

/// Host-vector convenience: a forward (or inverse) transform of `x.size() / n` contiguous
/// transforms of length n, blocking. Runs as a group call on the queue's device alone
/// (clforge/group.hpp): chunks of transforms through pinned staging buffers, their upload,
/// transform and download overlapped on queues of its own in the queue's context. Throws
/// InvalidArgument when n is 0 or does not divide x.size().
std::vector<std::complex<float>> fft(cl::CommandQueue& queue, const std::vector<std::complex<float>>& x, std::size_t n,
                                     bool inverse = false, const Tuning& tuning = {});

}  // namespace clforge
