// The `clforge` Python module: exceptions, enums, the tuning argument, resolved configurations and
// device identity here; NumPy conveniences in arrays.cpp, plans in plans.cpp, the tuner in tune.cpp.
// Every routine takes pyopencl objects (queue, buffers, events) and releases the GIL while it runs.
#include <sstream>

#include "interop.hpp"

namespace clforge_py {
namespace {

std::string repr(const clforge::DeviceInfo& d) {
  return "<clforge.DeviceInfo " + d.index_string() + " '" + d.name + "' " + d.vendor_key() + " " + d.type +
         (d.architecture.empty() ? "" : " " + d.architecture) + ">";
}

// The device of a pyopencl Device, CommandQueue or single-device Context.
cl::Device device_of(const py::handle& obj) {
  const py::module_ cl = py::module_::import("pyopencl");
  const auto handle = [&] { return obj.attr("int_ptr").cast<std::uintptr_t>(); };
  if (py::isinstance(obj, cl.attr("Device"))) return cl::Device(reinterpret_cast<cl_device_id>(handle()), true);
  cl_int err = CL_SUCCESS;
  if (py::isinstance(obj, cl.attr("CommandQueue"))) {
    const cl::Device d = to_queue(obj).getInfo<CL_QUEUE_DEVICE>(&err);
    if (err != CL_SUCCESS) throw clforge::OpenCLError(err, "clGetCommandQueueInfo");
    return d;
  }
  if (py::isinstance(obj, cl.attr("Context"))) {
    const cl::Context ctx(reinterpret_cast<cl_context>(handle()), true);
    const auto devices = ctx.getInfo<CL_CONTEXT_DEVICES>(&err);
    if (err != CL_SUCCESS) throw clforge::OpenCLError(err, "clGetContextInfo");
    if (devices.size() != 1)
      invalid("describe",
              "the context has " + std::to_string(devices.size()) + " devices: pass one of them or a queue instead");
    return devices[0];
  }
  throw py::type_error("describe takes a pyopencl Device, CommandQueue or Context (got " + type_name(obj) + ")");
}

}  // namespace

void register_device(py::module_& m) {
  using clforge::DeviceInfo;
  py::class_<DeviceInfo>(m, "DeviceInfo", "What clforge knows of a device: identity and limits.")
      .def_readonly("platform_index", &DeviceInfo::platform_index)
      .def_readonly("device_index", &DeviceInfo::device_index)
      .def_readonly("platform_name", &DeviceInfo::platform_name)
      .def_readonly("platform_version", &DeviceInfo::platform_version)
      .def_readonly("name", &DeviceInfo::name)
      .def_readonly("vendor", &DeviceInfo::vendor)
      .def_property_readonly("vendor_class", &DeviceInfo::vendor_key, "'NVIDIA', 'AMD', 'Intel', 'Apple', 'CPU', ...")
      .def_readonly("type", &DeviceInfo::type)
      .def_readonly("architecture", &DeviceInfo::architecture)
      .def_readonly("driver_version", &DeviceInfo::driver_version)
      .def_readonly("device_version", &DeviceInfo::device_version)
      .def_readonly("compute_units", &DeviceInfo::compute_units)
      .def_readonly("max_work_group_size", &DeviceInfo::max_work_group_size)
      .def_readonly("max_work_item_sizes", &DeviceInfo::max_work_item_sizes)
      .def_readonly("local_mem_size", &DeviceInfo::local_mem_size)
      .def_readonly("local_mem_dedicated", &DeviceInfo::local_mem_dedicated)
      .def_readonly("global_mem_size", &DeviceInfo::global_mem_size)
      .def_readonly("max_alloc_size", &DeviceInfo::max_alloc_size)
      .def_readonly("max_clock_mhz", &DeviceInfo::max_clock_mhz)
      .def_readonly("mem_base_addr_align_bits", &DeviceInfo::mem_base_addr_align_bits)
      .def_readonly("profiling", &DeviceInfo::profiling)
      .def_readonly("fp64", &DeviceInfo::fp64)
      .def("index_string", &DeviceInfo::index_string, "'platform:device', e.g. '0:1'")
      .def("__repr__", &repr);

  m.def(
      "list_devices",
      [] {
        std::vector<DeviceInfo> out;
        for (const auto& e : clforge::list_devices()) out.push_back(e.info);
        return out;
      },
      "Every OpenCL device on every platform, in platform then device order (empty without OpenCL).");
  m.def(
      "select_device", [](const std::string& spec) { return clforge::select_device(spec).info; }, py::arg("spec") = "",
      "The device clforge picks for spec: '' (CLFORGE_DEVICE, else the first GPU, else the first device), 'N', "
      "'P:D', 'gpu', 'cpu', a vendor or a name substring. Raises UnsupportedDevice when nothing matches.");
  m.def(
      "describe",
      [](const py::object& obj) {
        const cl::Device device = device_of(obj);
        clforge::DeviceInfo info = clforge::describe(device);
        for (const auto& e : clforge::list_devices())  // indices in clforge's enumeration
          if (e.device() == device()) {
            info.platform_index = e.info.platform_index;
            info.device_index = e.info.device_index;
          }
        return info;
      },
      py::arg("device"), "The DeviceInfo of a pyopencl Device, CommandQueue or single-device Context.");
  m.def(
      "create_queue",
      [](const std::string& spec) {
        cl::CommandQueue queue;
        {
          py::gil_scoped_release nogil;
          queue = clforge::Session(spec).queue;
        }
        return py::module_::import("pyopencl")
            .attr("CommandQueue")
            .attr("from_int_ptr")(reinterpret_cast<std::uintptr_t>(queue()), true);
      },
      py::arg("spec") = "",
      "A new context and in-order profiling queue on the device select_device(spec) picks, as a "
      "pyopencl.CommandQueue (its .context is the context).");
}

}  // namespace clforge_py

PYBIND11_MODULE(clforge, m) {
  namespace py = pybind11;
  using namespace clforge_py;
  m.doc() =
      "clforge: tuned OpenCL transpose, SGEMM, batched FFT and Gaussian blur on pyopencl queues, buffers and "
      "events, with NumPy conveniences, plans and the tuner.";
  m.attr("__version__") = clforge::version_string;
  register_exceptions(m);

  py::class_<clforge::Tuning>(m, "Tuning",
                              "Per-call tuning: explicit parameter overrides and whether the user database is used. "
                              "Routines also take a plain dict {name: value} of overrides.")
      .def(py::init([](const clforge::ParamMap& overrides, bool user_database) {
             return clforge::Tuning{overrides, user_database};
           }),
           py::arg("overrides") = clforge::ParamMap{}, py::arg("user_database") = true)
      .def_readwrite("overrides", &clforge::Tuning::overrides)
      .def_readwrite("user_database", &clforge::Tuning::user_database);

  using clforge::Configuration;
  py::class_<Configuration>(m, "Configuration", "Resolved parameters of one kernel and where each value came from.")
      .def_readonly("kernel", &Configuration::kernel)
      .def_readonly("variant", &Configuration::variant)
      .def_readonly("values", &Configuration::values)
      .def_readonly("sources", &Configuration::sources)
      .def_readonly("notes", &Configuration::notes)
      .def("__repr__", [](const Configuration& c) {
        std::ostringstream s;
        s << "<clforge.Configuration " << c.kernel << " [" << c.variant << "]";
        for (const auto& [name, value] : c.values) s << ' ' << name << '=' << value;
        s << '>';
        return s.str();
      });

  register_device(m);
  register_arrays(m);
  register_plans(m);
  register_tune(m);
  register_group(m);
}
