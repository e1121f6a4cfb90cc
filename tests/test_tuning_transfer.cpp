// Rows of other devices by measured peaks: a device without rows of its own takes those of the
// device nearest by its stored peaks (store_device_peaks), same vendor class before its reasoned
// vendor rows, other vendor classes after them, never rows of another device type; provenance
// names the row and its distances; without peaks the lookup is the plain one; corrupt peaks are
// reported like corrupt rows; the tuner's seed candidates come nearest first.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "runtime/files.hpp"
#include "tests/support.hpp"
#include "tuning/db_files.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner_internal.hpp"

using namespace clforge;

namespace {
// Transpose rows of three GPUs and a CPU, each with the peaks it was tuned at, a reasoned NVIDIA
// row and a complete default row (so that no shipped row takes part).
const char* const kRows = R"({"kernel": "transpose", "entries": [
  {"params": {"TRA_TILE": 8, "TRA_WPT": 1, "TRA_VW": 1, "TRA_PAD": 1, "TRA_DIAG": 0, "TRA_SWZ": 0,
              "TRA_LOCAL": 1, "TRA_NT": 0}},
  {"vendor": "NVIDIA", "params": {"TRA_PAD": 0, "TRA_LOCAL": 0}},
  {"device": "Board A", "vendor": "NVIDIA",
   "peaks": {"type": "GPU", "device": "Board A", "copy_gbs": 3000, "fma_gflops": 60000},
   "params": {"TRA_TILE": 32, "TRA_WPT": 8}},
  {"device": "Board B", "peaks": {"type": "GPU", "device": "Board B", "vendor": "AMD", "copy_gbs": 500,
                                  "fma_gflops": 10000},
   "params": {"TRA_TILE": 16, "TRA_WPT": 2, "TRA_PAD": 1, "TRA_SWZ": 4}},
  {"device": "Some CPU", "vendor": "CPU", "peaks": {"type": "CPU", "copy_gbs": 3100, "fma_gflops": 58000},
   "params": {"TRA_TILE": 4, "TRA_WPT": 4}},
  {"vendor": "CPU", "device_vendor": "AuthenticAMD", "params": {"TRA_WPT": 2}}
]})";

// A GPU of a vendor class without rows (a new vendor), or of `v`.
DeviceInfo new_gpu(VendorClass v = VendorClass::Other, const std::string& name = "New GPU") {
  return test::fake_device(v, "new-arch", name);
}

struct TransferEnv {
  std::string dir;
  test::ScopedEnv user, file, off;
  explicit TransferEnv(const std::string& tag)
      : dir(test::temp_dir(tag)),
        user("CLFORGE_USER_TUNING_DIR", dir + "/user"),
        file("CLFORGE_TUNING_FILE", test::write_file(dir, "rows.json", kRows)),
        off("CLFORGE_TUNING", std::nullopt) {}
};
}  // namespace

TEST_SUITE("tuning_database") {
  TEST_CASE("a device without rows takes those nearest by its stored peaks, and says so") {
    TransferEnv env("transfer-near");
    const DeviceInfo dev = new_gpu();
    // No peaks stored: the plain lookup, the file's default row.
    auto cfg = resolve_configuration("transpose", "4", dev);
    CHECK(cfg.at("TRA_TILE") == 8);
    CHECK(cfg.at("TRA_WPT") == 1);
    CHECK(cfg.sources.at("TRA_TILE").find("[default]") != std::string::npos);
    CHECK(!stored_device_peaks(dev));

    // Near Board A (and as near the CPU's peaks, which a GPU never takes).
    store_device_peaks(dev, 3100, 58000);
    REQUIRE(stored_device_peaks(dev));
    CHECK(stored_device_peaks(dev)->copy_gbs == 3100);
    cfg = resolve_configuration("transpose", "4", dev);
    CHECK(cfg.at("TRA_TILE") == 32);
    CHECK(cfg.at("TRA_WPT") == 8);
    CHECK(cfg.at("TRA_PAD") == 1);  // Board B's, the next nearest; a new vendor has no vendor rows
    const std::string& why = cfg.sources.at("TRA_TILE");
    INFO(why);
    CHECK(why.find("[device \"Board A\"]") != std::string::npos);
    CHECK(why.find("nearest by peaks: tuned on Board A") != std::string::npos);
    // |ln(3000 / 3100)| = 0.033, |ln(60000 / 58000)| = 0.034
    CHECK(why.find("copy 3000.0 GB/s, |ln ratio| 0.03; FMA 60000.0 GFLOP/s, |ln ratio| 0.03") != std::string::npos);
    CHECK(cfg.sources.at("TRA_SWZ").find("[device \"Board B\"]") != std::string::npos);

    // Peaks moved near Board B: Board B's row (the remembered configuration is not reused).
    store_device_peaks(dev, 520, 9000);
    cfg = resolve_configuration("transpose", "4", dev);
    CHECK(cfg.at("TRA_TILE") == 16);
    CHECK(cfg.at("TRA_WPT") == 2);
    CHECK(cfg.at("TRA_SWZ") == 4);
    CHECK(cfg.sources.at("TRA_TILE").find("[device \"Board B\"]") != std::string::npos);

    // Without the user database the peaks are not read: the plain lookup again.
    CHECK(resolve_configuration("transpose", "4", dev, Tuning{{}, false}).at("TRA_TILE") == 8);
    // A device with a row of its own keeps it whatever its peaks.
    const DeviceInfo b = new_gpu(VendorClass::Other, "Board B");
    store_device_peaks(b, 3000, 60000);
    CHECK(resolve_configuration("transpose", "4", b).at("TRA_TILE") == 16);
  }

  TEST_CASE("rows of the device's vendor class by peaks, then its vendor rows, then other vendors' nearer rows") {
    TransferEnv env("transfer-vendor");
    // An NVIDIA GPU at Board B's peaks: Board A (its vendor class) comes first although Board B
    // (AMD) is nearer; the reasoned NVIDIA row before Board B; Board B before the default row.
    const DeviceInfo dev = new_gpu(VendorClass::NVIDIA);
    store_device_peaks(dev, 500, 10000);
    const auto cfg = resolve_configuration("transpose", "4", dev);
    CHECK(cfg.at("TRA_TILE") == 32);
    CHECK(cfg.at("TRA_PAD") == 0);
    CHECK(cfg.sources.at("TRA_PAD").find("[vendor NVIDIA]") != std::string::npos);
    CHECK(cfg.at("TRA_SWZ") == 4);
    // A CPU takes the CPU's row only, however far its peaks; a row narrowed to its processor maker
    // comes before it (another maker's CPU never sees that row).
    const DeviceInfo cpu = test::fake_device(VendorClass::CPU, "other-cpu-arch", "New CPU", "AuthenticAMD");
    store_device_peaks(cpu, 20, 400);
    auto c = resolve_configuration("transpose", "4", cpu);
    CHECK(c.at("TRA_TILE") == 4);
    CHECK(c.at("TRA_WPT") == 2);
    const DeviceInfo intel = test::fake_device(VendorClass::CPU, "other-cpu-arch", "Intel CPU", "GenuineIntel");
    store_device_peaks(intel, 20, 400);
    c = resolve_configuration("transpose", "4", intel);
    CHECK(c.at("TRA_TILE") == 4);
    CHECK(c.at("TRA_WPT") == 4);
  }

  TEST_CASE("corrupt peaks are reported with the file and the key; rows stored carry the device's peaks") {
    TransferEnv env("transfer-corrupt");
    const DeviceInfo dev = new_gpu();
    store_device_peaks(dev, 100, 2000);
    store_user_entry(dev, "transpose", "4", {{"TRA_TILE", 16}});
    const std::string path = user_database_path(dev);
    auto j = nlohmann::json::parse(*detail::read_file(path));
    CHECK(j["entries"][0]["peaks"]["copy_gbs"] == 100);
    CHECK(j["entries"][0]["peaks"]["type"] == dev.type);

    j["peaks"]["copy_gbs"] = "fast";
    const std::string corrupt = j.dump();
    detail::write_file_atomic(path, corrupt);
    try {
      resolve_configuration("transpose", "4", dev);
      FAIL("corrupt peaks accepted");
    } catch (const TuningError& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find(path) != std::string::npos);
      CHECK(what.find("\"peaks\".copy_gbs") != std::string::npos);
    }
    CHECK_THROWS_AS(stored_device_peaks(dev), TuningError);
    CHECK_THROWS_AS(store_user_entry(dev, "transpose", "4", {{"TRA_TILE", 8}}), TuningError);
    CHECK_THROWS_AS(store_device_peaks(dev, 1, 1), TuningError);
    CHECK(*detail::read_file(path) == corrupt);
    CHECK_THROWS_AS(store_device_peaks(dev, 0, 1), InvalidArgument);

    // A row's peaks are checked like its other keys.
    const std::string bad = test::write_file(env.dir, "bad.json", R"({"kernel": "transpose", "entries": [
      {"device": "X", "peaks": {"type": "GPU", "copy_gbs": 10}, "params": {"TRA_TILE": 16}}]})");
    test::ScopedEnv file("CLFORGE_TUNING_FILE", bad);
    try {
      resolve_configuration("transpose", "4", dev, Tuning{{}, false});
      FAIL("a row without fma_gflops accepted");
    } catch (const TuningError& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find(bad) != std::string::npos);
      CHECK(what.find("entries[0]") != std::string::npos);
      CHECK(what.find("fma_gflops") != std::string::npos);
    }
  }

  TEST_CASE("the tuner's seed candidates come nearest by peaks first") {
    TransferEnv env("transfer-seeds");
    // The shipped transpose rows replaced by the test's (CLFORGE_KERNEL_DIR, file by file).
    const std::string kdir = env.dir + "/kernels";
    test::write_file(kdir + "/db", "transpose.json", kRows);
    test::ScopedEnv kernels("CLFORGE_KERNEL_DIR", kdir);
    const detail::KernelSpec& spec = detail::kernel_spec("transpose");
    const DeviceInfo dev = new_gpu();
    const detail::Space space = detail::build_space(spec, {}, "4", dev, 1);
    const ParamMap defaults = resolve_configuration("transpose", "4", dev, Tuning{{}, false}).values;
    auto tiles = [&](const detail::Peaks* peaks) {
      std::vector<int> t;
      for (const auto& p : detail::seed_candidates(spec, space, "4", defaults, dev, peaks))
        t.push_back(p.at("TRA_TILE"));
      return t;
    };
    // The default row is the defaults (not a seed); NVIDIA's row completed with them is TILE 8.
    CHECK(tiles(nullptr) == std::vector<int>{8, 32, 16, 4, 8});  // file order after the matching rows
    detail::Peaks near_a{2900, 61000, "GPU", "", ""};
    CHECK(tiles(&near_a) == std::vector<int>{32, 16, 8, 4, 8});
    detail::Peaks near_b{480, 9500, "GPU", "", ""};
    CHECK(tiles(&near_b) == std::vector<int>{16, 32, 8, 4, 8});
  }
}
