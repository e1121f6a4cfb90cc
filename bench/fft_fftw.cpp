// FFTW (float) as a peer of `clforge bench fft` on CPU devices, built when CLFORGE_HAVE_FFTWF:
// the host library a CPU's OpenCL FFT has to beat. Threaded (fftwf_init_threads, one thread per
// CPU this process may run on), FFTW_MEASURE with its wisdom read from and written back to
// <user cache dir>/fftw/ so that later runs plan in milliseconds, one out-of-place
// fftwf_plan_many_dft or fftwf_plan_many_dft_r2c (rank 1 to 3) over the case's contiguous batch. Timed as the other
// peers are: the same sampling plan, back-to-back calls grouped so that a sample lasts about TimingPlan::region_ms,
// here on the host clock around fftwf_execute; the error against FFTW in double on the same
// sampled transforms.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>

#include "bench/fft_peers.hpp"
#include "clforge/runtime.hpp"
#include "runtime/errors.hpp"
#include "runtime/files.hpp"
#if CLFORGE_HAVE_FFTWF
#include <fftw3.h>
#endif

namespace clforge::bench {

#if CLFORGE_HAVE_FFTWF
namespace {

// The wisdom file: per host (wisdom measured on one CPU misleads another); empty when the
// user cache is off (CLFORGE_CACHE_DIR=off).
std::string wisdom_path() {
  const std::string dir = cache_dir();
  if (dir.empty()) return {};
  return dir + "/fftw/wisdom-float-" + provenance().host + ".txt";
}

struct Setup {
  int threads = 1;
  std::string wisdom;  // file path
  std::string saved;   // the wisdom last read or written
};

Setup& setup() {
  static Setup s = [] {
    Setup v;
    v.threads = fftwf_init_threads() != 0 ? host_threads() : 1;
    v.wisdom = wisdom_path();
    if (!v.wisdom.empty())
      if (const auto text = detail::read_file(v.wisdom))
        if (fftwf_import_wisdom_from_string(text->c_str()) != 0) v.saved = *text;
    return v;
  }();
  return s;
}

// Writes the accumulated wisdom when it grew; a failure to write costs only planning time later.
void save_wisdom(Setup& s) {
  if (s.wisdom.empty()) return;
  std::string text;
  fftwf_export_wisdom([](char ch, void* data) { static_cast<std::string*>(data)->push_back(ch); }, &text);
  if (text == s.saved) return;
  try {
    detail::write_file_atomic(s.wisdom, text);
    s.saved = text;
  } catch (const std::exception&) {
  }
}

using Clock = std::chrono::steady_clock;

}  // namespace

struct FftwCaseState {
  fftwf_plan plan = nullptr;
  float* in = nullptr;  // the case's input: real values, or complex values as float pairs
  fftwf_complex* out = nullptr;
  std::string problem;  // a refusal, when not empty
  double plan_ms = 0;
  ~FftwCaseState() {
    if (plan != nullptr) fftwf_destroy_plan(plan);
    fftwf_free(in);
    fftwf_free(out);
  }
};

namespace {

// The plan of a case on the state's arrays (null when FFTW makes none).
fftwf_plan fftw_plan_case(const FftCase& c, FftwCaseState& st) {
  int dims[3] = {0, 0, 0};
  for (std::size_t k = 0; k < c.shape.size(); ++k) dims[k] = static_cast<int>(c.shape[k]);
  const int rank = static_cast<int>(c.shape.size()), batch = static_cast<int>(c.batch);
  const int points = static_cast<int>(c.points()), half = static_cast<int>(c.out_floats() / 2);
  if (c.real)  // null embeds: real rows of n_last floats, complex rows of n_last/2 + 1 values
    return fftwf_plan_many_dft_r2c(rank, dims, batch, st.in, nullptr, 1, points, st.out, nullptr, 1, half,
                                   FFTW_MEASURE);
  return fftwf_plan_many_dft(rank, dims, batch, reinterpret_cast<fftwf_complex*>(st.in), nullptr, 1, points, st.out,
                             nullptr, 1, points, FFTW_FORWARD, FFTW_MEASURE);
}

std::shared_ptr<FftwCaseState> make_state(Session& s, const cl::Buffer& input, const FftCase& c) {
  auto st = std::make_shared<FftwCaseState>();
  if (c.points() > static_cast<std::size_t>(INT_MAX) || c.batch > static_cast<std::size_t>(INT_MAX)) {
    st->problem = "refused: a length or the batch above INT_MAX";
    return st;
  }
  Setup& config = setup();
  st->in = fftwf_alloc_real(c.in_floats() * c.batch);
  st->out = fftwf_alloc_complex(c.out_floats() / 2 * c.batch);
  if (st->in == nullptr || st->out == nullptr) {
    st->problem = "refused: fftwf_alloc_real/fftwf_alloc_complex failed";
    return st;
  }
  fftwf_plan_with_nthreads(config.threads);
  const auto t0 = Clock::now();
  // FFTW_MEASURE runs candidate plans on the arrays: the input is read after planning.
  st->plan = fftw_plan_case(c, *st);
  st->plan_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (st->plan == nullptr) {
    st->problem =
        std::string("refused: ") + (c.real ? "fftwf_plan_many_dft_r2c" : "fftwf_plan_many_dft") + " made no plan";
    return st;
  }
  save_wisdom(config);
  detail::check(s.queue.enqueueReadBuffer(input, CL_TRUE, 0, c.in_bytes(), st->in), "clEnqueueReadBuffer");
  return st;
}

}  // namespace

Record run_fftw(std::shared_ptr<FftwCaseState>& state, Session& s, const cl::Buffer& in, const FftCase& c,
                const TimingPlan& plan) {
  Record r = make_record("FFTW", c);
  try {
    if (!state) state = make_state(s, in, c);
    FftwCaseState& st = *state;
    if (!st.problem.empty()) {
      r.status = st.problem;
      return r;
    }
    std::fill_n(&st.out[0][0], c.out_floats() * c.batch, std::nanf(""));
    fftwf_execute(st.plan);
    r.error = sampled_error(c, [&](std::size_t b, float* x, float* y) {
      std::copy_n(st.in + b * c.in_floats(), c.in_floats(), x);
      std::copy_n(&st.out[0][0] + b * c.out_floats(), c.out_floats(), y);
    });
    r.timing = time_host([&] { fftwf_execute(st.plan); }, plan);
    const int threads = setup().threads;
    r.status = "ok (host wall clock, " + std::to_string(threads) + " threads, FFTW_MEASURE)";
    r.params = {{"threads", threads},
                {"planner", "FFTW_MEASURE"},
                {"plan_ms", st.plan_ms},
                {"wisdom_file", setup().wisdom.empty() ? nlohmann::json(nullptr) : nlohmann::json(setup().wisdom)},
                {"version", std::string(fftwf_version)}};
  } catch (const std::exception& e) {
    r.status = std::string("failed: ") + e.what();
  }
  return r;
}

std::string fftw_version_text() {
  return std::string(fftwf_version) + ", " + std::to_string(setup().threads) + " threads";
}

#else
std::string fftw_version_text() { return "not built"; }
#endif

}  // namespace clforge::bench
