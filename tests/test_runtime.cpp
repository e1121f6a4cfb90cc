// Runtime: device identity and selection, kernel source resolution order, build errors,
// concurrent calls from several threads.
#include <doctest/doctest.h>
#include <utime.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

#include "host/reference.hpp"
#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "runtime/launch.hpp"
#include "runtime/pocl_guard.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/strings.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {
void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
}
std::string source_dir() {
  const char* moved = std::getenv("CLFORGE_TEST_SOURCE_DIR");  // the tree was copied elsewhere
  return moved ? moved : CLFORGE_SOURCE_DIR;
}
}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("device identity is filled in for every device") {
    const auto all = list_devices();
    REQUIRE(!all.empty());
    for (const auto& e : all) {
      const DeviceInfo& d = e.info;
      INFO(d.name);
      CHECK(!d.name.empty());
      CHECK(!d.platform_name.empty());
      CHECK(!d.driver_version.empty());
      CHECK(d.compute_units > 0);
      CHECK(d.max_work_group_size > 0);
      CHECK(d.local_mem_size > 0);
      CHECK(d.global_mem_size > 0);
      CHECK(d.max_alloc_size > 0);
      CHECK(d.max_work_item_sizes.size() >= 3);
      if (d.type == "CPU") CHECK(d.vendor_class == VendorClass::CPU);
      if (d.platform_name.find("Portable Computing Language") != std::string::npos) {
        CHECK(d.type == "CPU");
        CHECK(!d.architecture.empty());  // PoCL's host triple and CPU model
      }
      if (d.vendor_class == VendorClass::NVIDIA) CHECK(d.architecture.rfind("sm_", 0) == 0);
    }
  }

  TEST_CASE("device selection by index, platform:device, type, vendor, name and environment") {
    const auto all = list_devices();
    const DeviceInfo& first = all.front().info;
    CHECK(select_device("0").info.name == first.name);
    CHECK(select_device(first.index_string()).info.name == first.name);
    // A name substring, in another case.
    std::string part = detail::to_lower(first.name.substr(0, std::min<std::size_t>(first.name.size(), 6)));
    CHECK(select_device(part).info.name == first.name);
    CHECK(select_device(first.type == "CPU" ? "cpu" : "gpu").info.type == first.type);
    CHECK(select_device(detail::to_lower(first.vendor_key())).info.vendor_class == first.vendor_class);
    CHECK_THROWS_AS(select_device("no-such-device-xyz"), UnsupportedDevice);
    CHECK_THROWS_AS(select_device("99"), UnsupportedDevice);
    CHECK_THROWS_AS(select_device("7:7"), UnsupportedDevice);
    try {
      select_device("no-such-device-xyz");
    } catch (const UnsupportedDevice& e) {
      CHECK(std::string(e.what()).find("no-such-device-xyz") != std::string::npos);
    }
    {
      test::ScopedEnv env("CLFORGE_DEVICE", first.index_string());
      CHECK(select_device().info.name == first.name);
    }
    {
      test::ScopedEnv env("CLFORGE_DEVICE", "no-such-device-xyz");
      CHECK_THROWS_AS(select_device(), UnsupportedDevice);
    }
  }

  TEST_CASE("kernel sources: CLFORGE_KERNEL_DIR beats the embedded copy, file by file") {
    const std::string dir = test::temp_dir("kdir");
    {
      test::ScopedEnv env("CLFORGE_KERNEL_DIR", std::nullopt);
      const KernelSource s = load_kernel_source("transpose/transpose.cl");
      // In the build tree there is no installed share dir: the embedded copy answers, and it
      // is the file from the source tree.
      CHECK(s.origin == "embedded");
      CHECK(s.text == *detail::read_file(source_dir() + "/cl/transpose/transpose.cl"));
    }
    detail::make_dirs(dir + "/transpose");
    write_text(dir + "/transpose/transpose.cl", "// edited copy\n");
    test::ScopedEnv env("CLFORGE_KERNEL_DIR", dir);
    const KernelSource s = load_kernel_source("transpose/transpose.cl");
    CHECK(s.origin == "override:" + dir);
    CHECK(s.text == "// edited copy\n");
    // A file missing from the override folder still comes from the embedded copy.
    CHECK(load_kernel_source("db/transpose.json").origin == "embedded");
    CHECK_THROWS_AS(load_kernel_source("no/such/file.cl"), Error);
    CHECK(source_dirs().override_dir == dir);
  }

  TEST_CASE(
      "editing a kernel under CLFORGE_KERNEL_DIR changes the next run; a broken one gives BuildError with its log") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("kedit");
    detail::make_dirs(dir + "/transpose");
    const std::string original = *detail::read_file(source_dir() + "/cl/transpose/transpose.cl");
    test::ScopedEnv cache("CLFORGE_CACHE_DIR", "off");
    test::ScopedEnv env("CLFORGE_KERNEL_DIR", dir);
    const std::size_t rows = 5, cols = 3;
    std::vector<float> in = host::random_floats(rows * cols, test::seed() + 50);

    // 1. An edited kernel that negates every element: the next call uses it, no rebuild of clforge.
    std::string negated = original;
    const std::string store = "dst[v * TRA_LX] = tile[(lx + v * TRA_LX) * TRA_ROW + r];";
    const std::string edge = "= tile[c * TRA_ROW + r];";
    REQUIRE(negated.find(store) != std::string::npos);
    REQUIRE(negated.find(edge) != std::string::npos);
    negated.replace(negated.find(store), store.size(), "dst[v * TRA_LX] = -tile[(lx + v * TRA_LX) * TRA_ROW + r];");
    negated.replace(negated.find(edge), edge.size(), "= -tile[c * TRA_ROW + r];");
    write_text(dir + "/transpose/transpose.cl", negated);
    const Tuning local_tile{{{"TRA_LOCAL", 1}, {"TRA_TILE", 16}, {"TRA_WPT", 4}}, false};  // the edited path
    std::vector<float> out = test::transpose_by_new_plan(rows, cols, in, local_tile);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) REQUIRE(out[c * rows + r] == -in[r * cols + c]);

    // 2. A broken kernel: BuildError with the compiler's log, options, origin and device.
    write_text(dir + "/transpose/transpose.cl", original + "\nthis is not OpenCL C;\n");
    try {
      test::transpose_by_new_plan(rows, cols, in, local_tile);
      FAIL("a broken kernel built");
    } catch (const BuildError& e) {
      CHECK(!e.build_log().empty());
      CHECK(e.options().find("-DTRA_TILE=") != std::string::npos);
      CHECK(e.origin().find("override:" + dir) != std::string::npos);
      CHECK(e.device() == s.entry.info.name);
      CHECK(e.kernel() == "transpose");
      CHECK(std::string(e.what()).find("clBuildProgram") == 0);
    }

    // 3. Restored: right answer again.
    write_text(dir + "/transpose/transpose.cl", original);
    out = test::transpose_by_new_plan(rows, cols, in, local_tile);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c) REQUIRE(out[c * rows + r] == in[r * cols + c]);
  }

  TEST_CASE("concurrent calls from 8 threads on one context give correct results") {
    auto& s = test::session();
    clear_memory_cache();  // the threads also race to build the same programs
    constexpr int kThreads = 8;
    std::vector<std::thread> threads;
    std::vector<int> failures(kThreads, 0), done(kThreads, 0);
    std::vector<std::string> errors(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        try {
          cl::CommandQueue q(s.context, s.entry.device);
          for (int it = 0; it < 6; ++it) {
            const std::size_t rows = 17 + 13 * t + it, cols = 9 + 7 * it + t;
            const std::size_t elem = (t + it) % 3 == 0 ? 4 : (t + it) % 3 == 1 ? 8 : 16;
            const std::size_t fpe = elem / 4;
            std::vector<float> in = host::random_floats(rows * cols * fpe, test::seed() + 100 * t + it);
            std::vector<float> ref(in.size());
            host::transpose(rows, cols, elem, in.data(), cols, ref.data(), rows);
            cl::Buffer bi(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size() * 4, in.data());
            std::vector<float> out = host::poisoned(in.size());
            cl::Buffer bo(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size() * 4, out.data());
            Tuning tuning;
            if (it % 2) tuning.overrides = {{"TRA_TILE", 8}, {"TRA_WPT", 2}};
            transpose(q, rows, cols, elem, {bi, 0, cols}, {bo, 0, rows}, {}, nullptr, tuning);
            q.enqueueReadBuffer(bo, CL_TRUE, 0, out.size() * 4, out.data());
            if (std::memcmp(out.data(), ref.data(), out.size() * 4) != 0) ++failures[t];
            ++done[t];
          }
        } catch (const std::exception& e) {
          errors[t] = e.what();
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
      INFO("thread " << t << ": " << errors[t]);
      CHECK(errors[t].empty());
      CHECK(done[t] == 6);
      CHECK(failures[t] == 0);
    }
  }

  TEST_CASE("on PoCL a launch wider than a running one of the same kernel waits for it") {
    // PoCL aborts when a kernel's narrower launch completes after a wider one whose work-group
    // function it loaded while the narrower was running (runtime/pocl_guard.hpp). A slow narrow
    // launch on one queue, then a wide one on another: the wide launch must return only once the
    // narrow one is complete; a narrow launch after them waits for nothing.
    auto& s = test::session();
    if (!detail::pocl_guarded(s.queue)) {
      CHECK(s.entry.info.platform_name.find("Portable Computing Language") == std::string::npos);
      return;
    }
    // A program of its own (a source no other test builds), so that no earlier launch counts.
    const std::string src = "__kernel void spin_" + std::to_string(test::seed()) +
                            "(__global float* a, int n) { const int i = get_global_id(0); float x = a[i];"
                            " for (int j = 0; j < n; ++j) x = x * 0.999f + 1.0f; a[i] = x; }";
    cl::Program program(s.context, src);
    REQUIRE(program.build({s.entry.device}) == CL_SUCCESS);
    cl::Kernel narrow(program, ("spin_" + std::to_string(test::seed())).c_str());
    cl::Kernel wide(program, ("spin_" + std::to_string(test::seed())).c_str());
    cl::Buffer a(s.context, CL_MEM_READ_WRITE, 4096 * sizeof(float));
    s.queue.enqueueFillBuffer(a, 0.0f, 0, 4096 * sizeof(float));
    s.queue.finish();
    narrow.setArg(0, a);
    narrow.setArg(1, 40000000);
    wide.setArg(0, a);
    wide.setArg(1, 1);
    cl::CommandQueue other(s.context, s.entry.device);
    const unsigned long long waits = detail::pocl_guard_waits();
    cl::Event slow, fast, again;
    detail::launch_plain(s.queue, narrow, cl::NDRange(64), cl::NDRange(64), nullptr, &slow);
    s.queue.flush();
    detail::launch_plain(other, wide, cl::NDRange(4096), cl::NDRange(64), nullptr, &fast);
    CHECK(slow.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE);
    CHECK(detail::pocl_guard_waits() == waits + 1);
    detail::launch_plain(s.queue, wide, cl::NDRange(64), cl::NDRange(64), nullptr, &again);
    CHECK(detail::pocl_guard_waits() == waits + 1);
    other.finish();
    s.queue.finish();
  }

  TEST_CASE("the log hook receives messages and the library prints nothing itself") {
    std::vector<std::string> got;
    set_log_callback([&](LogLevel, const std::string& m) { got.push_back(m); });
    const LogLevel old = log_level();
    set_log_level(LogLevel::Debug);
    clear_memory_cache();
    test::ScopedEnv cache("CLFORGE_CACHE_DIR", "off");
    auto& s = test::session();
    std::vector<float> in = host::random_floats(12, 1);
    transpose(s.queue, 3, 4, in, Tuning{{{"TRA_TILE", 8}, {"TRA_WPT", 2}}, true});
    set_log_level(old);
    set_log_callback(nullptr);
    bool compiled = false;
    for (const auto& m : got) compiled |= m.find("compiled transpose") != std::string::npos;
    CHECK(compiled);
  }

  TEST_CASE("constant tables are shared by contents within a context and read back intact") {
    auto& s = test::session();
    const std::vector<float> a = host::random_floats(100, 7);
    std::vector<float> b = a;
    b[99] += 1.0f;  // differs in the last value only
    const cl::Buffer ba = detail::constant_buffer(s.context, a.data(), a.size() * 4, "test a");
    const cl::Buffer ba2 = detail::constant_buffer(s.context, a.data(), a.size() * 4, "test a again");
    const cl::Buffer bb = detail::constant_buffer(s.context, b.data(), b.size() * 4, "test b");
    const cl::Buffer bshort = detail::constant_buffer(s.context, a.data(), 99 * 4, "test a, shorter");
    CHECK(ba() == ba2());
    CHECK(ba() != bb());
    CHECK(ba() != bshort());
    for (const auto& [buf, want] : {std::pair{ba, a}, std::pair{bb, b}}) {
      std::vector<float> got(want.size(), std::nanf(""));
      REQUIRE(s.queue.enqueueReadBuffer(buf, CL_TRUE, 0, got.size() * 4, got.data()) == CL_SUCCESS);
      CHECK(got == want);
    }
    cl::Context other(s.entry.device);  // another context never gets this one's buffer
    const cl::Buffer bo = detail::constant_buffer(other, a.data(), a.size() * 4, "test a elsewhere");
    CHECK(bo() != ba());
    clear_memory_cache();
    CHECK(detail::constant_buffer(s.context, a.data(), a.size() * 4, "test a after clearing")() != ba());
  }

#ifdef CLFORGE_CLI
  TEST_CASE("clforge -v with CLFORGE_PROFILE_KERNELS=1 logs each launch's kernel, ranges and device time") {
    const std::string cli = std::string(CLFORGE_CLI) + " --device " + test::session().entry.info.index_string() + " ";
    std::string out;
    // run sgemm: one warm-up and repetitions of a direct-kernel product; transpose-free.
    int rc = test::run_command("CLFORGE_PROFILE_KERNELS=1 " + cli + "-v run sgemm --size 20x30x10", out);
    INFO(out);
    CHECK(rc == 0);
    std::size_t lines = 0, pos = 0;
    while ((pos = out.find("clforge: profile: sgemm_direct_nn global ", pos)) != std::string::npos) {
      const std::size_t end = out.find('\n', pos);
      const std::string line = out.substr(pos, end - pos);
      CHECK(line.find(" local ") != std::string::npos);
      CHECK(line.size() > 3);
      CHECK(line.compare(line.size() - 3, 3, " ms") == 0);
      ++lines;
      pos = end;
    }
    CHECK(lines >= 2);
    // What ran is the plan's: its description and the direct kernel's parameters.
    CHECK(out.find("direct kernel sgemm_direct_nn") != std::string::npos);
    CHECK(out.find("sgemm_direct (variant *): ") != std::string::npos);
    // Without the variable (or without -v) nothing of the kind is printed.
    rc = test::run_command(cli + "-v run sgemm --size 20x30x10", out);
    CHECK(rc == 0);
    CHECK(out.find("profile:") == std::string::npos);
  }
#endif

  TEST_CASE("env_values reads several variables in one pass, as getenv would") {
    test::ScopedEnv a("CLFORGE_TEST_ENV_A", std::string("alpha"));
    test::ScopedEnv b("CLFORGE_TEST_ENV_B", std::string(""));
    test::ScopedEnv c("CLFORGE_TEST_ENV_C", std::nullopt);
    test::ScopedEnv ab("CLFORGE_TEST_ENV_AB", std::string("longer name, same prefix"));
    const char* const names[] = {"CLFORGE_TEST_ENV_A", "CLFORGE_TEST_ENV_B", "CLFORGE_TEST_ENV_C",
                                 "CLFORGE_TEST_ENV_AB", "HOME"};
    const char* v[5];
    detail::env_values(names, v, 5);
    REQUIRE(v[0] != nullptr);
    CHECK(std::string(v[0]) == "alpha");
    CHECK(v[1] == nullptr);  // empty counts as unset, as in detail::env
    CHECK(v[2] == nullptr);
    REQUIRE(v[3] != nullptr);
    CHECK(std::string(v[3]) == "longer name, same prefix");
    const char* home = std::getenv("HOME");
    CHECK((home == nullptr || *home == '\0' ? v[4] == nullptr : v[4] != nullptr && std::string(v[4]) == home));
  }

  TEST_CASE("reused file stamps: clforge's own writes are seen at once, a fresh file is never reused") {
    const std::string file = test::temp_dir("stamp-reuse") + "/f.json";
    const detail::FileStamp none = detail::stamp_of_reused(file);
    CHECK(none.size == -1);
    detail::write_file_atomic(file, "12345");
    const detail::FileStamp one = detail::stamp_of_reused(file);  // within 1 ms of the first: still seen
    CHECK(one.size == 5);
    CHECK(one.recent());
    detail::write_file_atomic(file, "1234567");
    CHECK(detail::stamp_of_reused(file).size == 7);
    // Written behind clforge's back with an old time (so not recent() and reusable): seen by the
    // first call after the reuse period.
    auto write_old = [&](const char* text) {
      { std::ofstream(file) << text; }
      struct utimbuf old {
        std::time(nullptr) - 10, std::time(nullptr) - 10
      };
      REQUIRE(::utime(file.c_str(), &old) == 0);
    };
    write_old("123");
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    const detail::FileStamp three = detail::stamp_of_reused(file);
    CHECK(three.size == 3);
    CHECK(!three.recent());
    write_old("12");
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    CHECK(detail::stamp_of_reused(file).size == 2);
  }

  TEST_CASE("a recorded call's launches replay its work: same kernels, argument bindings and ranges") {
    auto& s = test::session();
    const std::size_t rows = 37, cols = 29;
    const std::vector<float> in = host::random_floats(rows * cols, test::seed());
    std::vector<float> ref(in.size());
    host::transpose(rows, cols, 4, in.data(), cols, ref.data(), rows);
    cl::Buffer bi(s.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size() * 4, const_cast<float*>(in.data()));
    cl::Buffer bo(s.context, CL_MEM_READ_WRITE, in.size() * 4);
    std::vector<detail::RecordedLaunch> launches;
    {
      detail::LaunchRecorder outer;
      {
        detail::LaunchRecorder inner;
        transpose(s.queue, rows, cols, 4, {bi, 0, cols}, {bo, 0, rows});
        launches = inner.launches();
      }
      CHECK(outer.launches().empty());  // the innermost recorder took the call
    }
    REQUIRE(launches.size() == 1);
    CHECK(launches[0].global.dimensions() >= 1);
    CHECK(launches[0].args.size() >= 2);  // the buffers at least: they are bound on every call
    // Another call binds another output on the same kernel object; the replay binds the recorded
    // output again: into a poisoned bo, the recorded launch alone writes the transpose again.
    cl::Buffer other(s.context, CL_MEM_READ_WRITE, in.size() * 4);
    transpose(s.queue, rows, cols, 4, {bi, 0, cols}, {other, 0, rows});
    std::vector<float> out = host::poisoned(in.size());
    s.queue.enqueueWriteBuffer(bo, CL_TRUE, 0, out.size() * 4, out.data());
    detail::replay_launches(s.queue, launches);
    s.queue.enqueueReadBuffer(bo, CL_TRUE, 0, out.size() * 4, out.data());
    CHECK(std::memcmp(out.data(), ref.data(), out.size() * 4) == 0);
  }
}
