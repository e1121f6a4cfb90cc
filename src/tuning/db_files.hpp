// Tuning database files: their entries, the strict (shipped) and lenient (user, tuning file)
// parse, and the loaded files kept while their stamp or content hash is unchanged.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "clforge/device.hpp"
#include "clforge/tuning.hpp"
#include "runtime/strings.hpp"
#include "tuning/spec.hpp"

namespace clforge::detail {

enum class Level { Default = 0, Vendor = 1, Architecture = 2, Device = 3 };

// The measured peaks of a device (`clforge peak`): the device's own, stored beside the rows of its
// user database, or those of the device a row was tuned on. device and vendor (the vendor class)
// are optional; type is the DeviceInfo::type the figures were measured on.
struct Peaks {
  double copy_gbs = 0, fma_gflops = 0;
  std::string type, device, vendor;
};

struct Entry {
  std::string kernel, variant = "*";
  std::string device, architecture, vendor, device_vendor;
  ParamMap params;
  std::optional<Peaks> peaks;  // those of the device the row was tuned on, when it carries them
  std::string file;
  // A user or tuning-file entry that failed validation: lookups of its kernel (of every kernel
  // when empty: the file itself is unreadable) throw this message instead of running.
  std::string error;
  Level level() const {
    return !device.empty()         ? Level::Device
           : !architecture.empty() ? Level::Architecture
           : !vendor.empty()       ? Level::Vendor
                                   : Level::Default;
  }
  bool matches(const DeviceInfo& d) const {
    if (!device.empty() && device != d.name) return false;
    if (!architecture.empty() && architecture != d.architecture) return false;
    if (!vendor.empty() && to_lower(vendor) != to_lower(d.vendor_key())) return false;
    if (!device_vendor.empty() && to_lower(device_vendor) != to_lower(d.vendor)) return false;
    return true;
  }
  std::string label() const {
    std::string l = level() == Level::Device         ? "device \"" + device + "\""
                    : level() == Level::Architecture ? "architecture " + architecture
                    : level() == Level::Vendor       ? "vendor " + vendor
                                                     : "default";
    if (!device_vendor.empty()) l += " (" + device_vendor + ")";
    if (variant != "*") l += ", variant " + variant;
    return l;
  }
};

using Entries = std::vector<Entry>;

// Parsed files, shared (never copied) by the calls that read them.
using EntriesPtr = std::shared_ptr<const Entries>;

// One database as a lookup saw it: its entries, the device peaks it holds (a user database's
// top-level "peaks"), and a version that changes with its contents (from the file's stamp, or
// from its contents where the file was written a moment ago).
struct Loaded {
  EntriesPtr entries = std::make_shared<const Entries>();
  std::optional<Peaks> peaks;
  std::uint64_t version = 0;
};

/// Parses and validates one database file. Every problem names the file and the key. Strict
/// (shipped files): the first problem throws TuningError. Lenient (user and tuning files): a bad
/// entry becomes an error entry of its kernel, so that other kernels still run; a bad top-level
/// "peaks" object an error entry of every kernel (every lookup reads the peaks). The file's peaks
/// go to *peaks where given.
Entries parse_database(const std::string& text, const std::string& file, const std::string& default_kernel,
                       bool lenient = false, std::optional<Peaks>* peaks = nullptr);
/// A "peaks" object: copy_gbs and fma_gflops positive numbers, type a string, device and vendor
/// optional strings, date and comment informational. TuningError names `where` and the key.
Peaks parse_peaks(const nlohmann::json& j, const std::string& where);
/// A user or tuning file (lenient), cached by its stamp; TuningError when must_exist and unreadable.
Loaded load_file_entries(const std::string& path, const std::string& default_kernel, bool must_exist);
/// A kernel's shipped database (strict), cached by its origin and content hash.
Loaded load_shipped(const KernelSpec& spec);

}  // namespace clforge::detail
