// The plans on pyopencl buffers: SgemmPlan, TransposePlan, FftPlan and BlurPlan are built once from
// a queue and keyword arguments that mirror their C++ descriptions, then enqueued any number of
// times; each enqueue takes a wait_for list of pyopencl events and returns a pyopencl.Event.
#include "interop.hpp"

namespace clforge_py {
namespace {

using clforge::BlurBorder;
using clforge::BlurMethod;
using clforge::FftScaling;
using clforge::Layout;
using clforge::PixelFormat;

// Runs `call(&event)` without the GIL and returns the output event as a pyopencl.Event.
template <typename F>
py::object enqueue_with_event(F&& call) {
  cl::Event event;
  {
    py::gil_scoped_release nogil;
    call(&event);
  }
  return to_pyopencl_event(event);
}

void register_enums(py::module_& m) {
  py::enum_<Layout>(m, "Layout", "Storage order of every matrix of an sgemm.")
      .value("RowMajor", Layout::RowMajor)
      .value("ColMajor", Layout::ColMajor);
  py::enum_<FftScaling>(m, "FftScaling", "Scaling of a transform's result (C++ FftScaling::None is NoScaling).")
      .value("NoScaling", FftScaling::None)
      .value("OverN", FftScaling::OverN)
      .value("OverSqrtN", FftScaling::OverSqrtN);
  py::enum_<BlurBorder>(m, "BlurBorder", "What a blur sees outside the image.")
      .value("Clamp", BlurBorder::Clamp)
      .value("Mirror", BlurBorder::Mirror)
      .value("Zero", BlurBorder::Zero);
  py::enum_<BlurMethod>(m, "BlurMethod", "How a blur is computed.")
      .value("Auto", BlurMethod::Auto)
      .value("Direct", BlurMethod::Direct)
      .value("Separable", BlurMethod::Separable)
      .value("Recursive", BlurMethod::Recursive);
  py::enum_<PixelFormat>(m, "PixelFormat", "Pixel layout of blur buffers.")
      .value("R32F", PixelFormat::R32F)
      .value("RGBA32F", PixelFormat::RGBA32F)
      .value("RGBA8", PixelFormat::RGBA8);
}

void register_sgemm(py::module_& m) {
  using clforge::SgemmDesc;
  using clforge::SgemmPlan;
  const auto yes = [](clforge::Transpose t) { return t == clforge::Transpose::Yes; };
  py::class_<SgemmDesc>(m, "SgemmDesc", "What an SgemmPlan computes (leading dimensions resolved).")
      .def_readonly("layout", &SgemmDesc::layout)
      .def_property_readonly("trans_a", [yes](const SgemmDesc& d) { return yes(d.trans_a); })
      .def_property_readonly("trans_b", [yes](const SgemmDesc& d) { return yes(d.trans_b); })
      .def_readonly("m", &SgemmDesc::m)
      .def_readonly("n", &SgemmDesc::n)
      .def_readonly("k", &SgemmDesc::k)
      .def_readonly("alpha", &SgemmDesc::alpha)
      .def_readonly("beta", &SgemmDesc::beta)
      .def_readonly("a_offset", &SgemmDesc::a_offset)
      .def_readonly("a_ld", &SgemmDesc::a_ld)
      .def_readonly("b_offset", &SgemmDesc::b_offset)
      .def_readonly("b_ld", &SgemmDesc::b_ld)
      .def_readonly("c_offset", &SgemmDesc::c_offset)
      .def_readonly("c_ld", &SgemmDesc::c_ld)
      .def_readonly("batch", &SgemmDesc::batch)
      .def_readonly("a_stride", &SgemmDesc::a_stride)
      .def_readonly("b_stride", &SgemmDesc::b_stride)
      .def_readonly("c_stride", &SgemmDesc::c_stride);
  py::class_<SgemmPlan>(m, "SgemmPlan",
                        "C = alpha * op(A) * op(B) + beta * C on buffers, checked, resolved and compiled once. "
                        "Offsets, leading dimensions and strides count elements; ld 0 is the smallest legal one; "
                        "batch > 1 is a strided batch (matrix i of each operand at its offset + i * its stride). "
                        "Note the "
                        "default layout is row-major here (NumPy's order), column-major in C++.")
      .def(
          py::init([](const py::object& queue, std::size_t m, std::size_t n, std::size_t k, float alpha, float beta,
                      bool trans_a, bool trans_b, Layout layout, std::size_t a_offset, std::size_t a_ld,
                      std::size_t b_offset, std::size_t b_ld, std::size_t c_offset, std::size_t c_ld, std::size_t batch,
                      std::size_t a_stride, std::size_t b_stride, std::size_t c_stride, const py::object& tuning) {
            const cl::CommandQueue q = to_queue(queue);
            const clforge::Tuning t = to_tuning(tuning);
            SgemmDesc d;
            d.layout = layout;
            d.trans_a = trans_a ? clforge::Transpose::Yes : clforge::Transpose::No;
            d.trans_b = trans_b ? clforge::Transpose::Yes : clforge::Transpose::No;
            d.m = m, d.n = n, d.k = k, d.alpha = alpha, d.beta = beta;
            d.a_offset = a_offset, d.a_ld = a_ld, d.b_offset = b_offset, d.b_ld = b_ld;
            d.c_offset = c_offset, d.c_ld = c_ld;
            d.batch = batch, d.a_stride = a_stride, d.b_stride = b_stride, d.c_stride = c_stride;
            py::gil_scoped_release nogil;
            return SgemmPlan(q, d, t);
          }),
          py::arg("queue"), py::arg("m"), py::arg("n"), py::arg("k"), py::arg("alpha") = 1.0f, py::arg("beta") = 0.0f,
          py::arg("trans_a") = false, py::arg("trans_b") = false, py::arg("layout") = Layout::RowMajor,
          py::arg("a_offset") = 0, py::arg("a_ld") = 0, py::arg("b_offset") = 0, py::arg("b_ld") = 0,
          py::arg("c_offset") = 0, py::arg("c_ld") = 0, py::arg("batch") = 1, py::arg("a_stride") = 0,
          py::arg("b_stride") = 0, py::arg("c_stride") = 0, py::arg("tuning") = py::none())
      .def(
          "enqueue",
          [](const SgemmPlan& p, const py::object& queue, const py::object& a, const py::object& b, const py::object& c,
             const py::object& wait_for) {
            cl::CommandQueue q = to_queue(queue);
            const cl::Buffer ba = to_buffer(a, "a"), bb = to_buffer(b, "b"), bc = to_buffer(c, "c");
            const clforge::EventList wait = to_events(wait_for);
            return enqueue_with_event([&](cl::Event* e) { p.enqueue(q, ba, bb, bc, wait, e); });
          },
          py::arg("queue"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("wait_for") = py::none(),
          "Waits for wait_for, computes C into buffer c; returns a pyopencl.Event for the whole call.")
      .def_property_readonly("desc", &SgemmPlan::desc)
      .def("describe", &SgemmPlan::describe)
      .def_property_readonly("workspace_bytes", &SgemmPlan::workspace_bytes)
      .def_property_readonly("configurations", &SgemmPlan::configurations);
}

void register_transpose(py::module_& m) {
  using clforge::TransposeDesc;
  using clforge::TransposePlan;
  py::class_<TransposeDesc>(m, "TransposeDesc", "What a TransposePlan computes.")
      .def_readonly("rows", &TransposeDesc::rows)
      .def_readonly("cols", &TransposeDesc::cols)
      .def_readonly("elem_size", &TransposeDesc::elem_size)
      .def_readonly("in_offset", &TransposeDesc::in_offset)
      .def_readonly("in_ld", &TransposeDesc::in_ld)
      .def_readonly("out_offset", &TransposeDesc::out_offset)
      .def_readonly("out_ld", &TransposeDesc::out_ld);
  py::class_<TransposePlan>(m, "TransposePlan",
                            "out (cols x rows) = in (rows x cols)^T, row-major, elements of elem_size bytes (4, 8 "
                            "or 16); offsets and leading dimensions count elements (ld 0: packed).")
      .def(py::init([](const py::object& queue, std::size_t rows, std::size_t cols, std::size_t elem_size,
                       std::size_t in_offset, std::size_t in_ld, std::size_t out_offset, std::size_t out_ld,
                       const py::object& tuning) {
             const cl::CommandQueue q = to_queue(queue);
             const clforge::Tuning t = to_tuning(tuning);
             const TransposeDesc d{rows, cols, elem_size, in_offset, in_ld, out_offset, out_ld};
             py::gil_scoped_release nogil;
             return TransposePlan(q, d, t);
           }),
           py::arg("queue"), py::arg("rows"), py::arg("cols"), py::arg("elem_size") = 4, py::arg("in_offset") = 0,
           py::arg("in_ld") = 0, py::arg("out_offset") = 0, py::arg("out_ld") = 0, py::arg("tuning") = py::none())
      .def(
          "enqueue",
          [](const TransposePlan& p, const py::object& queue, const py::object& src, const py::object& dst,
             const py::object& wait_for) {
            cl::CommandQueue q = to_queue(queue);
            const cl::Buffer in = to_buffer(src, "src"), out = to_buffer(dst, "dst");
            const clforge::EventList wait = to_events(wait_for);
            return enqueue_with_event([&](cl::Event* e) { p.enqueue(q, in, out, wait, e); });
          },
          py::arg("queue"), py::arg("src"), py::arg("dst"), py::arg("wait_for") = py::none(),
          "Waits for wait_for, transposes buffer src into buffer dst; returns a pyopencl.Event.")
      .def_property_readonly("desc", &TransposePlan::desc)
      .def("describe", &TransposePlan::describe)
      .def_property_readonly("configuration", &TransposePlan::configuration);
}

void register_fft(py::module_& m) {
  using clforge::FftDesc;
  using clforge::FftLayout;
  using clforge::FftPlan;
  py::class_<FftLayout>(m, "FftLayout", "Element k of transform b is at offset + b * distance + k * stride.")
      .def_readonly("stride", &FftLayout::stride)
      .def_readonly("distance", &FftLayout::distance)
      .def_readonly("offset", &FftLayout::offset);
  py::class_<FftDesc>(m, "FftDesc", "What an FftPlan computes.")
      .def_readonly("n", &FftDesc::n)
      .def_readonly("batch", &FftDesc::batch)
      .def_readonly("in_place", &FftDesc::in_place)
      .def_readonly("input", &FftDesc::in)
      .def_readonly("output", &FftDesc::out)
      .def_readonly("forward_scaling", &FftDesc::forward_scaling)
      .def_readonly("inverse_scaling", &FftDesc::inverse_scaling);
  // forward(src) runs an in-place plan on src; forward(src, dst) an out-of-place one; with queue=
  // it runs on another queue of the plan's context and device.
  const auto run = [](bool inverse) {
    return [inverse](const FftPlan& p, const py::object& src, const py::object& dst, const py::object& wait_for,
                     const py::object& queue) {
      const cl::Buffer in = to_buffer(src, "src");
      const cl::Buffer out = dst.is_none() ? in : to_buffer(dst, "dst");
      const clforge::EventList wait = to_events(wait_for);
      if (queue.is_none()) {
        return enqueue_with_event([&](cl::Event* e) {
          if (dst.is_none())
            inverse ? p.inverse(in, wait, e) : p.forward(in, wait, e);
          else
            inverse ? p.inverse(in, out, wait, e) : p.forward(in, out, wait, e);
        });
      }
      cl::CommandQueue q = to_queue(queue);
      return enqueue_with_event(
          [&](cl::Event* e) { inverse ? p.inverse(q, in, out, wait, e) : p.forward(q, in, out, wait, e); });
    };
  };
  py::class_<FftPlan>(m, "FftPlan",
                      "A compiled batched 1-D complex64 FFT. Layouts count complex elements (8 bytes); distance 0 is "
                      "n * stride. Forward: y_k = sum_j x_j exp(-2 pi i jk/n); inverse: the same with +2 pi i; both "
                      "unscaled unless forward_scaling / inverse_scaling say otherwise.")
      .def(py::init([](const py::object& queue, std::size_t n, std::size_t batch, bool in_place, std::size_t in_stride,
                       std::size_t in_distance, std::size_t in_offset, std::size_t out_stride, std::size_t out_distance,
                       std::size_t out_offset, FftScaling forward_scaling, FftScaling inverse_scaling,
                       const py::object& tuning) {
             cl::CommandQueue q = to_queue(queue);
             const clforge::Tuning t = to_tuning(tuning);
             FftDesc d;
             d.n = n, d.batch = batch, d.in_place = in_place;
             d.in = FftLayout{in_stride, in_distance, in_offset};
             d.out = FftLayout{out_stride, out_distance, out_offset};
             d.forward_scaling = forward_scaling, d.inverse_scaling = inverse_scaling;
             py::gil_scoped_release nogil;
             return std::make_unique<FftPlan>(q, d, t);
           }),
           py::arg("queue"), py::arg("n"), py::arg("batch") = 1, py::arg("in_place") = false, py::arg("in_stride") = 1,
           py::arg("in_distance") = 0, py::arg("in_offset") = 0, py::arg("out_stride") = 1, py::arg("out_distance") = 0,
           py::arg("out_offset") = 0, py::arg("forward_scaling") = FftScaling::None,
           py::arg("inverse_scaling") = FftScaling::None, py::arg("tuning") = py::none())
      .def("forward", run(false), py::arg("src"), py::arg("dst") = py::none(), py::arg("wait_for") = py::none(),
           py::arg("queue") = py::none(),
           "Forward transform of buffer src into buffer dst (in place when dst is None: the plan must be in-place); "
           "on the plan's queue unless queue is given. Returns a pyopencl.Event.")
      .def("inverse", run(true), py::arg("src"), py::arg("dst") = py::none(), py::arg("wait_for") = py::none(),
           py::arg("queue") = py::none(), "Inverse transform, as forward().")
      .def_property_readonly("desc", &FftPlan::desc)
      .def("describe", &FftPlan::describe)
      .def_property_readonly("launches", &FftPlan::launches)
      .def_property_readonly("scratch_bytes", &FftPlan::scratch_bytes)
      .def_property_readonly("configurations", &FftPlan::configurations);
}

void register_blur(py::module_& m) {
  using clforge::BlurDesc;
  using clforge::BlurPlan;
  py::class_<BlurDesc>(m, "BlurDesc", "What a BlurPlan computes (pitches resolved).")
      .def_readonly("width", &BlurDesc::width)
      .def_readonly("height", &BlurDesc::height)
      .def_readonly("format", &BlurDesc::format)
      .def_readonly("sigma_x", &BlurDesc::sigma_x)
      .def_readonly("sigma_y", &BlurDesc::sigma_y)
      .def_readonly("border", &BlurDesc::border)
      .def_readonly("method", &BlurDesc::method)
      .def_readonly("in_offset", &BlurDesc::in_offset)
      .def_readonly("in_pitch", &BlurDesc::in_pitch)
      .def_readonly("out_offset", &BlurDesc::out_offset)
      .def_readonly("out_pitch", &BlurDesc::out_pitch);
  py::class_<BlurPlan>(m, "BlurPlan",
                       "Gaussian blur of a width x height image between buffers, compiled once. Offsets and pitches "
                       "count pixels of the format (pitch 0: the width); border and method take strings or enums.")
      .def(py::init([](const py::object& queue, std::size_t width, std::size_t height, double sigma,
                       const py::object& sigma_y, PixelFormat format, const py::object& border,
                       const py::object& method, std::size_t in_offset, std::size_t in_pitch, std::size_t out_offset,
                       std::size_t out_pitch, const py::object& tuning) {
             const cl::CommandQueue q = to_queue(queue);
             const clforge::Tuning t = to_tuning(tuning);
             BlurDesc d;
             d.width = width, d.height = height, d.format = format;
             d.sigma_x = sigma;
             d.sigma_y =
                 sigma_y.is_none() ? sigma : py::float_(py::reinterpret_borrow<py::object>(sigma_y)).cast<double>();
             d.border = enum_arg<BlurBorder>(border, clforge::parse_blur_border, "border");
             d.method = enum_arg<BlurMethod>(method, clforge::parse_blur_method, "method");
             d.in_offset = in_offset, d.in_pitch = in_pitch, d.out_offset = out_offset, d.out_pitch = out_pitch;
             py::gil_scoped_release nogil;
             return BlurPlan(q, d, t);
           }),
           py::arg("queue"), py::arg("width"), py::arg("height"), py::arg("sigma"), py::arg("sigma_y") = py::none(),
           py::arg("format") = PixelFormat::R32F, py::arg("border") = "clamp", py::arg("method") = "auto",
           py::arg("in_offset") = 0, py::arg("in_pitch") = 0, py::arg("out_offset") = 0, py::arg("out_pitch") = 0,
           py::arg("tuning") = py::none())
      .def(
          "enqueue",
          [](const BlurPlan& p, const py::object& queue, const py::object& src, const py::object& dst,
             const py::object& wait_for) {
            cl::CommandQueue q = to_queue(queue);
            const cl::Buffer in = to_buffer(src, "src"), out = to_buffer(dst, "dst");
            const clforge::EventList wait = to_events(wait_for);
            return enqueue_with_event([&](cl::Event* e) { p.enqueue(q, in, out, wait, e); });
          },
          py::arg("queue"), py::arg("src"), py::arg("dst"), py::arg("wait_for") = py::none(),
          "Waits for wait_for, blurs buffer src into buffer dst; returns a pyopencl.Event.")
      .def_property_readonly("method", &BlurPlan::method, "The method the plan runs (never Auto).")
      .def_property_readonly("desc", &BlurPlan::desc)
      .def("describe", &BlurPlan::describe)
      .def_property_readonly("configurations", &BlurPlan::configurations);
}

}  // namespace

void register_plans(py::module_& m) {
  register_enums(m);
  register_sgemm(m);
  register_transpose(m);
  register_fft(m);
  register_blur(m);
}

}  // namespace clforge_py
