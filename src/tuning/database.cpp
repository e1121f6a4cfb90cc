// Tuning database: loads shipped, user and CLFORGE_TUNING_FILE JSON files, validates every
// entry against the kernel's declared space, overlays them per parameter in lookup order,
// and shrinks configurations that do not fit the device.
//
// File format (all three kinds):
//   { "kernel": "transpose",                      // default kernel for entries (optional)
//     "entries": [ { "kernel": "...", "variant": "*",
//                    "device": "...", "architecture": "sm_90", "vendor": "NVIDIA",  // match keys
//                    "params": { "TRA_TILE": 32, ... } } ] }
// An entry without match keys is the "default" row. Match specificity: device > architecture
// > vendor > default. "device_vendor" (CL_DEVICE_VENDOR, e.g. "AuthenticAMD" for PoCL on an AMD
// processor) narrows a row further: such a row must match it too, and it comes before the rows
// of its level and variant that lack it (CPU rows whose best kernel form depends on the
// processor maker's microarchitecture, under one LLVM target name).
// A variant "F:S" (a sub-variant) also matches the rows of its family F: its own rows come first,
// then F's, then "*"'s, within each match level; its own rows for the device itself or its
// architecture come before every database's other rows (lookup_order).
// A row may carry "peaks" (those of the device it was tuned on), and a user database the device's
// own (top-level "peaks", store_device_peaks). With the device's peaks known, rows of other devices
// of its type that carry peaks apply too, nearest first, after the device and architecture rows
// (and those narrowed to its processor maker): those of its vendor class before its vendor rows,
// the others after them (tuning/nearest.hpp).
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

const ParamInfo* KernelSpec::find(const std::string& param) const {
  for (const auto& p : params)
    if (p.name == param) return &p;
  return nullptr;
}

bool KernelSpec::knows_variant(const std::string& variant) const {
  const std::string family = variant.substr(0, variant.find(':'));
  return variant == "*" || variants.empty() || std::find(variants.begin(), variants.end(), family) != variants.end();
}

const KernelSpec& kernel_spec(const std::string& name) {
  for (const auto& s : all_kernel_specs())
    if (s.name == name) return s;
  std::string known;
  for (const auto& s : all_kernel_specs()) known += (known.empty() ? "" : ", ") + s.name;
  throw InvalidArgument("unknown kernel '" + name + "' (known: " + known + ")");
}

std::string describe_params(const ParamMap& p) {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

std::string fit_problem(const KernelSpec& spec, const ParamMap& p, const std::string& variant, const DeviceInfo& dev) {
  if (!spec.resources) return {};
  const Resources r = spec.resources(p, variant);
  // The checks first, the text only for a misfit: the tuner asks this for every point of a space.
  const bool wide = dev.max_work_group_size != 0 && r.work_group() > dev.max_work_group_size;
  std::size_t dim = 3;  // the first dimension over its maximum (3: none)
  for (std::size_t d = 0; d < 3 && d < dev.max_work_item_sizes.size() && dim == 3; ++d)
    if (r.local[d] > dev.max_work_item_sizes[d]) dim = d;
  const bool local = dev.local_mem_size != 0 && r.local_mem_bytes > dev.local_mem_size;
  const bool fp64 = r.fp64 && !dev.fp64;
  if (!wide && dim == 3 && !local && !fp64) return {};
  std::ostringstream why;
  if (wide)
    why << "work-group of " << r.work_group() << " work-items exceeds the device maximum " << dev.max_work_group_size;
  else if (dim < 3)
    why << "work-group dimension " << dim << " of " << r.local[dim] << " exceeds the device maximum "
        << dev.max_work_item_sizes[dim];
  if (local) {
    if (why.tellp() != 0) why << "; ";
    why << "needs " << r.local_mem_bytes << " bytes of local memory, the device has " << dev.local_mem_size;
  }
  if (fp64) {
    if (why.tellp() != 0) why << "; ";
    why << "needs double precision (cl_khr_fp64), which the device lacks";
  }
  return why.str();
}

namespace {

// Resolved configurations by (kernel, variant, device, overrides, database versions): a
// routine call resolves several, and the lookup below costs more than the call's launches.
std::mutex g_resolved_mutex;
std::map<std::string, Configuration> g_resolved;

std::string sanitize(const std::string& s) {
  std::string o;
  for (char c : s) o += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return o;
}

// Whether `t` reads the user database, with CLFORGE_TUNING's value (nullptr: unset); a value
// that is not a boolean throws Error naming the variable.
bool user_db_enabled(const Tuning& t, const char* clforge_tuning) {
  const bool on = clforge_tuning == nullptr || parse_env_bool("CLFORGE_TUNING", clforge_tuning);
  return t.user_database && on;
}
bool user_db_enabled(const Tuning& t) { return t.user_database && env_bool("CLFORGE_TUNING").value_or(true); }

}  // namespace
}  // namespace detail

int Configuration::at(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) throw Error("configuration of " + kernel + " has no parameter " + name);
  return it->second;
}

std::vector<std::string> tunable_kernels() {
  std::vector<std::string> v;
  for (const auto& s : detail::all_kernel_specs()) v.push_back(s.name);
  return v;
}

std::vector<ParamInfo> kernel_parameters(const std::string& kernel) { return detail::kernel_spec(kernel).params; }

void parse_param_assignment(const std::string& text, ParamMap& into) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InvalidArgument("parameter '" + text + "' is not NAME=VALUE");
  const std::string name = detail::trim(text.substr(0, eq));
  const std::string value = detail::trim(text.substr(eq + 1));
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(value, &used);
  } catch (...) {
    used = 0;
  }
  if (used != value.size() || value.empty())
    throw InvalidArgument("parameter " + name + ": value '" + value + "' is not an integer");
  into[name] = v;
}

namespace detail {
namespace {
// The user database file of a device inside `dir`, remembered per thread for the last device and
// folder: every cached call's plan key names it.
const std::string& user_database_in(const std::string& dir, const DeviceInfo& d) {
  struct Last {
    std::string dir, name, platform, driver, path;
  };
  thread_local Last last;
  if (!last.path.empty() && dir == last.dir && d.name == last.name && d.platform_name == last.platform &&
      d.driver_version == last.driver)
    return last.path;
  const std::string id = d.name + "|" + d.platform_name + "|" + d.driver_version;
  last = Last{dir, d.name, d.platform_name, d.driver_version,
              dir + "/" + sanitize(d.name) + "-" + hex64(fnv1a(id)).substr(0, 8) + ".json"};
  return last.path;
}
}  // namespace
}  // namespace detail

std::string user_database_path(const DeviceInfo& d) { return detail::user_database_in(user_tuning_dir(), d); }

namespace detail {
std::string tuning_fingerprint(const DeviceInfo& device, const Tuning& tuning) {
  // Every environment variable the key depends on, in one pass over the environment.
  static const char* const names[] = {"CLFORGE_TUNING_FILE",     "CLFORGE_BUILD_OPTIONS", "CLFORGE_KERNEL_DIR",
                                      "CLFORGE_USER_TUNING_DIR", "XDG_DATA_HOME",         "HOME",
                                      "CLFORGE_TUNING"};
  const char* v[7];
  env_values(names, v, 7);
  std::string key;
  auto file = [&](const std::string& path) {
    const FileStamp st = stamp_of_reused(path);
    key += path;
    if (st.size >= 0 && st.recent()) {
      // A fresh file's stamp may not show its latest write (coarse file times): its contents
      // name it instead (one read of a small file, against building the plan again).
      const auto text = read_file(path);
      const std::uint64_t h = text ? fnv1a(*text) : 0;
      key += text ? "#c" : "#-";
      key.append(reinterpret_cast<const char*>(&h), sizeof h);
    } else {  // the stamp's bytes (formatting numbers costs more than the rest of the key)
      key.append(reinterpret_cast<const char*>(&st.mtime), sizeof st.mtime);
      key.append(reinterpret_cast<const char*>(&st.size), sizeof st.size);
      key.append(reinterpret_cast<const char*>(&st.inode), sizeof st.inode);
    }
    key += '\n';
  };
  if (v[0] != nullptr) file(v[0]);
  if (user_db_enabled(tuning, v[6])) file(user_database_in(user_tuning_dir_from(v[3], v[4], v[5]), device));
  key += "o:";
  if (v[1] != nullptr) key += v[1];
  key += "\nk:";
  if (v[2] != nullptr) key += v[2];
  key += '\n';
  for (const auto& [name, value] : tuning.overrides) key += name + '=' + std::to_string(value) + ';';
  return key;
}

Tuning overrides_for(const Tuning& tuning, const std::string& kernel) {
  const KernelSpec& spec = kernel_spec(kernel);
  Tuning t;
  t.user_database = tuning.user_database;
  for (const auto& [name, value] : tuning.overrides)
    if (spec.find(name) != nullptr) t.overrides[name] = value;
  return t;
}

void check_override_names(const char* routine, const Tuning& tuning, const std::vector<std::string>& kernels) {
  for (const auto& [name, value] : tuning.overrides) {
    const ParamInfo* p = nullptr;
    const std::string* owner = nullptr;
    for (const auto& k : kernels)
      if (p == nullptr && (p = kernel_spec(k).find(name)) != nullptr) owner = &k;
    if (p == nullptr) {
      std::string all;
      for (const auto& k : kernels)
        for (const auto& q : kernel_spec(k).params) all += (all.empty() ? "" : ", ") + q.name;
      throw InvalidArgument(std::string(routine) + ": unknown parameter '" + name + "' (known: " + all + ")");
    }
    if (std::find(p->legal.begin(), p->legal.end(), value) == p->legal.end()) {
      std::string legal;
      for (int l : p->legal) legal += (legal.empty() ? "" : ", ") + std::to_string(l);
      throw InvalidArgument(std::string(routine) + ": parameter " + name + "=" + std::to_string(value) +
                            " is not legal for kernel " + *owner + " (legal: " + legal + ")");
    }
  }
}
}  // namespace detail

namespace detail {
namespace {

// The caller's overrides, each checked against the kernel's declared parameters and values.
void apply_overrides(const KernelSpec& spec, const Tuning& tuning, Configuration& cfg) {
  for (const auto& [name, value] : tuning.overrides) {
    const ParamInfo* p = spec.find(name);
    if (p == nullptr) {
      std::string known;
      for (const auto& q : spec.params) known += (known.empty() ? "" : ", ") + q.name;
      throw InvalidArgument("unknown parameter '" + name + "' for kernel " + cfg.kernel + " (known: " + known + ")");
    }
    if (std::find(p->legal.begin(), p->legal.end(), value) == p->legal.end()) {
      std::string legal;
      for (int l : p->legal) legal += (legal.empty() ? "" : ", ") + std::to_string(l);
      throw InvalidArgument("parameter " + name + "=" + std::to_string(value) + " is not legal for kernel " +
                            cfg.kernel + " (legal: " + legal + ")");
    }
    cfg.values[name] = value;
    cfg.sources[name] = "override";
  }
}

// The databases a lookup reads, each with its version: the CLFORGE_TUNING_FILE, the user
// database (when the tuning reads it) and the kernel's shipped rows.
struct Databases {
  Loaded tuning_file, user, shipped;
};

Databases load_databases(const KernelSpec& spec, const DeviceInfo& device, const Tuning& tuning) {
  Databases db;
  if (const auto tf = env("CLFORGE_TUNING_FILE")) db.tuning_file = load_file_entries(*tf, {}, true);
  if (user_db_enabled(tuning)) db.user = load_file_entries(user_database_path(device), {}, false);
  db.shipped = load_shipped(spec);
  return db;
}

// The key of a resolved configuration: kernel, variant, everything of the device that entry
// matching and the fit check read (a caller may pass a modified copy of a device's identity),
// the databases' versions and the overrides.
std::string resolved_key(const std::string& kernel, const std::string& variant, const DeviceInfo& device,
                         const Tuning& tuning, const Databases& db) {
  std::string dev = device.platform_name + '\n' + device.name + '\n' + device.vendor + '\n' + device.vendor_key() +
                    '\n' + device.type + '\n' + device.architecture + '\n' + device.driver_version + '\n' +
                    std::to_string(device.max_work_group_size) + ':' + std::to_string(device.local_mem_size) + ':' +
                    std::to_string(device.max_alloc_size) + ':' + std::to_string(device.compute_units) + ':' +
                    (device.fp64 ? "fp64" : "fp32");
  for (std::size_t v : device.max_work_item_sizes) dev += ',' + std::to_string(v);
  std::string key = kernel + '\n' + variant + '\n' + dev + '\n' + std::to_string(db.tuning_file.version) + ':' +
                    std::to_string(db.user.version) + ':' + std::to_string(db.shipped.version);
  for (const auto& [name, value] : tuning.overrides) key += '\n' + name + '=' + std::to_string(value);
  return key;
}

std::optional<Configuration> remembered(const std::string& key) {
  std::lock_guard<std::mutex> lock(g_resolved_mutex);
  auto it = g_resolved.find(key);
  if (it != g_resolved.end()) return it->second;
  return std::nullopt;
}

void remember(const std::string& key, const Configuration& cfg) {
  std::lock_guard<std::mutex> lock(g_resolved_mutex);
  if (g_resolved.size() >= 4096) g_resolved.clear();
  g_resolved.emplace(key, cfg);
}

// Database rows that apply to a kernel's variant on a device, each with the label its values
// carry as their source, in lookup order.
using LookupOrder = std::vector<std::pair<const Entry*, std::string>>;

// How closely a row's variant matches: 2 the variant itself, 1 its family (before the ':' of a
// sub-variant), 0 "*", -1 none.
int variant_rank(const Entry& e, const std::string& variant, const std::string& family) {
  return e.variant == variant ? 2 : e.variant == "*" ? 0 : e.variant == family ? 1 : -1;
}

// Which of a database's rows add_level appends: all, only the rows of the variant itself made for
// this device (tier Own: its device or architecture), or all others.
enum class Part { All, OwnVariant, Rest };

// Appends the rows of one database (`what`: "tuning-file", "user" or "shipped") that apply, in the
// tiers of place_row (without peaks: by level), nearest first within a tier of rows chosen by their
// peaks, then most specific level and variant first; a row of the kernel that failed to validate
// throws TuningError.
void add_level(LookupOrder& order, const Entries& es, const std::string& what, const std::string& kernel,
               const std::string& variant, const DeviceInfo& device, const Peaks* peaks, Part part) {
  const std::string family = variant.substr(0, variant.find(':'));
  auto rank = [&](const Entry& e) { return variant_rank(e, variant, family); };
  struct Row {
    const Entry* e;
    Placement at;
  };
  std::vector<Row> m;
  for (const auto& e : es) {
    if (!e.error.empty() && (e.kernel.empty() || e.kernel == kernel)) {
      const std::string bypass = what == "user"
                                     ? "fix or remove the file, or run without the user database "
                                       "(CLFORGE_TUNING=off, --no-user-tuning, Tuning::user_database = false)"
                                     : "fix the file or unset CLFORGE_TUNING_FILE";
      throw TuningError(e.error + " (kernel " + kernel + " cannot use this " + what + " database: " + bypass + ")");
    }
    if (!e.error.empty() || e.kernel != kernel || rank(e) < 0) continue;
    const std::optional<Placement> at = place_row(e, device, peaks);
    if (!at) continue;
    const bool own_variant = e.variant == variant && at->tier == Tier::Own;
    if ((part == Part::OwnVariant && !own_variant) || (part == Part::Rest && own_variant)) continue;
    m.push_back({&e, *at});
  }
  std::stable_sort(m.begin(), m.end(), [&](const Row& a, const Row& b) {
    if (a.at.tier != b.at.tier) return a.at.tier < b.at.tier;
    if (a.at.distance() != b.at.distance()) return a.at.distance() < b.at.distance();
    if (a.e->level() != b.e->level()) return a.e->level() > b.e->level();
    if (rank(*a.e) != rank(*b.e)) return rank(*a.e) > rank(*b.e);
    return !a.e->device_vendor.empty() && b.e->device_vendor.empty();
  });
  for (const Row& r : m)
    order.emplace_back(r.e, what + " " + r.e->file + " [" + r.e->label() + "]" +
                                (r.at.near() ? nearest_note(*r.e, r.at) : std::string()));
}

// Rows in lookup order: tuning file, user database, shipped; each by tier and specificity. A
// sub-variant's own rows for this device come first, from every database: a row tuned for the
// family's sizes (`clforge tune sgemm --size 1000` stores "small") must not take the place of a
// row made for the sub-variant's (a shipped "small:wide" row for 512 x 8192 x 512).
LookupOrder lookup_order(const Databases& db, const std::string& kernel, const std::string& variant,
                         const DeviceInfo& device, const Peaks* peaks) {
  LookupOrder order;
  const bool sub = variant.find(':') != std::string::npos;
  for (const Part part : sub ? std::vector<Part>{Part::OwnVariant, Part::Rest} : std::vector<Part>{Part::All}) {
    add_level(order, *db.tuning_file.entries, "tuning-file", kernel, variant, device, peaks, part);
    add_level(order, *db.user.entries, "user", kernel, variant, device, peaks, part);
    add_level(order, *db.shipped.entries, "shipped", kernel, variant, device, peaks, part);
  }
  return order;
}

// Every parameter not overridden: from the first row in lookup order that sets it, else the
// kernel's built-in default.
void fill_from_rows(const KernelSpec& spec, const LookupOrder& order, Configuration& cfg) {
  for (const auto& p : spec.params) {
    if (cfg.values.count(p.name)) continue;
    bool found = false;
    for (const auto& [e, label] : order) {
      auto it = e->params.find(p.name);
      if (it == e->params.end()) continue;
      cfg.values[p.name] = it->second;
      cfg.sources[p.name] = label;
      found = true;
      break;
    }
    if (!found) {
      cfg.values[p.name] = p.default_value;
      cfg.sources[p.name] = "built-in default";
    }
  }
}

// The kernel's constraints: a combination that breaks them is the caller's fault when it gave
// overrides (InvalidArgument), else a database's (TuningError); both list every value's source.
void check_constraints(const KernelSpec& spec, const Tuning& tuning, Configuration& cfg) {
  if (!spec.check) return;
  const std::string bad = spec.check(cfg.values, cfg.variant);
  if (bad.empty()) return;
  std::string where;
  for (const auto& [n, s] : cfg.sources) where += "\n  " + n + "=" + std::to_string(cfg.values[n]) + " from " + s;
  if (!tuning.overrides.empty())
    throw InvalidArgument("illegal parameters for kernel " + cfg.kernel + ": " + bad + where);
  throw TuningError("illegal parameters for kernel " + cfg.kernel + ": " + bad + where);
}

// Shrinks a configuration that does not fit the device through the kernel's fallback, noting
// each step; overrides that do not fit are refused (InvalidArgument), and a kernel that cannot
// shrink far enough throws UnsupportedDevice.
void fit_to_device(const KernelSpec& spec, const DeviceInfo& device, const Tuning& tuning, Configuration& cfg) {
  const std::string& kernel = cfg.kernel;
  std::string problem = fit_problem(spec, cfg.values, cfg.variant, device);
  if (!problem.empty() && !tuning.overrides.empty()) {
    throw InvalidArgument("parameters " + describe_params(tuning.overrides) + " for kernel " + kernel +
                          " do not fit device \"" + device.name + "\": " + problem);
  }
  int guard = 0;
  while (!problem.empty()) {
    std::optional<ParamMap> smaller = spec.shrink ? spec.shrink(cfg.values, cfg.variant) : std::nullopt;
    if (!smaller || ++guard > 32)
      throw UnsupportedDevice("kernel " + kernel + ": no configuration fits device \"" + device.name +
                              "\": " + problem);
    const std::string note =
        "fallback: " + describe_params(cfg.values) + " " + problem + "; using " + describe_params(*smaller);
    for (const auto& [n, v] : *smaller)
      if (cfg.values[n] != v) cfg.sources[n] = "fallback (" + cfg.sources[n] + ")";
    cfg.values = *smaller;
    cfg.notes.push_back(note);
    log(LogLevel::Info, kernel + ": " + note);
    problem = fit_problem(spec, cfg.values, cfg.variant, device);
  }
}

}  // namespace
}  // namespace detail

Configuration resolve_configuration(const std::string& kernel, const std::string& variant, const DeviceInfo& device,
                                    const Tuning& tuning) {
  using namespace detail;
  const KernelSpec& spec = kernel_spec(kernel);
  Configuration cfg;
  cfg.kernel = kernel;
  cfg.variant = variant;
  apply_overrides(spec, tuning, cfg);

  const Databases db = load_databases(spec, device, tuning);
  const std::string key = resolved_key(kernel, variant, device, tuning, db);
  if (std::optional<Configuration> known = remembered(key)) return *known;

  // The device's peaks, stored in its user database (`clforge peak`), bring in the rows of the
  // devices nearest by peaks; the key above holds the user database's version, so storing them
  // changes it.
  const Peaks* peaks = db.user.peaks ? &*db.user.peaks : nullptr;
  Configuration base = cfg;
  fill_from_rows(spec, lookup_order(db, kernel, variant, device, peaks), cfg);
  if (peaks != nullptr && spec.check) {
    // Rows of another device overlaid on this device's vendor and default rows may form a
    // combination the kernel rejects: then the lookup is the one without peaks.
    const std::string bad = spec.check(cfg.values, variant);
    if (!bad.empty()) {
      fill_from_rows(spec, lookup_order(db, kernel, variant, device, nullptr), base);
      cfg = base;
      cfg.notes.push_back("the rows nearest by peaks form an illegal combination (" + bad +
                          "); looked up without peaks");
    }
  }
  check_constraints(spec, tuning, cfg);
  fit_to_device(spec, device, tuning, cfg);
  remember(key, cfg);
  return cfg;
}

}  // namespace clforge
