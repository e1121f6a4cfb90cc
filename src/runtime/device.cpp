// Device identity and selection: normalises every OpenCL device into the fields the tuning
// database keys on (vendor class, architecture, name, driver) and the limits that decide
// whether a configuration fits.
#include "clforge/device.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "clforge/errors.hpp"
#include "runtime/environment.hpp"
#include "runtime/errors.hpp"
#include "runtime/strings.hpp"

#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#endif
#ifndef CL_DEVICE_GFXIP_MAJOR_AMD
#define CL_DEVICE_GFXIP_MAJOR_AMD 0x404A
#define CL_DEVICE_GFXIP_MINOR_AMD 0x404B
#endif

namespace clforge {

const char* to_string(VendorClass v) {
  switch (v) {
    case VendorClass::NVIDIA:
      return "NVIDIA";
    case VendorClass::AMD:
      return "AMD";
    case VendorClass::Intel:
      return "Intel";
    case VendorClass::Apple:
      return "Apple";
    case VendorClass::CPU:
      return "CPU";
    default:
      return "Other";
  }
}

std::string DeviceInfo::index_string() const {
  return std::to_string(platform_index) + ":" + std::to_string(device_index);
}

namespace {

std::string str_info(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
  s.resize(std::strlen(s.c_str()));
  return detail::trim(s);
}

template <typename T>
T num_info(cl_device_id d, cl_device_info what, T fallback = T{}) {
  T v{};
  return clGetDeviceInfo(d, what, sizeof v, &v, nullptr) == CL_SUCCESS ? v : fallback;
}

bool has_extension(const std::string& exts, const char* name) {
  return (" " + exts + " ").find(std::string(" ") + name + " ") != std::string::npos;
}

VendorClass classify(const std::string& vendor, const std::string& platform, cl_device_type type) {
  if (type & CL_DEVICE_TYPE_CPU) return VendorClass::CPU;
  const std::string v = detail::to_lower(vendor + " " + platform);
  if (v.find("nvidia") != std::string::npos) return VendorClass::NVIDIA;
  if (v.find("advanced micro devices") != std::string::npos || v.find("amd") != std::string::npos)
    return VendorClass::AMD;
  if (v.find("intel") != std::string::npos) return VendorClass::Intel;
  if (v.find("apple") != std::string::npos) return VendorClass::Apple;
  return VendorClass::Other;
}

// The OpenCL ICD loader and PoCL 3.1 crash, or report no platform, when several threads make a
// process's first platform and device queries at once (a plain OpenCL program shows it too).
// clforge enumerates devices and creates contexts under one process-wide lock, so that callers
// may construct Sessions from many threads.
std::mutex& first_contact_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

DeviceInfo describe(const cl::Device& device) {
  cl_device_id d = device();
  DeviceInfo info;
  cl_platform_id p = num_info<cl_platform_id>(d, CL_DEVICE_PLATFORM);
  {
    std::size_t n = 0;
    if (clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &n) == CL_SUCCESS && n > 0) {
      std::string s(n, '\0');
      clGetPlatformInfo(p, CL_PLATFORM_NAME, n, s.data(), nullptr);
      info.platform_name = detail::trim(s.c_str());
    }
    if (clGetPlatformInfo(p, CL_PLATFORM_VERSION, 0, nullptr, &n) == CL_SUCCESS && n > 0) {
      std::string s(n, '\0');
      clGetPlatformInfo(p, CL_PLATFORM_VERSION, n, s.data(), nullptr);
      info.platform_version = detail::trim(s.c_str());
    }
  }
  info.name = str_info(d, CL_DEVICE_NAME);
  info.vendor = str_info(d, CL_DEVICE_VENDOR);
  info.driver_version = str_info(d, CL_DRIVER_VERSION);
  info.device_version = str_info(d, CL_DEVICE_VERSION);
  const auto type = num_info<cl_device_type>(d, CL_DEVICE_TYPE);
  info.type = (type & CL_DEVICE_TYPE_GPU)           ? "GPU"
              : (type & CL_DEVICE_TYPE_CPU)         ? "CPU"
              : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                    : "other";
  info.vendor_class = classify(info.vendor, info.platform_name, type);
  info.compute_units = num_info<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
  info.max_work_group_size = num_info<std::size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  const auto dims = num_info<cl_uint>(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
  info.max_work_item_sizes.assign(dims, 0);
  if (dims > 0)
    clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(std::size_t), info.max_work_item_sizes.data(),
                    nullptr);
  info.local_mem_size = num_info<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
  info.local_mem_dedicated = num_info<cl_device_local_mem_type>(d, CL_DEVICE_LOCAL_MEM_TYPE) == CL_LOCAL;
  info.global_mem_size = num_info<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.max_alloc_size = num_info<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info.max_clock_mhz = num_info<cl_uint>(d, CL_DEVICE_MAX_CLOCK_FREQUENCY);
  info.mem_base_addr_align_bits = num_info<cl_uint>(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
  info.profiling =
      (num_info<cl_command_queue_properties>(d, CL_DEVICE_QUEUE_PROPERTIES) & CL_QUEUE_PROFILING_ENABLE) != 0;

  const std::string exts = str_info(d, CL_DEVICE_EXTENSIONS);
  info.fp64 = has_extension(exts, "cl_khr_fp64");
  if (info.vendor_class == VendorClass::NVIDIA && has_extension(exts, "cl_nv_device_attribute_query")) {
    const auto major = num_info<cl_uint>(d, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV);
    const auto minor = num_info<cl_uint>(d, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV);
    if (major > 0) info.architecture = "sm_" + std::to_string(major) + std::to_string(minor);
  } else if (info.vendor_class == VendorClass::AMD) {
    // ROCm reports the gfx name as the device name and the marketing name via an extension.
    if (info.name.rfind("gfx", 0) == 0) info.architecture = info.name.substr(0, info.name.find(':'));
  } else if (info.vendor_class == VendorClass::CPU) {
    // PoCL: "... HSTR: pthread-x86_64-pc-linux-gnu-skylake-avx512" -> "x86_64-skylake-avx512".
    const auto h = info.device_version.find("HSTR:");
    if (h != std::string::npos) {
      std::string hstr = detail::trim(info.device_version.substr(h + 5));
      const auto gnu = hstr.find("-gnu-");
      const auto dash = hstr.find('-');
      const std::string isa =
          dash == std::string::npos ? hstr : hstr.substr(dash + 1, hstr.find('-', dash + 1) - dash - 1);
      info.architecture = gnu == std::string::npos ? isa : isa + "-" + hstr.substr(gnu + 5);
    }
  }
  return info;
}

std::vector<DeviceEntry> list_devices() {
  const std::lock_guard<std::mutex> lock(first_contact_mutex());
  std::vector<DeviceEntry> out;
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return out;
  std::vector<cl_platform_id> ps(np);
  clGetPlatformIDs(np, ps.data(), nullptr);
  for (cl_uint pi = 0; pi < np; ++pi) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(ps[pi], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ds(nd);
    clGetDeviceIDs(ps[pi], CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
    for (cl_uint di = 0; di < nd; ++di) {
      DeviceEntry e{cl::Platform(ps[pi], true), cl::Device(ds[di], true), {}};
      e.info = describe(e.device);
      e.info.platform_index = static_cast<int>(pi);
      e.info.device_index = static_cast<int>(di);
      out.push_back(std::move(e));
    }
  }
  return out;
}

namespace {

// The devices one selector matches (indices into `all`, in order): an index "N" or "P:D" (one
// device), "all", "gpu"/"cpu" or a vendor (every such device), else every device whose name,
// platform or vendor contains the text. Throws UnsupportedDevice when nothing matches.
std::vector<std::size_t> matching(const std::string& spec, const std::vector<DeviceEntry>& all) {
  const std::string s = detail::to_lower(detail::trim(spec));
  auto is_number = [](const std::string& t) {
    return !t.empty() && std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); });
  };
  if (is_number(s)) {
    const auto i = std::stoul(s);
    if (i < all.size()) return {i};
    throw UnsupportedDevice("device index " + s + " out of range: " + std::to_string(all.size()) + " devices found");
  }
  const auto colon = s.find(':');
  if (colon != std::string::npos && is_number(s.substr(0, colon)) && is_number(s.substr(colon + 1))) {
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i].info.index_string() == s) return {i};
    throw UnsupportedDevice("no device " + s + " (platform:device)");
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& e = all[i];
    if (s == "all" || (s == "gpu" && e.info.type == "GPU") || (s == "cpu" && e.info.type == "CPU") ||
        detail::to_lower(e.info.vendor_key()) == s)
      out.push_back(i);
  }
  if (!out.empty()) return out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& e = all[i];
    if (detail::to_lower(e.info.name).find(s) != std::string::npos ||
        detail::to_lower(e.info.platform_name).find(s) != std::string::npos ||
        detail::to_lower(e.info.vendor).find(s) != std::string::npos)
      out.push_back(i);
  }
  if (!out.empty()) return out;
  throw UnsupportedDevice("no OpenCL device matches '" + spec + "' (" + std::to_string(all.size()) +
                          " devices; see `clforge devices`)");
}

std::vector<DeviceEntry> listed_devices() {
  auto all = list_devices();
  if (all.empty()) throw UnsupportedDevice("no OpenCL device found (is an OpenCL driver such as PoCL installed?)");
  return all;
}

}  // namespace

DeviceEntry select_device(const std::string& spec_in) {
  std::string spec = spec_in;
  if (spec.empty()) spec = detail::env("CLFORGE_DEVICE").value_or("");
  auto all = listed_devices();
  if (spec.empty()) {
    for (auto& e : all)
      if (e.info.type == "GPU") return e;
    return all.front();
  }
  return all[matching(spec, all).front()];
}

namespace {

// A sub-device of `e` with `units` compute units (clCreateSubDevices by counts); the device
// itself when it has no more.
DeviceEntry part_of(const DeviceEntry& e, unsigned units, const std::string& token) {
  if (units >= e.info.compute_units) return e;
  const auto types = e.device.getInfo<CL_DEVICE_PARTITION_PROPERTIES>();
  if (std::find(types.begin(), types.end(), CL_DEVICE_PARTITION_BY_COUNTS) == types.end())
    throw InvalidArgument("device selector '" + token + "': " + e.info.name +
                          " cannot be partitioned by counts (no sub-devices)");
  const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_BY_COUNTS,
                                                static_cast<cl_device_partition_property>(units),
                                                CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  cl_device_id sub = nullptr;
  cl_uint got = 0;
  detail::check(clCreateSubDevices(e.device(), props, 1, &sub, &got), "clCreateSubDevices",
                std::to_string(units) + " compute units of " + e.info.name);
  DeviceEntry out{e.platform, cl::Device(sub, false), {}};
  out.info = describe(out.device);
  return out;
}

}  // namespace

std::vector<DeviceEntry> select_devices(const std::string& selectors) {
  auto all = listed_devices();
  std::vector<std::pair<std::size_t, unsigned>> picked;  // device index, compute units (0: all)
  std::size_t start = 0;
  while (start <= selectors.size()) {
    const std::size_t comma = std::min(selectors.find(',', start), selectors.size());
    std::string token = detail::trim(selectors.substr(start, comma - start));
    if (token.empty())
      throw InvalidArgument("device list '" + selectors + "': an empty entry (selectors are separated by commas)");
    unsigned units = 0;
    if (const std::size_t at = token.find('@'); at != std::string::npos) {
      const std::string count = token.substr(at + 1);
      char* end = nullptr;
      const unsigned long v = std::strtoul(count.c_str(), &end, 10);
      if (count.empty() || *end != '\0' || !std::isdigit(static_cast<unsigned char>(count[0])) || v < 1 || v > 65536)
        throw InvalidArgument("device selector '" + token + "': SELECTOR@N needs N, the compute units, in 1..65536");
      units = static_cast<unsigned>(v);
      token = detail::trim(token.substr(0, at));
    }
    for (std::size_t i : matching(token, all)) {
      const auto same = std::find_if(picked.begin(), picked.end(), [&](const auto& p) { return p.first == i; });
      if (same == picked.end())
        picked.emplace_back(i, units);
      else if (same->second != units)
        throw InvalidArgument("device list '" + selectors + "': " + all[i].info.name +
                              " is selected with two different compute-unit counts");
    }
    start = comma + 1;
  }
  std::vector<DeviceEntry> out;
  for (const auto& [i, units] : picked) out.push_back(units ? part_of(all[i], units, selectors) : all[i]);
  return out;
}

Session::Session(const std::string& spec) : Session(select_device(spec)) {}

Session::Session(DeviceEntry e) : entry(std::move(e)) {
  cl_int st = CL_SUCCESS;
  cl_device_id d = entry.device();
  cl_context ctx = nullptr;
  {
    const std::lock_guard<std::mutex> lock(first_contact_mutex());
    ctx = clCreateContext(nullptr, 1, &d, nullptr, nullptr, &st);
  }
  detail::check(st, "clCreateContext", "for " + entry.info.name);
  context = cl::Context(ctx, false);
  cl_command_queue q = clCreateCommandQueue(ctx, d, CL_QUEUE_PROFILING_ENABLE, &st);
  detail::check(st, "clCreateCommandQueue", "for " + entry.info.name);
  queue = cl::CommandQueue(q, false);
}

}  // namespace clforge
