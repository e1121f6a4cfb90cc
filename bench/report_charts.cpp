// The SVG charts of `clforge bench all` (drawn by svg_plot.cpp):
//  - <routine>_device<k>.svg: throughput against size (log x), one line per library (fft: per
//    library and data size when several), the device's measured peak as a dashed grey line;
//  - blur_device<k>_<image>.svg: MP/s against sigma (log x), one line per method, each method's
//    bandwidth bound dashed in the method's colour (equal bounds drawn once, labels merged);
//  - <routine>_devices.svg: clforge on each device (blur: the best method at each sigma on the
//    largest image of each device).
#include <algorithm>
#include <cmath>
#include <map>

#include "bench/report.hpp"
#include "bench/svg_plot.hpp"

namespace clforge::bench {

namespace {
using namespace report;

std::string device_label(std::size_t k, const DeviceInfo& d) { return std::to_string(k) + ": " + d.name; }

bool power_of_two(double n) { return n >= 1 && std::fabs(std::exp2(std::round(std::log2(n))) - n) < 0.5; }

// One line per library (and data size group) of a routine's timed records, in the library's
// colour. fft lengths that are not powers of two (1000, 1009, 4095, 65537 beside 1024, 4096,
// 65536) are markers of the same colour without a line, so the line does not zigzag between
// neighbouring lengths.
std::vector<ChartSeries> library_series(const std::vector<const Record*>& rs, const Metric& m) {
  std::vector<ChartSeries> out;
  for (const std::string& lib : libraries_of(rs)) {
    const std::size_t first = out.size();
    std::vector<std::string> groups;
    for (const Record* r : rs)
      if (r->library == lib && r->shape != "-" &&
          std::find(groups.begin(), groups.end(), series_group(*r, rs)) == groups.end())
        groups.push_back(series_group(*r, rs));
    for (const std::string& g : groups) {
      const std::string label = g.empty() ? lib : lib + ", " + g;
      ChartSeries line{label, {}, false, -1}, other{label + ", n not 2^k", {}, false, -1, false};
      bool mixed_lengths[2] = {false, false};
      for (const Record* r : rs) {
        if (r->library != lib || r->shape == "-" || series_group(*r, rs) != g) continue;
        const bool apart = r->routine == "fft" && !power_of_two(size_key(*r));
        mixed_lengths[apart] = true;
        if (timed(*r)) (apart ? other : line).points.emplace_back(size_key(*r), m.value(*r));
      }
      if (!mixed_lengths[0] || !mixed_lengths[1]) {  // one kind of length only: one line
        line.points.insert(line.points.end(), other.points.begin(), other.points.end());
        out.push_back(std::move(line));
        continue;
      }
      out.push_back(std::move(line));
      out.push_back(std::move(other));
    }
    if (out.size() == first) out.push_back({lib, {}, false, -1});  // only a routine-level failure
  }
  // Colours: one per line; the markers of other lengths take their line's colour.
  int color = -1;
  for (auto& s : out) s.color = s.line ? ++color : color;
  return out;
}

Chart routine_chart(const std::string& routine, std::size_t dev, const DeviceRun& run) {
  const std::vector<const Record*> rs = records_of(run.report, routine);
  const Metric m = primary_metric(routine, rs);
  Chart c;
  c.title = routine + " on " + device_label(dev, run.report.device());
  c.x_label = size_axis(routine);
  c.y_label = m.unit + " (higher is better)";
  c.series = library_series(rs, m);
  if (m.peak && m.peak(run.peaks) > 0)
    c.lines.push_back({m.peak_name + " " + num(m.peak(run.peaks)) + " " + m.unit, m.peak(run.peaks)});
  return c;
}

Chart blur_chart(std::size_t dev, const DeviceRun& run, const std::string& image) {
  const std::vector<const Record*> rs = records_of(run.report, "blur");
  Chart c;
  c.title = "blur " + image + " on " + device_label(dev, run.report.device());
  c.x_label = size_axis("blur");
  c.y_label = "MP/s (higher is better)";
  std::vector<ChartSeries> bounds;
  const std::vector<std::string> methods = libraries_of(rs);
  for (std::size_t i = 0; i < methods.size(); ++i) {
    ChartSeries s{methods[i], {}, false, static_cast<int>(i)};
    ChartSeries b{"bound: " + methods[i], {}, true, static_cast<int>(i)};
    for (const Record* r : rs) {
      if (r->library != methods[i] || r->shape == "-" || blur_image(*r) != image) continue;
      if (timed(*r)) s.points.emplace_back(blur_sigma(*r), blur_mps(*r));
      if (blur_bound_mps(*r) > 0) b.points.emplace_back(blur_sigma(*r), blur_bound_mps(*r));
    }
    c.series.push_back(std::move(s));
    if (b.points.empty()) continue;
    auto same = std::find_if(bounds.begin(), bounds.end(), [&](const ChartSeries& o) { return o.points == b.points; });
    if (same != bounds.end())
      same->label += ", " + methods[i];
    else
      bounds.push_back(std::move(b));
  }
  for (auto& b : bounds) c.series.push_back(std::move(b));
  return c;
}

Chart devices_chart(const std::string& routine, const AllResults& res) {
  Chart c;
  c.title = "clforge " + routine + " on each device";
  c.x_label = size_axis(routine);
  for (std::size_t k = 0; k < res.devices.size(); ++k) {
    const DeviceRun& run = res.devices[k];
    const std::vector<const Record*> rs = records_of(run.report, routine);
    const std::string label = device_label(k + 1, run.report.device());
    if (routine == "blur") {
      c.y_label = "MP/s, best method (higher is better)";
      const std::vector<std::string> images = blur_images(rs);
      ChartSeries s{label, {}, false, static_cast<int>(k)};
      if (!images.empty()) {
        s.label += " (" + images.back() + ")";
        std::map<double, double> best;
        for (const Record* r : rs)
          if (timed(*r) && blur_image(*r) == images.back())
            best[blur_sigma(*r)] = std::max(best[blur_sigma(*r)], blur_mps(*r));
        for (const auto& [sigma, v] : best) s.points.emplace_back(sigma, v);
      }
      c.series.push_back(std::move(s));
      continue;
    }
    const Metric m = primary_metric(routine, rs);
    c.y_label = m.unit + " (higher is better)";
    std::vector<const Record*> mine;
    for (const Record* r : rs)
      if (r->library == "clforge") mine.push_back(r);
    std::vector<ChartSeries> series = library_series(mine, m);
    if (series.empty()) series.push_back({"clforge", {}, false, -1});
    for (auto& s : series) {
      s.label = label + (s.label == "clforge" ? "" : " (" + s.label.substr(s.label.find(", ") + 2) + ")");
      s.color = static_cast<int>(k);
      c.series.push_back(std::move(s));
    }
  }
  return c;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> report_charts(const AllResults& res) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::string> routines;
  for (std::size_t k = 0; k < res.devices.size(); ++k) {
    const DeviceRun& run = res.devices[k];
    for (const std::string& routine : routines_of(run.report)) {
      if (std::find(routines.begin(), routines.end(), routine) == routines.end()) routines.push_back(routine);
      if (routine == "blur") {
        for (const std::string& image : blur_images(records_of(run.report, "blur")))
          out.emplace_back(blur_chart_file(k + 1, image), svg_chart(blur_chart(k + 1, run, image)));
        continue;
      }
      out.emplace_back(chart_file(routine, k + 1), svg_chart(routine_chart(routine, k + 1, run)));
    }
  }
  for (const std::string& routine : routines)
    out.emplace_back(devices_chart_file(routine), svg_chart(devices_chart(routine, res)));
  return out;
}

}  // namespace clforge::bench
