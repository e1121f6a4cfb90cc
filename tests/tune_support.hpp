// The pieces the tuner tests share (test_tune*.cpp): tiny search spaces of the transpose, FFT
// and blur targets with their candidates, fault hooks that make a chosen candidate look fastest
// (or wrong and fastest), a test's own user database folder, a log capture, the records of a
// tune cache (read, and their times replaced), and a CLI command run in the background.
#pragma once
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <complex>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "clforge/fft.hpp"
#include "host/data.hpp"
#include "host/fft.hpp"
#include "runtime/files.hpp"
#include "tests/support.hpp"
#include "tuning/tuner_testing.hpp"

extern char** environ;

namespace clforge::test {

// A small space: `values` lists the searched values of every parameter; short timing; no
// run-off, so the result is the search's fastest (the run-off has a test of its own).
inline TuneOptions tiny_space(const std::string& size, const std::map<std::string, std::vector<int>>& values) {
  TuneOptions o;
  o.sizes = {size};
  o.param_values = values;
  o.seed = test::seed();
  o.warmup = 1;
  o.min_reps = 3;
  o.max_reps = 5;
  o.min_time_ms = 0.2;
  o.finalists = 0;
  return o;
}

// The candidate of a tiny space whose open parameters take the values in `choice` (every
// other parameter has a single value there).
inline ParamMap candidate_of(const TuneOptions& o, const ParamMap& choice) {
  ParamMap p;
  for (const auto& [name, vals] : o.param_values) p[name] = vals.front();
  for (const auto& [name, v] : choice) p[name] = v;
  return p;
}

// 2 x 2 candidates: TRA_TILE 8/16, TRA_WPT 1/2, all other parameters fixed.
inline TuneOptions small_options() {
  return tiny_space("64", {{"TRA_TILE", {8, 16}},
                           {"TRA_WPT", {1, 2}},
                           {"TRA_VW", {1}},
                           {"TRA_PAD", {1}},
                           {"TRA_DIAG", {0}},
                           {"TRA_SWZ", {0}},
                           {"TRA_LOCAL", {1}},
                           {"TRA_NT", {0}}});
}

/// `batch` transforms of n points on fresh data through the library (its lookup as it is now)
/// against the host FFT, within host::fft_tolerance(n).
inline void check_host_fft(cl::CommandQueue& queue, std::size_t n, std::size_t batch, std::uint64_t seed) {
  const std::vector<float> x = host::random_floats(2 * n * batch, seed);
  std::vector<std::complex<float>> xc(n * batch);
  for (std::size_t i = 0; i < xc.size(); ++i) xc[i] = {x[2 * i], x[2 * i + 1]};
  const std::vector<std::complex<float>> y = fft(queue, xc, n);
  const std::vector<host::cdouble> ref = host::fft_batch(x.data(), n, batch, 1, n, 0, false);
  const host::FftError e = host::fft_compare(reinterpret_cast<const float*>(y.data()), n, batch, 1, n, 0, ref);
  CHECK(e.nonfinite == 0);
  CHECK(e.max_rel_l2 <= host::fft_tolerance(n));
}

/// A class where exactly one candidate, `wrong`, was rejected, with a message containing `why`.
inline void check_rejected(const TuneClassResult& c, const ParamMap& wrong, const std::string& why) {
  CHECK(c.rejected == 1);
  for (const auto& row : c.rows) {
    if (row.params != wrong) continue;
    INFO(row.message);
    CHECK(row.status == CandidateStatus::Rejected);
    CHECK(row.message.find(why) != std::string::npos);
  }
}

inline ParamMap small_candidate(int tile, int wpt) {
  return candidate_of(small_options(), {{"TRA_TILE", tile}, {"TRA_WPT", wpt}});
}

// Fault injection of the rejection tests: `wrong` returns a corrupted output and times as the
// fastest by far; `fast` is correct and made fast, so it must win instead.
// The fault that makes `winner` look fastest whatever this device measures.
inline detail::TuneFaultHook looks_fastest(const ParamMap& winner) {
  return [winner](const ParamMap& p) {
    detail::TuneFault f;
    if (p == winner) f.time_scale = 1e-4;
    return f;
  };
}

inline detail::TuneFaultHook wrong_looks_fastest(const ParamMap& wrong, const ParamMap& fast) {
  return [wrong, fast](const ParamMap& p) {
    detail::TuneFault f;
    if (p == wrong) {
      f.corrupt_output = true;
      f.time_scale = 1e-6;
    }
    if (p == fast) f.time_scale = 1e-3;
    return f;
  };
}

inline ParamMap shipped(const std::string& variant) {
  return resolve_configuration("transpose", variant, test::session().entry.info, Tuning{{}, false}).values;
}

// Environment of a tuning test: its own user database folder, no tuning file, tuning on.
struct TuneEnv {
  std::string dir;
  test::ScopedEnv user, file, off;
  explicit TuneEnv(const std::string& tag)
      : dir(test::temp_dir(tag)),
        user("CLFORGE_USER_TUNING_DIR", dir),
        file("CLFORGE_TUNING_FILE", std::nullopt),
        off("CLFORGE_TUNING", std::nullopt) {}
};

inline const TuneRow* fastest_ok(const TuneClassResult& c) {
  const TuneRow* best = nullptr;
  for (const auto& row : c.rows)
    if (row.status == CandidateStatus::Ok && (best == nullptr || row.ms < best->ms)) best = &row;
  return best;
}

inline std::string params_text(const ParamMap& p) {
  std::string s;
  for (const auto& [k, v] : p) s += k + "=" + std::to_string(v) + " ";
  return s;
}

// Captures log messages at Debug level for a scope.
class LogCapture {
 public:
  LogCapture() : level_(log_level()) {
    set_log_level(LogLevel::Debug);
    set_log_callback([this](LogLevel, const std::string& m) {
      std::lock_guard<std::mutex> lock(m_);
      lines_.push_back(m);
    });
  }
  ~LogCapture() {
    set_log_callback(nullptr);
    set_log_level(level_);
  }
  bool contains(const std::string& needle) {
    std::lock_guard<std::mutex> lock(m_);
    for (const auto& l : lines_)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }

 private:
  LogLevel level_;
  std::mutex m_;
  std::vector<std::string> lines_;
};

// FFT of length 64: 2 candidates (FFT_WG 64 or 256), every other parameter fixed.
inline TuneOptions fft_options(int wg_a = 64, int wg_b = 256) {
  return tiny_space("64", {{"FFT_WG", {wg_a, wg_b}},
                           {"FFT_RADIX", {16}},
                           {"FFT_REG", {32}},
                           {"FFT_LOCAL_MAX", {4096}},
                           {"FFT_PASS_MAX", {32768}},
                           {"FFT_HALVE", {0}},
                           {"FFT_TWIDDLE", {0}},
                           {"FFT_PAD", {1}},
                           {"FFT_VEC", {1}},
                           {"FFT_STAGE", {0}},
                           {"FFT_ACROSS", {8}},
                           {"FFT_COLS", {1}},
                           {"FFT_VPT", {0}},
                           {"FFT_MIX", {0}},
                           {"FFT_DCHAIN", {1}},
                           {"FFT_CHUNK", {0}}});
}

inline ParamMap fft_candidate(int wg) { return candidate_of(fft_options(), {{"FFT_WG", wg}}); }

// Separable blur of 64x48 pixels, one channel: 2 candidates (row work-group width 32 or 64).
inline TuneOptions blur_options() {
  return tiny_space("64x48", {{"BLUR_S_ROW_LX", {32, 64}},
                              {"BLUR_S_ROW_LY", {1}},
                              {"BLUR_S_ROW_VW", {1}},
                              {"BLUR_S_COL_LX", {32}},
                              {"BLUR_S_COL_LY", {4}},
                              {"BLUR_S_COL_WPT", {4}},
                              {"BLUR_S_COL_VW", {1}},
                              {"BLUR_S_LOCAL", {1}},
                              {"BLUR_S_FUSED", {0}}});
}

inline ParamMap blur_candidate(int row_lx) { return candidate_of(blur_options(), {{"BLUR_S_ROW_LX", row_lx}}); }

// The lines of a tune cache file that parse as JSON, in file order (a torn line is left out).
inline std::vector<nlohmann::json> cache_lines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(detail::read_file(path).value_or(""));
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) lines.push_back(std::move(j));
  }
  return lines;
}

// The measurement records of a tune cache (lines with "params"), in file order.
inline std::vector<nlohmann::json> cache_records(const std::string& path) {
  std::vector<nlohmann::json> records;
  for (auto& j : cache_lines(path))
    if (j.contains("params")) records.push_back(std::move(j));
  return records;
}

inline ParamMap params_of(const nlohmann::json& record) { return record.at("params").get<ParamMap>(); }

// Replaces the time of every verified record of a tune cache by ms(params), as a full
// measurement (not cut short): a later run with resume takes these times as its measurements.
inline void set_cache_times(const std::string& path, const std::function<double(const ParamMap&)>& ms) {
  std::string text;
  for (auto& j : cache_lines(path)) {
    if (j.contains("params") && j.at("status") == "ok") {
      j["ms"] = ms(params_of(j));
      j.erase("cut_short");
    }
    text += j.dump() + "\n";
  }
  detail::write_file_atomic(path, text);
}

// A shell command started in the background (exec'd by /bin/sh, so its pid is the command's),
// its stdout and stderr going to `log`.
inline pid_t start_command(const std::string& cmd, const std::string& log) {
  const std::string line = "exec " + cmd + " > '" + log + "' 2>&1";
  const char* argv[] = {"sh", "-c", line.c_str(), nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) return -1;
  return pid;
}

// The exit status of a command started by start_command (-1 when it did not exit normally).
inline int wait_command(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace clforge::test
