// What every part of the Python module shares: pyopencl queues, buffers and events wrapped as CLHPP
// objects (each holding its own retained reference), the tuning argument, NumPy array checks,
// and the registration functions of the module's parts (module.cpp calls them).
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <clforge/clforge.hpp>
#include <string>

namespace clforge_py {
namespace py = pybind11;

/// A pyopencl.CommandQueue as a cl::CommandQueue sharing its handle. TypeError for anything else.
cl::CommandQueue to_queue(const py::handle& obj);
/// A pyopencl.Buffer (or a pyopencl.array.Array without offset, through its .data) as a
/// cl::Buffer; None is the null buffer. TypeError naming `what` for anything else.
cl::Buffer to_buffer(const py::handle& obj, const char* what);
/// None or an iterable of pyopencl.Event as an EventList.
clforge::EventList to_events(const py::handle& wait_for);
/// The event as a pyopencl.Event with its own reference (None for a null event).
py::object to_pyopencl_event(const cl::Event& event);
/// The tuning argument of every routine: None, a dict {name: value} of overrides, or a
/// clforge.Tuning.
clforge::Tuning to_tuning(const py::handle& obj);

/// The name of an object's type, for messages.
std::string type_name(const py::handle& obj);
/// str(obj), for messages.
std::string text(const py::handle& obj);
/// Throws clforge::InvalidArgument("<routine>: <message>"), mapped to clforge.InvalidArgument.
[[noreturn]] void invalid(const std::string& routine, const std::string& message);
/// `obj` as a C-contiguous NumPy array of `ndim` dimensions (either of two when ndim_alt >= 0):
/// TypeError when it is not an array, InvalidArgument for other dimensions or a strided array.
/// obj as a NumPy array; TypeError naming routine and name when it is not one.
py::array numpy_array(const py::handle& obj, const char* routine, const char* name);
py::array checked_array(const py::handle& obj, const char* routine, const char* name, int ndim, int ndim_alt = -1);
/// TypeError unless the array's dtype is `want` (byte order included).
void require_dtype(const py::array& a, const py::dtype& want, const char* routine, const char* name);

/// A string or a member of the bound enum E (parse turns strings into E).
template <typename E>
E enum_arg(const py::handle& obj, E (*parse)(const std::string&), const char* what) {
  if (py::isinstance<py::str>(obj)) return parse(obj.cast<std::string>());
  if (!py::isinstance<E>(obj))
    throw py::type_error(std::string(what) + " must be a string or a clforge enum value (got " + type_name(obj) + ")");
  return obj.cast<E>();
}

void register_exceptions(py::module_& m);
void register_device(py::module_& m);
void register_arrays(py::module_& m);
void register_plans(py::module_& m);
void register_tune(py::module_& m);
void register_group(py::module_& m);

}  // namespace clforge_py
