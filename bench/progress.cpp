// Progress of the benchmarks on stderr (see harness.hpp, ProgressScope): a step count with an
// estimate of the time left on every measurement's line; one line rewritten in place when
// stderr is a terminal (cut to its width), plain lines otherwise (logs, pipes, tests).
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <mutex>

#include "bench/harness.hpp"

namespace clforge::bench {

namespace {

using Clock = std::chrono::steady_clock;

struct State {
  std::mutex m;
  bool open = false;
  std::size_t steps = 0, current = 0;  // current: the step in progress, counted from 1 (0: none yet)
  Clock::time_point start;
  std::string prefix;
  bool showing = false;  // a terminal's updating line is on screen
};

State& state() {
  static State s;
  return s;
}

bool terminal() {
  static const bool t = isatty(STDERR_FILENO) == 1;
  return t;
}

std::size_t terminal_width() {
  winsize w{};
  return ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 8 ? w.ws_col : 100;
}

// "[3/12, ETA 1m05s] ": the finished steps' mean time times the steps left (the current one
// included); no estimate before the first step is over. A count of one step says nothing (the
// demo's peak probes, a single benchmark shape): no prefix.
std::string count_text(const State& s) {
  if (!s.open || s.steps <= 1) return "";
  const std::size_t i = std::min(std::max<std::size_t>(s.current, 1), s.steps);
  const std::size_t done = i - 1;
  std::string eta = "ETA -";
  if (done > 0) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - s.start).count();
    eta = "ETA " + duration_text(elapsed / static_cast<double>(done) * static_cast<double>(s.steps - done));
  }
  return "[" + std::to_string(i) + "/" + std::to_string(s.steps) + ", " + eta + "] ";
}

void clear_line(State& s) {
  if (s.showing) std::cerr << "\r\033[K" << std::flush;
  s.showing = false;
}

}  // namespace

std::string duration_text(double seconds) {
  const long t = std::lround(std::max(0.0, seconds));
  char b[32];
  if (t >= 3600)
    std::snprintf(b, sizeof b, "%ldh%02ldm", t / 3600, t / 60 % 60);
  else if (t >= 60)
    std::snprintf(b, sizeof b, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(b, sizeof b, "%lds", t);
  return b;
}

ProgressScope::ProgressScope(std::size_t steps) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  if (s.open) return;
  owner_ = true;
  s.open = true;
  s.steps = steps;
  s.current = 0;
  s.start = Clock::now();
}

ProgressScope::~ProgressScope() {
  if (!owner_) return;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  clear_line(s);
  s.open = false;
}

void progress_step() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  ++s.current;
}

void progress_done(std::size_t done) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  s.current = std::max(s.current, done);
}

void progress(const std::string& line) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  std::string text = count_text(s) + s.prefix + line;
  if (!terminal()) {
    std::cerr << text << std::endl;
    return;
  }
  const std::size_t width = terminal_width() - 1;  // the last column would wrap on some terminals
  if (text.size() > width) text = text.substr(0, width - 3) + "...";
  std::cerr << "\r" << text << "\033[K" << std::flush;
  s.showing = true;
}

void progress_note(const std::string& line) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  clear_line(s);
  std::cerr << s.prefix << line << std::endl;
}

void progress_clear() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  clear_line(s);
}

void set_progress_prefix(const std::string& prefix) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  s.prefix = prefix;
}

}  // namespace clforge::bench
