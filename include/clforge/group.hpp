// One job across several devices of a host: a DeviceGroup (a context and queues per device) and
// host-resident entry points for every family that split the work into chunks (transforms,
// columns of C, bands of rows), hand the chunks to the devices by weights or on demand, and run
// each device's chunks as a pipeline over several queues: upload chunk i+1 while chunk i computes
// while chunk i-1 comes back. See docs/group.md.
#pragma once
#include <complex>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "clforge/blur.hpp"
#include "clforge/device.hpp"
#include "clforge/fft.hpp"
#include "clforge/opencl.hpp"
#include "clforge/sgemm.hpp"
#include "clforge/tuning.hpp"

namespace clforge {

namespace detail {
struct GroupAccess;  // the library's own access (pinned ranges)
}

/// Devices used together: per device a context of its own and `queues` in-order profiling
/// queues. Copies share the same devices, contexts and queues. The group's entry points may run
/// on several host threads at once (each call has its own buffers and events; they share the
/// queues, which OpenCL makes safe).
class DeviceGroup {
 public:
  /// `selectors`: comma-separated; each selects every device it matches, in list_devices()
  /// order: "all", "gpu", "cpu", a vendor ("nvidia", "amd", "intel"), an index "N" or
  /// "P:D", or a case-insensitive substring of the device or platform name. A device matched
  /// twice is taken once. Throws UnsupportedDevice naming the selector that matches nothing,
  /// InvalidArgument for an empty list or `queues` outside 1..8.
  explicit DeviceGroup(const std::string& selectors = "all", std::size_t queues = 3);
  /// The given devices (each once), in that order.
  explicit DeviceGroup(std::vector<DeviceEntry> devices, std::size_t queues = 3);
  /// One device in an existing context (the group's queues are new, in-order, in that context).
  DeviceGroup(const cl::Context& context, const cl::Device& device, std::size_t queues = 3);

  std::size_t size() const;
  std::size_t queues() const;
  const DeviceEntry& entry(std::size_t device) const;
  const cl::Context& context(std::size_t device) const;
  /// Queue q (< queues()) of a device.
  cl::CommandQueue& queue(std::size_t device, std::size_t q = 0) const;
  /// "0: NVIDIA H100 80GB HBM3 [GPU], 1: pthread-... [CPU]".
  std::string describe() const;

  struct Impl;

 private:
  friend struct detail::GroupAccess;
  std::shared_ptr<Impl> impl_;
};

/// How a group call hands its chunks to the devices.
enum class SplitMode {
  /// Weights from each device's measured throughput for the routine and size class (its rate in
  /// the group store), or the fastest device alone where its measured whole calls alone beat the
  /// split's; a device done with its share then takes chunks
  /// from the end of the share of the device with the most left, so a rate that is off costs
  /// little. It calibrates in kAutoCalibrationCalls complete calls: a call that finds a device
  /// without a rate runs Dynamic and measures every device's throughput; the next runs the
  /// fastest alone (every device above a tenth of the best rate once, the fastest alone being the
  /// one whose whole call was fastest), the next the split, each measured; a split slower than
  /// the fastest alone is
  /// measured again in a further call with the other devices' shares halved, while they stay
  /// above 4 %; all go to the group store beside the user tuning database (in memory only when
  /// that is off). docs/group.md.
  Auto,
  Weights,  ///< SplitOptions::weights: device d takes a contiguous share in proportion
  Dynamic,  ///< every device takes the next chunk when it has a free queue
};
/// Calls of a routine and size class in which SplitMode::Auto measures a group (each a complete,
/// correct call): the devices together (Dynamic), the fastest alone, the split by the rates (and,
/// where that split lost, one more call per halving of the other devices' shares).
inline constexpr int kAutoCalibrationCalls = 3;
/// At most this many measuring calls for two devices: the three, one more where the second
/// device's rate is above a tenth of the first's (each such device runs alone once), then one per
/// halving of the others' share (100, 50, 25, 12, 6, 3). A cold call (GroupRun::cold) does not count as
/// a measurement: its step is repeated, at most twice.
inline constexpr int kAutoCalibrationCallsMax = kAutoCalibrationCalls + 6;
const char* to_string(SplitMode m);
/// "auto", "weights", "dynamic" (case-insensitive); throws InvalidArgument naming the text.
SplitMode parse_split_mode(const std::string& text);

/// Whether chunks of pageable memory travel through pinned staging buffers (CL_MEM_ALLOC_HOST_PTR,
/// mapped): the caller's memory is copied into them on the host and the device transfers from and
/// to them. Host arrays inside PinnedMemory of the group are always transferred directly.
enum class Staging {
  Auto,  ///< on GPUs and accelerators; off on CPU devices (whose transfers are host copies anyway)
  On,    ///< on every device
  Off,   ///< the device transfers straight from and to the caller's memory
};

/// What SplitMode::Auto otherwise reads from the group store (docs/group.md), given for every
/// device; 0: the stored (or measured) value. A value given is used as it is: Auto neither
/// replaces it with what later calls measure nor lowers a share given.
struct AutoValues {
  double rate = 0;   ///< MB/s of host data each device does beside the others
  double alone = 0;  ///< MB/s of host data of a whole call of the fastest device alone
  double split = 0;  ///< MB/s of host data of a whole call split by the rates
  int share = 0;     ///< percent (1..100) of their rates that the devices other than the fastest get
};

/// Options of one group call.
struct SplitOptions {
  SplitMode mode = SplitMode::Auto;
  std::vector<double> weights;  ///< Weights: one per device, each >= 0, finite, sum > 0
  std::size_t chunk = 0;        ///< items per chunk (transforms, columns, rows); 0: from chunk_kib
  /// Host KiB a chunk moves, at most, where chunk is 0: a power of two from 64 to 65536; 0: each
  /// device's stored or shipped size for the routine (docs/group.md). Capped so that every queue
  /// of every device can get work.
  std::size_t chunk_kib = 0;
  std::size_t queues = 0;  ///< queues per device in use, 1..group.queues(); 0: each device's stored or shipped count
  Staging staging = Staging::Auto;
  /// false: each device runs one chunk at a time, upload, compute, download (the baseline that
  /// `clforge bench split` compares the pipeline against).
  bool overlap = true;
  /// Passed to every device's plans; Tuning::user_database = false also keeps Auto's rates and
  /// the stored chunk sizes out of the group store (and CLFORGE_TUNING=off).
  Tuning tuning;
  AutoValues auto_values;  ///< SplitMode::Auto's rates given instead of the stored ones
  /// Benchmark form (`clforge bench split --resident`), 0: off. Each device's share (Weights, or
  /// Auto's weights, equal where a rate is missing; not Dynamic) is uploaded once into its buffers,
  /// then computed resident_reps + 1 times with every device at once; GroupRun::seconds and each
  /// share's seconds are the median of the last resident_reps (device work only, no transfers),
  /// and the result is downloaded into the output as a normal call's.
  int resident_reps = 0;
};

/// Weights that give the CPU devices of the group `percent` (0..100) of the work, split evenly
/// among them, and the other devices the rest, split evenly. Throws InvalidArgument for a
/// percent outside 0..100, or one that gives work to a kind of device the group lacks.
std::vector<double> cpu_percent_weights(const DeviceGroup& group, double percent);

/// What one device did in a group call.
struct DeviceShare {
  std::size_t device = 0;  ///< index in the group
  std::string name;
  std::size_t chunk = 0;   ///< items per chunk on this device (0: it had no work)
  std::size_t queues = 0;  ///< queues it used
  std::size_t items = 0;   ///< transforms, columns or rows it did
  std::size_t chunks = 0;
  std::size_t stolen = 0;  ///< chunks it took from the end of another device's share (Auto)
  bool staged = false;     ///< some of its chunks went through pinned staging buffers
  double seconds = 0;      ///< from the start of the chunks to this device's last chunk back on the host
};

/// What a group call did.
struct GroupRun {
  /// The mode that ran: Auto runs Weights from the devices' stored rates, or Dynamic when a
  /// device has none yet (that call measures and stores them).
  SplitMode mode = SplitMode::Weights;
  std::vector<double> weights;      ///< the weights used (Weights), empty for Dynamic
  std::vector<DeviceShare> shares;  ///< one per device of the group
  double seconds = 0;               ///< wall time of the chunks (argument checks and plans excluded)
  /// Auto: this call measured the group for later calls (the devices together, one alone, or a
  /// split); the calls after the last such call run what the measurements chose.
  bool calibrating = false;
  /// Buffers were created (pinned staging, device memory) or programs built during the call,
  /// inside its time; Auto takes such a call as a measurement only after two repeats.
  bool cold = false;
};

/// Pinned (page-locked) host memory from the OpenCL driver: a CL_MEM_ALLOC_HOST_PTR buffer of the
/// group's first non-CPU device (else its first device), mapped for the object's lifetime. Group
/// calls whose host arrays lie inside pinned memory of their group transfer from and to it
/// directly, with no staging copies (Staging Auto and On). Move-only; the memory is released by the
/// destructor, which must not run while a group call uses it.
class PinnedMemory {
 public:
  /// Throws InvalidArgument for 0 bytes, OpenCLError when the driver refuses.
  PinnedMemory(const DeviceGroup& group, std::size_t bytes);
  ~PinnedMemory();
  PinnedMemory(PinnedMemory&&) noexcept;
  PinnedMemory& operator=(PinnedMemory&&) noexcept;
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;
  void* data() const;
  std::size_t size() const;
  template <typename T>
  T* as() const {
    return static_cast<T*>(data());
  }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Group plans: a group job decided once and executed any number of times (the model of cuFFT's
// cufftXtSetGPUs before cufftMakePlan). A plan checks its description and split options, fixes
// the devices that can get work (SplitMode::Weights: those with a weight above 0; otherwise
// every device), each device's chunk size and queues, and makes each such device's plans; the
// plan of a whole chunk is built on every such device by the constructor (so that an argument a
// device refuses throws there), those of shorter chunks when first needed. Each execute() then
// checks only its host arrays, chooses the split (Weights and Dynamic: as given; Auto: from the
// group store, measuring over its first calls, docs/group.md), and runs the chunks. Plans are
// copyable (copies share the plans) and execute() may run on several host threads at once. The
// free functions below make a plan and execute it once; a one-device group runs its chunks on
// the calling thread without Auto's machinery (the host-vector overloads of every family do).

/// Batched complex FFT of `batch` contiguous transforms of length n, host memory to host memory.
class GroupFftPlan {
 public:
  /// Throws InvalidArgument before anything is built for n or batch 0, n * batch * 8 bytes above
  /// size_t, sizes FftPlan refuses, bad split options.
  GroupFftPlan(const DeviceGroup& group, std::size_t n, std::size_t batch, const SplitOptions& options = {});
  /// in == out: in place. The inverse is unnormalised like FftPlan's default. Throws
  /// InvalidArgument for null pointers or arrays that overlap without being the same;
  /// DeviceFailure as fft() below.
  GroupRun execute(FftDirection direction, const std::complex<float>* in, std::complex<float>* out) const;
  GroupRun forward(const std::complex<float>* in, std::complex<float>* out) const;
  GroupRun inverse(const std::complex<float>* in, std::complex<float>* out) const;
  std::size_t n() const;
  std::size_t batch() const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

/// out (cols x rows) = in (rows x cols)^T, both packed row-major, as transpose() below.
class GroupTransposePlan {
 public:
  /// Throws InvalidArgument for rows or cols 0, elem_size not 4, 8 or 16, sizes above size_t,
  /// bad split options.
  GroupTransposePlan(const DeviceGroup& group, std::size_t rows, std::size_t cols, std::size_t elem_size,
                     const SplitOptions& options = {});
  /// Throws InvalidArgument for null or overlapping arrays.
  GroupRun execute(const void* in, void* out) const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

/// C = alpha op(A) op(B) + beta C on host matrices, as sgemm() below; the shape, leading
/// dimensions, alpha and beta are the plan's (as SgemmPlan's).
class GroupSgemmPlan {
 public:
  /// Throws InvalidArgument for an unknown layout or transpose, m, n or k of 2^31 or more,
  /// leading dimensions too small, matrices above size_t bytes, bad split options. m or n 0:
  /// execute() does nothing (C is not touched).
  GroupSgemmPlan(const DeviceGroup& group, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                 std::size_t n, std::size_t k, float alpha, std::size_t lda, std::size_t ldb, float beta,
                 std::size_t ldc, const SplitOptions& options = {});
  /// Throws InvalidArgument for a null C, a null A or B where they are read, C overlapping A or B.
  GroupRun execute(const float* a, const float* b, float* c) const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

/// Strided-batched C_i = alpha op(A_i) op(B_i) + beta C_i (i < batch) on host matrices, as
/// sgemm_strided_batched() below; shape, leading dimensions, strides, batch, alpha and beta are
/// the plan's.
class GroupSgemmBatchedPlan {
 public:
  /// Throws InvalidArgument as sgemm_strided_batched() (clforge/sgemm.hpp) does for the shape,
  /// leading dimensions, strides and batch, for a batch above size_t bytes and bad split options.
  GroupSgemmBatchedPlan(const DeviceGroup& group, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                        std::size_t n, std::size_t k, float alpha, std::size_t lda, std::size_t a_stride,
                        std::size_t ldb, std::size_t b_stride, float beta, std::size_t ldc, std::size_t c_stride,
                        std::size_t batch, const SplitOptions& options = {});
  /// Throws InvalidArgument for a null C, a null A or B where they are read, C's batch
  /// overlapping A's or B's.
  GroupRun execute(const float* a, const float* b, float* c) const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

/// Gaussian blur of a packed row-major image in bands of rows, as gaussian_blur() below; BlurMethod::Auto
/// is resolved by the constructor on the group's first device.
class GroupBlurPlan {
 public:
  /// Throws InvalidArgument for width or height 0, an unknown format, sigma outside (0, 4096],
  /// sizes above size_t, bad split options.
  GroupBlurPlan(const DeviceGroup& group, std::size_t width, std::size_t height, PixelFormat format,
                const BlurOptions& options, const SplitOptions& split = {});
  /// Throws InvalidArgument for null or overlapping images.
  GroupRun execute(const void* in, void* out) const;
  /// The method every band runs (Auto resolved).
  BlurMethod method() const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

/// Batched complex FFT of `batch` contiguous transforms of length n, host memory to host memory
/// (in == out allowed: in place), split on the batch. Forward unless `inverse`; the inverse is
/// unnormalised like FftPlan's default. Results equal FftPlan's on each device (same kernels).
/// Throws InvalidArgument before anything is built or allocated for null pointers, n or batch 0
/// or sizes FftPlan refuses, bad split options; DeviceFailure when a device fails (then the
/// outputs of every chunk not finished are NaN).
GroupRun fft(const DeviceGroup& group, std::size_t n, std::size_t batch, const std::complex<float>* in,
             std::complex<float>* out, bool inverse = false, const SplitOptions& options = {});

/// out (cols x rows) = in (rows x cols)^T, both packed row-major, elem_size 4, 8 or 16 bytes,
/// split in bands of input rows. Bitwise equal to transpose(). in and out must not overlap.
GroupRun transpose(const DeviceGroup& group, std::size_t rows, std::size_t cols, std::size_t elem_size, const void* in,
                   void* out, const SplitOptions& options = {});

/// C = alpha op(A) op(B) + beta C with sgemm()'s semantics on host matrices, C split in blocks
/// of columns (column-major; rows in row-major): each device receives A once and its slices of
/// B and C. beta == 0 does not read C. C must not overlap A or B.
GroupRun sgemm(const DeviceGroup& group, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
               std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda, const float* b,
               std::size_t ldb, float beta, float* c, std::size_t ldc, const SplitOptions& options = {});

/// Strided-batched sgemm on host matrices, the batch split over the devices in chunks of
/// products: C_i = alpha op(A_i) op(B_i) + beta C_i for i < batch, matrix i of each operand
/// `stride` elements after the one before, with sgemm_strided_batched()'s semantics and checks
/// (a stride of 0: one A or B for every product, sent to each device once). Each device receives
/// its products' matrices (ld gaps included), computes them as one strided batch and brings back
/// the m x n elements of each C (the ld gaps and the gaps between C's matrices are not written).
/// beta == 0 does not read C. C's batch must not overlap A's or B's.
GroupRun sgemm_strided_batched(const DeviceGroup& group, Layout layout, Transpose trans_a, Transpose trans_b,
                               std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
                               std::size_t lda, std::size_t a_stride, const float* b, std::size_t ldb,
                               std::size_t b_stride, float beta, float* c, std::size_t ldc, std::size_t c_stride,
                               std::size_t batch, const SplitOptions& options = {});

/// Gaussian blur of a packed row-major image (pitch = width) in bands of rows, each with the
/// rows above and below that its filter reaches (docs/group.md: the recursive method's reach is
/// where its impulse response falls below 2^-30 of its peak). Methods Direct and Separable give
/// gaussian_blur()'s result bitwise, Recursive within its stated tolerance. Auto resolves on the
/// group's first device. in and out must not overlap.
GroupRun gaussian_blur(const DeviceGroup& group, std::size_t width, std::size_t height, PixelFormat format,
                       const void* in, void* out, const BlurOptions& options, const SplitOptions& split = {});

}  // namespace clforge
