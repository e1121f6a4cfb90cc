// Compile cache: a second build of the same program comes from disk, a corrupt or stale
// entry is discarded and rebuilt (never trusted), CLFORGE_CACHE_DIR=off disables it, and
// binaries are stored by default on every driver but PoCL (CLFORGE_CACHE_BINARIES). The cases
// that read entries back store binaries on every device (CLFORGE_CACHE_BINARIES=on).
#include <dirent.h>
#include <doctest/doctest.h>

#include <atomic>
#include <fstream>

#include "runtime/compile_workers.hpp"
#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "runtime/program_cache.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {
std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') out.push_back(dir + "/" + e->d_name);
    closedir(d);
  }
  return out;
}

void run_once(const Tuning& t) {
  std::vector<float> in = host::random_floats(7 * 5, test::seed() + 7);
  std::vector<float> out = test::transpose_by_new_plan(7, 5, in, t);
  for (std::size_t r = 0; r < 7; ++r)
    for (std::size_t c = 0; c < 5; ++c) REQUIRE(out[c * 7 + r] == in[r * 5 + c]);
}
}  // namespace

TEST_SUITE("cache") {
  TEST_CASE("second build hits the disk cache; a corrupt entry is rebuilt") {
    const std::string dir = test::temp_dir("cache");
    test::ScopedEnv env("CLFORGE_CACHE_DIR", dir);
    test::ScopedEnv store("CLFORGE_CACHE_BINARIES", "on");
    CHECK(cache_dir() == dir);
    const Tuning t{{{"TRA_TILE", 8}, {"TRA_WPT", 4}, {"TRA_VW", 2}, {"TRA_PAD", 0}, {"TRA_DIAG", 1}}, false};

    clear_memory_cache();
    CacheStats a = cache_stats();
    run_once(t);
    CacheStats b = cache_stats();
    CHECK(b.compiles == a.compiles + 1);
    const auto files = files_in(dir);
    REQUIRE(files.size() == 1);

    // Same process, program still in memory: no compile, no disk.
    run_once(t);
    CacheStats c = cache_stats();
    CHECK(c.compiles == b.compiles);
    CHECK(c.memory_hits > b.memory_hits);

    // "Next run": memory dropped, the binary comes from disk.
    clear_memory_cache();
    run_once(t);
    CacheStats d = cache_stats();
    CHECK(d.compiles == c.compiles);
    CHECK(d.disk_hits == c.disk_hits + 1);

    // Corrupt the binary (flip bytes in the payload): checksum fails, entry discarded, rebuilt.
    {
      std::string bytes = *detail::read_file(files[0]);
      REQUIRE(bytes.size() > 64);
      for (std::size_t i = bytes.size() - 16; i < bytes.size(); ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
      std::ofstream(files[0], std::ios::binary) << bytes;
    }
    clear_memory_cache();
    run_once(t);
    CacheStats e = cache_stats();
    CHECK(e.disk_rejected == d.disk_rejected + 1);
    CHECK(e.compiles == d.compiles + 1);
    // The rebuilt entry was stored again and loads next time.
    clear_memory_cache();
    run_once(t);
    CHECK(cache_stats().disk_hits == e.disk_hits + 1);

    // Truncated file and a file holding another key: both discarded, never trusted.
    std::ofstream(files[0], std::ios::binary) << "CLFBIN01";
    clear_memory_cache();
    run_once(t);
    CacheStats f = cache_stats();
    CHECK(f.disk_rejected == e.disk_rejected + 1);
    CHECK(f.compiles == e.compiles + 1);
  }

  TEST_CASE("the cache key covers the options: another parameter set is another entry") {
    const std::string dir = test::temp_dir("cache2");
    test::ScopedEnv env("CLFORGE_CACHE_DIR", dir);
    test::ScopedEnv store("CLFORGE_CACHE_BINARIES", "on");
    clear_memory_cache();
    run_once(Tuning{{{"TRA_TILE", 8}, {"TRA_WPT", 1}}, false});
    run_once(Tuning{{{"TRA_TILE", 8}, {"TRA_WPT", 2}}, false});
    CHECK(files_in(dir).size() == 2);
  }

  TEST_CASE("CLFORGE_BUILD_OPTIONS joins every build's options and the cache key") {
    const std::string dir = test::temp_dir("cache3");
    test::ScopedEnv env("CLFORGE_CACHE_DIR", dir);
    test::ScopedEnv store("CLFORGE_CACHE_BINARIES", "on");
    clear_memory_cache();
    const Tuning t{{{"TRA_TILE", 8}, {"TRA_WPT", 4}}, false};
    run_once(t);
    {
      // A define no kernel reads: the same results, another program (memory and disk).
      test::ScopedEnv extra("CLFORGE_BUILD_OPTIONS", "-DCLF_EXTRA_OPTION_TEST=1");
      const CacheStats a = cache_stats();
      run_once(t);
      CHECK(cache_stats().compiles == a.compiles + 1);
      CHECK(files_in(dir).size() == 2);
      bool seen = false;
      for (const auto& f : files_in(dir)) {
        std::ifstream in(f, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        seen |= bytes.find("-DCLF_EXTRA_OPTION_TEST=1") != std::string::npos;
      }
      CHECK(seen);  // the entry's stored key names the option
    }
    const CacheStats b = cache_stats();
    run_once(t);  // unset again: the first program, from memory
    CHECK(cache_stats().compiles == b.compiles);
  }

  TEST_CASE("CLFORGE_CACHE_DIR=off writes nothing") {
    test::ScopedEnv env("CLFORGE_CACHE_DIR", "off");
    CHECK(cache_dir().empty());
    clear_memory_cache();
    const CacheStats a = cache_stats();
    run_once(Tuning{{{"TRA_TILE", 16}, {"TRA_WPT", 8}}, false});
    clear_memory_cache();
    run_once(Tuning{{{"TRA_TILE", 16}, {"TRA_WPT", 8}}, false});
    const CacheStats b = cache_stats();
    CHECK(b.compiles == a.compiles + 2);
    CHECK(b.disk_hits == a.disk_hits);
  }

  TEST_CASE("CLFORGE_CACHE_BINARIES: by default every driver but PoCL stores binaries; on and off decide") {
    const bool pocl = test::session().entry.info.platform_name.find("Portable Computing Language") != std::string::npos;
    const Tuning t{{{"TRA_TILE", 8}, {"TRA_WPT", 2}, {"TRA_VW", 1}}, false};
    for (const char* value : {"", "auto", "AUTO", "on", "off", "1", "0"}) {
      CAPTURE(value);
      const std::string dir = test::temp_dir("cache-binaries");
      test::ScopedEnv env("CLFORGE_CACHE_DIR", dir);
      test::ScopedEnv store("CLFORGE_CACHE_BINARIES", value);
      clear_memory_cache();
      const CacheStats a = cache_stats();
      run_once(t);
      CHECK(cache_stats().compiles == a.compiles + 1);  // built either way
      const std::string v = value;
      const bool stored = v == "on" || v == "1" || ((v.empty() || v == "auto" || v == "AUTO") && !pocl);
      CHECK(files_in(dir).size() == (stored ? 1u : 0u));
    }
    test::ScopedEnv bad("CLFORGE_CACHE_BINARIES", "sometimes");
    clear_memory_cache();
    CHECK_THROWS_WITH_AS(run_once(Tuning{{{"TRA_TILE", 8}, {"TRA_WPT", 1}, {"TRA_VW", 1}}, false}),
                         doctest::Contains("CLFORGE_CACHE_BINARIES='sometimes' is not a boolean"), Error);
  }
}

#ifdef CLFORGE_CLI
// Compile workers (runtime/compile_workers.hpp): the clforge CLI serves as the worker executable.
namespace {
// A disk cache of its own that keeps binaries (so that workers apply) and an empty memory cache.
struct WorkerCache {
  explicit WorkerCache(const std::string& name)
      : dir(test::temp_dir(name)),
        env("CLFORGE_CACHE_DIR", dir),
        store("CLFORGE_CACHE_BINARIES", "on"),
        qc(detail::queue_context_of(test::session().queue)) {
    clear_memory_cache();
  }
  std::string dir;
  test::ScopedEnv env, store;
  detail::QueueContext qc;
};
}  // namespace

TEST_SUITE("cache") {
  TEST_CASE("compile workers build in processes of their own; what they cannot build is built here") {
    const WorkerCache cache("cache_workers");
    const std::string& dir = cache.dir;
    const detail::QueueContext& qc = cache.qc;
    REQUIRE(detail::compile_workers_apply(*qc.info));
    // A build that fails, with the message it gives without workers.
    auto failure = [&] {
      try {
        detail::build_program(qc, "transpose", {"transpose/transpose.cl"}, "-DTRA_TILE=-DTRA_WPT=");
      } catch (const BuildError& e) {
        return std::string(e.what());
      }
      return std::string("built");
    };
    const std::string alone = failure();
    REQUIRE(alone.find("clBuildProgram") != std::string::npos);

    detail::CompileWorkers workers(qc, CLFORGE_CLI, 2);
    REQUIRE(workers.active());
    const detail::CompileWorkerScope scope(&workers);
    CHECK(detail::compile_workers_for(qc.device()) == &workers);

    // Two programs: each built by a worker, loaded here from the disk cache, and correct.
    const CacheStats a = cache_stats();
    run_once(Tuning{{{"TRA_TILE", 16}, {"TRA_WPT", 2}, {"TRA_VW", 1}}, false});
    run_once(Tuning{{{"TRA_TILE", 8}, {"TRA_WPT", 2}, {"TRA_VW", 1}}, false});
    const CacheStats b = cache_stats();
    CHECK(b.worker_compiles == a.worker_compiles + 2);
    CHECK(b.compiles == a.compiles);
    CHECK(b.disk_hits == a.disk_hits + 2);
    CHECK(files_in(dir).size() == 2);

    // A build that fails in the worker is built here, and fails exactly as without workers; the
    // worker stays in service.
    CHECK(failure() == alone);
    CHECK(cache_stats().worker_compiles == b.worker_compiles);
    CHECK(workers.active());
  }

  TEST_CASE("a compile given up ends its worker, which is replaced; nothing is built or stored") {
    const WorkerCache cache("cache_workers_give_up");
    const std::string& dir = cache.dir;
    const detail::QueueContext& qc = cache.qc;
    detail::CompileWorkers workers(qc, CLFORGE_CLI, 1);
    REQUIRE(workers.active());
    const detail::CompileWorkerScope scope(&workers);
    const Tuning t{{{"TRA_TILE", 16}, {"TRA_WPT", 4}, {"TRA_VW", 1}}, false};
    const CacheStats a = cache_stats();
    {
      std::atomic<bool> give_up{true};
      const detail::CompileGiveUpScope giving_up(&give_up);
      CHECK_THROWS_AS(run_once(t), detail::CompileGivenUp);
    }
    const CacheStats b = cache_stats();
    CHECK(b.compiles == a.compiles);  // not built here instead
    CHECK(b.worker_compiles == a.worker_compiles);
    CHECK(files_in(dir).empty());
    // The pool's one worker was replaced: the same program is built by it now, without the flag.
    CHECK(workers.active());
    run_once(t);
    const CacheStats c = cache_stats();
    CHECK(c.worker_compiles == b.worker_compiles + 1);
    CHECK(c.compiles == b.compiles);
    CHECK(files_in(dir).size() == 1);
  }

  TEST_CASE("compile workers that cannot start or answer leave the builds to this process") {
    const WorkerCache cache("cache_workers2");
    const detail::QueueContext& qc = cache.qc;
    CHECK_FALSE(detail::CompileWorkers(qc, "/nonexistent/clforge", 2).active());
    // An executable that is no worker: it ends at once; the build is made here, and the pool retires it.
    detail::CompileWorkers mute(qc, "/bin/true", 1);
    const detail::CompileWorkerScope scope(&mute);
    const CacheStats a = cache_stats();
    run_once(Tuning{{{"TRA_TILE", 8}, {"TRA_WPT", 8}, {"TRA_VW", 1}}, false});
    const CacheStats b = cache_stats();
    CHECK(b.compiles == a.compiles + 1);
    CHECK(b.worker_compiles == a.worker_compiles);
    CHECK_FALSE(mute.active());
  }
}
#endif
