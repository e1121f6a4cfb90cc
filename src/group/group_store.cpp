// The group store (group_store.hpp): the shipped chunk sizes and queues, and the JSON file of
// what `clforge tune group` chose and SplitMode::Auto measured, per device and key:
//   { "devices": [ { "device": "...", "platform": "...", "driver": "...",
//                    "records": { "fft": { "chunk_kib": 16384, "queues": 3, "note": "..." },
//                                 "fft:n=1024": { "rate": 5120.4, "alone": 9800.0, ... } } } ] }
// Read like the user tuning databases: a file that cannot be used is an error naming it and how
// to run without it; written like them, through a temp file and rename.
#include "group/group_store.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "clforge/errors.hpp"
#include "clforge/runtime.hpp"
#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "runtime/hashing.hpp"
#include "runtime/strings.hpp"

namespace clforge::detail {

namespace {

// The shipped chunk sizes (host KiB a chunk moves, at most) and queues per device, by vendor
// class and routine ("": every routine); a routine's row gives what differs from its class's
// (0: the class's value). Each with what it rests on (docs/group.md tells more).
struct ChunkDefault {
  const char* vendor;
  const char* routine;
  int chunk_kib, queues;
  const char* why;
};
constexpr ChunkDefault kChunkDefaults[] = {
    {"default", "", 8192, 3, "reasoned: 8 MiB keeps a 50 GB/s link busy 160 us; 3 queues overlap up, compute, down"},
    {"NVIDIA", "", 8192, 3, "H100, tune group, pageable, 2026-11-26: within 3 % of the best for FFT and transpose"},
    {"NVIDIA", "sgemm", 65536, 0, "reasoned: a block of C columns must give the GPU several waves of tiles"},
    {"NVIDIA", "blur", 65536, 0, "H100, 8192^2 sigma 5, 2026-11-26: bands carry halo rows, 1.24x faster than 8 MiB"},
    {"AMD", "", 8192, 3, "reasoned, as the default"},
    {"AMD", "sgemm", 65536, 0, "reasoned, as NVIDIA's SGEMM"},
    {"Intel", "", 4096, 3, "reasoned, not measured"},
    {"CPU", "", 4096, 2, "reasoned: host copies, not transfers; 4 MiB stays in a last-level cache copy to kernel"},
    {"CPU", "blur", 32768, 0, "H100 machine's CPU beside the H100, 8192^2 sigma 5, 2026-11-26: 1.16x, 64 MiB 1.03x"},
    {"CPU", "fft", 16384, 3, "H100 machine's CPU, 512 MiB, 2026-11-26: 30.0 ms at n = 1024, 4 MiB x 2 40.5"},
};

const char* const kBypass =
    "fix or remove the file, or run without the user database (CLFORGE_TUNING=off, --no-user-tuning, "
    "Tuning::user_database = false)";

std::string device_id(const DeviceInfo& d) { return d.name + '\n' + d.platform_name + '\n' + d.driver_version; }

using Records = std::map<std::string, GroupRecord>;
struct Parsed {
  std::map<std::string, Records> devices;  // by device_id
};

// The problem with a field's value ("" when it is fine); 0 is "not stored" for every field.
std::string field_problem(const std::string& name, double v) {
  if (!std::isfinite(v) || v < 0) return "must be a finite number >= 0";
  const bool integral = v == std::floor(v);
  if (name == "rate" || name == "alone" || name == "split") return {};
  if (name == "share") return integral && v <= 100 ? "" : "must be an integer in 0..100";
  if (name == "queues")
    return integral && v <= kGroupQueuesMax ? "" : "must be an integer in 0.." + std::to_string(kGroupQueuesMax);
  if (name == "chunk_kib") {
    const auto& legal = group_chunk_kib_legal();
    if (v == 0 || (integral && std::find(legal.begin(), legal.end(), static_cast<int>(v)) != legal.end())) return {};
    return "must be a power of two from 64 to 65536";
  }
  return "is no field of a record (chunk_kib, queues, rate, alone, split, share, note)";
}

void set_field(GroupRecord& r, const std::string& name, double v) {
  if (name == "chunk_kib") r.chunk_kib = static_cast<int>(v);
  if (name == "queues") r.queues = static_cast<int>(v);
  if (name == "rate") r.rate = v;
  if (name == "alone") r.alone = v;
  if (name == "split") r.split = v;
  if (name == "share") r.share = static_cast<int>(v);
}

Records parse_records(const nlohmann::json& jr, const std::string& where) {
  if (!jr.is_object()) throw TuningError(where + ": \"records\" must be an object");
  Records out;
  for (auto it = jr.begin(); it != jr.end(); ++it) {
    const std::string at = where + ", record \"" + it.key() + "\"";
    if (!it->is_object()) throw TuningError(at + ": not an object");
    GroupRecord& r = out[it.key()];
    for (auto f = it->begin(); f != it->end(); ++f) {
      if (f.key() == "note") continue;
      if (!f->is_number()) throw TuningError(at + ": \"" + f.key() + "\" must be a number");
      const double v = f->get<double>();
      const std::string bad = field_problem(f.key(), v);
      if (!bad.empty()) throw TuningError(at + ": \"" + f.key() + "\" " + bad);
      set_field(r, f.key(), v);
    }
  }
  return out;
}

// Parses and validates the whole file; TuningError naming the file and the place.
Parsed parse_store(const std::string& text, const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw TuningError("group store " + path + ": not valid JSON: " + e.what());
  }
  if (!j.is_object() || !j.contains("devices") || !j["devices"].is_array())
    throw TuningError("group store " + path + ": expected an object with a \"devices\" array");
  Parsed p;
  std::size_t i = 0;
  for (const auto& jd : j["devices"]) {
    const std::string where = "group store " + path + ": devices[" + std::to_string(i++) + "]";
    if (!jd.is_object()) throw TuningError(where + ": not an object");
    for (const char* k : {"device", "platform", "driver"})
      if (!jd.contains(k) || !jd[k].is_string()) throw TuningError(where + ": no \"" + std::string(k) + "\" string");
    DeviceInfo d;
    d.name = jd["device"].get<std::string>();
    d.platform_name = jd["platform"].get<std::string>();
    d.driver_version = jd["driver"].get<std::string>();
    p.devices[device_id(d)] = jd.contains("records") ? parse_records(jd["records"], where) : Records{};
  }
  return p;
}

// The parsed file, kept while its stamp (or, for a file written a moment ago, its content) is
// unchanged: every group call reads it.
std::shared_ptr<const Parsed> load_store(const std::string& path) {
  static std::mutex mutex;
  static std::string cached_path, cached_error;
  static FileStamp cached_stamp;
  static std::uint64_t cached_hash = 0;
  static std::shared_ptr<const Parsed> cached;
  static const auto empty = std::make_shared<const Parsed>();
  const FileStamp st = stamp_of_reused(path);
  if (st.size < 0) return empty;
  const std::lock_guard<std::mutex> lock(mutex);
  const bool same_file = path == cached_path && (cached || !cached_error.empty());
  if (!(same_file && st == cached_stamp && !st.recent())) {
    const auto text = read_file(path);
    if (!text) return empty;
    const std::uint64_t hash = fnv1a(*text);
    if (!(same_file && hash == cached_hash)) {
      cached.reset();
      cached_error.clear();
      try {
        cached = std::make_shared<const Parsed>(parse_store(*text, path));
      } catch (const TuningError& e) {
        cached_error = e.what();
      }
      cached_path = path, cached_hash = hash;
    }
    cached_stamp = st;
  }
  if (!cached) throw TuningError(cached_error + " (group calls cannot use the group store: " + kBypass + ")");
  return cached;
}

// The stored JSON to add a record to: the file's, validated, or a new one.
nlohmann::json store_json(const std::string& path) {
  const auto text = read_file(path);
  if (!text)
    return {{"comment", "clforge group calls: chunk sizes, queues and Auto's rates per device (docs/group.md)"},
            {"devices", nlohmann::json::array()}};
  try {
    parse_store(*text, path);
    return nlohmann::json::parse(*text);
  } catch (const std::exception& e) {
    throw TuningError(std::string(e.what()) + "; the group store is not overwritten: fix or remove it");
  }
}

nlohmann::json& device_json(nlohmann::json& j, const DeviceInfo& device) {
  for (auto& jd : j["devices"])
    if (jd["device"] == device.name && jd["platform"] == device.platform_name && jd["driver"] == device.driver_version)
      return jd;
  j["devices"].push_back(
      {{"device", device.name}, {"platform", device.platform_name}, {"driver", device.driver_version}});
  return j["devices"].back();
}

}  // namespace

const std::vector<int>& group_chunk_kib_legal() {
  static const std::vector<int> legal = {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
  return legal;
}

std::string group_store_path() { return user_tuning_dir() + "/" + kGroupStoreName; }

bool group_store_enabled(const Tuning& tuning) {
  return tuning.user_database && env_bool("CLFORGE_TUNING").value_or(true);
}

GroupRecord group_record(const DeviceInfo& device, const std::string& key) {
  const auto parsed = load_store(group_store_path());
  const auto d = parsed->devices.find(device_id(device));
  if (d == parsed->devices.end()) return {};
  const auto r = d->second.find(key);
  return r == d->second.end() ? GroupRecord{} : r->second;
}

std::map<std::string, GroupRecord> group_records(const DeviceInfo& device) {
  const auto parsed = load_store(group_store_path());
  const auto d = parsed->devices.find(device_id(device));
  return d == parsed->devices.end() ? Records{} : d->second;
}

void store_group_record(const DeviceInfo& device, const std::string& key, const GroupRecord& record, unsigned fields,
                        const std::string& note) {
  const std::pair<GroupField, std::pair<const char*, double>> all[] = {
      {kFieldChunkKib, {"chunk_kib", static_cast<double>(record.chunk_kib)}},
      {kFieldQueues, {"queues", static_cast<double>(record.queues)}},
      {kFieldRate, {"rate", record.rate}},
      {kFieldAlone, {"alone", record.alone}},
      {kFieldSplit, {"split", record.split}},
      {kFieldShare, {"share", static_cast<double>(record.share)}}};
  for (const auto& [field, nv] : all) {
    const std::string bad = fields & field ? field_problem(nv.first, nv.second) : "";
    if (!bad.empty()) throw InvalidArgument("group store: " + key + " " + nv.first + " " + bad);
  }
  const std::string path = group_store_path();
  static std::mutex write_mutex;
  const std::lock_guard<std::mutex> lock(write_mutex);
  nlohmann::json j = store_json(path);
  nlohmann::json& jd = device_json(j, device);
  nlohmann::json& jr = jd["records"][key];
  if (!jr.is_object()) jr = nlohmann::json::object();
  for (const auto& [field, nv] : all) {
    if (!(fields & field)) continue;
    if (nv.second == 0)
      jr.erase(nv.first);
    else if (field == kFieldRate || field == kFieldAlone || field == kFieldSplit)
      jr[nv.first] = nv.second;
    else
      jr[nv.first] = static_cast<int>(nv.second);
  }
  if (!note.empty()) jr["note"] = note;
  write_file_atomic(path, j.dump(2) + "\n");
}

ChunkChoice chunk_choice(const DeviceInfo& device, const std::string& routine, bool use_store) {
  ChunkChoice c;
  if (use_store) {
    const GroupRecord r = group_record(device, routine);
    if (r.chunk_kib) c.chunk_kib = r.chunk_kib, c.chunk_source = "group store " + group_store_path();
    if (r.queues) c.queues = r.queues, c.queues_source = "group store " + group_store_path();
  }
  // The shipped rows that apply, most specific first: the device's vendor class before
  // "default", the routine's row before its class's.
  const std::string vendor = to_lower(device.vendor_key());
  for (int pass = 0; pass < 4; ++pass) {
    const bool own_class = pass < 2, own_routine = pass % 2 == 0;
    for (const ChunkDefault& row : kChunkDefaults) {
      if (own_class ? to_lower(row.vendor) != vendor : std::string(row.vendor) != "default") continue;
      if (own_routine ? routine != row.routine : row.routine[0] != '\0') continue;
      const std::string source =
          std::string("shipped [") + row.vendor + (row.routine[0] ? std::string(", ") + row.routine : "") + "]";
      if (!c.chunk_kib && row.chunk_kib) c.chunk_kib = row.chunk_kib, c.chunk_source = source;
      if (!c.queues && row.queues) c.queues = row.queues, c.queues_source = source;
    }
  }
  return c;
}

}  // namespace clforge::detail
