// Device identity: every OpenCL device normalised into vendor class, type, architecture and
// limits, and device selection by index or text ("nvidia", "cpu", "0:1", a name substring).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "clforge/opencl.hpp"

namespace clforge {

/// Vendor class used for tuning lookups. CPU devices of any vendor are class CPU.
enum class VendorClass { NVIDIA, AMD, Intel, Apple, CPU, Other };
const char* to_string(VendorClass v);

/// What clforge knows of a device: identity for the tuning database and the limits that
/// decide whether a kernel configuration fits.
struct DeviceInfo {
  int platform_index = -1;  ///< index in clforge's platform enumeration
  int device_index = -1;    ///< index within that platform
  std::string platform_name;
  std::string platform_version;
  std::string name;    ///< CL_DEVICE_NAME, trimmed
  std::string vendor;  ///< CL_DEVICE_VENDOR as reported
  VendorClass vendor_class = VendorClass::Other;
  std::string type;          ///< "GPU", "CPU", "accelerator", "other"
  std::string architecture;  ///< "sm_90", "gfx90a", "" when unknown
  std::string driver_version;
  std::string device_version;
  unsigned compute_units = 0;
  std::size_t max_work_group_size = 0;
  std::vector<std::size_t> max_work_item_sizes;
  std::uint64_t local_mem_size = 0;
  bool local_mem_dedicated = false;  ///< CL_LOCAL vs CL_GLOBAL local memory
  std::uint64_t global_mem_size = 0;
  std::uint64_t max_alloc_size = 0;
  unsigned max_clock_mhz = 0;
  unsigned mem_base_addr_align_bits = 0;
  bool profiling = false;  ///< queue profiling supported (always true in practice)
  bool fp64 = false;       ///< double precision in kernels (cl_khr_fp64)

  /// "platform:device" index string, e.g. "0:1".
  std::string index_string() const;
  /// Vendor class for the tuning database: "NVIDIA", "AMD", "Intel", "CPU", ...
  std::string vendor_key() const { return to_string(vendor_class); }
};

/// Reads the identity of one device.
DeviceInfo describe(const cl::Device& device);

/// A device found on this machine, with its identity.
struct DeviceEntry {
  cl::Platform platform;
  cl::Device device;
  DeviceInfo info;
};

/// Every OpenCL device on every platform, in platform then device order. Empty if there is
/// no OpenCL platform at all (no exception).
std::vector<DeviceEntry> list_devices();

/// Chooses a device. spec is empty (take CLFORGE_DEVICE, else the first GPU, else the
/// first device), an index "N" into list_devices(), "P:D" platform and device indices,
/// "gpu"/"cpu", a vendor ("nvidia", "amd", "intel") or a case-insensitive substring of the
/// device or platform name. Throws UnsupportedDevice naming the spec when nothing matches.
DeviceEntry select_device(const std::string& spec = {});

/// Every device a comma-separated list of selectors picks, each device once, in the order of
/// first match. A selector is one of select_device()'s, but "gpu", "cpu", a vendor or a name
/// substring picks every device it matches, and "all" picks every device. "SELECTOR@N" takes N
/// compute units of each device it matches (an OpenCL sub-device, e.g. "nvidia,cpu@12": a CPU
/// device on 12 cores, leaving the others to the host threads that feed the GPU; the whole
/// device when it has no more than N). Throws UnsupportedDevice naming a selector that matches
/// nothing, InvalidArgument for an empty entry, a bad N, a device picked with two counts, or a
/// device that cannot be partitioned.
std::vector<DeviceEntry> select_devices(const std::string& selectors);

/// A context and an in-order profiling queue on one device: what the CLI, the benchmarks
/// and the tests use. Library routines take any cl::CommandQueue.
struct Session {
  DeviceEntry entry;
  cl::Context context;
  cl::CommandQueue queue;
  explicit Session(const std::string& spec = {});
  explicit Session(DeviceEntry e);
};

}  // namespace clforge
