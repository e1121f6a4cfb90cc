// What clforge's blur bench shares with its peers' runners (blur_opencv.cpp, blur_npp.cpp): the
// case, the sampled check against the double host reference, the peer record, and the peers. Every
// peer does the work of clforge's direct and separable methods: the same sigma on both axes, the
// same truncation (taps() per axis), the same border (OpenCV: BORDER_REPLICATE, BORDER_REFLECT,
// BORDER_CONSTANT 0; NPP: replicate only), the same float image in and out.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "bench/routines.hpp"
#include "clforge/blur.hpp"

namespace clforge::bench {

/// One image and sigma of bench blur, as every library sees it.
struct BlurCase {
  std::size_t width = 0, height = 0, channels = 1;
  double sigma = 0;
  BlurBorder border = BlurBorder::Clamp;
  const std::vector<float>* image = nullptr;  ///< width * height * channels floats, rows without padding
  int verify_pixels = 2000;                   ///< output pixels checked (0: none)
  std::uint64_t verify_seed = 0;              ///< which pixels
  /// "WxH s=S": the shape of the case's records.
  std::string label() const;
  /// Taps per axis, 2 ceil(3 sigma) + 1 (at least 3): clforge's truncation.
  int taps() const;
};

/// Relative L2 error of sampled output pixels (w x h, c interleaved channels) against the host:
/// the truncated Gaussian (truncate 3, clforge's and the peers' kernel) or the exact one (truncate 8).
double blur_sampled_error(const float* in, const float* out, std::size_t w, std::size_t h, std::size_t c, double sigma,
                          BlurBorder border, double truncate, int samples, std::uint64_t seed);

/// Tolerance of the sampled error of a truncated Gaussian in float (clforge's direct and
/// separable methods, every peer): about 2 (2r + 1) roundings of float sums of bounded terms.
inline constexpr double kTruncatedBlurTolerance = 1e-4;

/// Sets r.error from the case's sampled pixels of `out`; the status becomes "failed: ..." when
/// the error exceeds kTruncatedBlurTolerance or is not finite. Returns whether it passed.
bool check_blur_output(Record& r, const BlurCase& c, const float* out);

/// A peer's record of the case: routine "blur", the case's label as its shape, params sigma,
/// taps, border and "peer": true (what tells a peer from clforge's methods in reports).
Record blur_peer_record(const std::string& library, const BlurCase& c);

/// Whether a blur record is a peer's (params "peer": true), not one of clforge's methods.
bool is_blur_peer(const Record& r);

/// OpenCV state kept over the cases of one bench blur run: its OpenCL execution context on the
/// session's context and device, and the uploaded image (blur_opencv.cpp).
struct OpenCvState;

/// OpenCV's cv::GaussianBlur with ksize taps() x taps(), sigma on both axes and the case's border,
/// CV_32FC1 or CV_32FC4:
/// - "OpenCV CPU": on a cv::Mat on the host with OpenCV's threads (host_threads()), host wall clock;
/// - "OpenCV OpenCL": on cv::UMat through OpenCV's OpenCL on the session's own context and
///   device (OpenCLExecutionContext), timed between markers on OpenCV's profiling queue.
/// Records whose status says "refused: OpenCV not built" where the bench was built without it.
std::vector<Record> run_opencv(std::shared_ptr<OpenCvState>& state, Session& s, const BlurCase& c,
                               const TimingPlan& plan);
/// OpenCV's version and threads for the peers ("4.6.0, 16 threads"), or "not built".
std::string opencv_version_text();

/// NPP on NVIDIA devices (libnppif loaded at run time, blur_npp.cpp): nppiFilterGaussBorder where
/// the case's taps are one of its fixed mask sizes and its mask passes the check, else
/// nppiFilterGaussAdvancedBorder with clforge's taps; replicate border only (other borders:
/// "refused: ..."), timed with cudaEvents. Left out (no record) when built with
/// -DCLFORGE_WITH_CUDA=OFF.
std::vector<Record> run_npp(Session& s, const BlurCase& c, const TimingPlan& plan);

}  // namespace clforge::bench
