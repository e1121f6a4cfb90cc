// Shared test helpers (see support.hpp).
#include "tests/support.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "runtime/environment.hpp"

namespace clforge::test {

bool long_tests() {
  static const bool on = detail::env_bool("CLFORGE_LONG_TESTS").value_or(false);
  return on;
}

std::vector<float> transpose_by_new_plan(std::size_t rows, std::size_t cols, const std::vector<float>& in,
                                         const Tuning& tuning) {
  auto& s = session();
  TransposeDesc d;
  d.rows = rows;
  d.cols = cols;
  d.elem_size = 4;
  const TransposePlan plan(s.queue, d, tuning);
  const cl::Buffer a(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, in.size() * 4, const_cast<float*>(in.data()));
  const cl::Buffer b(s.context, CL_MEM_READ_WRITE, in.size() * 4);
  plan.enqueue(s.queue, a, b);
  std::vector<float> out(in.size());
  s.queue.enqueueReadBuffer(b, CL_TRUE, 0, out.size() * 4, out.data());
  return out;
}

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

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  std::system(("mkdir -p '" + dir + "'").c_str());
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
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

std::vector<std::string> declared_params(const std::string& file, const std::string& kernel) {
  std::ifstream f(std::string(CLFORGE_SOURCE_DIR) + "/cl/" + file);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto at = text.find("void " + kernel + "(");
  REQUIRE(at != std::string::npos);
  const auto open = text.find('(', at), close = text.find(')', open);
  std::vector<std::string> names;
  std::stringstream params(text.substr(open + 1, close - open - 1));
  for (std::string p; std::getline(params, p, ',');) {
    const auto end = p.find_last_not_of(" \n\t");
    const auto begin = p.find_last_of(" *\n\t", end) + 1;
    names.push_back(p.substr(begin, end + 1 - begin));
  }
  return names;
}

std::vector<std::string> compiled_params(const cl::Program& program, const char* kernel) {
  const cl::Kernel k(program, kernel);
  cl_uint n = 0;
  REQUIRE(clGetKernelInfo(k(), CL_KERNEL_NUM_ARGS, sizeof n, &n, nullptr) == CL_SUCCESS);
  std::vector<std::string> names;
  for (cl_uint i = 0; i < n; ++i) {
    std::size_t len = 0;
    const cl_int st = clGetKernelArgInfo(k(), i, CL_KERNEL_ARG_NAME, 0, nullptr, &len);
    if (st == CL_KERNEL_ARG_INFO_NOT_AVAILABLE) return {};
    REQUIRE(st == CL_SUCCESS);
    std::string name(len, '\0');
    REQUIRE(clGetKernelArgInfo(k(), i, CL_KERNEL_ARG_NAME, len, name.data(), nullptr) == CL_SUCCESS);
    name.resize(name.find('\0') == std::string::npos ? name.size() : name.find('\0'));
    names.push_back(name);
  }
  return names;
}

}  // namespace clforge::test
