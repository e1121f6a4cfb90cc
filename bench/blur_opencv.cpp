// OpenCV as a peer of `clforge bench blur` on every device, built when CLFORGE_HAVE_OPENCV (the
// core and imgproc modules found at configure time): cv::GaussianBlur on a cv::Mat with OpenCV's
// threads (host wall clock), and on a cv::UMat through OpenCV's OpenCL on the session's own
// cl_context and device, enqueued on OpenCV's profiling queue so that clforge's marker timing
// measures it like clforge's rows. Both get the work of clforge's direct and separable methods
// (blur_peers.hpp) and are checked on the same sampled pixels.
#include <link.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "bench/blur_peers.hpp"
#if CLFORGE_HAVE_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/core/ocl.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace clforge::bench {

#if CLFORGE_HAVE_OPENCV

struct OpenCvState {
  std::string problem;  // why the OpenCL peer cannot run; empty when it can
  cv::ocl::OpenCLExecutionContext context;
  cl::CommandQueue queue;                     // OpenCV's profiling queue on the session's context
  const std::vector<float>* image = nullptr;  // the image uploaded to `in`
  cv::UMat in, out;
};

namespace {

// clforge's borders in OpenCV's words: clamp repeats the edge sample (BORDER_REPLICATE), mirror
// reflects about the edge with the edge sample repeated, "b a | a b c | c b" (BORDER_REFLECT, not
// BORDER_REFLECT_101, which leaves the edge sample out), zero reads 0 outside (BORDER_CONSTANT,
// whose value GaussianBlur takes as 0).
int cv_border(BlurBorder b) {
  switch (b) {
    case BlurBorder::Clamp:
      return cv::BORDER_REPLICATE;
    case BlurBorder::Mirror:
      return cv::BORDER_REFLECT;
    case BlurBorder::Zero:
      return cv::BORDER_CONSTANT;
  }
  return cv::BORDER_REPLICATE;
}

void gaussian_blur(cv::InputArray in, cv::OutputArray out, const BlurCase& c) {
  cv::GaussianBlur(in, out, cv::Size(c.taps(), c.taps()), c.sigma, c.sigma, cv_border(c.border));
}

// OpenCV loads its own OpenCL runtime (dlopen of "libOpenCL.so", then "libOpenCL.so.1") on its
// first call, which may be another ICD loader than the one clforge is linked with and see other
// platforms. Unless the user chose one (OPENCV_OPENCL_RUNTIME), point it at the loader already in
// the process, so that clforge's platform and context are OpenCV's too. Runs before any OpenCV call.
void share_opencl_runtime() {
  static const bool once = [] {
    if (std::getenv("OPENCV_OPENCL_RUNTIME") != nullptr) return true;
    std::string path;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
          const char* name = info->dlpi_name;
          if (name == nullptr || std::strstr(name, "/libOpenCL.so") == nullptr) return 0;
          *static_cast<std::string*>(out) = name;
          return 1;
        },
        &path);
    if (!path.empty()) setenv("OPENCV_OPENCL_RUNTIME", path.c_str(), 0);
    return true;
  }();
  (void)once;
}

// The platforms OpenCV's runtime lists, for a refusal's text.
std::string opencv_platforms() {
  std::vector<cv::ocl::PlatformInfo> platforms;
  cv::ocl::getPlatfomsInfo(platforms);
  std::string names;
  for (const auto& p : platforms) names += (names.empty() ? "" : ", ") + p.name();
  return names.empty() ? "none" : names;
}

// The session's context and device as OpenCV's execution context on this thread, with the
// profiling queue of the queue OpenCV makes for it.
std::shared_ptr<OpenCvState> make_state(Session& s) {
  auto st = std::make_shared<OpenCvState>();
  if (!cv::ocl::haveOpenCL()) {
    st->problem = "refused: OpenCV finds no OpenCL runtime";
    return st;
  }
  try {
    // create() takes one reference of each on success.
    cl_context ctx = s.context();
    cl_device_id dev = s.entry.device();
    clRetainContext(ctx);
    clRetainDevice(dev);
    const std::string platform = s.entry.platform.getInfo<CL_PLATFORM_NAME>();
    cv::ocl::OpenCLExecutionContext made =
        cv::ocl::OpenCLExecutionContext::create(platform, s.entry.platform(), ctx, dev);
    const cv::ocl::Queue& profiling = made.getQueue().getProfilingQueue();
    st->context = made.cloneWithNewQueue(profiling);
    st->context.bind();
    cv::ocl::setUseOpenCL(true);
    st->queue = cl::CommandQueue(static_cast<cl_command_queue>(profiling.ptr()), true);
  } catch (const std::exception& e) {
    st->problem = std::string("refused: OpenCV cannot use the device's context: ") + e.what() +
                  " (OpenCV's platforms: " + opencv_platforms() + ")";
  }
  return st;
}

Record opencv_cpu(const BlurCase& c, const TimingPlan& plan) {
  Record r = blur_peer_record("OpenCV CPU", c);
  try {
    const int threads = host_threads();
    cv::setNumThreads(threads);
    const int type = CV_32FC(static_cast<int>(c.channels));
    const int w = static_cast<int>(c.width), h = static_cast<int>(c.height);
    const cv::Mat in(h, w, type, const_cast<float*>(c.image->data()));
    cv::Mat out(h, w, type, cv::Scalar::all(std::numeric_limits<double>::quiet_NaN()));
    gaussian_blur(in, out, c);
    if (!check_blur_output(r, c, out.ptr<float>())) return r;
    r.timing = time_host([&] { gaussian_blur(in, out, c); }, plan);
    r.status = "ok (host wall clock, " + std::to_string(threads) + " threads)";
    r.params["threads"] = threads;
  } catch (const std::exception& e) {
    r.status = std::string("failed: ") + e.what();
  }
  return r;
}

Record opencv_ocl(std::shared_ptr<OpenCvState>& state, Session& s, const BlurCase& c, const TimingPlan& plan) {
  Record r = blur_peer_record("OpenCV OpenCL", c);
  // GaussianBlur takes its OpenCL path only for an image larger than the kernel on both axes.
  if (c.width <= static_cast<std::size_t>(c.taps()) || c.height <= static_cast<std::size_t>(c.taps())) {
    r.status = "refused: OpenCV runs its CPU code for an image no larger than the kernel";
    return r;
  }
  try {
    if (!state) state = make_state(s);
    OpenCvState& st = *state;
    if (!st.problem.empty()) {
      r.status = st.problem;
      return r;
    }
    st.context.bind();
    const int type = CV_32FC(static_cast<int>(c.channels));
    const int w = static_cast<int>(c.width), h = static_cast<int>(c.height);
    if (st.image != c.image || st.in.cols != w || st.in.rows != h || st.in.type() != type) {
      cv::Mat(h, w, type, const_cast<float*>(c.image->data())).copyTo(st.in);
      st.image = c.image;
    }
    st.out.create(h, w, type);
    st.out.setTo(cv::Scalar::all(std::numeric_limits<double>::quiet_NaN()));
    gaussian_blur(st.in, st.out, c);
    const cv::Mat result = st.out.getMat(cv::ACCESS_READ).clone();
    if (!check_blur_output(r, c, result.ptr<float>())) return r;
    r.timing = time_region(
        st.queue, [&] { gaussian_blur(st.in, st.out, c); }, plan);
    r.status = "ok (OpenCL on the same device, marker timing on OpenCV's profiling queue)";
  } catch (const std::exception& e) {
    r.status = std::string("failed: ") + e.what();
  }
  return r;
}

}  // namespace

std::vector<Record> run_opencv(std::shared_ptr<OpenCvState>& state, Session& s, const BlurCase& c,
                               const TimingPlan& plan) {
  Record cpu = blur_peer_record("OpenCV CPU", c), ocl = blur_peer_record("OpenCV OpenCL", c);
  if (c.width > 0x7fffffff || c.height > 0x7fffffff) {
    cpu.status = ocl.status = "refused: the image does not fit cv::Mat's int sizes";
    return {cpu, ocl};
  }
  share_opencl_runtime();
  return {opencv_cpu(c, plan), opencv_ocl(state, s, c, plan)};
}

std::string opencv_version_text() {
  share_opencl_runtime();
  return cv::getVersionString() + ", " + std::to_string(host_threads()) + " threads";
}

#else

struct OpenCvState {};

std::vector<Record> run_opencv(std::shared_ptr<OpenCvState>&, Session&, const BlurCase& c, const TimingPlan&) {
  Record cpu = blur_peer_record("OpenCV CPU", c), ocl = blur_peer_record("OpenCV OpenCL", c);
  cpu.status = ocl.status = "refused: OpenCV not built";
  return {cpu, ocl};
}

std::string opencv_version_text() { return "not built"; }

#endif

}  // namespace clforge::bench
