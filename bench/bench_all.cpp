// `clforge bench all` (see bench_all.hpp): the run over devices and routines, results.json,
// results.csv and the output folder. report.md is written by report_markdown.cpp, the charts
// by report_charts.cpp (through svg_plot.cpp), compare lives in compare.cpp.
#include "bench/bench_all.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>

#include "bench/split.hpp"
#include "clforge/errors.hpp"
#include "clforge/version.hpp"
#include "runtime/files.hpp"
#include "runtime/strings.hpp"

namespace clforge::bench {

const std::vector<std::string>& all_routines() {
  static const std::vector<std::string> r{"transpose", "sgemm", "fft", "blur"};
  return r;
}

void add_routine_size(std::map<std::string, std::vector<std::string>>& sizes, const std::string& text) {
  const auto colon = text.find(':');
  const std::string routine = colon == std::string::npos ? "" : text.substr(0, colon);
  const auto& all = all_routines();
  if (std::find(all.begin(), all.end(), routine) == all.end() || colon + 1 >= text.size())
    throw InvalidArgument("bench all --size '" + text +
                          "': expected ROUTINE:SIZE with ROUTINE one of transpose, sgemm, fft, blur "
                          "(e.g. transpose:4096, sgemm:1024:NT, fft:1024,batch=64, blur:1024x768)");
  sizes[routine].push_back(text.substr(colon + 1));
}

namespace {

std::vector<DeviceEntry> selected_devices(const AllOptions& opt) {
  std::vector<DeviceEntry> out;
  if (opt.devices.size() == 1 && detail::to_lower(opt.devices[0]) == "all") {
    out = list_devices();
    if (out.empty()) throw UnsupportedDevice("bench all --devices all: no OpenCL device found");
    return out;
  }
  if (opt.devices.empty()) return {select_device(opt.default_device)};
  std::set<std::string> seen;
  for (const auto& spec : opt.devices) {
    if (detail::to_lower(spec) == "all")
      throw InvalidArgument("bench all --devices: 'all' cannot be combined with a list");
    DeviceEntry e = select_device(spec);
    if (seen.insert(e.info.index_string()).second) out.push_back(std::move(e));
  }
  return out;
}

Record failed_record(const std::string& routine, const std::string& what) {
  Record r = Record::of(routine, "clforge", "-");
  r.status = "failed: " + what;
  return r;
}

// The options of one routine in bench all: the shared ones with the routine's own sizes.
BenchOptions routine_options(const AllOptions& opt, const std::string& routine) {
  BenchOptions o = opt.base;
  const auto it = opt.sizes.find(routine);
  o.sizes = it != opt.sizes.end() ? it->second : std::vector<std::string>{};
  return o;
}

// Progress steps of a routine on a device; a size list the routine cannot read counts as its
// length (the routine then stops at that size with a failed record).
std::size_t routine_steps(const AllOptions& opt, const std::string& routine, const DeviceInfo& dev) {
  const BenchOptions o = routine_options(opt, routine);
  try {
    if (routine == "transpose") return transpose_cases(o);
    if (routine == "sgemm") return sgemm_cases(o, dev);
    if (routine == "fft") return fft_cases(o, dev);
    if (routine == "blur") return blur_cases(o, dev, opt.blur);
  } catch (const std::exception&) {
  }
  return std::max<std::size_t>(o.sizes.size(), 1);
}

}  // namespace

AllResults run_all(const AllOptions& opt) {
  const std::vector<DeviceEntry> entries = selected_devices(opt);
  AllResults res;
  res.clforge_version = version_string;
  res.provenance = provenance();
  res.date = utc_now_iso();
  res.command_line = opt.command_line;
  res.quick = opt.base.quick;
  const std::size_t count = entries.size();
  // One progress count over every device: the peak probes (one step) and each routine's cases.
  std::vector<std::size_t> device_steps;
  for (const DeviceEntry& e : entries) {
    device_steps.push_back(1);
    for (const std::string& routine : all_routines()) device_steps.back() += routine_steps(opt, routine, e.info);
  }
  std::size_t total = 0;
  for (std::size_t n : device_steps) total += n;
  const ProgressScope scope(total);
  std::size_t done = 0;  // steps of the devices and routines before the current one
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t device_start = done;
    const auto t0 = std::chrono::steady_clock::now();
    const std::string tag = "[device " + std::to_string(k + 1) + "/" + std::to_string(count) + "]";
    DeviceRun run(entries[k].info);
    set_progress_prefix("");
    progress_note(tag + " " + entries[k].info.name + " (" + entries[k].info.index_string() + ", " +
                  entries[k].info.platform_name + ", driver " + entries[k].info.driver_version + ")");
    const auto header = [&](const std::string& routine) {
      set_progress_prefix("");
      progress_note(tag + " " + routine);
      set_progress_prefix(tag + " ");
    };
    const auto finished = [&](std::size_t steps) {
      done += steps;
      progress_done(done);
    };
    try {
      Session s(entries[k]);
      header("peak");
      try {
        // Every probe on the quick list too, but no flop ladder and the quick FMA search; the
        // copy buffers outsize the last-level cache either way (PeakOptions::copy_bytes).
        PeakOptions po;
        po.copy_bytes = opt.base.quick ? (std::size_t{64} << 20) : (std::size_t{256} << 20);
        po.flop_ladder = !opt.base.quick;
        po.quick_search = opt.base.quick;
        run.peaks = measure_peaks(s, run.report, po);
      } catch (const std::exception& e) {
        run.report.add(failed_record("peak", e.what()));
        progress_note("peak probes failed: " + std::string(e.what()));
      }
      finished(1);
      for (const std::string& routine : all_routines()) {
        header(routine);
        const BenchOptions o = routine_options(opt, routine);
        try {
          if (routine == "transpose")
            bench_transpose(s, run.report, o, run.peaks);
          else if (routine == "sgemm")
            bench_sgemm(s, run.report, o, run.peaks);
          else if (routine == "fft")
            bench_fft(s, run.report, o, run.peaks);
          else if (routine == "blur")
            bench_blur(s, run.report, o, run.peaks, opt.blur);
        } catch (const std::exception& e) {
          run.report.add(failed_record(routine, e.what()));
          progress_note(routine + " failed: " + std::string(e.what()));
        }
        finished(routine_steps(opt, routine, entries[k].info));
      }
    } catch (const std::exception& e) {  // the context or queue could not be made
      run.report.add(failed_record("session", e.what()));
      progress_note("cannot open the device: " + std::string(e.what()));
      done = device_start + device_steps[k];
      progress_done(done);
    }
    set_progress_prefix("");
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.devices.push_back(std::move(run));
    if (opt.after_device) opt.after_device(res);
  }
  if (count > 1) {
    set_progress_prefix("");
    progress_note("[group] every device: " + std::to_string(count) + " devices");
    run_split_section(entries, opt.base.quick, res);
    if (opt.after_device) opt.after_device(res);
  }
  return res;
}

void run_split_section(const std::vector<DeviceEntry>& entries, bool quick, AllResults& res) {
  std::vector<SplitCase> cases(4);
  // Sizes that keep the section near a minute with a CPU device among the devices (each case
  // runs on each device alone too): 4 or 64 MiB FFT batches, 256 or 2048 SGEMM, 64 MiB images.
  cases[0].routine = "fft", cases[0].x = 1024, cases[0].y = quick ? 512 : 8192;
  cases[1].routine = "sgemm", cases[1].x = cases[1].y = cases[1].z = quick ? 256 : 2048;
  cases[2].routine = "transpose", cases[2].x = cases[2].y = quick ? 512 : 4096;
  cases[3].routine = "blur", cases[3].x = cases[3].y = quick ? 256 : 4096;
  try {
    const DeviceGroup group(entries);
    res.split_group = group.describe();
    Report report(entries.front().info);
    SplitBenchOptions o;
    o.reps = quick ? 2 : 3;
    o.print = false;
    for (const SplitCase& c : cases) {
      progress("split " + c.routine + " " + c.shape());
      try {
        bench_split(group, report, c, o);
      } catch (const std::exception& e) {
        report.add(failed_record("split " + c.routine, e.what()));
        progress_note("split " + c.routine + " failed: " + std::string(e.what()));
      }
    }
    res.split = report.records();
  } catch (const std::exception& e) {  // the group could not be made
    res.split.push_back(failed_record("split", e.what()));
  }
}

nlohmann::json results_json(const AllResults& r) {
  nlohmann::json j;
  j["format"] = "clforge bench all 2";
  j["clforge_version"] = r.clforge_version;
  j["commit"] = r.provenance.commit;
  j["host"] = r.provenance.host;
  j["os"] = r.provenance.os;
  j["date"] = r.date;
  j["command"] = r.command_line;
  j["quick"] = r.quick;
  j["devices"] = nlohmann::json::array();
  const nlohmann::json peers = peer_versions();
  for (const DeviceRun& d : r.devices) {
    const DeviceInfo& info = d.report.device();
    nlohmann::json one;
    one["index"] = info.index_string();
    one["device"] = device_json(info);
    one["driver"] = info.driver_version;
    one["platform_version"] = info.platform_version;
    one["peers"] = d.peers.is_null() ? peers : d.peers;
    one["peaks"] = peaks_json(d.peaks);
    one["seconds"] = d.seconds;
    one["measurements"] = nlohmann::json::array();
    for (const Record& rec : d.report.records()) one["measurements"].push_back(record_json(rec));
    j["devices"].push_back(std::move(one));
  }
  if (!r.split.empty()) {
    j["split"] = {{"group", r.split_group}, {"measurements", nlohmann::json::array()}};
    for (const Record& rec : r.split) j["split"]["measurements"].push_back(record_json(rec));
  }
  return j;
}

AllResults results_from_json(const nlohmann::json& doc) {
  const auto text = [](const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const auto number = [](const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  if (!doc.is_object() || text(doc, "format").rfind("clforge bench all", 0) != 0 || !doc.contains("devices") ||
      !doc["devices"].is_array())
    throw Error("not the results of clforge bench all (no \"format\": \"clforge bench all ...\" and \"devices\")");
  AllResults r;
  r.clforge_version = text(doc, "clforge_version");
  r.date = text(doc, "date");
  r.command_line = text(doc, "command");
  r.provenance = {r.clforge_version, text(doc, "commit"), text(doc, "host"), text(doc, "os")};
  r.quick = doc.value("quick", false);
  for (const nlohmann::json& d : doc["devices"]) {
    const nlohmann::json id = d.value("device", nlohmann::json::object());
    DeviceInfo info;
    info.name = text(id, "name");
    info.platform_name = text(id, "platform");
    info.platform_version = text(id, "platform_version");
    info.vendor = text(id, "vendor");
    for (VendorClass v :
         {VendorClass::NVIDIA, VendorClass::AMD, VendorClass::Intel, VendorClass::Apple, VendorClass::CPU})
      if (text(id, "vendor_class") == to_string(v)) info.vendor_class = v;
    info.type = text(id, "type");
    info.architecture = text(id, "architecture");
    info.driver_version = text(id, "driver");
    info.compute_units = static_cast<unsigned>(number(id, "compute_units"));
    info.max_clock_mhz = static_cast<unsigned>(number(id, "max_clock_mhz"));
    info.local_mem_size = static_cast<std::uint64_t>(number(id, "local_mem_bytes"));
    info.global_mem_size = static_cast<std::uint64_t>(number(id, "global_mem_bytes"));
    info.max_work_group_size = static_cast<std::size_t>(number(id, "max_work_group_size"));
    const std::string index = text(d, "index");
    if (index.find(':') != std::string::npos) {
      info.platform_index = std::atoi(index.c_str());
      info.device_index = std::atoi(index.c_str() + index.find(':') + 1);
    }
    DeviceRun run(info);
    const nlohmann::json peaks = d.value("peaks", nlohmann::json::object());
    run.peaks.copy_gbps = number(peaks, "copy_gbps");
    run.peaks.fma_gflops = number(peaks, "fma_gflops");
    run.seconds = number(d, "seconds");
    if (d.contains("peers") && d["peers"].is_object()) run.peers = d["peers"];
    if (d.contains("measurements") && d["measurements"].is_array())
      for (const nlohmann::json& m : d["measurements"]) run.report.add(record_from_json(m));
    r.devices.push_back(std::move(run));
  }
  if (doc.contains("split") && doc["split"].is_object()) {
    r.split_group = text(doc["split"], "group");
    for (const nlohmann::json& m : doc["split"].value("measurements", nlohmann::json::array()))
      r.split.push_back(record_from_json(m));
  }
  return r;
}

std::string results_csv(const AllResults& r) {
  std::string out;
  for (std::size_t i = 0; i < r.devices.size(); ++i) out += r.devices[i].report.to_csv(i == 0);
  if (r.devices.empty()) out = Report(DeviceInfo{}).to_csv(true);
  return out;
}

namespace {
std::vector<std::string> write_files(const std::vector<std::pair<std::string, std::string>>& files,
                                     const std::string& dir) {
  if (!detail::make_dirs(dir)) throw Error("bench: cannot create the output folder " + dir);
  std::vector<std::string> written;
  for (const auto& [name, text] : files) {
    const std::string path = dir + (dir.empty() || dir.back() == '/' ? "" : "/") + name;
    detail::write_file_atomic(path, text);
    written.push_back(path);
  }
  return written;
}
}  // namespace

std::vector<std::string> write_results(const AllResults& r, const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> files{{"results.json", results_json(r).dump(2) + "\n"},
                                                         {"results.csv", results_csv(r)},
                                                         {"report.md", report_markdown(r)}};
  for (auto& chart : report_charts(r)) files.push_back(std::move(chart));
  return write_files(files, dir);
}

std::vector<std::string> write_report(const AllResults& r, const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> files{{"report.md", report_markdown(r)}};
  for (auto& chart : report_charts(r)) files.push_back(std::move(chart));
  return write_files(files, dir);
}

}  // namespace clforge::bench
