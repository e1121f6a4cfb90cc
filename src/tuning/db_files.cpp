// Tuning database files (see db_files.hpp): parsing, validation and the cache of parsed files.
#include "tuning/db_files.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "clforge/errors.hpp"
#include "clforge/runtime.hpp"
#include "runtime/files.hpp"
#include "runtime/hashing.hpp"
#include "runtime/sources.hpp"
#include "runtime/strings.hpp"

namespace clforge::detail {

namespace {
// A parsed file: its entries and its device peaks.
struct ParsedFile {
  Entries entries;
  std::optional<Peaks> peaks;
};
using ParsedPtr = std::shared_ptr<const ParsedFile>;

// Parsed files by key, with the version they were parsed at.
std::mutex g_db_mutex;
std::map<std::string, std::pair<std::uint64_t, ParsedPtr>> g_parsed;
}  // namespace

Peaks parse_peaks(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw TuningError(where + ": \"peaks\" must be an object");
  Peaks p;
  bool copy = false, fma = false;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const std::string at = where + ": \"peaks\"." + key;
    if (key == "copy_gbs" || key == "fma_gflops") {
      if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0)
        throw TuningError(at + " must be a positive number");
      (key == "copy_gbs" ? p.copy_gbs : p.fma_gflops) = it->get<double>();
      (key == "copy_gbs" ? copy : fma) = true;
    } else if (key == "type" || key == "device" || key == "vendor" || key == "date" || key == "comment") {
      if (!it->is_string()) throw TuningError(at + " must be a string");
      if (key == "type") p.type = it->get<std::string>();
      if (key == "device") p.device = it->get<std::string>();
      if (key == "vendor") p.vendor = it->get<std::string>();
    } else {
      throw TuningError(where + ": unknown key \"peaks\"." + key);
    }
  }
  if (!copy || !fma || p.type.empty()) throw TuningError(where + ": \"peaks\" needs copy_gbs, fma_gflops and type");
  return p;
}

// One entry of a file, validated against its kernel's declared space (TuningError naming the key).
Entry parse_entry(const nlohmann::json& je, const std::string& where, const std::string& file,
                  const std::string& file_kernel);

namespace {
// Entries of kernel "group" (the group calls' chunk sizes, queues and Auto's rates, which older
// user databases hold; the group store keeps them, src/group/group_store.hpp) are skipped, so
// that such a database still loads and takes new entries.
bool holds_group_settings(const nlohmann::json& je, const std::string& file_kernel) {
  const std::string kernel = je.is_object() && je.contains("kernel") && je["kernel"].is_string()
                                 ? je["kernel"].get<std::string>()
                                 : file_kernel;
  return kernel == "group";
}
}  // namespace

Entries parse_database(const std::string& text, const std::string& file, const std::string& default_kernel,
                       bool lenient, std::optional<Peaks>* peaks) {
  nlohmann::json j;
  std::string file_kernel = default_kernel;
  try {
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw TuningError("tuning file " + file + ": not valid JSON: " + e.what());
    }
    if (!j.is_object() || !j.contains("entries") || !j["entries"].is_array())
      throw TuningError("tuning file " + file + ": expected an object with an \"entries\" array");
    if (j.contains("kernel")) {
      if (!j["kernel"].is_string()) throw TuningError("tuning file " + file + ": \"kernel\" must be a string");
      file_kernel = j["kernel"].get<std::string>();
    }
  } catch (const TuningError& e) {
    if (!lenient) throw;
    Entry bad;
    bad.file = file;
    bad.error = e.what();
    return {bad};
  }
  Entries out;
  if (j.contains("peaks")) {
    try {
      const Peaks p = parse_peaks(j["peaks"], "tuning file " + file);
      if (peaks != nullptr) *peaks = p;
    } catch (const TuningError& e) {
      if (!lenient) throw;
      Entry bad;  // of every kernel: each lookup reads the device's peaks
      bad.file = file;
      bad.error = e.what();
      out.push_back(std::move(bad));
    }
  }
  std::size_t idx = 0;
  for (const auto& je : j["entries"]) {
    const std::string where = "tuning file " + file + ": entries[" + std::to_string(idx++) + "]";
    if (holds_group_settings(je, file_kernel)) continue;
    try {
      out.push_back(parse_entry(je, where, file, file_kernel));
    } catch (const TuningError& e) {
      if (!lenient) throw;
      Entry bad;
      bad.file = file;
      bad.error = e.what();
      // The entry's kernel if it names a known one, else every kernel (a misspelt name may
      // have been meant for any of them).
      std::string named = file_kernel;
      if (je.is_object() && je.contains("kernel"))
        named = je["kernel"].is_string() ? je["kernel"].get<std::string>() : "";
      for (const auto& spec : all_kernel_specs())
        if (spec.name == named) bad.kernel = named;
      out.push_back(std::move(bad));
    }
  }
  return out;
}

Entry parse_entry(const nlohmann::json& je, const std::string& where, const std::string& file,
                  const std::string& file_kernel) {
  {
    if (!je.is_object()) throw TuningError(where + ": not an object");
    Entry e;
    e.file = file;
    e.kernel = file_kernel;
    for (auto it = je.begin(); it != je.end(); ++it) {
      const std::string& key = it.key();
      if (key == "params") continue;
      if (key == "peaks") {
        e.peaks = parse_peaks(*it, where);
        continue;
      }
      if (key == "note" || key == "date" || key == "time_ms" || key == "comment" || key == "driver" ||
          key == "platform")
        continue;  // informational
      if (!it->is_string()) throw TuningError(where + ": \"" + key + "\" must be a string");
      const std::string v = it->get<std::string>();
      if (key == "kernel")
        e.kernel = v;
      else if (key == "variant")
        e.variant = v;
      else if (key == "device")
        e.device = v;
      else if (key == "architecture")
        e.architecture = v;
      else if (key == "device_vendor")
        e.device_vendor = v;
      else if (key == "vendor")
        e.vendor = (to_lower(v) == "default") ? std::string() : v;
      else
        throw TuningError(where + ": unknown key \"" + key + "\"");
    }
    if (e.kernel.empty()) throw TuningError(where + ": no \"kernel\"");
    const KernelSpec* spec = nullptr;
    for (const auto& s : all_kernel_specs())
      if (s.name == e.kernel) spec = &s;
    if (spec == nullptr) throw TuningError(where + ": unknown kernel \"" + e.kernel + "\"");
    if (!spec->knows_variant(e.variant))
      throw TuningError(where + ": unknown variant \"" + e.variant + "\" of kernel " + e.kernel);
    if (!je.contains("params") || !je["params"].is_object()) throw TuningError(where + ": no \"params\" object");
    for (auto it = je["params"].begin(); it != je["params"].end(); ++it) {
      const ParamInfo* p = spec->find(it.key());
      if (p == nullptr) throw TuningError(where + ": unknown parameter \"" + it.key() + "\" for kernel " + e.kernel);
      if (!it->is_number_integer()) throw TuningError(where + ": parameter \"" + it.key() + "\" must be an integer");
      const int v = it->get<int>();
      if (std::find(p->legal.begin(), p->legal.end(), v) == p->legal.end())
        throw TuningError(where + ": parameter \"" + it.key() + "\" = " + std::to_string(v) + " is not a legal value");
      e.params[it.key()] = v;
    }
    return e;
  }
}

namespace {
// Versions from a file's contents apart from those of its stamp.
constexpr std::uint64_t kContentVersionSeed = 0x636f6e74656e7473ull;

ParsedPtr load_cached(const std::string& key, std::uint64_t version, const std::function<ParsedFile()>& load) {
  {
    std::lock_guard<std::mutex> lock(g_db_mutex);
    auto it = g_parsed.find(key);
    if (it != g_parsed.end() && it->second.first == version) return it->second.second;
  }
  auto e = std::make_shared<const ParsedFile>(load());
  std::lock_guard<std::mutex> lock(g_db_mutex);
  g_parsed[key] = {version, e};
  return e;
}

// A user or tuning file, parsed leniently with its peaks.
ParsedFile parse_file(const std::string& text, const std::string& path, const std::string& default_kernel) {
  ParsedFile f;
  f.entries = parse_database(text, path, default_kernel, true, &f.peaks);
  return f;
}

void take(Loaded& out, const ParsedPtr& parsed) {
  out.entries = EntriesPtr(parsed, &parsed->entries);
  out.peaks = parsed->peaks;
}
}  // namespace

// User and tuning files are parsed leniently (see parse_database).
Loaded load_file_entries(const std::string& path, const std::string& default_kernel, bool must_exist) {
  const FileStamp st = stamp_of(path);
  Loaded out;
  if (st.size < 0) {
    if (must_exist) throw TuningError("tuning file " + path + " cannot be read");
    return out;
  }
  auto load = [&] {
    const auto text = read_file(path);
    if (!text) throw TuningError("tuning file " + path + " cannot be read");
    return parse_file(*text, path, default_kernel);
  };
  if (st.recent()) {
    // A fresh file's stamp may not show its latest write (coarse file times): its contents name
    // the version instead, so that the calls right after a write (a tune, Auto's calibration)
    // still find their parsed entries, resolved configurations and plans cached.
    const auto text = read_file(path);
    if (!text) throw TuningError("tuning file " + path + " cannot be read");
    out.version = fnv1a(*text, kContentVersionSeed);
    take(out, load_cached("file:" + path, out.version, [&] { return parse_file(*text, path, default_kernel); }));
    return out;
  }
  out.version = fnv1a(std::to_string(st.mtime) + ":" + std::to_string(st.size) + ":" + std::to_string(st.inode));
  take(out, load_cached("file:" + path, out.version, load));
  return out;
}

Loaded load_shipped(const KernelSpec& spec) {
  Loaded out;
  if (spec.database.empty()) return out;
  // The stamp names the file's origin and content without reading an unchanged file; the
  // text is read only to parse a new version.
  const SourceStamp stamp = kernel_source_stamp(spec.database);
  const std::string label = stamp.origin == "embedded"
                                ? "embedded:" + spec.database
                                : stamp.origin.substr(stamp.origin.find(':') + 1) + "/" + spec.database;
  out.version = fnv1a(stamp.origin + ":" + std::to_string(stamp.hash));
  take(out, load_cached("shipped:" + spec.database + "@" + stamp.origin, stamp.hash, [&] {
         ParsedFile f;
         f.entries = parse_database(load_kernel_source(spec.database).text, label, spec.name, false, &f.peaks);
         return f;
       }));
  return out;
}

}  // namespace clforge::detail
