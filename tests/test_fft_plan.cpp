// The structure of FFT plans: decomposition into radices and passes, the rows passes resolve,
// the shapes of shipped GPU rows, transform-fastest passes; the launcher's kernel signatures
// against the compiled kernel; one plan's executions from several threads and queues at once
// (each leases its own scratch); and enqueue() with a direction on two queues, through copies.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "clforge/opencl.hpp"
#include "fft/fft_internal.hpp"
#include "tests/fft_support.hpp"
#include "tuning/spec.hpp"

using namespace clforge;
using namespace clforge::test::fft_cases;

TEST_SUITE("fft") {
  TEST_CASE("passes: FFT_STAGE 3 numbers the strided sides transform-fastest with FFT_ACROSS transforms per group") {
    auto& s = test::session();
    FftDesc d;
    d.n = 65536;
    d.batch = 2;
    for (int across : {4, 8, 16}) {
      CAPTURE(across);
      const ParamMap p = {{"FFT_PASS_MAX", 256}, {"FFT_STAGE", 3}, {"FFT_ACROSS", across}, {"FFT_WG", 256},
                          {"FFT_RADIX", 16},     {"FFT_HALVE", 2}, {"FFT_VPT", 0}};
      FftPlan plan(s.queue, d, Tuning{p, false});
      const std::string how = plan.describe();
      INFO(how);
      // 65536 = 256 * 256: both passes direct on both sides, transform-fastest, in quarters;
      // radix 16 gives 16 work-items per transform, so 256 work-items hold 16 transforms (at
      // least FFT_ACROSS).
      CHECK(how.find("pass 1/2 (256 points): radix 16*16, 16 work-items x 16 transforms, load direct, store direct, "
                     "transform-fastest, local memory in quarters") != std::string::npos);
      CHECK(how.find("staged") == std::string::npos);
    }
    // 32 values per work-item make 8 work-items per transform and 8 transforms per group of 64:
    // fewer than FFT_ACROSS 16, still numbered transform-fastest (never staged).
    const ParamMap q = {{"FFT_PASS_MAX", 256}, {"FFT_STAGE", 3},  {"FFT_ACROSS", 16},
                        {"FFT_WG", 128},       {"FFT_RADIX", 16}, {"FFT_VPT", 32}};
    FftPlan plan(s.queue, d, Tuning{q, false});
    INFO(plan.describe());
    CHECK(plan.describe().find("8 work-items x 8 transforms, load direct, store direct, transform-fastest") !=
          std::string::npos);
    check_fft(with(contiguous(65536, 2), q), test::seed() + 1100);
  }

  TEST_CASE("decomposition") {
    using namespace clforge::detail;
    CHECK(fft_smooth(1));
    CHECK(fft_smooth(2 * 3 * 5 * 7 * 11 * 13));
    CHECK_FALSE(fft_smooth(17));
    CHECK(fft_bluestein_length(1009) == 2048);
    CHECK(fft_bluestein_length_smooth(65537) == 131220);
    CHECK(fft_radices(4096, 16) == std::vector<int>{16, 16, 16});
    CHECK(fft_radices(1024, 16) == std::vector<int>{16, 8, 8});
    CHECK(fft_radices(1000, 8) == std::vector<int>{8, 5, 5, 5});
    // Odd factors merged in pairs: 3*5 and 3*3 (mix 1), 5*5 first (mix 2); powers of two as before.
    CHECK(fft_radices(3000, 16, 1) == std::vector<int>{8, 15, 5, 5});
    CHECK(fft_radices(3000, 16, 2) == std::vector<int>{8, 25, 15});
    CHECK(fft_radices(4095, 16, 1) == std::vector<int>{15, 13, 7, 3});
    CHECK(fft_radices(3375, 16, 1) == std::vector<int>{15, 15, 15});
    CHECK(fft_radices(3375, 16, 2) == std::vector<int>{25, 15, 9});
    CHECK(fft_radices(1000, 8, 1) == std::vector<int>{8, 5, 5, 5});
    CHECK(fft_radices(1024, 16, 2) == std::vector<int>{16, 8, 8});
    // A length the merging makes one butterfly keeps its primes' passes outside registers (one
    // work-item per transform otherwise); in registers the single butterfly is taken.
    const clforge::ParamMap mix2 = {{"FFT_RADIX", 16}, {"FFT_WG", 256}, {"FFT_REG", 16}, {"FFT_HALVE", 0},
                                    {"FFT_PAD", 1},    {"FFT_VPT", 0},  {"FFT_MIX", 2}};
    CHECK(fft_base_shape(25, mix2, 1024).radices == std::vector<int>{5, 5});
    CHECK(fft_base_shape(15, mix2, 1024).radices == std::vector<int>{15});
    CHECK(fft_base_shape(75, mix2, 1024).radices == std::vector<int>{25, 3});
    CHECK(fft_global_factors(std::size_t{1} << 20, 4096) == std::vector<std::size_t>{1024, 1024});
    CHECK(fft_global_factors(3 * 4096, 4096) == std::vector<std::size_t>{128, 96});
    CHECK(fft_global_factors(8192, 4096) == std::vector<std::size_t>{128, 64});
  }

  TEST_CASE("passes resolve rows of their own (variant passN), not the one-kernel rows of their length") {
    const std::string dir = test::temp_dir("fft-pass-rows");
    const std::string file = dir + "/t.json";
    std::ofstream(file) << R"({"kernel": "fft", "entries": [
      {"variant": "256", "params": {"FFT_WG": 64}},
      {"variant": "pass256", "params": {"FFT_WG": 32, "FFT_PAD": 0}},
      {"variant": "pass256:later", "params": {"FFT_WG": 128}},
      {"variant": "65536", "params": {"FFT_PASS_MAX": 256, "FFT_LOCAL_MAX": 4096}}]})";
    test::ScopedEnv env("CLFORGE_TUNING_FILE", file);
    auto& s = test::session();
    FftDesc d;
    d.n = 65536;
    d.batch = 2;
    FftPlan passes(s.queue, d, Tuning{{}, false});
    // 256 * 256, from the plan's own row; the second pass (strided on both sides) takes the
    // rows of pass256:later first, then pass256's.
    const std::vector<Configuration> cfgs = passes.configurations();  // a copy: configurations() returns by value
    REQUIRE(cfgs.size() == 2);
    const Configuration& first = cfgs[0];
    const Configuration& later = cfgs[1];
    CHECK(first.variant == "pass256");
    CHECK(first.at("FFT_WG") == 32);
    CHECK(later.variant == "pass256:later");
    CHECK(later.at("FFT_WG") == 128);
    CHECK(later.at("FFT_PAD") == 0);
    INFO(passes.describe());
    CHECK(passes.describe().find("pass 2/2 (256 points): radix 16*16, 16 work-items x 8 transforms") !=
          std::string::npos);
    d.n = 256;
    d.batch = 3;
    FftPlan one(s.queue, d, Tuning{{{"FFT_LANES", 0}}, false});  // fft_local's rows, not the CPU lane kernel
    REQUIRE(one.configurations().size() == 1);
    CHECK(one.configurations()[0].variant == "256");
    CHECK(one.configurations()[0].at("FFT_WG") == 64);
    std::uint64_t seed = test::seed() + 1000;
    check_fft(contiguous(65536, 2), seed++);
    check_fft(contiguous(256, 3), seed++);
  }

  TEST_CASE("shipped GPU rows fit their vendor's limits as they are (no fallback)") {
    using namespace clforge::detail;
    struct Limits {
      VendorClass v;
      std::size_t wg, local;
    };
    for (const Limits& l : {Limits{VendorClass::NVIDIA, 1024, 48 * 1024}, Limits{VendorClass::AMD, 256, 64 * 1024},
                            Limits{VendorClass::Intel, 256, 64 * 1024}}) {
      DeviceInfo dev = test::session().entry.info;
      dev.vendor_class = l.v;
      dev.name = "no such device";
      dev.architecture = "";
      dev.type = "GPU";
      dev.max_work_group_size = l.wg;
      dev.max_work_item_sizes = {l.wg, l.wg, 64};
      dev.local_mem_size = l.local;
      for (std::size_t n : {8, 16, 64, 256, 1024, 2048, 3000, 4095, 4096, 8192, 1009, 65536}) {
        CAPTURE(to_string(l.v));
        CAPTURE(n);
        const Configuration cfg = resolve_configuration("fft", std::to_string(n), dev, Tuning{{}, false});
        CHECK(cfg.notes.empty());
        const std::size_t len = fft_smooth(n) ? std::min<std::size_t>(n, fft_local_limit(cfg.values, dev)) : 2048;
        FftShape sh = fft_base_shape(len, cfg.values, dev.max_work_group_size);
        sh.in_mode = sh.t == 1 ? 1 : 0;
        CHECK(sh.work_group() <= l.wg);
        CHECK(sh.local_bytes() <= l.local);
      }
    }
  }

  TEST_CASE("the launcher names each FFT kernel's parameters as the compiled kernel does") {
    // CL_KERNEL_ARG_NAME needs -cl-kernel-arg-info; the plan's own shapes, built with it, in the
    // 32- and 64-bit index forms (the parameter types differ, the names must not).
    using namespace clforge::detail;
    auto& s = test::session();
    const QueueContext qc = queue_context_of(s.queue);
    const Configuration cfg = resolve_configuration("fft", "64", *qc.info, Tuning{{}, false});
    for (const bool long_index : {false, true}) {
      FftShape sh = fft_base_shape(64, cfg.values, qc.info->max_work_group_size);
      sh.long_index = long_index;
      sh.inplace = long_index;
      const cl::Program program_local = get_program(qc, kernel_spec("fft"), cfg, sh.options() + " -cl-kernel-arg-info");
      // The lane kernel is a program of its own (64 points in two radix-8 passes, 8 lanes).
      Configuration lane_cfg = resolve_configuration("fft_lanes", "64", *qc.info, Tuning{{{"FFT_LANES", 8}}, false});
      const cl::Program lanes = get_program(qc, kernel_spec("fft_lanes"), lane_cfg,
                                            std::string("-DFFT_N=64 -DFFT_NP=2 -DFFT_R1=8 -DFFT_R2=8") +
                                                (long_index ? " -DCLF_LONG_INDEX=1" : "") + " -cl-kernel-arg-info");
      // Rader's gather and scatter are one program (n = 17, one gather group per transform).
      const Configuration rader_cfg = resolve_configuration("fft_rader", "17", *qc.info, Tuning{{}, false});
      const cl::Program rader = get_program(qc, kernel_spec("fft_rader"), rader_cfg,
                                            std::string("-DFFT_RADER_N=17 -DFFT_RADER_G=1") +
                                                (long_index ? " -DCLF_LONG_INDEX=1" : "") + " -cl-kernel-arg-info");
      // The four ends of a real-input plan are one program.
      const cl::Program real = build_program(qc, "fft_real", {"fft/fft_real.cl"},
                                             std::string("-cl-std=CL1.2") + (long_index ? " -DCLF_LONG_INDEX=1" : "") +
                                                 " -DFFT_REAL_WG=64 -cl-kernel-arg-info");
      const std::vector<const KernelSignature*> sigs = fft_signatures();
      REQUIRE(sigs.size() == 8);
      for (const KernelSignature* sig : sigs) {
        CAPTURE(sig->kernel);
        const bool is_rader = sig == &kFftRaderIn || sig == &kFftRaderOut;
        const bool is_real = std::string(sig->kernel).rfind("fft_real_", 0) == 0;
        const cl::Program& program = sig == &kFftLanes ? lanes : is_rader ? rader : is_real ? real : program_local;
        CAPTURE(long_index);
        CHECK(test::compiled_params(program, sig->kernel) ==
              std::vector<std::string>(sig->args.begin(), sig->args.end()));
      }
    }
  }

  TEST_CASE("one multi-pass plan enqueued from several threads at once, on one queue and on several") {
    // 65536 in three passes of at most 64 points (scratch buffers A and B), batches of 9 in
    // chunks of 8 and 1: six launches per execution, all through the leased scratch. Two threads use the
    // plan's queue, one its own queue, one an out-of-order queue; each has its own data and
    // direction, repeats it with its output poisoned again, and waits for its own upload.
    auto& s = test::session();
    FftDesc d;
    d.n = 65536;
    d.batch = 9;
    d.inverse_scaling = FftScaling::OverN;
    const FftPlan plan(s.queue, d, Tuning{{{"FFT_PASS_MAX", 64}, {"FFT_CHUNK", 4}}, false});
    INFO(plan.describe());
    REQUIRE(plan.launches() == 6);
    CHECK(plan.scratch_bytes() >= 2 * 8 * d.n * 8);
    const std::size_t elems = d.n * d.batch;
    constexpr int kThreads = 4, kRepeats = 3;
    std::vector<std::vector<float>> inputs;
    std::vector<std::vector<host::cdouble>> refs;
    for (int t = 0; t < kThreads; ++t) {  // FFTW plans on this thread only
      inputs.push_back(host::random_floats(2 * elems, test::seed() + 1600 + t));
      const bool inverse = t % 2 == 1;
      refs.push_back(host::fftw_batch(inputs[t].data(), d.n, d.batch, 1, d.n, 0, inverse, inverse ? 1.0 / d.n : 1.0));
    }
    cl_int st = CL_SUCCESS;
    cl::CommandQueue ooo(s.context, s.entry.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &st);
    if (st != CL_SUCCESS) ooo = cl::CommandQueue(s.context, s.entry.device);  // no out-of-order queues here
    std::atomic<int> right{0}, failed{0};
    std::vector<double> worst(kThreads, 0.0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        try {
          cl::CommandQueue own = t == 2 ? cl::CommandQueue(s.context, s.entry.device) : t == 3 ? ooo : s.queue;
          const std::vector<float> poison = host::poisoned(2 * elems);
          cl::Buffer in(s.context, CL_MEM_READ_WRITE, elems * 8), out(s.context, CL_MEM_READ_WRITE, elems * 8);
          for (int r = 0; r < kRepeats; ++r) {
            cl::Event up, clean, done;
            own.enqueueWriteBuffer(in, CL_FALSE, 0, elems * 8, inputs[t].data(), nullptr, &up);
            own.enqueueWriteBuffer(out, CL_FALSE, 0, elems * 8, poison.data(), nullptr, &clean);
            if (t < 2) {  // the plan's queue
              if (t == 1)
                plan.inverse(in, out, {up, clean}, &done);
              else
                plan.forward(in, out, {up, clean}, &done);
            } else if (t == 3) {
              plan.inverse(own, in, out, {up, clean}, &done);
            } else {
              plan.forward(own, in, out, {up, clean}, &done);
            }
            std::vector<float> got(2 * elems);
            const std::vector<cl::Event> deps{done};
            own.enqueueReadBuffer(out, CL_TRUE, 0, elems * 8, got.data(), &deps);
            const host::FftError e = host::fft_compare(got.data(), d.n, d.batch, 1, d.n, 0, refs[t]);
            worst[t] = std::max(worst[t], e.nonfinite ? 1e30 : e.max_rel_l2);
            right += e.nonfinite == 0 && e.max_rel_l2 <= host::fft_tolerance(d.n);
          }
        } catch (const std::exception&) {
          ++failed;
        }
      });
    for (auto& t : threads) t.join();
    std::string errors;
    for (int t = 0; t < kThreads; ++t) errors += " " + std::to_string(worst[t]);
    INFO("max relative L2 error per thread:" << errors << ", tolerance " << host::fft_tolerance(d.n));
    CHECK(failed == 0);
    CHECK(right == kThreads * kRepeats);
    // A queue of another context is refused before anything is enqueued.
    cl::Context other(s.entry.device);
    cl::CommandQueue oq(other, s.entry.device);
    cl::Buffer x(other, CL_MEM_READ_WRITE, elems * 8), y(other, CL_MEM_READ_WRITE, elems * 8);
    test::expect_invalid_argument([&] { plan.forward(oq, x, y); }, "another context");
  }

  TEST_CASE("enqueue: forward on one queue, inverse on another, through a copy of the plan") {
    static_assert(std::is_copy_constructible_v<FftPlan> && std::is_copy_assignable_v<FftPlan>);
    // 8192 points, batch 3: a multi-launch plan (passes, or the lane kernel's two launches) with
    // scratch. The forward transform runs on a second queue, the inverse (scaled by 1/n) on the
    // test queue after it through a copy of the plan; forward() equals enqueue(Forward).
    auto& s = test::session();
    FftDesc d;
    d.n = 8192;
    d.batch = 3;
    d.inverse_scaling = FftScaling::OverN;
    const FftPlan plan(s.queue, d, Tuning{{}, false});
    INFO(plan.describe());
    const FftPlan copy = plan;
    CHECK(copy.describe() == plan.describe());
    const std::size_t elems = d.n * d.batch;
    const std::vector<float> x = host::random_floats(2 * elems, test::seed() + 1700);
    const std::vector<host::cdouble> ref = host::fftw_batch(x.data(), d.n, d.batch, 1, d.n, 0, false, 1.0);
    std::vector<host::cdouble> back_ref(elems);
    for (std::size_t i = 0; i < elems; ++i) back_ref[i] = host::cdouble(x[2 * i], x[2 * i + 1]);
    cl::CommandQueue second(s.context, s.entry.device);
    cl::Buffer in(s.context, CL_MEM_READ_WRITE, elems * 8), mid(s.context, CL_MEM_READ_WRITE, elems * 8),
        back(s.context, CL_MEM_READ_WRITE, elems * 8), again(s.context, CL_MEM_READ_WRITE, elems * 8);
    const std::vector<float> poison = host::poisoned(2 * elems);
    second.enqueueWriteBuffer(in, CL_TRUE, 0, elems * 8, x.data());
    for (const cl::Buffer* b : {&mid, &back, &again})
      second.enqueueWriteBuffer(*b, CL_TRUE, 0, elems * 8, poison.data());
    cl::Event forward_done, inverse_done;
    plan.enqueue(second, FftDirection::Forward, in, mid, {}, &forward_done);
    copy.enqueue(s.queue, FftDirection::Inverse, mid, back, {forward_done}, &inverse_done);
    plan.forward(in, again, {inverse_done});
    std::vector<float> got_mid(2 * elems), got_back(2 * elems), got_again(2 * elems);
    s.queue.enqueueReadBuffer(mid, CL_TRUE, 0, elems * 8, got_mid.data());
    s.queue.enqueueReadBuffer(back, CL_TRUE, 0, elems * 8, got_back.data());
    s.queue.enqueueReadBuffer(again, CL_TRUE, 0, elems * 8, got_again.data());
    const host::FftError ef = host::fft_compare(got_mid.data(), d.n, d.batch, 1, d.n, 0, ref);
    const host::FftError eb = host::fft_compare(got_back.data(), d.n, d.batch, 1, d.n, 0, back_ref);
    INFO("forward error " << ef.max_rel_l2 << ", round trip error " << eb.max_rel_l2 << ", tolerance "
                          << host::fft_tolerance(d.n));
    CHECK(ef.nonfinite == 0);
    CHECK(ef.max_rel_l2 <= host::fft_tolerance(d.n));
    CHECK(eb.nonfinite == 0);
    CHECK(eb.max_rel_l2 <= 2 * host::fft_tolerance(d.n));
    CHECK(std::memcmp(got_mid.data(), got_again.data(), elems * 8) == 0);
    // A queue of another context is refused before anything is enqueued, as by forward().
    cl::Context other(s.entry.device);
    cl::CommandQueue oq(other, s.entry.device);
    cl::Buffer u(other, CL_MEM_READ_WRITE, elems * 8), v(other, CL_MEM_READ_WRITE, elems * 8);
    test::expect_invalid_argument([&] { copy.enqueue(oq, FftDirection::Inverse, u, v); }, "another context");
  }
}
