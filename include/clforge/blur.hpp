// Gaussian blur of row-major images: single-channel float, 4-channel interleaved float and
// 8-bit RGBA (through conversion kernels), by direct 2-D convolution, separable row and column
// passes, or a recursive (IIR) Gaussian whose cost does not depend on sigma. See docs/blur.md.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "clforge/common.hpp"
#include "clforge/tuning.hpp"

namespace clforge {

/// What a filter sees outside the image.
enum class BlurBorder {
  Clamp,   ///< the edge pixel repeated: ... a a | a b c
  Mirror,  ///< reflection about the image edge, edge pixel included: ... c b a | a b c (period 2n)
  Zero,    ///< zeros outside (the image darkens at its edges)
};

/// How the blur is computed.
enum class BlurMethod {
  Auto,       ///< picked by sigma and image size from crossovers in the tuning database (kernel "blur")
  Direct,     ///< (2rx+1) x (2ry+1) window per pixel, r = ceil(3 sigma); cost O(rx * ry)
  Separable,  ///< a row pass then a column pass with the same truncated weights; cost O(rx + ry)
  Recursive,  ///< Young-van Vliet recursive Gaussian (cost independent of sigma, approximate; sigma >= 0.5)
};

/// Pixel layout of the image buffers.
enum class PixelFormat {
  R32F,     ///< one float per pixel
  RGBA32F,  ///< four interleaved floats per pixel (float4)
  RGBA8,    ///< four interleaved unsigned bytes per pixel; blurred in float, rounded to nearest and saturated
};

const char* to_string(BlurBorder b);
const char* to_string(BlurMethod m);
const char* to_string(PixelFormat f);
/// "clamp", "mirror", "zero" (case-insensitive); throws InvalidArgument naming the text.
BlurBorder parse_blur_border(const std::string& text);
/// "auto", "direct", "separable", "recursive"; throws InvalidArgument naming the text.
BlurMethod parse_blur_method(const std::string& text);
/// Bytes per pixel of a format (4, 16, 4).
std::size_t pixel_bytes(PixelFormat f);

/// An image inside a cl::Buffer. offset and pitch (distance between row starts) count pixels
/// of the call's PixelFormat, not bytes and not channels: pixel (x, y) is pixel number
/// offset + y * pitch + x of the buffer. pitch must be at least the width.
struct ImageRef {
  cl::Buffer buffer;
  std::size_t offset = 0;
  std::size_t pitch = 0;
};

/// Options of one blur call.
struct BlurOptions {
  double sigma_x = 1.0;  ///< standard deviation along rows (x), in pixels; 0 < sigma <= 4096
  double sigma_y = 1.0;  ///< standard deviation along columns (y), in pixels
  BlurBorder border = BlurBorder::Clamp;
  BlurMethod method = BlurMethod::Auto;
};

/// What a BlurPlan computes: the Gaussian blur (see gaussian_blur) of the width x height image
/// at in_offset of the input buffer, rows in_pitch apart, into the image at out_offset of the
/// output buffer, rows out_pitch apart. Offsets and pitches count pixels of `format` (see
/// ImageRef); a pitch of 0 means the width (packed rows).
struct BlurDesc {
  std::size_t width = 0, height = 0;
  PixelFormat format = PixelFormat::R32F;
  double sigma_x = 1.0, sigma_y = 1.0;  ///< pixels, in (0, 4096]; Recursive needs at least 0.5
  BlurBorder border = BlurBorder::Clamp;
  BlurMethod method = BlurMethod::Auto;
  std::size_t in_offset = 0, in_pitch = 0;
  std::size_t out_offset = 0, out_pitch = 0;
};

namespace detail {
struct BlurPlanAccess;  // the library's own access (free functions, tuner)
}

/// A Gaussian blur checked, resolved and compiled once, then enqueued any number of times on
/// any queue of the same context and device. The plan holds its programs and its constant
/// tables (weights, recursive filter parameters); scratch memory (intermediate images, block
/// carries, the float copies of an RGBA8 image) comes from a per-context pool for each enqueue
/// and goes back with the event of the enqueue's last command, so enqueues on several queues
/// never share scratch that is still in use.
/// Thread-safety: a plan is immutable after construction; enqueue() and the accessors may run
/// on several threads at once, on one queue or several (each thread uses its own kernel
/// objects). Copies share one plan.
class BlurPlan {
 public:
  /// Throws InvalidArgument (before anything is built or allocated) for zero sizes or sizes above
  /// 2^30, an unknown format, method or border, sigma not in (0, 4096] (or below 0.5 for the
  /// recursive method, also when Auto picks it), a pitch below the width, extents that overflow,
  /// or bad tuning overrides; BuildError when a kernel does not compile.
  BlurPlan(const cl::CommandQueue& queue, const BlurDesc& desc, const Tuning& tuning = {});
  /// Waits for wait_list, blurs `in` into `out`; *event (if given) completes when all of the
  /// enqueue's work is done (also on out-of-order queues). Throws InvalidArgument, before
  /// anything is enqueued or allocated, for null or too-small buffers, in and out being one
  /// buffer, or a queue of another context or device than the plan's.
  void enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait_list = {},
               cl::Event* event = nullptr) const;
  /// Whether enqueue_rows() can write a window of the output rows: the separable method on float
  /// images (R32F, RGBA32F).
  bool writes_row_windows() const;
  /// enqueue() writing only the output rows [first, first + count) of the plan's image, row y at
  /// row y - first of `out` (from the description's out offset, with its out pitch): the rows a
  /// band of a larger image owns, computed from the band and its halo rows (blur_halo_rows()
  /// above and below it) as the plan's image in `in`, bitwise as the whole image would give them.
  /// The other rows of `out`'s memory are not written. Throws InvalidArgument, before anything
  /// is enqueued, when the plan cannot (writes_row_windows() is false), for an empty window or one
  /// outside the image, and as enqueue() (`out` holds `count` rows).
  void enqueue_rows(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, std::size_t first,
                    std::size_t count, const EventList& wait_list = {}, cl::Event* event = nullptr) const;
  /// The method the plan runs (never Auto).
  BlurMethod method() const;
  /// The description, pitches resolved (never 0).
  const BlurDesc& desc() const;
  /// e.g. "blur 1000x999 R32F, sigma 5 x 5, mirror: recursive (vertical: blocked+fused transpose, ...)".
  std::string describe() const;
  /// The resolved tuning parameters (and where each value came from) of the kernels the plan
  /// runs: "blur" (Auto's crossovers, the RGBA8 conversions), then the method's kernel
  /// (blur_direct, blur_separable or blur_recursive), then the recursive method's separate
  /// transposes, if any.
  const std::vector<Configuration>& configurations() const;

  struct Impl;

 private:
  friend struct detail::BlurPlanAccess;
  explicit BlurPlan(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

/// Gaussian blur of the width x height image `in` into `out` (out-of-place; different buffers).
/// Direct and separable use the truncated Gaussian w(k) = exp(-k^2 / (2 sigma^2)) for
/// |k| <= r = ceil(3 sigma), normalised to sum 1 per axis; the 2-D weight is wx(dx) * wy(dy).
/// Recursive applies the Young-van Vliet (1995) third-order filter forwards and backwards along
/// each axis with Triggs-Sdika boundary conditions (see docs/blur.md for its accuracy).
/// Waits for wait_list; if event is not null it receives an event that completes when all of
/// the call's work is done (also on out-of-order queues). Returns the method used (never Auto).
/// Throws InvalidArgument (before anything is enqueued) for zero or too large sizes, a pitch
/// below the width, null or too-small buffers, in and out being one buffer, sigma not in
/// (0, 4096], or Recursive with sigma below 0.5. Runs a BlurPlan from a bounded per-process
/// cache: a repeated call with the same image layout, sigmas and tuning costs a lookup.
BlurMethod gaussian_blur(cl::CommandQueue& queue, std::size_t width, std::size_t height, PixelFormat format,
                         const ImageRef& in, const ImageRef& out, const BlurOptions& options,
                         const EventList& wait_list = {}, cl::Event* event = nullptr, const Tuning& tuning = {});

/// The rows above and below an output row that the filter of `method` reads for sigma_y (Auto
/// counts as direct and separable): r = ceil(3 sigma_y) for direct and separable, which read
/// exactly those; for the recursive filter, which reaches infinitely far, the distance where its
/// impulse response has decayed below 2^-30 of its peak. A band of rows blurred with this many
/// rows of the image above and below it (BlurPlan::enqueue_rows) gives the whole image's rows.
std::size_t blur_halo_rows(BlurMethod method, double sigma_y);

/// The description of a gaussian_blur() call on a width x height image with tight rows (offsets
/// 0, pitches the width).
BlurDesc blur_desc(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& options);

/// The checks gaussian_blur() makes before it looks at the device or the buffers: throws its
/// InvalidArgument for zero sizes or sizes above 2^30, an unknown format, method or border,
/// sigma not in (0, 4096] (or below 0.5 for Recursive), or bad tuning overrides.
void check_blur_arguments(std::size_t width, std::size_t height, PixelFormat format, const BlurOptions& options,
                          const Tuning& tuning = {});

/// The method that Auto resolves to for this queue's device, image size and sigmas.
BlurMethod resolve_blur_method(const cl::CommandQueue& queue, std::size_t width, std::size_t height, PixelFormat format,
                               double sigma_x, double sigma_y, const Tuning& tuning = {});

/// Host-vector convenience: blurs width x height pixels of `channels` (1 or 4) interleaved
/// floats, blocking. Returns the blurred image (same layout). Every argument is checked and the
/// plans built before a device buffer is allocated. Runs as a group call on the queue's device
/// alone (clforge/group.hpp): bands of rows with their halos through pinned staging, transfers
/// overlapped with the blur; direct and separable give gaussian_blur()'s result bitwise.
std::vector<float> gaussian_blur(cl::CommandQueue& queue, std::size_t width, std::size_t height, std::size_t channels,
                                 const std::vector<float>& in, const BlurOptions& options, const Tuning& tuning = {});

}  // namespace clforge
