// Gaussian blur of row-major images: single-channel float, 4-channel interleaved float and
// 8-bit RGBA (through conversion kernels), by direct 2-D convolution, separable row and column
// passes, or a recursive (IIR) Gaussian whose cost does not depend on sigma. See docs/blur.md.
#pragma once
#include <cstddef>
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

/// Scratch buffers (intermediate images, carries) that blur calls may reuse instead of
/// allocating their own. A workspace grows as needed. It must not be used by two calls whose
/// work can overlap on the device (two queues, or two threads enqueueing to one queue).
class BlurWorkspace {
 public:
  static constexpr int kSlots = 5;
  /// A buffer of at least `bytes` in slot `slot` (0 .. kSlots - 1), reallocated when too small.
  cl::Buffer get(const cl::Context& context, int slot, std::size_t bytes);

 private:
  cl::Buffer buffers_[kSlots];
  std::size_t sizes_[kSlots] = {};
  cl_context context_ = nullptr;
};

/// Options of one blur call.
struct BlurOptions {
  double sigma_x = 1.0;  ///< standard deviation along rows (x), in pixels; 0 < sigma <= 4096
  double sigma_y = 1.0;  ///< standard deviation along columns (y), in pixels
  BlurBorder border = BlurBorder::Clamp;
  BlurMethod method = BlurMethod::Auto;
  BlurWorkspace* workspace = nullptr;  ///< optional scratch reuse (see BlurWorkspace)
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
/// (0, 4096], or Recursive with sigma below 0.5.
BlurMethod gaussian_blur(cl::CommandQueue& queue, std::size_t width, std::size_t height, PixelFormat format,
                         const ImageRef& in, const ImageRef& out, const BlurOptions& options,
                         const EventList& wait_list = {}, cl::Event* event = nullptr, const Tuning& tuning = {});

/// The method that Auto resolves to for this queue's device, image size and sigmas.
BlurMethod resolve_blur_method(const cl::CommandQueue& queue, std::size_t width, std::size_t height, PixelFormat format,
                               double sigma_x, double sigma_y, const Tuning& tuning = {});

/// Host-vector convenience: blurs width x height pixels of `channels` (1 or 4) interleaved
/// floats, blocking. Returns the blurred image (same layout).
std::vector<float> gaussian_blur(cl::CommandQueue& queue, std::size_t width, std::size_t height, std::size_t channels,
                                 const std::vector<float>& in, const BlurOptions& options, const Tuning& tuning = {});

}  // namespace clforge
