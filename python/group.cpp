// Device groups from Python (clforge/group.hpp): clforge.DeviceGroup, a group FFT plan, and fft /
// sgemm / transpose / gaussian_blur over a group on NumPy arrays, each returning (result, run) where
// run describes the split (mode, weights, and per device its share). The split options are keyword
// arguments.
#include <complex>
#include <cstring>
#include <optional>

#include "interop.hpp"

namespace clforge_py {
namespace {

clforge::SplitOptions split_of(const clforge::DeviceGroup& g, const py::object& mode, const py::object& weights,
                               const py::object& cpu_percent, std::size_t chunk, std::size_t queues,
                               const std::string& staging, bool overlap, const py::object& tuning) {
  clforge::SplitOptions o;
  o.tuning = to_tuning(tuning);
  o.mode = enum_arg<clforge::SplitMode>(mode, clforge::parse_split_mode, "mode");
  if (!weights.is_none() && !cpu_percent.is_none()) invalid("split", "give weights or cpu_percent, not both");
  if (!weights.is_none()) {
    o.mode = clforge::SplitMode::Weights;
    o.weights = weights.cast<std::vector<double>>();
  } else if (!cpu_percent.is_none()) {
    o.mode = clforge::SplitMode::Weights;
    o.weights = clforge::cpu_percent_weights(g, cpu_percent.cast<double>());
  }
  o.chunk = chunk;
  o.queues = queues;
  if (staging == "auto")
    o.staging = clforge::Staging::Auto;
  else if (staging == "on")
    o.staging = clforge::Staging::On;
  else if (staging == "off")
    o.staging = clforge::Staging::Off;
  else
    invalid("split", "staging must be \"auto\", \"on\" or \"off\" (got \"" + staging + "\")");
  o.overlap = overlap;
  return o;
}

py::dict run_dict(const clforge::GroupRun& r) {
  py::list shares;
  for (const auto& s : r.shares) {
    py::dict d;
    d["device"] = s.device;
    d["name"] = s.name;
    d["items"] = s.items;
    d["chunks"] = s.chunks;
    d["stolen"] = s.stolen;
    d["chunk"] = s.chunk;
    d["queues"] = s.queues;
    d["staged"] = s.staged;
    d["seconds"] = s.seconds;
    shares.append(d);
  }
  py::dict d;
  d["mode"] = clforge::to_string(r.mode);
  d["weights"] = r.weights;
  d["shares"] = shares;
  d["seconds"] = r.seconds;
  return d;
}

// Runs `call` (a group routine writing into `out`) without the GIL; returns (out, run).
template <class Call>
py::tuple released(const py::array& out, Call&& call) {
  clforge::GroupRun r;
  {
    py::gil_scoped_release nogil;
    r = call();
  }
  return py::make_tuple(out, run_dict(r));
}

// One execution of a group FFT plan on a C-contiguous complex64 (batch, n) array: (result, run).
py::tuple run_fft_plan(const clforge::GroupFftPlan& p, const py::object& x_obj, bool inverse) {
  const char* const kRoutine = "GroupFftPlan";
  const py::array x = checked_array(x_obj, kRoutine, "x", 2);
  require_dtype(x, py::dtype::of<std::complex<float>>(), kRoutine, "x");
  if (static_cast<std::size_t>(x.shape(0)) != p.batch() || static_cast<std::size_t>(x.shape(1)) != p.n())
    invalid(kRoutine,
            "x must have the plan's shape (batch " + std::to_string(p.batch()) + ", n " + std::to_string(p.n()) + ")");
  py::array y(x.dtype(), std::vector<py::ssize_t>{x.shape(0), x.shape(1)});
  const auto* in = static_cast<const std::complex<float>*>(x.data());
  auto* out = static_cast<std::complex<float>*>(y.mutable_data());
  return released(y, [&] { return inverse ? p.inverse(in, out) : p.forward(in, out); });
}

// The keyword arguments every group call takes, after its own.
#define CLFORGE_SPLIT_ARGS                                                                                            \
  py::kw_only(), py::arg("mode") = "auto", py::arg("weights") = py::none(), py::arg("cpu_percent") = py::none(),      \
                 py::arg("chunk") = 0, py::arg("queues") = 0, py::arg("staging") = "auto", py::arg("overlap") = true, \
                 py::arg("tuning") = py::none()

}  // namespace

void register_group(py::module_& m) {
  py::enum_<clforge::SplitMode>(m, "SplitMode", "How a group call hands its chunks to the devices.")
      .value("Auto", clforge::SplitMode::Auto)
      .value("Weights", clforge::SplitMode::Weights)
      .value("Dynamic", clforge::SplitMode::Dynamic);

  py::class_<clforge::DeviceGroup>(
      m, "DeviceGroup",
      "Devices used together: a context and `queues` queues per device. selectors: "
      "comma-separated, each picks every device it matches ('all', 'gpu', 'cpu', a vendor, "
      "an index 'N' or 'P:D', a name substring; 'cpu@12': 12 compute units of it, an OpenCL sub-device).")
      .def(py::init<const std::string&, std::size_t>(), py::arg("selectors") = "all", py::arg("queues") = 3,
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("size", &clforge::DeviceGroup::size)
      .def_property_readonly("names",
                             [](const clforge::DeviceGroup& g) {
                               std::vector<std::string> v;
                               for (std::size_t d = 0; d < g.size(); ++d) v.push_back(g.entry(d).info.name);
                               return v;
                             })
      .def("describe", &clforge::DeviceGroup::describe)
      .def("__len__", &clforge::DeviceGroup::size)
      .def("__repr__", [](const clforge::DeviceGroup& g) { return "<clforge.DeviceGroup " + g.describe() + ">"; });

  py::class_<clforge::GroupFftPlan>(
      m, "GroupFftPlan",
      "A batched FFT of `batch` transforms of length n over a device group, decided once (devices, chunks, each "
      "device's plans) and executed on any number of (batch, n) complex64 arrays: forward(x) and inverse(x) "
      "return (result, run).")
      .def(py::init([](const clforge::DeviceGroup& g, std::size_t n, std::size_t batch, const py::object& mode,
                       const py::object& weights, const py::object& cpu_percent, std::size_t chunk, std::size_t queues,
                       const std::string& staging, bool overlap, const py::object& tuning) {
             const auto o = split_of(g, mode, weights, cpu_percent, chunk, queues, staging, overlap, tuning);
             py::gil_scoped_release nogil;
             return clforge::GroupFftPlan(g, n, batch, o);
           }),
           py::arg("group"), py::arg("n"), py::arg("batch"), CLFORGE_SPLIT_ARGS)
      .def_property_readonly("n", &clforge::GroupFftPlan::n)
      .def_property_readonly("batch", &clforge::GroupFftPlan::batch)
      .def(
          "forward", [](const clforge::GroupFftPlan& p, const py::object& x) { return run_fft_plan(p, x, false); },
          py::arg("x"))
      .def(
          "inverse", [](const clforge::GroupFftPlan& p, const py::object& x) { return run_fft_plan(p, x, true); },
          py::arg("x"), "The unnormalised inverse.");

  m.def(
      "group_fft",
      [](const clforge::DeviceGroup& g, const py::object& x_obj, bool inverse, const py::object& mode,
         const py::object& weights, const py::object& cpu_percent, std::size_t chunk, std::size_t queues,
         const std::string& staging, bool overlap, const py::object& tuning) {
        // A one-shot plan of the array's shape.
        const py::array x = checked_array(x_obj, "group_fft", "x", 2);
        require_dtype(x, py::dtype::of<std::complex<float>>(), "group_fft", "x");
        const auto o = split_of(g, mode, weights, cpu_percent, chunk, queues, staging, overlap, tuning);
        const auto n = static_cast<std::size_t>(x.shape(1)), batch = static_cast<std::size_t>(x.shape(0));
        std::optional<clforge::GroupFftPlan> plan;
        {
          py::gil_scoped_release nogil;
          plan.emplace(g, n, batch, o);
        }
        return run_fft_plan(*plan, x, inverse);
      },
      py::arg("group"), py::arg("x"), py::arg("inverse") = false, CLFORGE_SPLIT_ARGS,
      "Batched FFT of the rows of a C-contiguous complex64 (batch, n) array split over the group's devices "
      "(unnormalised both ways). Returns (result, run).");

  m.def(
      "group_sgemm",
      [](const clforge::DeviceGroup& g, const py::object& a_obj, const py::object& b_obj, float alpha,
         const py::object& mode, const py::object& weights, const py::object& cpu_percent, std::size_t chunk,
         std::size_t queues, const std::string& staging, bool overlap, const py::object& tuning) {
        const char* const kRoutine = "group_sgemm";
        const py::array a = checked_array(a_obj, kRoutine, "a", 2), b = checked_array(b_obj, kRoutine, "b", 2);
        require_dtype(a, py::dtype::of<float>(), kRoutine, "a");
        require_dtype(b, py::dtype::of<float>(), kRoutine, "b");
        const auto m_ = static_cast<std::size_t>(a.shape(0)), k = static_cast<std::size_t>(a.shape(1)),
                   n = static_cast<std::size_t>(b.shape(1));
        if (static_cast<std::size_t>(b.shape(0)) != k) invalid(kRoutine, "a's columns and b's rows differ");
        const auto o = split_of(g, mode, weights, cpu_percent, chunk, queues, staging, overlap, tuning);
        py::array c(py::dtype::of<float>(), std::vector<py::ssize_t>{a.shape(0), b.shape(1)});
        const auto* ap = static_cast<const float*>(a.data());
        const auto* bp = static_cast<const float*>(b.data());
        auto* cp = static_cast<float*>(c.mutable_data());
        return released(c, [&] {
          return clforge::sgemm(g, clforge::Layout::RowMajor, clforge::Transpose::No, clforge::Transpose::No, m_, n, k,
                                alpha, ap, std::max<std::size_t>(1, k), bp, std::max<std::size_t>(1, n), 0.0f, cp,
                                std::max<std::size_t>(1, n), o);
        });
      },
      py::arg("group"), py::arg("a"), py::arg("b"), py::arg("alpha") = 1.0f, CLFORGE_SPLIT_ARGS,
      "alpha * a @ b for C-contiguous float32 matrices, C's rows split over the group's devices. Returns (c, run).");

  m.def(
      "group_transpose",
      [](const clforge::DeviceGroup& g, const py::object& x_obj, const py::object& mode, const py::object& weights,
         const py::object& cpu_percent, std::size_t chunk, std::size_t queues, const std::string& staging, bool overlap,
         const py::object& tuning) {
        const char* const kRoutine = "group_transpose";
        const py::array x = checked_array(x_obj, kRoutine, "x", 2);
        const auto elem = static_cast<std::size_t>(x.itemsize());
        if (elem != 4 && elem != 8 && elem != 16) invalid(kRoutine, "elements of 4, 8 or 16 bytes");
        const auto o = split_of(g, mode, weights, cpu_percent, chunk, queues, staging, overlap, tuning);
        py::array y(x.dtype(), std::vector<py::ssize_t>{x.shape(1), x.shape(0)});
        const void* in = x.data();
        void* out = y.mutable_data();
        const auto rows = static_cast<std::size_t>(x.shape(0)), cols = static_cast<std::size_t>(x.shape(1));
        return released(y, [&] { return clforge::transpose(g, rows, cols, elem, in, out, o); });
      },
      py::arg("group"), py::arg("x"), CLFORGE_SPLIT_ARGS,
      "Transpose of a C-contiguous 2-D array of 4-, 8- or 16-byte elements, bands of rows over the group's devices. "
      "Returns (result, run).");

  m.def(
      "group_gaussian_blur",
      [](const clforge::DeviceGroup& g, const py::object& img_obj, double sigma, const py::object& border,
         const py::object& method, const py::object& mode, const py::object& weights, const py::object& cpu_percent,
         std::size_t chunk, std::size_t queues, const std::string& staging, bool overlap, const py::object& tuning) {
        const char* const kRoutine = "group_gaussian_blur";
        const py::array img = checked_array(img_obj, kRoutine, "image", 2);
        require_dtype(img, py::dtype::of<float>(), kRoutine, "image");
        clforge::BlurOptions bo;
        bo.sigma_x = bo.sigma_y = sigma;
        bo.border = enum_arg<clforge::BlurBorder>(border, clforge::parse_blur_border, "border");
        bo.method = enum_arg<clforge::BlurMethod>(method, clforge::parse_blur_method, "method");
        const auto o = split_of(g, mode, weights, cpu_percent, chunk, queues, staging, overlap, tuning);
        py::array out(img.dtype(), std::vector<py::ssize_t>{img.shape(0), img.shape(1)});
        const void* in = img.data();
        void* op = out.mutable_data();
        const auto h = static_cast<std::size_t>(img.shape(0)), w = static_cast<std::size_t>(img.shape(1));
        return released(out,
                        [&] { return clforge::gaussian_blur(g, w, h, clforge::PixelFormat::R32F, in, op, bo, o); });
      },
      py::arg("group"), py::arg("image"), py::arg("sigma"), py::arg("border") = "clamp", py::arg("method") = "auto",
      CLFORGE_SPLIT_ARGS,
      "Gaussian blur of a C-contiguous float32 (height, width) image in bands of rows over the group's devices. "
      "Returns (result, run).");
}

}  // namespace clforge_py
