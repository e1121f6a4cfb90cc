// Group calls under failure and load: a device failing on a chunk (injected through the group
// fault hook, src/group/group_testing.hpp) gives DeviceFailure naming the device and chunk, leaves NaN where chunks
// did not finish and everything else correct, and hangs nothing; bad arguments throw
// InvalidArgument before any buffer is made or command enqueued; 16 threads share one group.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <set>
#include <thread>

#include "group/group_internal.hpp"
#include "group/group_testing.hpp"
#include "host/fft.hpp"
#include "host/reference.hpp"
#include "runtime/host_io.hpp"
#include "tests/group_support.hpp"
#include "tests/support.hpp"

using namespace clforge;

namespace {

using test::group;

// A float transpose of host data with its host reference: run() calls the group on poisoned
// output and checks the result (the Auto cases each take columns of their own: their own size
// class).
struct TransposeCase {
  std::size_t rows, cols;
  std::vector<float> in, ref;
  TransposeCase(std::size_t r, std::size_t c, std::uint64_t seed)
      : rows(r), cols(c), in(host::random_floats(r * c, seed)), ref(in.size()) {
    host::transpose(rows, cols, 4, in.data(), cols, ref.data(), rows);
  }
  GroupRun run(const DeviceGroup& g, const SplitOptions& o) const {
    std::vector<float> out = host::poisoned(in.size());
    const GroupRun r = transpose(g, rows, cols, 4, in.data(), out.data(), o);
    CHECK(out == ref);
    return r;
  }
};

// Auto's options for a TransposeCase (chunks of 4 rows), after storing the rates (MB/s; 0: none)
// as every device's record of `variant` in the group store (the case's own folder, set by the
// caller).
SplitOptions auto_over_stored(const std::string& variant, double rate, double alone, double split) {
  detail::GroupRecord values;
  values.rate = rate, values.alone = alone, values.split = split;
  for (std::size_t d = 0; d < group().size(); ++d)
    detail::store_group_record(group().entry(d).info, variant, values,
                               detail::kFieldRate | detail::kFieldAlone | detail::kFieldSplit, "test");
  SplitOptions o;
  o.mode = SplitMode::Auto;
  o.chunk = 4;
  return o;
}

// Devices that got work in a call.
std::size_t devices_working(const GroupRun& r) {
  return static_cast<std::size_t>(std::count_if(r.weights.begin(), r.weights.end(), [](double w) { return w > 0; }));
}

// The chain tests' devices: both sleep per chunk, the second three times as long, so that their
// rates in a split are about 3:1 whatever PoCL does.
void sleep_three_to_one(std::size_t device) {
  std::this_thread::sleep_for(std::chrono::milliseconds(device == 1 ? 30 : 10));
}

// The first device's record of `variant` in the group store.
detail::GroupRecord stored_group_record(const std::string& variant) {
  return detail::group_record(group().entry(0).info, variant);
}
// Its share as a call reads it (100 where none is stored).
int stored_share(const std::string& variant) {
  const int share = stored_group_record(variant).share;
  return share > 0 ? share : 100;
}

// Auto's next share of a chain from one run, as the test "the next share of a chain ..." states
// it (two devices, the first the fastest, equal stored rates).
int expected_next(const GroupRun& r, int share) {
  const double r0 = r.shares[0].items / r.shares[0].seconds, r1 = r.shares[1].items / r.shares[1].seconds;
  const double balanced = share * (r1 / r0) / (r.weights[1] / r.weights[0]);
  // The rule compares the balanced share itself, not its rounding: 26.9 of 30 is lower (27).
  return balanced < 0.9 * share ? static_cast<int>(std::max(1L, std::lround(balanced))) : share / 2;
}

}  // namespace

TEST_SUITE("group") {
  TEST_CASE("a device failing mid-run: DeviceFailure names it, unfinished chunks are NaN, no hang") {
    const std::size_t rows = 64, cols = 48;
    const auto in = host::random_floats(rows * cols, test::seed() + 50);
    std::vector<float> ref(in.size());
    host::transpose(rows, cols, 4, in.data(), cols, ref.data(), rows);
    const std::size_t bad = group().size() - 1;
    for (SplitMode mode : {SplitMode::Weights, SplitMode::Dynamic}) {
      for (Staging st : {Staging::Off, Staging::On}) {
        INFO(to_string(mode) << (st == Staging::On ? " staged" : ""));
        SplitOptions o;
        o.mode = mode;
        o.weights.assign(group().size(), 1.0);
        o.chunk = 4;  // 16 chunks
        o.staging = st;
        std::atomic<int> calls{0};
        std::size_t failed_chunk = 0;
        const detail::GroupFaultScope fault([&](std::size_t device, std::size_t) {
          ++calls;
          if (device != bad) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // dynamic: bad gets chunks
          if (device == bad && ++failed_chunk == 2) throw OpenCLError(-5, "clEnqueueNDRangeKernel", "injected");
        });
        std::vector<float> out = host::poisoned(in.size());
        std::fill(out.begin(), out.end(), 7.0f);
        bool thrown = false;
        try {
          transpose(group(), rows, cols, 4, in.data(), out.data(), o);
        } catch (const DeviceFailure& e) {
          thrown = true;
          CHECK(e.device() == bad);
          CHECK(e.device_name() == group().entry(bad).info.name);
          CHECK(e.items() == 4);
          CHECK(e.first_item() % 4 == 0);
          const std::string w = e.what();
          CHECK(w.find("device " + std::to_string(bad)) != std::string::npos);
          CHECK(w.find("chunk " + std::to_string(e.chunk())) != std::string::npos);
          CHECK(w.find("injected") != std::string::npos);
          // Output columns of the failed chunk: NaN; every element either right or NaN.
          for (std::size_t c = 0; c < cols; ++c)
            for (std::size_t r = e.first_item(); r < e.first_item() + e.items(); ++r)
              CHECK(std::isnan(out[c * rows + r]));
          std::size_t right = 0, nan = 0;
          for (std::size_t i = 0; i < out.size(); ++i) {
            right += out[i] == ref[i];
            nan += std::isnan(out[i]);
          }
          CHECK(right + nan == out.size());
          CHECK(nan >= 4 * cols);  // at least the failed chunk
        }
        CHECK(thrown);
        CHECK(calls > 0);
      }
    }
    // The group still works after the failure.
    std::vector<float> out(in.size());
    transpose(group(), rows, cols, 4, in.data(), out.data());
    CHECK(out == ref);
  }

  TEST_CASE("bad arguments throw InvalidArgument before anything is made or enqueued") {
    const auto before = detail::activity();
    std::vector<float> x(64), y(64);
    auto* cx = reinterpret_cast<std::complex<float>*>(x.data());
    auto* cy = reinterpret_cast<std::complex<float>*>(y.data());
    SplitOptions wrong_weights;
    wrong_weights.mode = SplitMode::Weights;
    wrong_weights.weights = {1.0};
    if (group().size() == 1) wrong_weights.weights = {1.0, 1.0};
    SplitOptions negative = wrong_weights;
    negative.weights.assign(group().size(), -1.0);
    SplitOptions zero = wrong_weights;
    zero.weights.assign(group().size(), 0.0);
    SplitOptions nan_weight = wrong_weights;
    nan_weight.weights.assign(group().size(), std::nan(""));
    SplitOptions queues;
    queues.queues = group().queues() + 1;
    SplitOptions unknown;
    unknown.tuning.overrides["NO_SUCH_PARAMETER"] = 1;
    SplitOptions bad_chunk_value;
    bad_chunk_value.chunk_kib = 100;  // not a power of two
    SplitOptions bad_auto_value;
    bad_auto_value.auto_values.share = 101;
    for (const SplitOptions* o :
         {&wrong_weights, &negative, &zero, &nan_weight, &queues, &unknown, &bad_chunk_value, &bad_auto_value})
      CHECK_THROWS_AS(fft(group(), 8, 4, cx, cy, false, *o), InvalidArgument);
    CHECK_THROWS_AS(fft(group(), 0, 4, cx, cy), InvalidArgument);
    CHECK_THROWS_AS(fft(group(), 8, 0, cx, cy), InvalidArgument);
    CHECK_THROWS_AS(fft(group(), 8, 4, nullptr, cy), InvalidArgument);
    CHECK_THROWS_AS(fft(group(), 8, 4, cx, cx + 1), InvalidArgument);  // overlapping, not the same
    CHECK_THROWS_AS(fft(group(), std::size_t(1) << 40, std::size_t(1) << 40, cx, cy), InvalidArgument);
    CHECK_THROWS_AS(fft(group(), std::size_t(1) << 28, 1, cx, cy), InvalidArgument);  // above FftPlan's 2^27
    CHECK_THROWS_AS(transpose(group(), 8, 8, 3, x.data(), y.data()), InvalidArgument);
    CHECK_THROWS_AS(transpose(group(), 8, 8, 4, x.data(), x.data() + 4), InvalidArgument);
    CHECK_THROWS_AS(transpose(group(), SIZE_MAX / 2, 4, 4, x.data(), y.data()), InvalidArgument);
    CHECK_THROWS_AS(sgemm(group(), Layout::ColMajor, Transpose::No, Transpose::No, 8, 8, 8, 1, x.data(), 7, y.data(), 8,
                          0, y.data(), 8),
                    InvalidArgument);  // lda < m
    CHECK_THROWS_AS(sgemm(group(), Layout::RowMajor, Transpose::No, Transpose::No, 4, 4, 4, 1, x.data(), 4, y.data(), 4,
                          0, x.data() + 8, 4),
                    InvalidArgument);  // C overlaps A
    CHECK_THROWS_AS(sgemm(group(), Layout::ColMajor, Transpose::No, Transpose::No, 4, 4, 4, 1, nullptr, 4, y.data(), 4,
                          0, x.data(), 4),
                    InvalidArgument);
    CHECK_THROWS_AS(sgemm(group(), Layout::ColMajor, Transpose::No, Transpose::No, std::size_t(1) << 31, 1, 1, 1,
                          x.data(), std::size_t(1) << 31, y.data(), 1, 0, x.data(), std::size_t(1) << 31),
                    InvalidArgument);
    BlurOptions bo;
    bo.sigma_y = 0;
    CHECK_THROWS_AS(gaussian_blur(group(), 8, 8, PixelFormat::R32F, x.data(), y.data(), bo), InvalidArgument);
    bo.sigma_y = 0.3;
    bo.method = BlurMethod::Recursive;
    CHECK_THROWS_AS(gaussian_blur(group(), 8, 8, PixelFormat::R32F, x.data(), y.data(), bo), InvalidArgument);
    bo = {};
    CHECK_THROWS_AS(gaussian_blur(group(), 8, 8, PixelFormat::R32F, x.data(), x.data() + 1, bo), InvalidArgument);
    CHECK_THROWS_AS(gaussian_blur(group(), 8, 8, static_cast<PixelFormat>(9), x.data(), y.data(), bo), InvalidArgument);
    const auto after = detail::activity();
    CHECK(after.buffers == before.buffers);
    CHECK(after.enqueued == before.enqueued);
  }

  TEST_CASE("16 threads share one group") {
    const std::size_t n = 32, batch = 24;
    std::vector<std::thread> threads;
    std::atomic<int> good{0};
    for (int t = 0; t < 16; ++t)
      threads.emplace_back([&, t] {
        const auto x = host::random_floats(2 * n * batch, test::seed() + 100 + static_cast<std::uint64_t>(t));
        std::vector<std::complex<float>> out(n * batch);
        SplitOptions o;
        o.mode = t % 2 ? SplitMode::Dynamic : SplitMode::Weights;
        o.weights.assign(group().size(), 1.0 + t % 3);
        o.chunk = 1 + static_cast<std::size_t>(t) % 5;
        o.staging = t % 4 < 2 ? Staging::On : Staging::Off;
        try {
          fft(group(), n, batch, reinterpret_cast<const std::complex<float>*>(x.data()), out.data(), false, o);
          const auto ref = host::fft_batch(x.data(), n, batch, 1, n, 0, false);
          const auto e = host::fft_compare(reinterpret_cast<const float*>(out.data()), n, batch, 1, n, 0, ref);
          if (e.nonfinite == 0 && e.max_rel_l2 <= host::fft_tolerance(n)) ++good;
        } catch (...) {
        }
      });
    for (auto& t : threads) t.join();
    CHECK(good == 16);
  }

  TEST_CASE("resident runs: each share computed in place on its device, the result downloaded and right") {
    SplitOptions o;
    o.mode = SplitMode::Weights;
    o.weights.assign(group().size(), 1.0);
    o.weights[0] = 2.0;
    o.resident_reps = 2;
    const std::size_t rows = 45, cols = 38;
    const auto in = host::random_floats(rows * cols * 2, test::seed() + 70);
    std::vector<float> ref(in.size()), out = host::poisoned(in.size());
    host::transpose(rows, cols, 8, in.data(), cols, ref.data(), rows);
    const GroupRun r = transpose(group(), rows, cols, 8, in.data(), out.data(), o);
    CHECK(out == ref);
    std::size_t total = 0;
    for (const auto& s : r.shares) {
      total += s.items;
      CHECK(s.chunks == (s.items > 0 ? 1u : 0u));
      if (s.items > 0) CHECK(s.seconds > 0);
    }
    CHECK(total == rows);
    CHECK(r.seconds > 0);
    const std::size_t n = 128, batch = 21;
    const auto x = host::random_floats(2 * n * batch, test::seed() + 71);
    std::vector<std::complex<float>> y(n * batch);
    fft(group(), n, batch, reinterpret_cast<const std::complex<float>*>(x.data()), y.data(), true, o);
    CHECK(host::fft_compare(reinterpret_cast<const float*>(y.data()), n, batch, 1, n, 0,
                            host::fft_batch(x.data(), n, batch, 1, n, 0, true))
              .max_rel_l2 <= host::fft_tolerance(n));
    o.mode = SplitMode::Dynamic;
    CHECK_THROWS_AS(fft(group(), n, batch, reinterpret_cast<const std::complex<float>*>(x.data()), y.data(), true, o),
                    InvalidArgument);
  }

  TEST_CASE("auto: a device done with its share takes chunks from the end of a slower one's") {
    if (group().size() < 2) return;
    const std::size_t rows = 96, cols = 40;
    const auto in = host::random_floats(rows * cols, test::seed() + 80);
    std::vector<float> ref(in.size()), out = host::poisoned(in.size());
    host::transpose(rows, cols, 4, in.data(), cols, ref.data(), rows);
    SplitOptions o;
    o.mode = SplitMode::Auto;
    o.auto_values.rate = 1024;  // the same rate for every device: equal shares,
    o.auto_values.alone = 1;    // and each far slower alone than the split: the group runs
    o.auto_values.split = 2048;
    o.chunk = 4;
    const detail::GroupFaultScope fault([](std::size_t device, std::size_t) {  // the last device is slow
      if (device + 1 == test::group().size()) std::this_thread::sleep_for(std::chrono::milliseconds(30));
    });
    const GroupRun r = transpose(group(), rows, cols, 4, in.data(), out.data(), o);
    CHECK(out == ref);
    CHECK(r.mode == SplitMode::Weights);
    const DeviceShare& fast = r.shares.front();
    const DeviceShare& slow = r.shares.back();
    CHECK(fast.stolen > 0);
    CHECK(slow.stolen == 0);
    CHECK(fast.items > rows / group().size());
    CHECK(fast.items + slow.items <= rows);
    std::size_t total = 0;
    for (const auto& s : r.shares) total += s.items;
    CHECK(total == rows);
    // Explicit weights are kept as given.
    o.mode = SplitMode::Weights;
    o.weights.assign(group().size(), 1.0);
    const GroupRun w = transpose(group(), rows, cols, 4, in.data(), out.data(), o);
    for (const auto& s : w.shares) CHECK(s.stolen == 0);
    CHECK(out == ref);
  }

  TEST_CASE("auto: a choice whose calls run slower than the other option measured gives way to it") {
    if (group().size() < 2) return;
    const test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", test::temp_dir("group_auto_recheck"));
    const TransposeCase c(64, 41, test::seed() + 82);  // a size class no other case uses (the checks are per process)
    // Stored: equal rates, the split at 1024 MB/s and the fastest device (the first) alone at 512,
    // so Auto splits; but the second device sleeps 20 ms per chunk, and so each split call runs at
    // under 1 MB/s. The split's value is then the median of 1024 and those calls' rates: the first
    // call leaves it just above 512 (the mean of the two), the second below it: the third call runs
    // the first device alone. (What follows depends on how
    // fast the machine runs the call alone, which also enters its value.)
    SplitOptions o = auto_over_stored("transpose:4B cols=41", 1024, 512, 1024);
    const detail::GroupFaultScope fault([](std::size_t device, std::size_t) {
      if (device == 1) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    });
    std::vector<std::size_t> devices;
    for (int call = 0; call < 3; ++call) {
      const GroupRun r = test::warm([&] { return c.run(group(), o); });
      devices.push_back(devices_working(r));
    }
    CHECK(devices[0] == group().size());
    CHECK(devices[1] == group().size());
    CHECK(devices[2] == 1);
  }

  TEST_CASE("auto: every eighth decided call runs the option not chosen") {
    if (group().size() < 2) return;
    const test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", test::temp_dir("group_auto_explore"));
    const TransposeCase c(64, 47, test::seed() + 87);  // a size class no other case uses (the counts are per process)
    // Stored: the split at 2 MB/s and the fastest device alone at 1, so Auto splits, and every
    // split call (far above 2 MB/s) keeps the split's value above 1: the first seven calls
    // split, the eighth runs the first device alone.
    const SplitOptions o = auto_over_stored("transpose:4B cols=47", 1024, 1, 2);
    for (int call = 1; call <= 8; ++call) {
      CAPTURE(call);
      const GroupRun r = test::warm([&] { return c.run(group(), o); });
      CHECK_FALSE(r.calibrating);
      CHECK(devices_working(r) == (call == 8 ? 1 : group().size()));
    }
  }

  TEST_CASE("auto: the next share of a chain balances the devices' times in the split") {
    // Shares in proportion to each device's rate over its whole share in the split (items over
    // its time) would have ended the devices together; half the share where that is not below
    // 0.9 times it.
    auto run = [](std::vector<double> weights, std::vector<std::size_t> items, std::vector<double> seconds) {
      GroupRun r;
      r.weights = weights;
      for (std::size_t d = 0; d < items.size(); ++d) {
        DeviceShare s;
        s.device = d;
        s.items = items[d];
        s.seconds = seconds[d];
        r.shares.push_back(s);
      }
      return r;
    };
    // Rates 60 and 40 at weights 1:1 -> 40/60 of the share: 66.7 %.
    CHECK(detail::next_share(run({1, 1}, {60, 40}, {1, 1}), 0, 100) == 67);
    // At share 50 (weights 1:0.5), rates 80 and 20 -> 50 * (20/80) / 0.5 = 25.
    CHECK(detail::next_share(run({1, 0.5}, {80, 20}, {1, 1}), 0, 50) == 25);
    // Balanced already (rates as the weights), yet slower than the device alone: half.
    CHECK(detail::next_share(run({1, 1}, {50, 50}, {1, 1}), 0, 100) == 50);
    // Three devices, the second the fastest: the others' rates 5 + 10 against 40 at weights
    // 0.75 against 1 -> 100 * (15/40) / 0.75 = 50.
    CHECK(detail::next_share(run({0.5, 1, 0.25}, {10, 40, 10}, {2, 1, 1}), 1, 100) == 50);
    // At share 30 (weights 1:0.3) the balanced share 26.9 is below 0.9 * 30 and rounds to 27;
    // 27.1 is not below it: half.
    CHECK(detail::next_share(run({1, 0.3}, {1000, 269}, {1, 1}), 0, 30) == 27);
    CHECK(detail::next_share(run({1, 0.3}, {1000, 271}, {1, 1}), 0, 30) == 15);
    // The other device did nothing (the fastest took all its chunks): the smallest share.
    CHECK(detail::next_share(run({1, 1}, {100, 0}, {1, 0}), 0, 100) == 1);
  }

  TEST_CASE("auto: a split slower than the fastest device alone is measured again with smaller shares") {
    if (group().size() != 2) return;
    const test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", test::temp_dir("group_auto_halve"));
    const TransposeCase c(64, 43, test::seed() + 83);  // a size class no other case uses
    // Stored: equal rates (the first device counts as the fastest), the first alone at
    // 4 TB/s: every split loses. Both devices sleep per chunk, the second three times as
    // long, so their rates in a split are about 3:1 whatever PoCL does: the first split (shares
    // 1:1) calls for a share of about a third, the next (balanced) for no less, so it halves, and
    // so on until the second device's part would fall under twice the 4 % minimum; then the best
    // split of the chain is stored with its share and the next call runs the first device alone.
    const std::string variant = "transpose:4B cols=43";
    SplitOptions o = auto_over_stored(variant, 1024, 4194304, 0);
    const detail::GroupFaultScope fault([](std::size_t device, std::size_t) { sleep_three_to_one(device); });
    const auto stored = [&] { return stored_group_record(variant); };
    int share = 100, calls = 0;
    bool ended = false;
    std::set<int> shares;
    while (!ended && calls < kAutoCalibrationCallsMax) {
      CAPTURE(share);
      const GroupRun r = test::warm([&] { return c.run(group(), o); });
      ++calls;
      REQUIRE(r.weights.size() == 2);
      REQUIRE(devices_working(r) == 2);
      CHECK(std::fabs(r.weights[1] / r.weights[0] - share / 100.0) < 0.01);
      shares.insert(share);
      const int next = expected_next(r, share);
      if (calls == 1) CHECK((next >= 20 && next <= 45));  // the balance, not a halving
      const double part = r.weights[1] / (r.weights[0] + r.weights[1]);
      ended = !(next < share && part * next / (part * next + (1 - part) * share) > 0.08);
      if (ended) {
        CHECK(stored().split > 0);
        CHECK(shares.count(stored_share(variant)) == 1);
      } else {
        CHECK(stored().split == 0);  // measured again by the next call
        CHECK(stored_share(variant) == next);
        share = next;
      }
    }
    CHECK(ended);
    CHECK(calls >= 2);
    const GroupRun after = test::warm([&] { return c.run(group(), o); });
    CHECK(devices_working(after) == 1);
  }

  TEST_CASE("auto: a faster split whose own times call for a smaller share is measured at that share") {
    if (group().size() != 2) return;
    const test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", test::temp_dir("group_auto_rebalance"));
    const TransposeCase c(64, 4096, test::seed() + 82);  // a size class no other case uses
    // Stored: equal rates and the first device alone at 1 MB/s, so every split beats it (1 MiB in
    // well under a second). The devices sleep per chunk, the second three times as long: the
    // first split (shares 1:1) is faster than the device alone but its times call for a share of
    // about a third, at which the next call runs; that one is balanced, so the chain ends there
    // with its best split and share.
    const std::string variant = "transpose:4B cols=4096";
    SplitOptions o = auto_over_stored(variant, 1024, 1, 0);
    const detail::GroupFaultScope fault([](std::size_t device, std::size_t) { sleep_three_to_one(device); });
    const auto stored = [&] { return stored_group_record(variant); };
    const auto whole = [&](const GroupRun& r) { return static_cast<double>(c.rows * c.cols * 4) / r.seconds / 1e6; };
    const GroupRun first = test::warm([&] { return c.run(group(), o); });
    REQUIRE(devices_working(first) == 2);
    CHECK(first.calibrating);
    REQUIRE(whole(first) > 1);
    const double b1 = detail::balanced_share(first, 0, 100);
    INFO("balanced share of the first split " << b1);
    REQUIRE(b1 < 90);  // the sleeps' 3:1 (about 33)
    CHECK(stored().split == 0);
    CHECK(stored_share(variant) == std::lround(b1));
    const int share = static_cast<int>(std::lround(b1));
    const GroupRun second = test::warm([&] { return c.run(group(), o); });
    REQUIRE(devices_working(second) == 2);
    CHECK(std::fabs(second.weights[1] / second.weights[0] - share / 100.0) < 0.01);
    REQUIRE(whole(second) > 1);
    if (detail::balanced_share(second, 0, share) >= 0.9 * share) {  // balanced: the chain ends
      const bool second_best = whole(second) > whole(first);
      CHECK(stored().split == doctest::Approx(std::max(whole(first), whole(second))));
      CHECK(stored_share(variant) == (second_best ? share : 100));
    }
  }

  TEST_CASE("auto: after a chain of losing splits the best of them is kept, with its share") {
    if (group().size() != 2) return;
    const test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", test::temp_dir("group_auto_chain"));
    const TransposeCase c(64, 45, test::seed() + 85);  // a size class no other case uses
    // Stored: equal rates and the first device alone at 4 TB/s, so every split
    // loses. The devices sleep per chunk as above, except in the second split, where neither
    // does: that split is then the fastest of the chain, and at its end the stored share goes back to
    // its share with its rate.
    const std::string variant = "transpose:4B cols=45";
    int call = 0;
    SplitOptions o = auto_over_stored(variant, 1024, 4194304, 0);
    const detail::GroupFaultScope fault([&call](std::size_t device, std::size_t) {
      if (call != 1) sleep_three_to_one(device);
    });
    const auto stored = [&] { return stored_group_record(variant); };
    double fastest = 0;
    int fastest_share = 0;
    for (; call < kAutoCalibrationCallsMax; ++call) {
      CAPTURE(call);
      const GroupRun r = test::warm([&] { return c.run(group(), o); });
      if (!r.calibrating || devices_working(r) < 2) break;
      const double whole = static_cast<double>(c.rows * c.cols * 4) / r.seconds / 1e6;
      if (whole > fastest)
        fastest = whole, fastest_share = static_cast<int>(std::lround(100 * r.weights[1] / r.weights[0]));
      if (stored().split > 0) break;  // the chain ended
    }
    REQUIRE(call >= 1);
    CHECK(stored().split == doctest::Approx(fastest));
    CHECK(stored_share(variant) == fastest_share);
  }

  TEST_CASE("auto: a call that made buffers or programs is measured again, at most twice") {
    if (group().size() < 2) return;
    const test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", test::temp_dir("group_auto_cold"));
    const TransposeCase c(64, 44, test::seed() + 84);  // a size class no other case uses
    const std::string variant = "transpose:4B cols=44";
    const auto rates_stored = [&](const DeviceGroup& g) {
      for (std::size_t d = 0; d < g.size(); ++d)
        if (detail::group_record(g.entry(d).info, variant).rate == 0) return false;
      return true;
    };
    // A new group has no pooled buffers: its first call creates each working device's slot
    // buffers inside its time, so it measures nothing; the calls after it measure the rates again
    // until one is warm, and the third takes even a cold call.
    const DeviceGroup fresh("all");
    SplitOptions o;
    o.mode = SplitMode::Auto;
    o.chunk = 4;
    int call = 0;
    for (; call < 3; ++call) {
      CAPTURE(call);
      const GroupRun r = c.run(fresh, o);
      CHECK(r.mode == SplitMode::Dynamic);
      CHECK(r.calibrating);
      if (call == 0) CHECK(r.cold);
      CHECK(rates_stored(fresh) == (!r.cold || call == 2));
      if (rates_stored(fresh)) break;
    }
    CHECK(call >= 1);
    CHECK(call <= 2);
  }

  TEST_CASE("a device's first chunk takes buffers for every slot it will use") {
    if (group().size() < 2) return;
    const TransposeCase c(64, 46, test::seed() + 86);
    // A new group; in a dynamic call the first device is slow (100 ms per chunk) and takes one
    // of the 16 chunks, yet takes buffers for all its slots at its first, so that the next call,
    // which gives it 8 chunks over all its slots, creates none (GroupRun::cold false). The
    // second device sleeps 1 ms per chunk, so that it cannot finish all 16 before a loaded
    // machine starts the first device's thread (which then had no chunk and no buffers).
    const DeviceGroup fresh("all");
    SplitOptions o;
    o.mode = SplitMode::Dynamic;
    o.chunk = 4;
    const detail::GroupFaultScope fault([](std::size_t device, std::size_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(device == 0 ? 100 : 1));
    });
    const GroupRun first = c.run(fresh, o);
    CHECK(first.cold);
    REQUIRE(first.shares[0].chunks >= 1);
    CHECK(first.shares[0].chunks < first.shares[0].queues);
    o.mode = SplitMode::Weights;
    o.weights.assign(fresh.size(), 1.0);
    detail::set_group_fault(nullptr);
    const GroupRun second = c.run(fresh, o);
    CHECK(second.shares[0].chunks >= second.shares[0].queues);
    CHECK_FALSE(second.cold);
  }
}
