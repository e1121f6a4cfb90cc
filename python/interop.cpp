// Python <-> C++ conversions of the module: pyopencl objects to CLHPP objects (retained, the way
// pyclblast takes them through .int_ptr), events back to pyopencl, the tuning argument, NumPy
// array checks, and clforge's exceptions as Python exception classes with the same messages.
#include "interop.hpp"

#include <cstdint>
#include <utility>

namespace clforge_py {
namespace {

py::module_ pyopencl() { return py::module_::import("pyopencl"); }

std::uintptr_t int_ptr(const py::handle& obj) { return obj.attr("int_ptr").cast<std::uintptr_t>(); }

// The exception classes, created once at import and kept for the life of the process.
struct ExceptionTypes {
  PyObject* error = nullptr;
  PyObject* opencl = nullptr;
  PyObject* build = nullptr;
  PyObject* invalid = nullptr;
  PyObject* tuning = nullptr;
  PyObject* unsupported = nullptr;
};
ExceptionTypes g_types;

PyObject* new_exception(py::module_& m, const char* name, PyObject* bases, const char* doc) {
  const std::string qualified = std::string("clforge.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (type == nullptr) throw py::error_already_set();
  m.add_object(name, py::handle(type));
  return type;
}

// Raises `type(what)` with extra attributes (the C++ exception's accessors).
void raise_with(PyObject* type, const char* what, std::initializer_list<std::pair<const char*, py::object>> attrs) {
  py::object exc = py::reinterpret_borrow<py::object>(type)(what);
  for (const auto& [name, value] : attrs) exc.attr(name) = value;
  PyErr_SetObject(type, exc.ptr());
}

}  // namespace

std::string type_name(const py::handle& obj) { return Py_TYPE(obj.ptr())->tp_name; }

std::string text(const py::handle& obj) { return py::str(obj).cast<std::string>(); }

void invalid(const std::string& routine, const std::string& message) {
  throw clforge::InvalidArgument(routine + ": " + message);
}

cl::CommandQueue to_queue(const py::handle& obj) {
  if (!py::isinstance(obj, pyopencl().attr("CommandQueue")))
    throw py::type_error("queue must be a pyopencl.CommandQueue (got " + type_name(obj) + ")");
  return cl::CommandQueue(reinterpret_cast<cl_command_queue>(int_ptr(obj)), true);
}

cl::Buffer to_buffer(const py::handle& obj, const char* what) {
  if (obj.is_none()) return cl::Buffer();
  const py::module_ cl = pyopencl();
  py::object buffer = py::reinterpret_borrow<py::object>(obj);
  // pyopencl.array.Array: its .data is the Buffer (pyopencl raises when the array has an offset).
  if (!py::isinstance(buffer, cl.attr("Buffer")) && py::hasattr(buffer, "base_data")) buffer = buffer.attr("data");
  if (!py::isinstance(buffer, cl.attr("Buffer")))
    throw py::type_error(std::string(what) + " must be a pyopencl.Buffer or None (got " + type_name(obj) + ")");
  return cl::Buffer(reinterpret_cast<cl_mem>(int_ptr(buffer)), true);
}

clforge::EventList to_events(const py::handle& wait_for) {
  clforge::EventList events;
  if (wait_for.is_none()) return events;
  const py::object event_type = pyopencl().attr("Event");
  for (const py::handle e : wait_for) {
    if (!py::isinstance(e, event_type))
      throw py::type_error("wait_for must hold pyopencl.Event objects (got " + type_name(e) + ")");
    events.emplace_back(reinterpret_cast<cl_event>(int_ptr(e)), true);
  }
  return events;
}

py::object to_pyopencl_event(const cl::Event& event) {
  if (event() == nullptr) return py::none();
  return pyopencl().attr("Event").attr("from_int_ptr")(reinterpret_cast<std::uintptr_t>(event()), true);
}

clforge::Tuning to_tuning(const py::handle& obj) {
  if (obj.is_none()) return {};
  if (py::isinstance<clforge::Tuning>(obj)) return obj.cast<clforge::Tuning>();
  if (py::isinstance<py::dict>(obj)) return clforge::Tuning{obj.cast<clforge::ParamMap>(), true};
  throw py::type_error("tuning must be None, a dict {name: int} or a clforge.Tuning (got " + type_name(obj) + ")");
}

py::array numpy_array(const py::handle& obj, const char* routine, const char* name) {
  if (!py::isinstance<py::array>(obj))
    throw py::type_error(std::string(routine) + ": " + name + " must be a NumPy array (got " + type_name(obj) + ")");
  return py::reinterpret_borrow<py::array>(obj);
}

py::array checked_array(const py::handle& obj, const char* routine, const char* name, int ndim, int ndim_alt) {
  auto a = numpy_array(obj, routine, name);
  if (a.ndim() != ndim && a.ndim() != ndim_alt) {
    std::string want = std::to_string(ndim) + "-D";
    if (ndim_alt >= 0) want += " or " + std::to_string(ndim_alt) + "-D";
    invalid(routine, std::string(name) + " must be a " + want + " array (got " + std::to_string(a.ndim()) + "-D)");
  }
  if (!(a.flags() & py::array::c_style))
    invalid(routine, std::string(name) + " must be C-contiguous (numpy.ascontiguousarray makes a copy that is)");
  return a;
}

void require_dtype(const py::array& a, const py::dtype& want, const char* routine, const char* name) {
  if (!a.dtype().equal(want))
    throw py::type_error(std::string(routine) + ": " + name + " must have dtype " + text(want) + " (got " +
                         text(a.dtype()) + ")");
}

void register_exceptions(py::module_& m) {
  const py::tuple runtime_error = py::make_tuple(py::handle(PyExc_RuntimeError));
  g_types.error = new_exception(m, "Error", runtime_error.ptr(), "Base of every clforge exception.");
  const py::tuple error = py::make_tuple(py::handle(g_types.error));
  g_types.opencl = new_exception(m, "OpenCLError", error.ptr(),
                                 "An OpenCL call failed: code (cl_int), code_name ('CL_OUT_OF_RESOURCES'), call.");
  g_types.build = new_exception(m, "BuildError", error.ptr(),
                                "A kernel failed to compile: build_log, options, kernel, origin, device.");
  const py::tuple error_value = py::make_tuple(py::handle(g_types.error), py::handle(PyExc_ValueError));
  g_types.invalid = new_exception(m, "InvalidArgument", error_value.ptr(),
                                  "A bad argument (sizes, leading dimensions, buffers, parameter names), "
                                  "raised before anything is enqueued.");
  g_types.tuning = new_exception(m, "TuningError", error.ptr(), "A tuning database file or parameter value is wrong.");
  g_types.unsupported =
      new_exception(m, "UnsupportedDevice", error.ptr(), "The device lacks something the routine needs.");

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const clforge::OpenCLError& e) {
      raise_with(g_types.opencl, e.what(),
                 {{"code", py::int_(e.code())}, {"code_name", py::str(e.code_name())}, {"call", py::str(e.call())}});
    } catch (const clforge::BuildError& e) {
      raise_with(g_types.build, e.what(),
                 {{"build_log", py::str(e.build_log())},
                  {"options", py::str(e.options())},
                  {"kernel", py::str(e.kernel())},
                  {"origin", py::str(e.origin())},
                  {"device", py::str(e.device())}});
    } catch (const clforge::InvalidArgument& e) {
      PyErr_SetString(g_types.invalid, e.what());
    } catch (const clforge::TuningError& e) {
      PyErr_SetString(g_types.tuning, e.what());
    } catch (const clforge::UnsupportedDevice& e) {
      PyErr_SetString(g_types.unsupported, e.what());
    } catch (const clforge::Error& e) {
      PyErr_SetString(g_types.error, e.what());
    }
  });
}

}  // namespace clforge_py
