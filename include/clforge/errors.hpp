// The exceptions clforge throws. Every failure is one of these types; what() opens with
// one line naming the problem, followed by details (a build log, the file at fault).
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace clforge {

/// Base of every clforge exception.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// An OpenCL call failed. code() is the cl_int status, code_name() its symbolic name,
/// call() the API function ("clEnqueueNDRangeKernel").
class OpenCLError : public Error {
 public:
  OpenCLError(int code, std::string call, const std::string& context = {});
  int code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }
  std::string code_name() const;

 private:
  int code_;
  std::string call_;
};

/// A kernel failed to compile. Carries the compiler's log, the options, the kernel file,
/// where its source came from (override dir, share dir, embedded) and the device name.
class BuildError : public Error {
 public:
  BuildError(const std::string& what, std::string log, std::string options, std::string kernel, std::string origin,
             std::string device)
      : Error(what),
        log_(std::move(log)),
        options_(std::move(options)),
        kernel_(std::move(kernel)),
        origin_(std::move(origin)),
        device_(std::move(device)) {}
  const std::string& build_log() const noexcept { return log_; }
  const std::string& options() const noexcept { return options_; }
  const std::string& kernel() const noexcept { return kernel_; }
  const std::string& origin() const noexcept { return origin_; }
  const std::string& device() const noexcept { return device_; }

 private:
  std::string log_, options_, kernel_, origin_, device_;
};

/// A bad argument: sizes, leading dimensions, null or too-small buffers, unknown parameter
/// names. Thrown before anything is enqueued.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// A tuning database file or a parameter value is wrong: unreadable JSON, unknown names,
/// values out of range, illegal combinations. The message names the file and the key.
class TuningError : public Error {
 public:
  using Error::Error;
};

/// The device lacks something the routine needs (no device at all, too little local memory
/// for any configuration, a missing extension).
class UnsupportedDevice : public Error {
 public:
  using Error::Error;
};

/// A device of a DeviceGroup failed during a group call (clforge/group.hpp). what() names the
/// device, the chunk and its items, then the device's own error. The other devices stopped
/// taking chunks, all enqueued work was waited for, and the outputs of every chunk that did
/// not finish are NaN (0xFF bytes).
class DeviceFailure : public Error {
 public:
  DeviceFailure(const std::string& what, std::size_t device, std::string device_name, std::size_t chunk,
                std::size_t first_item, std::size_t items)
      : Error(what),
        device_(device),
        device_name_(std::move(device_name)),
        chunk_(chunk),
        first_item_(first_item),
        items_(items) {}
  std::size_t device() const noexcept { return device_; }  ///< index in the group
  const std::string& device_name() const noexcept { return device_name_; }
  std::size_t chunk() const noexcept { return chunk_; }
  std::size_t first_item() const noexcept { return first_item_; }
  std::size_t items() const noexcept { return items_; }

 private:
  std::size_t device_;
  std::string device_name_;
  std::size_t chunk_, first_item_, items_;
};

/// Symbolic name of an OpenCL status code ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR".
std::string cl_error_name(int code);

}  // namespace clforge
