// The user tuning database's writers and readers beside the lookup: checking it before a tune,
// storing a tuned row (store_user_entry) and the device's measured peaks (store_device_peaks,
// stored_device_peaks). Writes are atomic and one at a time within the process; a file that does
// not parse or validate is never overwritten (TuningError names it).
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "clforge/errors.hpp"
#include "clforge/runtime.hpp"
#include "clforge/tuning.hpp"
#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "runtime/hashing.hpp"
#include "runtime/log.hpp"
#include "runtime/sources.hpp"
#include "runtime/strings.hpp"
#include "tuning/db_files.hpp"
#include "tuning/nearest.hpp"
#include "tuning/spec.hpp"

namespace clforge {

namespace detail {
void check_user_database(const DeviceInfo& device) {
  const std::string path = user_database_path(device);
  const auto text = read_file(path);
  if (!text) return;
  try {
    parse_database(*text, path, {});
  } catch (const TuningError& e) {
    throw TuningError(std::string(e.what()) + "; the user tuning database is not overwritten: fix or remove it");
  }
}

namespace {
// Writers of user databases, one at a time within the process.
std::mutex g_user_write_mutex;

// The user database at `path` as JSON, validated (an invalid file is never overwritten: TuningError
// names it), or an empty one with the device's identity.
nlohmann::json read_user_database(const std::string& path, const DeviceInfo& device) {
  nlohmann::json j;
  if (const auto text = read_file(path)) {
    try {
      j = nlohmann::json::parse(*text);
      parse_database(*text, path, {});
    } catch (const TuningError&) {
      throw;
    } catch (const std::exception& e) {
      throw TuningError("user tuning database " + path + " cannot be parsed (" + e.what() +
                        "); not overwritten: fix or remove it");
    }
  } else {
    j = nlohmann::json::object();
    j["entries"] = nlohmann::json::array();
  }
  j["device"] = device.name;
  j["platform"] = device.platform_name;
  j["driver"] = device.driver_version;
  return j;
}

std::string utc_now() {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}
}  // namespace
}  // namespace detail

void store_user_entry(const DeviceInfo& device, const std::string& kernel, const std::string& variant,
                      const ParamMap& values, const std::string& note) {
  using namespace detail;
  const KernelSpec& spec = kernel_spec(kernel);
  for (const auto& [n, v] : values) {
    const ParamInfo* p = spec.find(n);
    if (p == nullptr) throw InvalidArgument("unknown parameter '" + n + "' for kernel " + kernel);
    if (std::find(p->legal.begin(), p->legal.end(), v) == p->legal.end())
      throw InvalidArgument("parameter " + n + "=" + std::to_string(v) + " is not legal for kernel " + kernel);
  }
  const std::string path = user_database_path(device);
  std::lock_guard<std::mutex> lock(g_user_write_mutex);
  nlohmann::json j = read_user_database(path, device);
  auto& entries = j["entries"];
  nlohmann::json fresh = nlohmann::json::object();
  fresh["kernel"] = kernel;
  fresh["variant"] = variant.empty() ? "*" : variant;
  fresh["device"] = device.name;
  fresh["params"] = nlohmann::json::object();
  for (const auto& [n, v] : values) fresh["params"][n] = v;
  if (!note.empty()) fresh["note"] = note;
  fresh["date"] = utc_now();
  // The row carries the peaks of the device it was tuned on, for the devices that take it as
  // the nearest by peaks (a tuning file shared with them).
  if (j.contains("peaks")) fresh["peaks"] = j["peaks"];
  bool replaced = false;
  for (auto& e : entries) {
    if (e.value("kernel", "") == kernel && e.value("variant", "*") == fresh["variant"] &&
        e.value("device", "") == device.name) {
      e = fresh;
      replaced = true;
    }
  }
  if (!replaced) entries.push_back(fresh);
  write_file_atomic(path, j.dump(2) + "\n");
}

void store_device_peaks(const DeviceInfo& device, double copy_gbs, double fma_gflops) {
  using namespace detail;
  if (!std::isfinite(copy_gbs) || copy_gbs <= 0 || !std::isfinite(fma_gflops) || fma_gflops <= 0)
    throw InvalidArgument("device peaks must be positive numbers (copy " + std::to_string(copy_gbs) + " GB/s, FMA " +
                          std::to_string(fma_gflops) + " GFLOP/s)");
  const std::string path = user_database_path(device);
  std::lock_guard<std::mutex> lock(g_user_write_mutex);
  nlohmann::json j = read_user_database(path, device);
  j["peaks"] = {{"copy_gbs", copy_gbs},
                {"fma_gflops", fma_gflops},
                {"type", device.type.empty() ? std::string("other") : device.type},
                {"device", device.name},
                {"vendor", device.vendor_key()},
                {"date", utc_now()}};
  write_file_atomic(path, j.dump(2) + "\n");
}

std::optional<DevicePeaks> stored_device_peaks(const DeviceInfo& device) {
  using namespace detail;
  const std::string path = user_database_path(device);
  const auto text = read_file(path);
  if (!text) return std::nullopt;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(*text);
  } catch (const std::exception& e) {
    throw TuningError("tuning file " + path + ": not valid JSON: " + e.what());
  }
  if (!j.is_object() || !j.contains("peaks")) return std::nullopt;
  const Peaks p = parse_peaks(j["peaks"], "tuning file " + path);
  return DevicePeaks{p.copy_gbs, p.fma_gflops};
}

}  // namespace clforge
