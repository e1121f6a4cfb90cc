// Group calls (clforge/group.hpp) on every device of the machine (CTest gives this suite two PoCL
// devices through POCL_DEVICES="pthread pthread"): every family split 50/50, 90/10, 100/0, 0/100,
// dynamic and auto, with and without staging and overlap, odd sizes and chunk sizes that leave
// a short last chunk, against the double host reference (transpose bitwise; the others within
// their family's tolerance; direct and separable blur bitwise against the single-device call).
// Device selection, split options, argument checks, an injected device failure, and 16 threads
// sharing one group.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <numeric>
#include <thread>
#include <tuple>

#include "group/group_internal.hpp"
#include "host/blur.hpp"
#include "host/fft.hpp"
#include "host/gemm.hpp"
#include "host/reference.hpp"
#include "tests/group_support.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {

using test::group;

// The splits every family runs: weights 50/50, 90/10, 100/0, 0/100 over the first two devices
// (the others get nothing), dynamic, auto; staging and overlap varied along the way.
std::vector<std::pair<std::string, SplitOptions>> splits(std::size_t chunk) {
  const std::size_t d = group().size();
  auto weights = [&](double a, double b) {
    std::vector<double> w(d, 0.0);
    w[0] = a;
    if (d > 1) w[1] = b;
    if (a + (d > 1 ? b : 0) == 0) w[0] = 1;
    return w;
  };
  std::vector<std::pair<std::string, SplitOptions>> v;
  auto add = [&](std::string name, SplitMode mode, std::vector<double> w, Staging st, bool overlap) {
    SplitOptions o;
    o.mode = mode;
    o.weights = std::move(w);
    o.chunk = chunk;
    o.staging = st;
    o.overlap = overlap;
    v.emplace_back(std::move(name), std::move(o));
  };
  add("50/50", SplitMode::Weights, weights(50, 50), Staging::Off, true);
  add("90/10 staged", SplitMode::Weights, weights(90, 10), Staging::On, true);
  add("100/0", SplitMode::Weights, weights(100, 0), Staging::Auto, true);
  add("0/100 serial", SplitMode::Weights, weights(0, 100), Staging::On, false);
  add("dynamic", SplitMode::Dynamic, {}, Staging::Off, true);
  add("dynamic staged", SplitMode::Dynamic, {}, Staging::On, true);
  add("auto", SplitMode::Auto, {}, Staging::Auto, true);
  return v;
}

// Every device that the split gave work did it, in chunks of the size asked for, and the shares
// add up.
void check_shares(const GroupRun& r, std::size_t items, const SplitOptions& o) {
  std::size_t total = 0;
  for (const auto& s : r.shares) {
    total += s.items;
    if (s.items == 0) continue;
    CHECK(s.chunk == o.chunk);
    if (o.mode == SplitMode::Weights) CHECK(s.chunks == (s.items + o.chunk - 1) / o.chunk);  // auto may steal
    CHECK(s.queues >= 1);
    CHECK(s.queues <= (o.overlap ? group().queues() : 1));
    CHECK(s.staged == (o.staging == Staging::On));  // Auto: off on CPU devices
  }
  CHECK(total == items);
  if (o.mode == SplitMode::Weights) {
    CHECK(r.mode == SplitMode::Weights);
    for (std::size_t d = 0; d < r.shares.size(); ++d) CHECK((r.shares[d].items > 0) == (o.weights[d] > 0));
  } else if (o.mode == SplitMode::Dynamic) {
    CHECK(r.mode == SplitMode::Dynamic);
  } else {  // auto: dynamic while it measures the devices' rates, then weights
    CHECK(r.mode != SplitMode::Auto);
  }
}

}  // namespace

TEST_SUITE("group") {
  TEST_CASE("a group from selectors: every match once, contexts and queues per device") {
    const auto all = list_devices();
    INFO("devices: " << group().describe());
    REQUIRE_MESSAGE(group().size() >= 2, "this suite needs two devices: run it with POCL_DEVICES=\"pthread pthread\"");
    CHECK(group().size() == all.size());
    CHECK(group().queues() == 3);
    for (std::size_t d = 0; d < group().size(); ++d) {
      CHECK(group().entry(d).device() == all[d].device());
      CHECK(group().queue(d, 2).getInfo<CL_QUEUE_DEVICE>()() == all[d].device());
      CHECK(group().queue(d, 1).getInfo<CL_QUEUE_CONTEXT>()() == group().context(d)());
    }
    const DeviceGroup twice("1,all,0", 1);  // "all" adds the devices not named before
    REQUIRE(twice.size() == all.size());
    CHECK(twice.entry(0).device() == all[1].device());
    CHECK(twice.entry(1).device() == all[0].device());
    const DeviceGroup cpus("cpu", 2);
    for (std::size_t d = 0; d < cpus.size(); ++d) CHECK(cpus.entry(d).info.type == "CPU");
    CHECK_THROWS_AS(DeviceGroup("no such device at all"), UnsupportedDevice);
    CHECK_THROWS_AS(DeviceGroup("0,,1"), InvalidArgument);
    CHECK_THROWS_AS(DeviceGroup("0", 0), InvalidArgument);
    CHECK_THROWS_AS(DeviceGroup("0", 9), InvalidArgument);
    CHECK_THROWS_AS(DeviceGroup(std::vector<DeviceEntry>{all[0], all[0]}), InvalidArgument);
    CHECK(parse_split_mode("Dynamic") == SplitMode::Dynamic);
    CHECK_THROWS_AS(parse_split_mode("fast"), InvalidArgument);
  }

  TEST_CASE("SELECTOR@N: a sub-device of N compute units") {
    const auto all = list_devices();
    const DeviceEntry& cpu = all[0];
    REQUIRE(cpu.info.type == "CPU");
    REQUIRE(cpu.info.compute_units >= 2);
    const DeviceGroup part("0@1,1", 2);
    REQUIRE(part.size() == 2);
    CHECK(part.entry(0).info.compute_units == 1);
    CHECK(part.entry(0).device.getInfo<CL_DEVICE_PARENT_DEVICE>()() == cpu.device());
    CHECK(part.entry(0).info.name == cpu.info.name);  // the same tuning rows
    CHECK(part.entry(1).device() == all[1].device());
    CHECK(DeviceGroup("0@" + std::to_string(cpu.info.compute_units)).entry(0).device() == cpu.device());  // all of it
    for (const char* bad : {"0@", "0@0", "0@x", "0@-1", "0@1.5", "0@99999999999"})
      test::expect_invalid_argument([&] { DeviceGroup g(bad); }, "compute units");
    test::expect_invalid_argument([&] { DeviceGroup g("0@1,0"); }, "two different compute-unit counts");
    // A split over the sub-device and a whole device, against the double reference.
    const std::size_t n = 48, batch = 21;
    const auto xf = host::random_floats(2 * n * batch, test::seed() + 5);
    const auto ref = host::fft_batch(xf.data(), n, batch, 1, n, 0, false);
    std::vector<std::complex<float>> x(n * batch), y(n * batch, {NAN, NAN});
    std::memcpy(static_cast<void*>(x.data()), xf.data(), xf.size() * 4);
    SplitOptions o;
    o.mode = SplitMode::Weights;
    o.weights = {3, 1};
    o.chunk = 4;
    const GroupRun r = fft(part, n, batch, x.data(), y.data(), false, o);
    CHECK(r.shares[0].items > 0);
    CHECK(host::fft_compare(reinterpret_cast<const float*>(y.data()), n, batch, 1, n, 0, ref).max_rel_l2 <=
          host::fft_tolerance(n));
  }

  TEST_CASE("cpu percent weights") {
    std::size_t cpus = 0;
    for (std::size_t d = 0; d < group().size(); ++d) cpus += group().entry(d).info.type == "CPU";
    auto sums = [](const std::vector<double>& w) {
      double cpu = 0, other = 0;
      for (std::size_t d = 0; d < group().size(); ++d) (group().entry(d).info.type == "CPU" ? cpu : other) += w[d];
      return std::pair{cpu, other};
    };
    if (cpus > 0 && cpus < group().size()) {
      const auto [cpu, other] = sums(cpu_percent_weights(group(), 30));
      CHECK(cpu == doctest::Approx(30));
      CHECK(other == doctest::Approx(70));
    } else if (cpus > 0) {  // CPU devices only: all of the work or none of it is theirs
      CHECK(sums(cpu_percent_weights(group(), 100)).first == doctest::Approx(100));
      CHECK_THROWS_AS(cpu_percent_weights(group(), 30), InvalidArgument);
      CHECK_THROWS_AS(cpu_percent_weights(group(), 0), InvalidArgument);
    }
    CHECK_THROWS_AS(cpu_percent_weights(group(), -1), InvalidArgument);
    CHECK_THROWS_AS(cpu_percent_weights(group(), 101), InvalidArgument);
    CHECK_THROWS_AS(cpu_percent_weights(group(), std::nan("")), InvalidArgument);
  }

  TEST_CASE("auto weights: measured rates, a device under 4 % of the group's left out") {
    using detail::auto_weights;
    CHECK(auto_weights({14.0, 7.0}) == std::vector<double>{14.0, 7.0});
    CHECK(auto_weights({22700.0, 191.0}) == std::vector<double>{22700.0, 0.0});      // 0.8 %
    CHECK(auto_weights({50.0, 4.0, 50.0}) == std::vector<double>{50.0, 0.0, 50.0});  // 3.8 %
    CHECK(auto_weights({48.0, 4.0, 48.0}) == std::vector<double>{48.0, 4.0, 48.0});  // 4.0 %
  }

  TEST_CASE("auto: the first call of a size class measures the rates, later calls split by them") {
    if (group().size() < 2) return;
    const test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", test::temp_dir("group_auto_rates"));
    const std::size_t batch = 96;
    SplitOptions o;
    o.mode = SplitMode::Auto;
    o.chunk = 2;
    for (const std::size_t n : {64, 48}) {
      const auto xf = host::random_floats(2 * n * batch, test::seed() + n);
      const auto ref = host::fft_batch(xf.data(), n, batch, 1, n, 0, false);
      std::vector<std::complex<float>> x(n * batch), y(n * batch);
      std::memcpy(static_cast<void*>(x.data()), xf.data(), xf.size() * 4);
      const std::string variant = "fft:n=" + std::to_string(n);
      for (std::size_t d = 0; d < group().size(); ++d)
        CHECK(detail::group_record(group().entry(d).info, variant).rate == 0);
      // The kernels built and launched once on every device: no device spends the measuring
      // call compiling.
      SplitOptions even = o;
      even.mode = SplitMode::Weights;
      even.weights.assign(group().size(), 1.0);
      fft(group(), n, batch, x.data(), y.data(), false, even);
      const GroupRun first = test::warm([&] { return fft(group(), n, batch, x.data(), y.data(), false, o); });
      CHECK(first.mode == SplitMode::Dynamic);
      for (std::size_t d = 0; d < group().size(); ++d)
        CHECK(detail::group_record(group().entry(d).info, variant).rate > 0);
      // The second call runs the fastest device alone and stores its whole call's rate; the
      // third splits by the rates and stores the split's; the fourth runs whichever was faster.
      // Devices with a share (under Auto a device done early may take all of a slow one's chunks).
      auto working = [](const GroupRun& r) {
        return static_cast<std::size_t>(
            std::count_if(r.weights.begin(), r.weights.end(), [](double v) { return v > 0; }));
      };
      const GroupRun second = test::warm([&] { return fft(group(), n, batch, x.data(), y.data(), false, o); });
      CHECK(second.mode == SplitMode::Weights);
      CHECK(working(second) == 1);
      const std::size_t best = second.weights[0] > 0 ? 0 : 1;
      const auto stored = [&] { return detail::group_record(group().entry(best).info, variant); };
      const auto share = [&] { return stored().share > 0 ? stored().share : 100; };
      CHECK(stored().alone > 0);
      CHECK(stored().split == 0);
      // (Unless a device's rate is under 4 % of their sum, which a loaded machine can make: then
      // no split is measured and that device is left out.)
      std::vector<double> rates;
      for (std::size_t d = 0; d < group().size(); ++d)
        rates.push_back(detail::group_record(group().entry(d).info, variant).rate);
      const auto w = detail::auto_weights(rates);
      const bool split = std::count_if(w.begin(), w.end(), [](double v) { return v > 0; }) >= 2;
      const GroupRun third = test::warm([&] { return fft(group(), n, batch, x.data(), y.data(), false, o); });
      CHECK(third.mode == SplitMode::Weights);
      CHECK(working(third) ==
            (split ? static_cast<std::size_t>(std::count_if(w.begin(), w.end(), [](double v) { return v > 0; })) : 1));
      // A split slower than the device alone, or one whose own times call for a smaller share for
      // the others, is measured again with that share (the share of the fastest device's record
      // lowered, its split value cleared) while their part stays above twice 4 %; else the split
      // is stored at share 100.
      const double whole = static_cast<double>(n * batch * 8) / third.seconds / 1e6;
      const bool lost = split && whole < stored().alone;
      const bool lower = split && detail::balanced_share(third, best, 100) < 90;
      const bool again = split && stored().split == 0;
      INFO("third call " << whole << " MB/s, alone " << stored().alone);
      if (!lost && !lower) CHECK((stored().split > 0) == split);
      if (again) CHECK((lost || lower));
      CHECK((share() < 100) == again);
      const GroupRun fourth = test::warm([&] { return fft(group(), n, batch, x.data(), y.data(), false, o); });
      if (again) {  // the split again, the others at the stored share of their rates
        std::vector<double> scaled = rates;
        for (std::size_t d = 0; d < scaled.size(); ++d)
          if (d != best) scaled[d] *= share() / 100.0;
        const auto w2 = detail::auto_weights(scaled);
        CHECK(working(fourth) ==
              static_cast<std::size_t>(std::count_if(w2.begin(), w2.end(), [](double v) { return v > 0; })));
      } else {
        CHECK(working(fourth) == (stored().alone >= stored().split ? 1 : working(third)));
      }
      std::size_t items = 0;
      for (const auto& s : fourth.shares) items += s.items;
      CHECK(items == batch);
      CHECK(host::fft_compare(reinterpret_cast<const float*>(y.data()), n, batch, 1, n, 0, ref).max_rel_l2 <=
            host::fft_tolerance(n));
    }
  }

  TEST_CASE("auto: the split or the fastest device alone, whichever whole calls measured faster") {
    if (group().size() < 2) return;
    const std::size_t rows = 64, cols = 40;
    const auto in = host::random_floats(rows * cols, test::seed() + 81);
    std::vector<float> ref(in.size());
    host::transpose(rows, cols, 4, in.data(), cols, ref.data(), rows);
    for (const auto& [alone, split, devices] :
         {std::tuple{1024, 512, std::size_t{1}}, std::tuple{512, 1024, group().size()}}) {
      INFO("alone " << alone << ", split " << split);
      SplitOptions o;
      o.mode = SplitMode::Auto;
      o.auto_values.rate = 1024;  // every device alike: the rates' sum alone would split
      o.auto_values.alone = alone;
      o.auto_values.split = split;
      o.chunk = 4;
      std::vector<float> out = host::poisoned(in.size());
      const GroupRun r = transpose(group(), rows, cols, 4, in.data(), out.data(), o);
      CHECK(out == ref);
      // Devices with a share (a device done early may take all of a slow one's chunks).
      CHECK(static_cast<std::size_t>(
                std::count_if(r.weights.begin(), r.weights.end(), [](double v) { return v > 0; })) == devices);
    }
    // A call without overlap measures nothing (users' calls overlap): it runs Dynamic and stores no rate.
    const test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", test::temp_dir("group_auto_no_overlap"));
    SplitOptions o;
    o.mode = SplitMode::Auto;
    o.overlap = false;
    o.chunk = 4;
    std::vector<float> out = host::poisoned(in.size());
    for (int call = 0; call < kAutoCalibrationCalls; ++call) {
      CHECK(transpose(group(), rows, cols, 4, in.data(), out.data(), o).mode == SplitMode::Dynamic);
      CHECK(out == ref);
    }
    for (std::size_t d = 0; d < group().size(); ++d)
      CHECK(detail::group_record(group().entry(d).info, "transpose:4B cols=40").rate == 0);
  }

  TEST_CASE("fft: every split against the double reference, in and out of place") {
    const std::size_t n = 64, batch = 37;  // chunk 5: seven chunks and a short last one
    const auto x = host::random_floats(2 * n * batch, test::seed() + 1);
    const auto ref_f = host::fft_batch(x.data(), n, batch, 1, n, 0, false);
    const auto ref_i = host::fft_batch(x.data(), n, batch, 1, n, 0, true);
    const double tol = host::fft_tolerance(n);
    for (const auto& [name, o] : splits(5)) {
      for (bool inverse : {false, true}) {
        INFO(name << (inverse ? " inverse" : " forward"));
        std::vector<std::complex<float>> in(n * batch), out(n * batch, {NAN, NAN});
        std::memcpy(static_cast<void*>(in.data()), x.data(), x.size() * 4);
        const GroupRun r = fft(group(), n, batch, in.data(), out.data(), inverse, o);
        const auto e =
            host::fft_compare(reinterpret_cast<const float*>(out.data()), n, batch, 1, n, 0, inverse ? ref_i : ref_f);
        CHECK(e.nonfinite == 0);
        CHECK(e.max_rel_l2 <= tol);
        CHECK(std::memcmp(in.data(), x.data(), x.size() * 4) == 0);  // the input is only read
        check_shares(r, batch, o);
      }
    }
    // In place: the same array in and out.
    std::vector<std::complex<float>> data(n * batch);
    std::memcpy(static_cast<void*>(data.data()), x.data(), x.size() * 4);
    SplitOptions o;
    o.mode = SplitMode::Dynamic;
    o.chunk = 4;
    fft(group(), n, batch, data.data(), data.data(), false, o);
    CHECK(host::fft_compare(reinterpret_cast<const float*>(data.data()), n, batch, 1, n, 0, ref_f).max_rel_l2 <= tol);
  }

  TEST_CASE("transpose: every split and element size, bitwise") {
    const std::size_t rows = 53, cols = 37;
    // Megabytes per chunk and staged: the host copies run on several threads, split inside rows.
    {
      const std::size_t r = 1536, c = 1023;
      const auto in = host::random_floats(r * c, test::seed() + 3);
      std::vector<float> ref(in.size()), out = host::poisoned(in.size());
      host::transpose(r, c, 4, in.data(), c, ref.data(), r);
      SplitOptions o;
      o.mode = SplitMode::Dynamic;
      o.chunk = 700;
      o.staging = Staging::On;
      transpose(group(), r, c, 4, in.data(), out.data(), o);
      CHECK(std::memcmp(out.data(), ref.data(), ref.size() * 4) == 0);
    }
    for (std::size_t elem : {4, 8, 16}) {
      const auto in = host::random_floats(rows * cols * elem / 4, test::seed() + elem);
      std::vector<float> ref(in.size());
      host::transpose(rows, cols, elem, in.data(), cols, ref.data(), rows);
      for (const auto& [name, o] : splits(7)) {
        INFO(name << ", " << elem << "-byte elements");
        std::vector<float> out = host::poisoned(in.size());
        const GroupRun r = transpose(group(), rows, cols, elem, in.data(), out.data(), o);
        CHECK(std::memcmp(out.data(), ref.data(), ref.size() * 4) == 0);
        check_shares(r, rows, o);
      }
    }
  }

  TEST_CASE("sgemm: both layouts, every transpose, beta 0 and not, against the double reference") {
    const std::size_t m = 29, n = 45, k = 23;
    std::size_t case_no = 0;
    for (bool row_major : {false, true})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          host::GemmShape s{row_major, ta, tb, m, n, k, 0, 0, 0};
          const std::size_t ar = row_major != ta ? k : m, br = row_major != tb ? n : k;  // stored leading extents
          s.lda = (row_major ? (ta ? m : k) : ar) + 3;
          s.ldb = (row_major ? (tb ? k : n) : br) + 2;
          s.ldc = (row_major ? n : m) + 1;
          const auto a = host::random_floats(host::gemm_span(s, 'a'), test::seed() + 10 + case_no);
          const auto b = host::random_floats(host::gemm_span(s, 'b'), test::seed() + 20 + case_no);
          const auto c0 = host::random_floats(host::gemm_span(s, 'c'), test::seed() + 30 + case_no);
          const auto all = splits(case_no % 2 ? 8 : 11);
          const auto& [name, o] = all[case_no % all.size()];
          ++case_no;
          for (float beta : {0.0f, 0.5f}) {
            INFO(name << (row_major ? " row-major " : " column-major ") << (ta ? "T" : "N") << (tb ? "T" : "N")
                      << " beta " << beta);
            const std::vector<float> before = beta == 0 ? std::vector<float>(c0.size(), NAN) : c0;
            std::vector<float> c = before;
            std::vector<double> ref(c.size(), 0.0), mag(c.size(), 0.0);
            host::gemm(s, 1.5, a.data(), b.data(), beta, c0.data(), ref.data(), 0, mag.data());
            const GroupRun r = sgemm(group(), row_major ? Layout::RowMajor : Layout::ColMajor,
                                     ta ? Transpose::Yes : Transpose::No, tb ? Transpose::Yes : Transpose::No, m, n, k,
                                     1.5f, a.data(), s.lda, b.data(), s.ldb, beta, c.data(), s.ldc, o);
            // Inside C: within the tolerance; in the gaps between its rows or columns: untouched.
            const test::GemmCheck e = test::check_gemm_c(s, c, before, ref, mag);
            CHECK(e.error <= host::gemm_tolerance(k));
            CHECK(e.gaps_changed == 0);
            check_shares(r, row_major ? m : n, o);
          }
        }
  }

  TEST_CASE("sgemm strided batches split by products: both layouts, every transpose, odd batches") {
    const std::size_t m = 6, n = 5, k = 7;
    std::size_t case_no = 0;
    for (bool row_major : {false, true})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          host::GemmShape s = host::tight_gemm_shape(row_major, ta, tb, m, n, k);
          s.lda += 1, s.ldb += 2, s.ldc += case_no % 2;  // C without ld gaps every other case
          const std::size_t sa = host::gemm_span(s, 'a'), sb = host::gemm_span(s, 'b'), sc = host::gemm_span(s, 'c');
          const std::size_t batch = case_no % 2 ? 13 : 7;
          const std::size_t za = sa + 2, zb = case_no % 3 == 0 ? 0 : sb + 1, zc = sc + 3;  // zb 0: one B for all
          const auto a = host::random_floats(za * (batch - 1) + sa, test::seed() + 40 + case_no);
          const auto b = host::random_floats(zb * (batch - 1) + sb, test::seed() + 50 + case_no);
          const auto c0 = host::random_floats(zc * (batch - 1) + sc, test::seed() + 60 + case_no);
          const auto all = splits(case_no % 2 ? 2 : 3);
          const auto& [name, o] = all[case_no % all.size()];
          ++case_no;
          for (float beta : {0.0f, 0.5f}) {
            INFO(name << (row_major ? " row-major " : " column-major ") << (ta ? "T" : "N") << (tb ? "T" : "N")
                      << " beta " << beta << " batch " << batch << " strides " << za << "/" << zb << "/" << zc);
            const std::vector<float> before = beta == 0 ? std::vector<float>(c0.size(), NAN) : c0;
            std::vector<float> c = before;
            const GroupRun r = sgemm_strided_batched(
                group(), row_major ? Layout::RowMajor : Layout::ColMajor, ta ? Transpose::Yes : Transpose::No,
                tb ? Transpose::Yes : Transpose::No, m, n, k, 1.5f, a.data(), s.lda, za, b.data(), s.ldb, zb, beta,
                c.data(), s.ldc, zc, batch, o);
            // Each product within the tolerance of its own reference; its ld gaps and the gaps
            // between the products' C matrices untouched.
            for (std::size_t z = 0; z < batch; ++z) {
              std::vector<double> ref(sc, 0.0), mag(sc, 0.0);
              host::gemm(s, 1.5, a.data() + z * za, b.data() + z * zb, beta, c0.data() + z * zc, ref.data(), 1,
                         mag.data());
              const auto part = [&](const std::vector<float>& v) {
                return std::vector<float>(v.begin() + z * zc, v.begin() + z * zc + sc);
              };
              const test::GemmCheck e = test::check_gemm_c(s, part(c), part(before), ref, mag);
              CHECK(e.error <= host::gemm_tolerance(k));
              CHECK(e.gaps_changed == 0);
              if (z + 1 < batch) CHECK(std::memcmp(&c[z * zc + sc], &before[z * zc + sc], (zc - sc) * 4) == 0);
            }
            check_shares(r, batch, o);
          }
        }
    // The checks of sgemm_strided_batched, before anything is built.
    std::vector<float> x(64);
    const auto col = Layout::ColMajor;
    const auto N = Transpose::No;
    test::expect_invalid_argument(
        [&] {
          sgemm_strided_batched(group(), col, N, N, 2, 2, 2, 1.0f, x.data(), 2, 4, x.data(), 2, 4, 0.0f, x.data() + 32,
                                2, 3, 4);
        },
        "c_stride (3)");
    test::expect_invalid_argument(
        [&] {
          sgemm_strided_batched(group(), col, N, N, 2, 2, 2, 1.0f, x.data(), 2, 4, x.data(), 2, 4, 0.0f, x.data() + 8,
                                2, 4, 4);
        },
        "C's batch overlaps A's or B's");
  }

  TEST_CASE("blur: direct and separable bitwise as one device, recursive within its tolerance") {
    const std::size_t w = 61, h = 47;
    const auto img = host::random_floats(w * h, test::seed() + 40);
    auto& s = test::session();
    struct Case {
      BlurMethod method;
      double sigma;
      BlurBorder border;
    };
    for (const Case& bc :
         {Case{BlurMethod::Direct, 1.5, BlurBorder::Mirror}, Case{BlurMethod::Separable, 2.0, BlurBorder::Clamp},
          Case{BlurMethod::Recursive, 3.0, BlurBorder::Zero}, Case{BlurMethod::Recursive, 1.0, BlurBorder::Mirror}}) {
      BlurOptions bo;
      bo.sigma_x = bc.sigma;
      bo.sigma_y = bc.sigma;
      bo.border = bc.border;
      bo.method = bc.method;
      const std::vector<float> single = gaussian_blur(s.queue, w, h, 1, img, bo);
      const auto ref = bc.method == BlurMethod::Recursive
                           ? host::recursive_blur(img.data(), w, h, 1, w, bc.sigma, bc.sigma, bc.border)
                           : host::gaussian_blur(img.data(), w, h, 1, w, bc.sigma, bc.sigma, bc.border);
      const double tol = bc.method == BlurMethod::Recursive ? host::recursive_blur_tolerance(bc.sigma, bc.sigma)
                                                            : host::truncated_blur_tolerance(bc.sigma, bc.sigma);
      for (const auto& [name, o] : splits(6)) {
        INFO(name << ", " << to_string(bc.method) << " sigma " << bc.sigma << " " << to_string(bc.border));
        std::vector<float> out = host::poisoned(w * h);
        const GroupRun r = gaussian_blur(group(), w, h, PixelFormat::R32F, img.data(), out.data(), bo, o);
        const auto cmp = host::compare(out, ref);
        INFO(cmp.summary());
        CHECK(cmp.nonfinite == 0);
        CHECK(cmp.rel_error <= tol);
        if (bc.method != BlurMethod::Recursive) CHECK(std::memcmp(out.data(), single.data(), out.size() * 4) == 0);
        check_shares(r, h, o);
      }
    }
    // RGBA8 through the conversion kernels: every byte as the single-device call gives it.
    std::vector<unsigned char> px(w * h * 4), out(w * h * 4, 0), one(w * h * 4, 0);
    for (std::size_t i = 0; i < px.size(); ++i) px[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
    BlurOptions bo;
    bo.sigma_x = 2.5;
    bo.sigma_y = 1.5;
    bo.method = BlurMethod::Separable;
    const cl::Buffer bi(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, px.size(), px.data());
    const cl::Buffer bo_buf(s.context, CL_MEM_READ_WRITE, px.size());
    gaussian_blur(s.queue, w, h, PixelFormat::RGBA8, {bi, 0, w}, {bo_buf, 0, w}, bo);
    s.queue.enqueueReadBuffer(bo_buf, CL_TRUE, 0, one.size(), one.data());
    SplitOptions so;
    so.mode = SplitMode::Dynamic;
    so.chunk = 5;
    gaussian_blur(group(), w, h, PixelFormat::RGBA8, px.data(), out.data(), bo, so);
    CHECK(out == one);
  }

  TEST_CASE("PinnedMemory: arrays inside it go straight to the devices, pageable ones through staging") {
    const std::size_t n = 128, batch = 40;
    PinnedMemory in(group(), n * batch * 8), out(group(), n * batch * 8);
    REQUIRE(in.size() == n * batch * 8);
    host::fill_random(in.as<float>(), 2 * n * batch, test::seed() + 60);
    const auto ref = host::fft_batch(in.as<float>(), n, batch, 1, n, 0, false);
    SplitOptions o;
    o.mode = SplitMode::Dynamic;
    o.chunk = 6;
    o.staging = Staging::On;  // staging on every device: only the pageable arrays are staged
    host::poison(out.as<float>(), 2 * n * batch);
    GroupRun r = fft(group(), n, batch, in.as<std::complex<float>>(), out.as<std::complex<float>>(), false, o);
    for (const auto& s : r.shares) CHECK(!s.staged);
    CHECK(host::fft_compare(out.as<float>(), n, batch, 1, n, 0, ref).max_rel_l2 <= host::fft_tolerance(n));
    std::vector<std::complex<float>> pageable(n * batch);
    r = fft(group(), n, batch, in.as<std::complex<float>>(), pageable.data(), false, o);  // pinned in, pageable out
    for (const auto& s : r.shares) CHECK(s.staged == (s.items > 0));
    CHECK(host::fft_compare(reinterpret_cast<const float*>(pageable.data()), n, batch, 1, n, 0, ref).max_rel_l2 <=
          host::fft_tolerance(n));
    // Part of a pinned array is pinned too; an array that runs past its end is not.
    r = fft(group(), n, batch / 2, in.as<std::complex<float>>() + n * batch / 2, out.as<std::complex<float>>(), false,
            o);
    for (const auto& s : r.shares) CHECK(!s.staged);
    PinnedMemory moved = std::move(in);
    CHECK(moved.size() == n * batch * 8);
    CHECK(in.data() == nullptr);
    CHECK_THROWS_AS(PinnedMemory(group(), 0), InvalidArgument);
  }
}
