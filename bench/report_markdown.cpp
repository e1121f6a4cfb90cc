// report.md of `clforge bench all` and the helpers it shares with the charts (report.hpp).
// Per device: identity, peer versions, the peaks, then per routine a table of throughput by
// size with one column per library, clforge / best peer and % of the measured peak; blur as
// method x sigma tables per image, the peers below the methods, and clforge / best peer.
// Numbers are formatted with 3 significant digits, so the same results always give the same text.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "bench/blur_peers.hpp"
#include "bench/report.hpp"

namespace clforge::bench::report {

bool timed(const Record& r) { return r.status.rfind("ok", 0) == 0 && r.measured(); }

namespace {
double gbps(const Record& r) { return r.gbps(); }
double gflops(const Record& r) { return r.gflops(); }
double copy_peak(const Peaks& p) { return p.copy_gbps; }
double fma_peak(const Peaks& p) { return p.fma_gflops; }
double mps(const Record& r) { return blur_mps(r); }
}  // namespace

Metric primary_metric(const std::string& routine, const std::vector<const Record*>& records) {
  if (routine == "transpose" || routine == "fft") return {"GB/s", gbps, copy_peak, "copy bandwidth"};
  if (routine == "sgemm") return {"GFLOP/s", gflops, fma_peak, "FMA peak"};
  if (routine == "blur") return {"MP/s", mps, nullptr, ""};
  if (!records.empty() && records.front()->bytes <= 0 && records.front()->flops > 0)
    return {"GFLOP/s", gflops, fma_peak, "FMA peak"};
  return {"GB/s", gbps, copy_peak, "copy bandwidth"};
}

Metric flop_metric() { return {"GFLOP/s", gflops, fma_peak, "FMA peak"}; }

std::vector<std::string> routines_of(const Report& report) {
  std::vector<std::string> out;
  for (const auto& r : report.records())
    if (r.routine != "peak" && r.routine != "session" && std::find(out.begin(), out.end(), r.routine) == out.end())
      out.push_back(r.routine);
  return out;
}

std::vector<const Record*> records_of(const Report& report, const std::string& routine) {
  std::vector<const Record*> out;
  for (const auto& r : report.records())
    if (r.routine == routine) out.push_back(&r);
  return out;
}

std::vector<std::string> libraries_of(const std::vector<const Record*>& records) {
  std::vector<std::string> out;
  for (const Record* r : records)
    if (std::find(out.begin(), out.end(), r->library) == out.end()) out.push_back(r->library);
  const auto it = std::find(out.begin(), out.end(), "clforge");
  if (it != out.end()) std::rotate(out.begin(), it, it + 1);
  return out;
}

std::vector<std::string> shapes_of(const std::vector<const Record*>& records) {
  std::vector<std::pair<std::pair<std::string, double>, std::string>> keyed;  // ((fft kind, size key), shape)
  for (const Record* r : records) {
    if (r->shape == "-") continue;
    const bool seen = std::any_of(keyed.begin(), keyed.end(), [&](const auto& k) { return k.second == r->shape; });
    if (!seen) keyed.emplace_back(std::make_pair(fft_kind(*r), size_key(*r)), r->shape);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& k : keyed) out.push_back(std::move(k.second));
  return out;
}

namespace {
std::string data_size(const Record& r) {
  const double data = r.bytes / 2;  // read once, written once
  char b[32];
  if (data >= 1 << 20)
    std::snprintf(b, sizeof b, "%.0f MiB", std::round(data / (1 << 20)));
  else
    std::snprintf(b, sizeof b, "%.0f KiB", std::round(data / 1024));
  return b;
}
}  // namespace

std::string series_group(const Record& r, const std::vector<const Record*>& all) {
  // Only where one library has several records of one length and kind (the default list's
  // complex 64 MiB and 512 MiB batches): then each data size is a line of its own.
  if (r.routine != "fft") return "";
  const std::string kind = fft_kind(r);
  std::set<std::pair<std::string, double>> seen;
  bool repeated = false;
  for (const Record* o : all)
    if (o->shape != "-" && fft_kind(*o) == kind && !seen.insert({o->library, size_key(*o)}).second) repeated = true;
  return repeated ? data_size(r) : "";
}

std::string blur_image(const Record& r) {
  const auto sp = r.shape.find(' ');
  return sp == std::string::npos ? r.shape : r.shape.substr(0, sp);
}

double blur_sigma(const Record& r) {
  if (r.params.contains("sigma") && r.params["sigma"].is_number()) return r.params["sigma"].get<double>();
  const auto s = r.shape.find("s=");
  return s == std::string::npos ? 0 : std::atof(r.shape.c_str() + s + 2);
}

double blur_mps(const Record& r) { return r.measured() ? size_key(r) / r.timing.median_ms / 1e3 : 0; }

double blur_bound_mps(const Record& r) {
  if (!r.params.contains("bound_ms") || !r.params["bound_ms"].is_number()) return 0;
  const double ms = r.params["bound_ms"].get<double>();
  return ms > 0 ? size_key(r) / ms / 1e3 : 0;
}

std::vector<std::string> blur_images(const std::vector<const Record*>& records) {
  std::vector<std::pair<double, std::string>> keyed;
  for (const Record* r : records) {
    if (r->shape == "-") continue;
    const std::string im = blur_image(*r);
    if (std::none_of(keyed.begin(), keyed.end(), [&](const auto& k) { return k.second == im; }))
      keyed.emplace_back(size_key(*r), im);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& k : keyed) out.push_back(std::move(k.second));
  return out;
}

std::vector<double> blur_sigmas(const std::vector<const Record*>& records) {
  std::set<double> s;
  for (const Record* r : records)
    if (r->shape != "-") s.insert(blur_sigma(*r));
  return {s.begin(), s.end()};
}

std::string size_axis(const std::string& routine) {
  if (routine == "transpose") return "matrix elements (rows x columns)";
  if (routine == "sgemm") return "size (M x N x K)^(1/3)";
  if (routine == "fft") return "transform length n (2-D, 3-D: points)";
  if (routine == "blur") return "sigma (pixels)";
  return "size";
}

std::string chart_file(const std::string& routine, std::size_t device) {
  return routine + "_device" + std::to_string(device) + ".svg";
}
std::string blur_chart_file(std::size_t device, const std::string& image) {
  return "blur_device" + std::to_string(device) + "_" + image + ".svg";
}
std::string devices_chart_file(const std::string& routine) { return routine + "_devices.svg"; }
std::string ratio_chart_file(const std::string& routine, std::size_t device) {
  return routine + "_device" + std::to_string(device) + "_ratio.svg";
}

bool has_ratio_chart(const std::string& routine, const std::vector<const Record*>& records) {
  if (routine == "blur") return false;
  const Metric m = primary_metric(routine, records);
  const auto valued = [&](const Record* r) { return timed(*r) && m.value(*r) > 0; };
  for (const Record* c : records)
    if (c->library == "clforge" && valued(c))
      for (const Record* p : records)
        if (p->library != "clforge" && p->shape == c->shape && valued(p)) return true;
  return false;
}

std::string num(double v) {
  char b[64];
  if (v == 0) return "0";
  if (std::fabs(v) >= 100)
    std::snprintf(b, sizeof b, "%.0f", v);
  else
    std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

namespace {

// A measured value, or "-" when it was not measured (not timed, no peak, nothing to count).
std::string measured_num(bool present, double v) { return present && v > 0 ? num(v) : "-"; }

// A peak in a column title or sentence: "2942 GB/s", or "not measured".
std::string peak_text(double v, const std::string& unit) { return v > 0 ? num(v) + " " + unit : "not measured"; }

std::string pct(double part, double whole) {
  if (!(whole > 0) || !(part > 0)) return "-";
  const double p = 100 * part / whole;
  char b[32];
  std::snprintf(b, sizeof b, p >= 10 ? "%.0f %%" : "%.2g %%", p);
  return b;
}

// Text fit for a table cell: no '|' or line breaks, at most `limit` characters.
std::string cell(const std::string& s, std::size_t limit = 120) {
  std::string o;
  for (char c : s) {
    if (c == '|')
      o += "\\|";
    else if (c == '\n' || c == '\r')
      o += ' ';
    else
      o += c;
  }
  return o.size() > limit ? o.substr(0, limit - 3) + "..." : o;
}

const Record* find(const std::vector<const Record*>& rs, const std::string& shape, const std::string& library) {
  for (const Record* r : rs)
    if (r->shape == shape && r->library == library) return r;
  return nullptr;
}

std::string value_cell(const Record* r, const Metric& m) {
  if (r == nullptr) return "";
  if (!timed(*r)) return cell(r->status);
  return num(m.value(*r));
}

// Notes under a table: routine-level failures and the distinct "ok (...)" remarks of peers.
void notes(std::ostringstream& o, const std::vector<const Record*>& rs) {
  std::vector<std::string> lines;
  for (const Record* r : rs) {
    std::string line;
    if (r->shape == "-")
      line = "- the routine stopped: " + cell(r->status);
    else if (r->status.rfind("ok ", 0) == 0)
      line = "- " + r->library + ": " + cell(r->status);
    if (!line.empty() && std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
  }
  if (lines.empty()) return;
  o << "\n";
  for (const auto& l : lines) o << l << "\n";
}

void routine_table(std::ostringstream& o, const std::string& routine, const std::vector<const Record*>& rs,
                   const Peaks& peaks) {
  const Metric m = primary_metric(routine, rs);
  const bool flops_too = routine == "fft";
  const Metric f = flop_metric();
  const std::vector<std::string> libs = libraries_of(rs);
  o << "| size |";
  for (const auto& l : libs) o << ' ' << l << " " << m.unit << " |";
  o << " clforge / best peer |";
  if (flops_too) o << " clforge " << f.unit << " |";
  if (m.peak) o << " % of " << m.peak_name << " (" << peak_text(m.peak(peaks), m.unit) << ") |";
  if (flops_too) o << " % of " << f.peak_name << " (" << peak_text(f.peak(peaks), f.unit) << ") |";
  o << "\n|---|";
  for (std::size_t i = 0; i < libs.size(); ++i) o << "---:|";
  o << "---:|" << (flops_too ? "---:|" : "") << (m.peak ? "---:|" : "") << (flops_too ? "---:|" : "") << "\n";
  for (const std::string& shape : shapes_of(rs)) {
    o << "| " << shape << " |";
    double best_peer = 0;
    for (const auto& l : libs) {
      const Record* r = find(rs, shape, l);
      o << ' ' << value_cell(r, m) << " |";
      if (r && l != "clforge" && timed(*r)) best_peer = std::max(best_peer, m.value(*r));
    }
    const Record* c = find(rs, shape, "clforge");
    const bool ok = c && timed(*c);
    o << ' ' << (ok && best_peer > 0 ? num(m.value(*c) / best_peer) : "-") << " |";
    if (flops_too) o << ' ' << (ok ? num(f.value(*c)) : "-") << " |";
    if (m.peak) o << ' ' << (ok ? pct(m.value(*c), m.peak(peaks)) : "-") << " |";
    if (flops_too) o << ' ' << (ok ? pct(f.value(*c), f.peak(peaks)) : "-") << " |";
    o << "\n";
  }
  notes(o, rs);
}

// The peaks in words under their table: what each "% of" below is taken against.
void peaks_summary(std::ostringstream& o, const Peaks& p) {
  const auto mib = [](double bytes) { return num(bytes / (1 << 20)) + " MiB"; };
  o << "\nCopy bandwidth (best of clEnqueueCopyBuffer and the copy kernel";
  if (p.copy_bytes > 0) {
    o << ", buffers of " << mib(p.copy_bytes);
    if (p.cache_bytes > 0)
      o << ", " << num(p.copy_bytes / p.cache_bytes) << "x the " << mib(p.cache_bytes) << " cache the device reports";
  }
  o << "): **" << peak_text(p.copy_gbps, "GB/s") << "**; FMA throughput (best of the FMA search"
    << (p.fma_config.empty() ? "" : ": " + cell(p.fma_config)) << "): **" << peak_text(p.fma_gflops, "GFLOP/s")
    << "**.\n";
  if (p.h2d_gbps > 0 || p.d2h_gbps > 0 || p.both_gbps > 0)
    o << "Host to device " << peak_text(p.h2d_gbps, "GB/s") << ", device to host " << peak_text(p.d2h_gbps, "GB/s")
      << ", both at once " << peak_text(p.both_gbps, "GB/s") << " (pinned host memory; pageable in the table).\n";
  if (p.launch_enqueue_us > 0 || p.launch_gap_us > 0 || p.launch_round_trip_us > 0)
    o << "Kernel launch: " << peak_text(p.launch_enqueue_us, "us") << " to enqueue, "
      << peak_text(p.launch_gap_us, "us") << " from one kernel's end to the next one's start on the device, "
      << peak_text(p.launch_round_trip_us, "us") << " to enqueue and finish one.\n";
}

// The record of `library` on one image and sigma (null: none).
const Record* blur_find(const std::vector<const Record*>& rs, const std::string& library, const std::string& image,
                        double sigma) {
  const Record* hit = nullptr;
  for (const Record* r : rs)
    if (r->library == library && blur_image(*r) == image && blur_sigma(*r) == sigma) hit = r;
  return hit;
}

// The best timed peer's MP/s on one image and sigma (0: no peer timed).
double best_blur_peer(const std::vector<const Record*>& rs, const std::string& image, double sigma) {
  double best = 0;
  for (const Record* r : rs)
    if (is_blur_peer(*r) && timed(*r) && blur_image(*r) == image && blur_sigma(*r) == sigma)
      best = std::max(best, blur_mps(*r));
  return best;
}

// clforge / best peer per method and sigma on one image, when a peer was timed there.
void blur_ratio_table(std::ostringstream& o, const std::vector<const Record*>& rs, const std::string& image,
                      const std::vector<std::string>& methods, const std::vector<double>& sigmas) {
  if (std::none_of(sigmas.begin(), sigmas.end(), [&](double s) { return best_blur_peer(rs, image, s) > 0; })) return;
  o << "\nclforge / best peer (MP/s of the method over the fastest peer's on the same image and sigma):\n\n| method |";
  for (double s : sigmas) o << " sigma " << num(s) << " |";
  o << "\n|---|";
  for (std::size_t i = 0; i < sigmas.size(); ++i) o << "---:|";
  o << "\n";
  for (const std::string& method : methods) {
    o << "| " << method << " |";
    for (double s : sigmas) {
      const Record* r = blur_find(rs, method, image, s);
      const double best = best_blur_peer(rs, image, s);
      o << ' ' << (r != nullptr && timed(*r) && best > 0 ? num(blur_mps(*r) / best) : "-") << " |";
    }
    o << "\n";
  }
}

void blur_tables(std::ostringstream& o, std::size_t device, const std::vector<const Record*>& rs) {
  o << "MP/s (megapixels per second) of each method; in brackets the share of the method's bandwidth "
       "bound (its bytes read + written per pixel at the copy bandwidth of this run). Below the methods the "
       "peers with the work of the direct and separable methods (the same sigma, taps and border).\n";
  std::vector<std::string> methods, peers;
  for (const std::string& name : libraries_of(rs)) {
    const bool peer =
        std::any_of(rs.begin(), rs.end(), [&](const Record* r) { return r->library == name && is_blur_peer(*r); });
    (peer ? peers : methods).push_back(name);
  }
  const std::vector<double> sigmas = blur_sigmas(rs);
  for (const std::string& image : blur_images(rs)) {
    o << "\n#### " << image << "\n\n![blur " << image << " on device " << device << "]("
      << blur_chart_file(device, image) << ")\n\n| method / peer |";
    for (double s : sigmas) o << " sigma " << num(s) << " |";
    o << "\n|---|";
    for (std::size_t i = 0; i < sigmas.size(); ++i) o << "---:|";
    o << "\n";
    for (const auto* names : {&methods, &peers})
      for (const std::string& name : *names) {
        o << "| " << name << " |";
        for (double s : sigmas) {
          const Record* hit = blur_find(rs, name, image, s);
          if (hit == nullptr)
            o << " |";
          else if (!timed(*hit))
            o << ' ' << cell(hit->status) << " |";
          else if (is_blur_peer(*hit))
            o << ' ' << num(blur_mps(*hit)) << " |";
          else
            o << ' ' << num(blur_mps(*hit)) << " (" << pct(blur_mps(*hit), blur_bound_mps(*hit)) << ") |";
        }
        o << "\n";
      }
    blur_ratio_table(o, rs, image, methods, sigmas);
  }
  notes(o, rs);
}

}  // namespace
}  // namespace clforge::bench::report

namespace clforge::bench {

// One job on every device (AllResults::split): each case's configurations, with the speed-up of
// each over the best device alone (host data to host data, wall clock).
void split_section(std::ostream& o, const AllResults& res) {
  if (res.split.empty()) return;
  o << "\n## One job on every device\n\nGroup: " << report::cell(res.split_group, 400)
    << ". Host data to host data, median wall time of whole calls (`clforge bench split`, docs/group.md); "
       "\"vs best alone\" divides the best single device's time by the row's.\n\n"
    << "| routine | shape | configuration | median ms | GB/s | vs best alone | status |\n"
       "|---|---|---|---:|---:|---:|---|\n";
  for (const Record& r : res.split) {
    double best_alone = 0;
    for (const Record& a : res.split)
      if (a.routine == r.routine && a.shape == r.shape && a.library.find(" alone") != std::string::npos &&
          a.measured() && (best_alone == 0 || a.timing.median_ms < best_alone))
        best_alone = a.timing.median_ms;
    o << "| " << r.routine << " | " << r.shape << " | " << r.library << " | "
      << report::measured_num(r.measured(), r.timing.median_ms) << " | " << report::measured_num(r.measured(), r.gbps())
      << " | " << report::measured_num(r.measured() && best_alone > 0, best_alone / std::max(r.timing.median_ms, 1e-12))
      << " | " << report::cell(r.status) << " |\n";
  }
}

std::string report_markdown(const AllResults& res) {
  using namespace report;
  std::ostringstream o;
  const Provenance& p = res.provenance;
  o << "# clforge benchmark report\n\n"
    << "- clforge " << res.clforge_version << " (commit " << (p.commit.empty() ? "unknown" : p.commit) << "), "
    << res.date << " (UTC)\n"
    << "- host " << (p.host.empty() ? "unknown" : p.host) << ", " << (p.os.empty() ? "unknown OS" : cell(p.os, 400))
    << "\n"
    << "- command: `" << res.command_line << "`\n"
    << "- " << res.devices.size() << " device" << (res.devices.size() == 1 ? "" : "s")
    << (res.quick ? ", quick size lists" : "") << "\n\n"
    << "Throughput from the median device time: GB/s = bytes read + written per run, GFLOP/s = flops per run "
       "(5 n log2 n per FFT), MP/s = megapixels per second. \"clforge / best peer\" divides clforge's throughput "
       "by the fastest peer that ran; \"% of\" compares clforge with the copy bandwidth and FMA throughput "
       "measured in the same run on the same device; the second chart of a routine plots clforge / best peer on a "
       "linear axis. Cells of peers that did not run hold their status; \"-\" is a value that was not measured.\n";
  const nlohmann::json peers = peer_versions();
  for (std::size_t k = 0; k < res.devices.size(); ++k) {
    const DeviceRun& run = res.devices[k];
    const DeviceInfo& d = run.report.device();
    const std::size_t dev = k + 1;
    o << "\n## Device " << dev << ": " << d.name << "\n\n"
      << "| | |\n|---|---|\n"
      << "| index | " << d.index_string() << " |\n"
      << "| platform | " << cell(d.platform_name + " (" + d.platform_version + ")", 400) << " |\n"
      << "| driver | " << cell(d.driver_version) << " |\n"
      << "| type, vendor class, architecture | " << d.type << ", " << d.vendor_key() << ", "
      << (d.architecture.empty() ? "-" : d.architecture) << " |\n"
      << "| compute units, clock | " << d.compute_units << ", " << d.max_clock_mhz << " MHz |\n"
      << "| memory | " << (d.global_mem_size >> 20) << " MiB global, " << (d.local_mem_size >> 10) << " KiB local |\n"
      << "| run time | " << num(run.seconds) << " s |\n";
    for (const auto& [peer, version] : (run.peers.is_object() ? run.peers : peers).items())
      o << "| peer " << peer << " | " << cell(version.is_string() ? version.get<std::string>() : version.dump(), 400)
        << " |\n";

    o << "\n### Peaks\n\n| probe | shape | median ms | GB/s | GFLOP/s | status |\n|---|---|---:|---:|---:|---|\n";
    for (const Record* r : records_of(run.report, "peak"))
      o << "| " << r->library << " | " << r->shape << " | " << measured_num(r->measured(), r->timing.median_ms) << " | "
        << measured_num(r->measured(), r->gbps()) << " | " << measured_num(r->measured(), r->gflops()) << " | "
        << cell(r->status) << " |\n";
    peaks_summary(o, run.peaks);
    for (const Record* r : records_of(run.report, "session"))
      o << "\nThe device could not be used: " << cell(r->status) << "\n";

    for (const std::string& routine : routines_of(run.report)) {
      const std::vector<const Record*> rs = records_of(run.report, routine);
      const Metric m = primary_metric(routine, rs);
      o << "\n### " << routine << " (" << m.unit << ")\n\n";
      if (routine == "blur") {
        blur_tables(o, dev, rs);
        continue;
      }
      o << "![" << routine << " on device " << dev << "](" << chart_file(routine, dev) << ")\n\n";
      if (has_ratio_chart(routine, rs))
        o << "![" << routine << " on device " << dev << ": clforge / best peer](" << ratio_chart_file(routine, dev)
          << ")\n\n";
      routine_table(o, routine, rs, run.peaks);
    }
  }
  if (!res.devices.empty()) {
    o << "\n## clforge on each device\n\n";
    std::vector<std::string> routines;
    for (const DeviceRun& run : res.devices)
      for (const auto& r : routines_of(run.report))
        if (std::find(routines.begin(), routines.end(), r) == routines.end()) routines.push_back(r);
    for (const auto& r : routines) o << "![" << r << " on each device](" << devices_chart_file(r) << ")\n\n";
  }
  split_section(o, res);
  return o.str();
}

}  // namespace clforge::bench
