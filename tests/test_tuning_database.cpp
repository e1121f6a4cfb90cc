// Tuning database: lookup order (override > CLFORGE_TUNING_FILE > user > shipped device >
// architecture > vendor > default; exact variant before "*"; rows narrowed by device_vendor before
// the others of their level and variant), validation errors naming the
// file and key, fallback when a configuration exceeds the device, shipped rows for every
// vendor class of every kernel.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "runtime/program_cache.hpp"
#include "tests/support.hpp"
#include "tuning/spec.hpp"

using namespace clforge;

namespace {
DeviceInfo fake_device(VendorClass v, const std::string& name, const std::string& arch) {
  return test::fake_device(v, arch, name);
}

void expect_tuning_error(const std::string& text, const std::string& needle) {
  const std::string dir = test::temp_dir("bad");
  const std::string file = test::write_file(dir, "bad.json", text);
  test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
  try {
    resolve_configuration("transpose", "4", test::session().entry.info);
    FAIL("no TuningError for " << text);
  } catch (const TuningError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find(file) != std::string::npos);
    CHECK(what.find(needle) != std::string::npos);
  }
}
}  // namespace

TEST_SUITE("tuning_database") {
  TEST_CASE("shipped lookup: device > architecture > vendor > default, exact variant before *") {
    const std::string dir = test::temp_dir("lookup");
    const std::string file = test::write_file(dir, "t.json", R"({"kernel": "transpose", "entries": [
      {"params": {"TRA_TILE": 8, "TRA_WPT": 1, "TRA_VW": 1, "TRA_PAD": 0, "TRA_DIAG": 0}},
      {"vendor": "AMD", "params": {"TRA_TILE": 16, "TRA_WPT": 2}},
      {"vendor": "AMD", "architecture": "gfx90a", "params": {"TRA_TILE": 32}},
      {"device": "Exact Board", "params": {"TRA_TILE": 64, "TRA_WPT": 16}},
      {"vendor": "AMD", "variant": "8", "params": {"TRA_WPT": 4}}
    ]})");
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    const Tuning no_user{{}, false};
    auto cfg = resolve_configuration("transpose", "4", fake_device(VendorClass::AMD, "Some AMD", "gfx1100"), no_user);
    CHECK(cfg.at("TRA_TILE") == 16);
    CHECK(cfg.at("TRA_WPT") == 2);
    CHECK(cfg.at("TRA_PAD") == 0);
    CHECK(cfg.sources.at("TRA_TILE").find("[vendor AMD]") != std::string::npos);
    CHECK(cfg.sources.at("TRA_PAD").find("[default]") != std::string::npos);

    cfg = resolve_configuration("transpose", "4", fake_device(VendorClass::AMD, "Some AMD", "gfx90a"), no_user);
    CHECK(cfg.at("TRA_TILE") == 32);
    CHECK(cfg.at("TRA_WPT") == 2);  // not in the architecture row: falls through to the vendor row
    CHECK(cfg.sources.at("TRA_TILE").find("[architecture gfx90a]") != std::string::npos);

    cfg = resolve_configuration("transpose", "4", fake_device(VendorClass::AMD, "Exact Board", "gfx90a"), no_user);
    CHECK(cfg.at("TRA_TILE") == 64);

    cfg = resolve_configuration("transpose", "8", fake_device(VendorClass::AMD, "Some AMD", "gfx1100"), no_user);
    CHECK(cfg.at("TRA_WPT") == 4);  // the exact variant wins within the same level
    CHECK(cfg.at("TRA_TILE") == 16);

    cfg = resolve_configuration("transpose", "4", fake_device(VendorClass::Intel, "Arc", ""), no_user);
    CHECK(cfg.at("TRA_TILE") == 8);  // the file's default row beats the shipped Intel row
  }

  TEST_CASE("device_vendor narrows a row to one processor maker, after level and variant") {
    const std::string dir = test::temp_dir("device-vendor");
    const std::string file = test::write_file(dir, "t.json", R"({"kernel": "transpose", "entries": [
      {"vendor": "CPU", "params": {"TRA_TILE": 8, "TRA_WPT": 1}},
      {"vendor": "CPU", "device_vendor": "AuthenticAMD", "params": {"TRA_TILE": 16}},
      {"vendor": "CPU", "variant": "8", "params": {"TRA_WPT": 4}},
      {"vendor": "CPU", "device_vendor": "authenticamd", "variant": "8", "params": {"TRA_WPT": 2}},
      {"vendor": "CPU", "architecture": "arch-a", "params": {"TRA_TILE": 32}}
    ]})");
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    const Tuning no_user{{}, false};
    DeviceInfo amd = fake_device(VendorClass::CPU, "cpu", "");
    amd.vendor = "AuthenticAMD";
    DeviceInfo intel = amd;
    intel.vendor = "GenuineIntel";

    auto cfg = resolve_configuration("transpose", "4", amd, no_user);
    CHECK(cfg.at("TRA_TILE") == 16);
    CHECK(cfg.sources.at("TRA_TILE").find("[vendor CPU (AuthenticAMD)]") != std::string::npos);
    CHECK(cfg.at("TRA_WPT") == 1);  // not in the narrowed row: the plain vendor row
    cfg = resolve_configuration("transpose", "4", intel, no_user);
    CHECK(cfg.at("TRA_TILE") == 8);  // another maker never sees the narrowed rows

    // Within one level the exact variant still comes first; device_vendor orders rows of the
    // same level and variant (and matches without regard to case).
    cfg = resolve_configuration("transpose", "8", amd, no_user);
    CHECK(cfg.at("TRA_WPT") == 2);
    CHECK(cfg.at("TRA_TILE") == 16);
    cfg = resolve_configuration("transpose", "8", intel, no_user);
    CHECK(cfg.at("TRA_WPT") == 4);
    CHECK(cfg.at("TRA_TILE") == 8);

    // A more specific level wins over a narrowed vendor row.
    amd.architecture = "arch-a";
    CHECK(resolve_configuration("transpose", "4", amd, no_user).at("TRA_TILE") == 32);
  }

  TEST_CASE("override > tuning file > user database > shipped; user database can be switched off") {
    const std::string dir = test::temp_dir("order");
    test::ScopedEnv user_dir("CLFORGE_USER_TUNING_DIR", dir + "/user");
    const DeviceInfo& dev = test::session().entry.info;
    store_user_entry(dev, "transpose", "4", {{"TRA_TILE", 16}, {"TRA_WPT", 2}, {"TRA_DIAG", 1}});
    CHECK(detail::file_exists(user_database_path(dev)));
    const std::string file =
        test::write_file(dir, "t.json", R"({"entries": [{"kernel": "transpose", "params": {"TRA_TILE": 32}}]})");
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);

    auto cfg = resolve_configuration("transpose", "4", dev, Tuning{{{"TRA_DIAG", 0}}, true});
    CHECK(cfg.at("TRA_TILE") == 32);
    CHECK(cfg.sources.at("TRA_TILE").find("tuning-file") == 0);
    CHECK(cfg.at("TRA_WPT") == 2);
    CHECK(cfg.sources.at("TRA_WPT").find("user") == 0);
    CHECK(cfg.at("TRA_DIAG") == 0);
    CHECK(cfg.sources.at("TRA_DIAG") == "override");
    CHECK(cfg.sources.at("TRA_PAD").find("shipped") == 0);
    // The options passed to the compiler are the resolved values, sorted by name.
    CHECK(detail::build_options(cfg, {}).find("-DTRA_TILE=32 -DTRA_VW=") != std::string::npos);

    cfg = resolve_configuration("transpose", "4", dev, Tuning{{}, false});
    CHECK(cfg.sources.at("TRA_WPT").find("shipped") == 0);
    {
      test::ScopedEnv off("CLFORGE_TUNING", "off");
      cfg = resolve_configuration("transpose", "4", dev, Tuning{});
      CHECK(cfg.sources.at("TRA_WPT").find("shipped") == 0);
    }
    // The user entry for another variant does not apply to this one.
    cfg = resolve_configuration("transpose", "16", dev, Tuning{});
    CHECK(cfg.sources.at("TRA_WPT").find("shipped") == 0);

    // Storing again replaces the entry; the file stays valid JSON.
    store_user_entry(dev, "transpose", "4", {{"TRA_WPT", 8}});
    cfg = resolve_configuration("transpose", "4", dev, Tuning{});
    CHECK(cfg.at("TRA_WPT") == 8);
    const auto j = nlohmann::json::parse(*detail::read_file(user_database_path(dev)));
    CHECK(j["entries"].size() == 1);
  }

  TEST_CASE("each validation error names the file and the key") {
    expect_tuning_error("{not json", "not valid JSON");
    expect_tuning_error(R"({"entries": 3})", "entries");
    expect_tuning_error(R"({"entries": [{"kernel": "transpose", "params": {"TRA_NOPE": 1}}]})", "TRA_NOPE");
    expect_tuning_error(R"({"entries": [{"kernel": "transpose", "params": {"TRA_TILE": 12}}]})", "TRA_TILE");
    expect_tuning_error(R"({"entries": [{"kernel": "transpose", "params": {"TRA_TILE": "big"}}]})", "TRA_TILE");
    expect_tuning_error(R"({"entries": [{"kernel": "nokernel", "params": {}}]})", "nokernel");
    expect_tuning_error(R"({"entries": [{"kernel": "transpose", "colour": "red", "params": {}}]})", "colour");
    expect_tuning_error(R"({"entries": [{"kernel": "transpose", "variant": "3", "params": {}}]})", "variant");
    expect_tuning_error(R"({"entries": [{"kernel": "transpose"}]})", "params");
    expect_tuning_error(R"({"entries": [{"kernel": "transpose", "device_vendor": 7, "params": {}}]})", "device_vendor");
    // An illegal combination from a file: TuningError naming the parameters and their sources.
    expect_tuning_error(R"({"entries": [{"kernel": "transpose", "params": {"TRA_TILE": 4, "TRA_WPT": 8}}]})",
                        "TRA_WPT must not exceed TRA_TILE");
    // A missing CLFORGE_TUNING_FILE is an error too (the user asked for it).
    test::ScopedEnv env("CLFORGE_TUNING_FILE", "/nonexistent/clforge.json");
    CHECK_THROWS_AS(resolve_configuration("transpose", "4", test::session().entry.info), TuningError);
  }

  TEST_CASE("overrides: unknown names and illegal values throw InvalidArgument; NAME=VALUE parsing") {
    const DeviceInfo& dev = test::session().entry.info;
    CHECK_THROWS_AS(resolve_configuration("transpose", "4", dev, Tuning{{{"MWG", 64}}, true}), InvalidArgument);
    CHECK_THROWS_AS(resolve_configuration("transpose", "4", dev, Tuning{{{"TRA_VW", 3}}, true}), InvalidArgument);
    CHECK_THROWS_AS(resolve_configuration("nokernel", "4", dev), InvalidArgument);
    ParamMap m;
    parse_param_assignment("TRA_TILE=32", m);
    parse_param_assignment(" TRA_WPT = 4 ", m);
    CHECK(m["TRA_TILE"] == 32);
    CHECK(m["TRA_WPT"] == 4);
    CHECK_THROWS_AS(parse_param_assignment("TRA_TILE", m), InvalidArgument);
    CHECK_THROWS_AS(parse_param_assignment("TRA_TILE=x", m), InvalidArgument);
    CHECK_THROWS_AS(parse_param_assignment("=4", m), InvalidArgument);
    CHECK_THROWS_AS(parse_param_assignment("TRA_TILE=4.5", m), InvalidArgument);
  }

  TEST_CASE("a configuration over the device's local memory or work-group limit falls back and says so") {
    DeviceInfo small = test::session().entry.info;
    small.local_mem_size = 16 * 1024;
    small.max_work_group_size = 256;
    const std::string dir = test::temp_dir("fit");
    const std::string file = test::write_file(dir, "big.json", R"({"entries": [{"kernel": "transpose",
        "params": {"TRA_TILE": 64, "TRA_WPT": 1, "TRA_VW": 1, "TRA_PAD": 1, "TRA_LOCAL": 1}}]})");
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    // 64 x 65 x 16 bytes = 66560 bytes of local memory and 4096 work-items: does not fit.
    CHECK(!detail::fit_problem(
               detail::kernel_spec("transpose"),
               {{"TRA_TILE", 64}, {"TRA_WPT", 1}, {"TRA_VW", 1}, {"TRA_PAD", 1}, {"TRA_DIAG", 0}, {"TRA_LOCAL", 1}},
               "16", small)
               .empty());
    const Configuration cfg = resolve_configuration("transpose", "16", small, Tuning{{}, false});
    REQUIRE(!cfg.notes.empty());
    CHECK(cfg.notes.front().find("fallback") == 0);
    CHECK(cfg.at("TRA_TILE") < 64);
    CHECK(cfg.sources.at("TRA_TILE").find("fallback") == 0);
    CHECK(detail::fit_problem(detail::kernel_spec("transpose"), cfg.values, "16", small).empty());
    // The same values given explicitly are an error naming them.
    try {
      resolve_configuration("transpose", "16", small,
                            Tuning{{{"TRA_TILE", 64}, {"TRA_WPT", 4}, {"TRA_VW", 1}, {"TRA_LOCAL", 1}}, false});
      FAIL("override that does not fit was accepted");
    } catch (const InvalidArgument& e) {
      CHECK(std::string(e.what()).find("TRA_TILE=64") != std::string::npos);
      INFO(e.what());
      CHECK(std::string(e.what()).find("local memory") != std::string::npos);
    }
    // And the fallback configuration really runs and is right on this device.
    auto& s = test::session();
    std::vector<float> in = host::random_floats(4 * 33 * 29, test::seed() + 9);
    struct F4 {
      float v[4];
    };
    std::vector<F4> in4(33 * 29);
    std::memcpy(in4.data(), in.data(), in.size() * 4);
    auto out4 = transpose(s.queue, 33, 29, in4, Tuning{cfg.values, false});
    for (std::size_t r = 0; r < 33; ++r)
      for (std::size_t c = 0; c < 29; ++c) REQUIRE(std::memcmp(&out4[c * 33 + r], &in4[r * 29 + c], 16) == 0);
  }

  TEST_CASE("a configuration that needs double precision falls back on a device without it and says so") {
    DeviceInfo no_fp64 = test::session().entry.info;
    no_fp64.fp64 = false;
    DeviceInfo with_fp64 = no_fp64;
    with_fp64.fp64 = true;
    const std::string dir = test::temp_dir("fp64");
    const std::string file = test::write_file(dir, "tw.json", R"({"entries": [{"kernel": "fft", "variant": "1024",
        "params": {"FFT_TWIDDLE": 2}}]})");
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    const Configuration ok = resolve_configuration("fft", "1024", with_fp64, Tuning{{}, false});
    CHECK(ok.at("FFT_TWIDDLE") == 2);
    CHECK(ok.notes.empty());
    // Same identity otherwise: the remembered configuration of the first device is not reused.
    const Configuration fb = resolve_configuration("fft", "1024", no_fp64, Tuning{{}, false});
    CHECK(fb.at("FFT_TWIDDLE") == 0);
    CHECK(fb.sources.at("FFT_TWIDDLE").find("fallback") == 0);
    REQUIRE(!fb.notes.empty());
    CHECK(fb.notes.front().find("cl_khr_fp64") != std::string::npos);
    CHECK(fb.at("FFT_HALVE") == ok.at("FFT_HALVE"));  // nothing else given up
    // Asked for explicitly, it is an error naming the parameter and the missing extension.
    try {
      resolve_configuration("fft", "1024", no_fp64, Tuning{{{"FFT_TWIDDLE", 2}}, false});
      FAIL("FFT_TWIDDLE=2 accepted on a device without double precision");
    } catch (const InvalidArgument& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find("FFT_TWIDDLE=2") != std::string::npos);
      CHECK(std::string(e.what()).find("cl_khr_fp64") != std::string::npos);
    }
    // FFT_TWIDDLE 3 (double twiddles in the passes with large tables) asks for it too.
    try {
      resolve_configuration("fft", "16384", no_fp64, Tuning{{{"FFT_TWIDDLE", 3}}, false});
      FAIL("FFT_TWIDDLE=3 accepted on a device without double precision");
    } catch (const InvalidArgument& e) {
      CHECK(std::string(e.what()).find("cl_khr_fp64") != std::string::npos);
    }  // A row with FFT_TWIDDLE 3 falls back to float products in the same passes (4), which need
    // no double precision; 4 itself is accepted as it is.
    const std::string file3 = test::write_file(dir, "tw3.json", R"({"entries": [{"kernel": "fft", "variant": "16384",
        "params": {"FFT_TWIDDLE": 3}}]})");
    test::ScopedEnv env3("CLFORGE_TUNING_FILE", file3);
    const Configuration fb3 = resolve_configuration("fft", "16384", no_fp64, Tuning{{}, false});
    CHECK(fb3.at("FFT_TWIDDLE") == 4);
    CHECK(fb3.sources.at("FFT_TWIDDLE").find("fallback") == 0);
    const Configuration split = resolve_configuration("fft", "16384", no_fp64, Tuning{{{"FFT_TWIDDLE", 4}}, false});
    CHECK(split.at("FFT_TWIDDLE") == 4);
    CHECK(split.notes.empty());
  }

  TEST_CASE("a sub-variant (F:S) takes its own rows, then its family's, then the generic ones, within each level") {
    const std::string dir = test::temp_dir("subvariant");
    const std::string file = test::write_file(dir, "t.json", R"({"kernel": "fft", "entries": [
      {"params": {"FFT_WG": 64, "FFT_PAD": 0, "FFT_VEC": 0}},
      {"variant": "pass512", "params": {"FFT_WG": 128, "FFT_HALVE": 1, "FFT_VEC": 1}},
      {"variant": "pass512:later", "params": {"FFT_WG": 512}},
      {"variant": "pass512:other", "params": {"FFT_RADIX": 4}},
      {"variant": "pass51", "params": {"FFT_RADIX": 2}},
      {"device": "Exact Board", "variant": "pass512", "params": {"FFT_WG": 32}}
    ]})");
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    const Tuning no_user{{}, false};
    const DeviceInfo here = test::session().entry.info;
    const Configuration later = resolve_configuration("fft", "pass512:later", here, no_user);
    CHECK(later.at("FFT_WG") == 512);   // its own row
    CHECK(later.at("FFT_HALVE") == 1);  // the family's
    CHECK(later.at("FFT_VEC") == 1);    // the family's before the generic row
    CHECK(later.at("FFT_PAD") == 0);    // the generic row
    CHECK(later.at("FFT_RADIX") != 4);  // not a sibling's
    CHECK(later.at("FFT_RADIX") != 2);  // not a variant that merely starts the same
    CHECK(later.sources.at("FFT_WG").find("variant pass512:later") != std::string::npos);
    CHECK(later.sources.at("FFT_HALVE").find("variant pass512]") != std::string::npos);
    const Configuration family = resolve_configuration("fft", "pass512", here, no_user);
    CHECK(family.at("FFT_WG") == 128);  // a family does not take its sub-variants' rows
    CHECK(family.at("FFT_RADIX") != 4);
    // A more specific device match wins over a more specific variant.
    DeviceInfo board = here;
    board.name = "Exact Board";
    CHECK(resolve_configuration("fft", "pass512:later", board, no_user).at("FFT_WG") == 32);
    // Across databases, a sub-variant's own row for this device (here the user database's) comes
    // before a higher database's family row; the family and the other sub-variants keep the
    // higher database's rows.
    test::ScopedEnv user_dir("CLFORGE_USER_TUNING_DIR", dir + "/user");
    store_user_entry(here, "fft", "pass512:other", {{"FFT_WG", 256}, {"FFT_PAD", 1}});
    store_user_entry(here, "fft", "pass512", {{"FFT_WG", 16}});
    const Configuration other = resolve_configuration("fft", "pass512:other", here);
    CHECK(other.at("FFT_WG") == 256);
    CHECK(other.sources.at("FFT_WG").find("user") == 0);
    CHECK(other.at("FFT_RADIX") == 4);  // the tuning file's row of the sub-variant
    CHECK(other.at("FFT_HALVE") == 1);  // the tuning file's family row, before the user's
    CHECK(other.at("FFT_PAD") == 1);    // the user's sub-variant row, before the generic one
    CHECK(resolve_configuration("fft", "pass512", here).at("FFT_WG") == 128);
    CHECK(resolve_configuration("fft", "pass512:later", here).at("FFT_WG") == 512);
  }

  TEST_CASE("resolved configurations are remembered per device identity, limits included") {
    const DeviceInfo& dev = test::session().entry.info;
    DeviceInfo small = dev;  // a copy with less local memory than the shipped row's tile needs
    const Tuning shipped_only{{}, false};
    const Configuration before = resolve_configuration("blur_recursive", "1", dev, shipped_only);
    small.local_mem_size = before.at("BLUR_R_BLOCK") * (before.at("BLUR_R_LX") + 1) * 4 - 4;
    const Configuration fitted = resolve_configuration("blur_recursive", "1", small, shipped_only);
    CHECK(fitted.at("BLUR_R_BLOCK") * (fitted.at("BLUR_R_LX") + 1) * 4 <= static_cast<int>(small.local_mem_size));
    CHECK_FALSE(fitted.notes.empty());
    const Configuration after = resolve_configuration("blur_recursive", "1", dev, shipped_only);
    CHECK(after.values == before.values);
    CHECK(after.notes == before.notes);
  }

  TEST_CASE("every kernel family ships rows for default, NVIDIA, AMD, Intel and CPU") {
    for (const auto& name : tunable_kernels()) {
      const auto& spec = detail::kernel_spec(name);
      const auto j = nlohmann::json::parse(load_kernel_source(spec.database).text);
      for (const char* vendor : {"default", "NVIDIA", "AMD", "Intel", "CPU"}) {
        bool found = false;
        for (const auto& e : j["entries"])
          if (e.value("vendor", "") == vendor && !e.contains("architecture") && !e.contains("device")) found = true;
        INFO(name << " has no row for " << vendor);
        CHECK(found);
      }
      // Each vendor row resolves to a complete, legal configuration on a matching fake device,
      // unshrunk. Its local memory is the most a device of the class may offer (PoCL sizes a CPU
      // device's from the processor's cache: 512 KiB on some, where the CPU row's fused blur tile
      // is shrunk; the shrinking has a test of its own).
      for (VendorClass v : {VendorClass::NVIDIA, VendorClass::AMD, VendorClass::Intel, VendorClass::CPU}) {
        const std::string variant = spec.variants.empty() ? "*" : spec.variants.front();
        DeviceInfo dev = fake_device(v, "x", "");
        dev.local_mem_size = std::max<std::uint64_t>(dev.local_mem_size, std::uint64_t{4} << 20);
        const Configuration cfg = resolve_configuration(name, variant, dev, Tuning{{}, false});
        for (const auto& p : spec.params) {
          INFO(name << " " << to_string(v) << " " << p.name);
          CHECK(cfg.sources.at(p.name).find("shipped") == 0);
        }
      }
    }
  }

  TEST_CASE("a corrupt user database is reported with its path and not overwritten") {
    const std::string dir = test::temp_dir("corrupt");
    test::ScopedEnv user_dir("CLFORGE_USER_TUNING_DIR", dir);
    const DeviceInfo& dev = test::session().entry.info;
    const std::string path = user_database_path(dev);
    detail::make_dirs(dir);
    std::ofstream(path) << "{ truncated";
    try {
      resolve_configuration("transpose", "4", dev);
      FAIL("corrupt user database accepted");
    } catch (const TuningError& e) {
      CHECK(std::string(e.what()).find(path) != std::string::npos);
    }
    CHECK_THROWS_AS(store_user_entry(dev, "transpose", "4", {{"TRA_TILE", 8}}), TuningError);
    CHECK(*detail::read_file(path) == "{ truncated");
  }
}
