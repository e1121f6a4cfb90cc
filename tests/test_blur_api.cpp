// Gaussian blur interfaces: the kernels' parameter names against the compiled kernels, events
// and out-of-order queues, the host-vector overload with its pooled scratch, and bad arguments.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "blur/blur_internal.hpp"
#include "host/blur.hpp"
#include "runtime/host_io.hpp"
#include "tests/support.hpp"
#include "tuning/spec.hpp"

using namespace clforge;

TEST_SUITE("blur") {
  TEST_CASE("the launcher names every blur kernel's parameters as the compiled kernels declare them") {
    auto& s = test::session();
    const detail::QueueContext qc = detail::queue_context_of(s.queue);
    struct Kernel {
      const detail::KernelSignature& sig;
      const char* spec;
      const char* file;
    };
    const Kernel kernels[] = {
        {detail::kBlurDirect, "blur_direct", "blur/blur_direct.cl"},
        {detail::kBlurRows, "blur_separable", "blur/blur_separable.cl"},
        {detail::kBlurCols, "blur_separable", "blur/blur_separable.cl"},
        {detail::kBlurRecCols, "blur_recursive", "blur/blur_recursive.cl"},
        {detail::kBlurRecCarry, "blur_recursive", "blur/blur_recursive.cl"},
        {detail::kBlurRecLink, "blur_recursive", "blur/blur_recursive.cl"},
        {detail::kBlurRecApply, "blur_recursive", "blur/blur_recursive.cl"},
        {detail::kBlurU8ToF32, "blur", "blur/blur_convert.cl"},
        {detail::kBlurF32ToU8, "blur", "blur/blur_convert.cl"},
    };
    for (const Kernel& k : kernels) {
      CAPTURE(k.sig.kernel);
      const std::vector<std::string> sig(k.sig.args.begin(), k.sig.args.end());
      CHECK(test::declared_params(k.file, k.sig.kernel) == sig);
      // Blocks on, so that the recursive program holds its block kernels.
      const Tuning t{std::string(k.spec) == "blur_recursive" ? ParamMap{{"BLUR_R_BLOCK", 64}} : ParamMap{}, false};
      const std::string variant = std::string(k.spec) == "blur" ? "*" : "1";
      const Configuration cfg = resolve_configuration(k.spec, variant, s.entry.info, t);
      const cl::Program p = detail::get_program(qc, detail::kernel_spec(k.spec), cfg, "-cl-kernel-arg-info");
      const std::vector<std::string> compiled = test::compiled_params(p, k.sig.kernel);
      if (compiled.empty())
        MESSAGE("no CL_KERNEL_ARG_NAME on this device: checked against the source only");
      else
        CHECK(compiled == sig);
    }
  }

  TEST_CASE("wait list, output event and an out-of-order queue") {
    auto& s = test::session();
    cl_int st = CL_SUCCESS;
    cl::CommandQueue ooo(s.context, s.entry.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &st);
    if (st != CL_SUCCESS) ooo = s.queue;  // the device has no out-of-order queues: still checks events
    const std::size_t W = 70, H = 50;
    const std::vector<float> in = host::random_floats(W * H, test::seed() + 900);
    std::vector<float> out = host::poisoned(W * H);
    cl::Buffer bin(s.context, CL_MEM_READ_WRITE, W * H * 4), bout(s.context, CL_MEM_READ_WRITE, W * H * 4);
    for (BlurMethod m : {BlurMethod::Direct, BlurMethod::Separable, BlurMethod::Recursive}) {
      cl::Event wrote, poisoned, blurred;
      ooo.enqueueWriteBuffer(bin, CL_FALSE, 0, W * H * 4, in.data(), nullptr, &wrote);
      ooo.enqueueWriteBuffer(bout, CL_FALSE, 0, W * H * 4, out.data(), nullptr, &poisoned);
      BlurOptions o;
      o.sigma_x = 3;
      o.sigma_y = 2;
      o.method = m;
      const Tuning t{{{"BLUR_R_BLOCK", 16}, {"BLUR_R_NARROW", 1 << 30}}, false};
      gaussian_blur(ooo, W, H, PixelFormat::R32F, {bin, 0, W}, {bout, 0, W}, o, {wrote, poisoned}, &blurred, t);
      std::vector<float> got(W * H);
      const std::vector<cl::Event> deps{blurred};
      ooo.enqueueReadBuffer(bout, CL_TRUE, 0, W * H * 4, got.data(), &deps);
      const auto ref = m == BlurMethod::Recursive ? host::recursive_blur(in.data(), W, H, 1, W, 3, 2, BlurBorder::Clamp)
                                                  : host::gaussian_blur(in.data(), W, H, 1, W, 3, 2, BlurBorder::Clamp);
      const auto cmp = host::compare(got, ref);
      INFO(to_string(m) << ": " << cmp.summary());
      CHECK(cmp.ok(m == BlurMethod::Recursive ? host::recursive_blur_tolerance(3, 2)
                                              : host::truncated_blur_tolerance(3, 2)));
    }
  }

  TEST_CASE("host-vector convenience and the pooled scratch") {
    // Repeated calls take their scratch from the workspace pool, their plan from the plan cache
    // and their input and output buffers from the pool of their one-device group: past the first
    // round, a call allocates no buffer. A CPU device blurs a separable band where the vectors are
    // (docs/group.md): that call makes two buffers over them, the band's input and output, and
    // allocates nothing.
    auto& s = test::session();
    const std::uint64_t wrapped = s.entry.info.type == "CPU" ? 2 : 0;
    const std::vector<float> in = host::random_floats(19 * 23 * 4, test::seed() + 950);
    BlurOptions o;
    o.sigma_x = 1.5;
    o.sigma_y = 2.5;
    o.method = BlurMethod::Separable;
    for (int rep = 0; rep < 2; ++rep) {
      const std::uint64_t buffers = detail::activity().buffers;
      const std::vector<float> out = gaussian_blur(s.queue, 19, 23, 4, in, o);
      const auto cmp = host::compare(out, host::gaussian_blur(in.data(), 19, 23, 4, 19, 1.5, 2.5, BlurBorder::Clamp));
      CHECK(cmp.ok(host::truncated_blur_tolerance(1.5, 2.5)));
      o.method = BlurMethod::Recursive;
      const std::vector<float> r = gaussian_blur(s.queue, 19, 23, 4, in, o);
      CHECK(host::compare(r, host::recursive_blur(in.data(), 19, 23, 4, 19, 1.5, 2.5, BlurBorder::Clamp))
                .ok(host::recursive_blur_tolerance(1.5, 2.5)));
      o.method = BlurMethod::Separable;
      if (rep == 1) CHECK(detail::activity().buffers == buffers + wrapped);
    }
    CHECK_THROWS_AS(gaussian_blur(s.queue, 19, 23, 3, in, o), InvalidArgument);
    CHECK_THROWS_AS(gaussian_blur(s.queue, 19, 22, 4, in, o), InvalidArgument);
  }

  TEST_CASE("bad arguments throw InvalidArgument naming the problem, before anything is enqueued") {
    auto& s = test::session();
    cl::Buffer a(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4), b(s.context, CL_MEM_READ_WRITE, 64 * 64 * 4);
    const auto expect = test::expect_invalid_argument;
    BlurOptions o;
    auto with = [&](double sx, double sy, BlurMethod m) {
      BlurOptions p = o;
      p.sigma_x = sx;
      p.sigma_y = sy;
      p.method = m;
      return p;
    };
    const auto F = PixelFormat::R32F;
    expect([&] { gaussian_blur(s.queue, 0, 4, F, {a, 0, 4}, {b, 0, 4}, o); }, "at least 1");
    expect([&] { gaussian_blur(s.queue, 4, 0, F, {a, 0, 4}, {b, 0, 4}, o); }, "at least 1");
    expect([&] { gaussian_blur(s.queue, 8, 4, F, {a, 0, 4}, {b, 0, 8}, o); }, "in.pitch");
    expect([&] { gaussian_blur(s.queue, 8, 4, F, {a, 0, 8}, {b, 0, 7}, o); }, "out.pitch");
    expect([&] { gaussian_blur(s.queue, 64, 64, PixelFormat::RGBA32F, {a, 0, 64}, {b, 0, 64}, o); }, "too small");
    expect([&] { gaussian_blur(s.queue, 64, 64, F, {a, 1, 64}, {b, 0, 64}, o); }, "in buffer too small");
    expect([&] { gaussian_blur(s.queue, 64, 64, F, {a, 0, 64}, {b, 0, 65}, o); }, "out buffer too small");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {cl::Buffer(), 0, 4}, {b, 0, 4}, o); }, "null buffer");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {a, 0, 4}, o); }, "different buffers");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(0, 1, BlurMethod::Auto)); }, "sigma_x");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(1, -2, BlurMethod::Auto)); }, "sigma_y");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(NAN, 1, BlurMethod::Direct)); }, "sigma_x");
    expect([&] { gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(1, 1e6, BlurMethod::Direct)); }, "sigma_y");
    expect(
        [&] {
          gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(0.4, 1, BlurMethod::Recursive));
        },
        "below 0.5");
    expect(
        [&] {
          gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, o, {}, nullptr, Tuning{{{"BLUR_NOPE", 1}}, true});
        },
        "unknown parameter");
    expect(
        [&] {
          gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, o, {}, nullptr, Tuning{{{"BLUR_S_ROW_VW", 2}}, true});
        },
        "not legal");
    expect(
        [&] {
          gaussian_blur(s.queue, 4, 4, F, {a, 0, 4}, {b, 0, 4}, with(3, 3, BlurMethod::Recursive), {}, nullptr,
                        Tuning{{{"BLUR_R_BLOCK", 0}, {"BLUR_R_FUSE_T", 1}}, true});
        },
        "BLUR_R_FUSE_T=1 needs BLUR_R_BLOCK > 0");
    expect([] { parse_blur_border("wrap"); }, "wrap");
    expect([] { parse_blur_method("fft"); }, "fft");
    CHECK(parse_blur_border(" Mirror") == BlurBorder::Mirror);
    CHECK(parse_blur_method("RECURSIVE") == BlurMethod::Recursive);
  }
}
