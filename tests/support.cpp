// Shared test helpers (see support.hpp).
#include "tests/support.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace clforge::test {

int run_command(const std::string& cmd, std::string& output) {
  output.clear();
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
  const int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string temp_dir(const std::string& tag) {
  static std::atomic<int> counter{0};
  const char* base = std::getenv("TMPDIR");
  std::string dir = std::string(base ? base : "/tmp") + "/clforge-test-" + std::to_string(::getpid()) + "-" + tag +
                    "-" + std::to_string(counter++);
  std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str());
  return dir;
}

void expect_invalid_argument(const std::function<void()>& fn, const std::string& needle) {
  try {
    fn();
    FAIL("no exception, expected one mentioning " << needle);
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
}

}  // namespace clforge::test
