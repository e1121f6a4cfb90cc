// The SVG charts of `clforge bench all` (drawn by svg_plot.cpp):
//  - <routine>_device<k>.svg: throughput against size (log x), one colour and marker per library
//    (the same in every chart), one line per family of shapes (square 2^k sizes, other square
//    sizes; fft: n = 2^k per data size) and hollow points for the other shapes, so no line joins
//    two shapes of one size; the device's measured peak as a dotted grey line;
//  - <routine>_device<k>_ratio.svg: clforge / best peer on a linear axis, where the few percent
//    between libraries show (a log throughput axis hides them): at least 250 pixels per unit
//    (2 % is 5 pixels), the plot taller where the ratios span more than 1.5;
//  - blur_device<k>_<image>.svg: MP/s against sigma (log x), one colour, marker and dash per
//    method and peer, each method's bandwidth bound dashed in its colour (equal bounds drawn once);
//  - <routine>_devices.svg: clforge on each device (blur: the best of clforge's methods at each
//    sigma on the largest image of each device).
// Values that were not measured (null in results.json) are left out.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "bench/blur_peers.hpp"
#include "bench/report.hpp"
#include "bench/svg_plot.hpp"

namespace clforge::bench {

namespace {
using namespace report;

const char* const kReferenceColor = "#7f7f7f";  // measured peaks, parity

KeyStyle style(const char* color, Marker marker, const char* dash = "", double width = 2, bool hollow = false) {
  return {color, marker, dash, width, hollow};
}

// Colours and markers of the libraries and blur methods, the same in every chart; other names
// take the spare styles in order of first appearance in the results.
const std::map<std::string, KeyStyle>& known_styles() {
  static const std::map<std::string, KeyStyle> m{
      {"clforge", style("#1f77b4", Marker::Circle)},
      {"CLBlast", style("#ff7f0e", Marker::Square)},
      {"clFFT", style("#2ca02c", Marker::Square)},
      {"VkFFT", style("#9467bd", Marker::Diamond)},
      {"cuBLAS", style("#d62728", Marker::TriangleDown)},
      {"cuFFT", style("#8c564b", Marker::TriangleDown)},
      {"FFTW", style("#e377c2", Marker::Triangle)},
      {"OpenBLAS", style("#bcbd22", Marker::Diamond)},
      // Blur methods. "recursive" takes one of the rec-* schemes, so its line lies on one of
      // theirs: it is a wide band under the schemes' thin lines, with markers of its own.
      {"direct", style("#d95f02", Marker::Circle)},
      {"separable", style("#1b9e77", Marker::Square)},
      {"recursive", style("#7570b3", Marker::Triangle, "", 5)},
      {"rec-whole", style("#e7298a", Marker::Diamond)},
      {"rec-block", style("#66a61e", Marker::TriangleDown)},
      {"rec-fused", style("#a6761d", Marker::Circle, "3,3", 2, true)},
      // Blur peers: dashed, so that they stand apart from clforge's methods.
      {"OpenCV CPU", style("#5254a3", Marker::Square, "6,3")},
      {"OpenCV OpenCL", style("#843c39", Marker::Diamond, "6,3")},
      {"NPP", style("#d62728", Marker::TriangleDown, "6,3")},
  };
  return m;
}
const KeyStyle kSpare[] = {style("#393b79", Marker::Triangle),     style("#ad494a", Marker::Square),
                           style("#637939", Marker::Diamond),      style("#8c6d31", Marker::Circle),
                           style("#7b4173", Marker::TriangleDown), style("#e7ba52", Marker::Triangle)};
// Devices (in the charts of clforge on each device), apart from the colours above.
const KeyStyle kDevice[] = {style("#17becf", Marker::Circle), style("#08519c", Marker::Square),
                            style("#a63603", Marker::Diamond), style("#54278f", Marker::Triangle),
                            style("#006d2c", Marker::TriangleDown)};

using Styles = std::map<std::string, KeyStyle>;

Styles styles_of(const AllResults& res) {
  Styles s = known_styles();
  std::size_t spare = 0;
  for (const DeviceRun& run : res.devices)
    for (const Record& r : run.report.records())
      if (r.routine != "peak" && r.routine != "session" && !s.count(r.library))
        s[r.library] = kSpare[spare++ % (sizeof kSpare / sizeof kSpare[0])];
  return s;
}

std::string device_label(std::size_t k, const DeviceInfo& d) { return std::to_string(k) + ": " + d.name; }

bool power_of_two(double n) { return n >= 1 && std::fabs(std::exp2(std::round(std::log2(n))) - n) < 0.5; }

// The family of a record's shape in its routine's charts. Joined into a line: square sizes
// (transpose RxR, sgemm NxNxN without transposes), split into powers of two and the others,
// and fft lengths n = 2^k per kind (complex, real) and data size; every other shape is a point of its own.
std::pair<std::string, bool> shape_family(const Record& r, const std::vector<const Record*>& all) {
  if (r.routine == "fft") {  // complex 1-D and real 1-D lines of their own, 2-D and 3-D points (complex, real)
    const std::string kind = fft_kind(r);
    if (kind == "2-D" || kind == "3-D") return {"2-D and 3-D (n: points)", false};
    if (kind == "real 2-D" || kind == "real 3-D") return {"real 2-D and 3-D (n: points)", false};
    const std::string prefix = kind.empty() ? "" : kind + ", ";
    if (!power_of_two(size_key(r))) return {prefix + "other n", false};
    const std::string group = series_group(r, all);
    return {prefix + "n = 2^k" + (group.empty() ? "" : ", " + group), true};
  }
  if (r.routine != "transpose" && r.routine != "sgemm") return {"", true};
  std::vector<double> dims;
  std::size_t pos = 0;
  while (pos < r.shape.size() && std::isdigit(static_cast<unsigned char>(r.shape[pos]))) {
    std::size_t end = pos;
    while (end < r.shape.size() && std::isdigit(static_cast<unsigned char>(r.shape[end]))) ++end;
    dims.push_back(std::stod(r.shape.substr(pos, end - pos)));
    pos = end < r.shape.size() && r.shape[end] == 'x' ? end + 1 : std::string::npos;
  }
  const bool square = !dims.empty() && pos == std::string::npos &&
                      std::all_of(dims.begin(), dims.end(), [&](double d) { return d == dims[0]; });
  if (!square || r.shape.find(' ') != std::string::npos) return {"one-off shapes", false};
  return {power_of_two(dims[0]) ? "square, 2^k sizes" : "square, other sizes", true};
}

// The families of a chart's records (each with the records its family is judged among): lines
// first (solid, then six dash patterns), then points. One family that is a line gets no legend
// entry (every record's family is "").
using Judged = std::vector<std::pair<const Record*, const std::vector<const Record*>*>>;
std::vector<ChartFamily> families_of(const Judged& records) {
  std::vector<ChartFamily> lines, points;
  for (const auto& [r, all] : records) {
    if (r->shape == "-") continue;
    const auto [label, line] = shape_family(*r, *all);
    auto& list = line ? lines : points;
    if (std::none_of(list.begin(), list.end(), [&](const ChartFamily& f) { return f.label == label; }))
      list.push_back({label, "", line});
  }
  if (points.empty() && lines.size() <= 1) return {};
  // One pattern per line family of a chart (fft: two data sizes, real 1-D, 2-D/3-D complex
  // and real, ...): a family's series share their colour with the others' of the same library.
  const char* const dashes[] = {"", "7,4", "2,3", "10,3,2,3", "14,4,4,4", "1,5"};
  const std::size_t n = sizeof dashes / sizeof dashes[0];
  for (std::size_t i = 0; i < lines.size(); ++i) lines[i].dash = dashes[i % n];
  lines.insert(lines.end(), points.begin(), points.end());
  return lines;
}
std::vector<ChartFamily> families_of(const std::vector<const Record*>& rs) {
  Judged j;
  for (const Record* r : rs) j.emplace_back(r, &rs);
  return families_of(j);
}

// Adds a point for every record with a value (value > 0) to the series of (key, family).
void add_points(Chart& c, const std::vector<const Record*>& rs, const std::vector<const Record*>& all,
                const std::string& key, double (*value)(const Record&)) {
  for (const Record* r : rs) {
    if (r->shape == "-") continue;
    const std::string family = c.families.empty() ? "" : shape_family(*r, all).first;
    auto it = std::find_if(c.series.begin(), c.series.end(),
                           [&](const ChartSeries& s) { return s.key == key && s.family == family; });
    if (it == c.series.end()) it = c.series.insert(c.series.end(), {key, family, {}});
    const double v = timed(*r) ? value(*r) : 0;
    if (v > 0 && std::isfinite(v)) it->points.push_back({size_key(*r), v, r->shape + ": " + num(v)});
  }
  if (std::none_of(c.series.begin(), c.series.end(), [&](const ChartSeries& s) { return s.key == key; }))
    c.series.push_back({key, "", {}});  // a routine-level failure only: named as not measured
}

Chart routine_chart(const std::string& routine, std::size_t dev, const DeviceRun& run, const Styles& styles) {
  const std::vector<const Record*> rs = records_of(run.report, routine);
  const Metric m = primary_metric(routine, rs);
  Chart c;
  c.title = routine + " on " + device_label(dev, run.report.device());
  c.x_label = size_axis(routine);
  c.y_label = m.unit + " (higher is better)";
  c.families = families_of(rs);
  for (const std::string& lib : libraries_of(rs)) {
    c.keys.push_back({lib, styles.at(lib)});
    std::vector<const Record*> mine;
    for (const Record* r : rs)
      if (r->library == lib) mine.push_back(r);
    add_points(c, mine, rs, lib, m.value);
  }
  if (m.peak && m.peak(run.peaks) > 0)
    c.lines.push_back({m.peak_name + " " + num(m.peak(run.peaks)) + " " + m.unit, m.peak(run.peaks), kReferenceColor});
  return c;
}

Chart ratio_chart(const std::string& routine, std::size_t dev, const DeviceRun& run, const Styles& styles) {
  const std::vector<const Record*> rs = records_of(run.report, routine);
  const Metric m = primary_metric(routine, rs);
  Chart c;
  c.title = routine + " on " + device_label(dev, run.report.device()) + ": clforge / best peer";
  c.x_label = size_axis(routine);
  c.y_label = "clforge / best peer (above 1: clforge faster)";
  c.y_scale = AxisScale::Linear;
  c.y_from_zero = false;
  c.y_min_px_per_unit = 250;
  c.families = families_of(rs);
  c.keys.push_back({"clforge", styles.at("clforge")});
  for (const Record* r : rs) {
    if (r->library != "clforge" || r->shape == "-") continue;
    const std::string family = c.families.empty() ? "" : shape_family(*r, rs).first;
    auto it = std::find_if(c.series.begin(), c.series.end(), [&](const ChartSeries& s) { return s.family == family; });
    if (it == c.series.end()) it = c.series.insert(c.series.end(), {"clforge", family, {}});
    const Record* best = nullptr;
    for (const Record* p : rs)
      if (p->shape == r->shape && p->library != "clforge" && timed(*p) && m.value(*p) > 0 &&
          (best == nullptr || m.value(*p) > m.value(*best)))
        best = p;
    if (!timed(*r) || best == nullptr || !(m.value(*r) > 0)) continue;
    const double ratio = m.value(*r) / m.value(*best);
    it->points.push_back({size_key(*r), ratio,
                          r->shape + ": " + num(ratio) + " (" + num(m.value(*r)) + " " + m.unit + ", best peer " +
                              best->library + " " + num(m.value(*best)) + ")"});
  }
  c.lines.push_back({"parity (1 = as fast as the best peer)", 1, kReferenceColor, "4,3", 1.5});
  return c;
}

Chart blur_chart(std::size_t dev, const DeviceRun& run, const std::string& image, const Styles& styles) {
  const std::vector<const Record*> rs = records_of(run.report, "blur");
  Chart c;
  c.title = "blur " + image + " on " + device_label(dev, run.report.device());
  c.x_label = size_axis("blur");
  c.y_label = "MP/s (higher is better)";
  c.key_title = "method / peer";
  for (const std::string& method : libraries_of(rs)) {
    c.keys.push_back({method, styles.at(method)});
    ChartSeries s{method, "", {}}, bound{"bound: " + method, "", {}};
    for (const Record* r : rs) {
      if (r->library != method || r->shape == "-" || blur_image(*r) != image) continue;
      const std::string sigma = "sigma " + num(blur_sigma(*r)) + ": ";
      if (timed(*r)) s.points.push_back({blur_sigma(*r), blur_mps(*r), sigma + num(blur_mps(*r)) + " MP/s"});
      if (blur_bound_mps(*r) > 0)
        bound.points.push_back({blur_sigma(*r), blur_bound_mps(*r), sigma + "bound " + num(blur_bound_mps(*r))});
    }
    c.series.push_back(std::move(s));
    if (bound.points.empty()) continue;
    // A bound that does not change with sigma is a line across the plot (drawn with one sigma
    // too); equal bounds of several methods are one line.
    const double y = bound.points.front().y;
    const bool flat = std::all_of(bound.points.begin(), bound.points.end(),
                                  [&](const ChartPoint& p) { return std::fabs(p.y - y) <= 1e-9 * y; });
    const KeyStyle& st = styles.at(method);
    if (!flat) {
      c.keys.push_back({bound.key, {st.color, Marker::None, "7,4", 1.5, false}});
      c.series.push_back(std::move(bound));
      continue;
    }
    const auto same = std::find_if(c.lines.begin(), c.lines.end(), [&](const ChartLine& l) { return l.y == y; });
    if (same != c.lines.end())
      same->label += ", " + method;
    else
      c.lines.push_back({bound.key, y, st.color, "7,4", 1.5});
  }
  return c;
}

Chart devices_chart(const std::string& routine, const AllResults& res) {
  Chart c;
  c.title = "clforge " + routine + " on each device";
  c.x_label = size_axis(routine);
  c.key_title = "device";
  // The families of clforge's records on every device, each judged among its device's records.
  std::vector<std::vector<const Record*>> per_device;
  for (const DeviceRun& run : res.devices) per_device.push_back(records_of(run.report, routine));
  Judged mine_all;
  if (routine != "blur")
    for (const auto& rs : per_device)
      for (const Record* r : rs)
        if (r->library == "clforge") mine_all.emplace_back(r, &rs);
  c.families = families_of(mine_all);
  for (std::size_t k = 0; k < res.devices.size(); ++k) {
    const DeviceRun& run = res.devices[k];
    const std::vector<const Record*>& rs = per_device[k];
    const KeyStyle& style = kDevice[k % (sizeof kDevice / sizeof kDevice[0])];
    std::string label = device_label(k + 1, run.report.device());
    if (routine == "blur") {
      c.y_label = "MP/s, best method (higher is better)";
      const std::vector<std::string> images = blur_images(rs);
      if (!images.empty()) label += " (" + images.back() + ")";
      c.keys.push_back({label, style});
      ChartSeries s{label, "", {}};
      std::map<double, double> best;
      for (const Record* r : rs)
        if (!images.empty() && timed(*r) && !is_blur_peer(*r) && blur_image(*r) == images.back() && blur_mps(*r) > 0)
          best[blur_sigma(*r)] = std::max(best[blur_sigma(*r)], blur_mps(*r));
      for (const auto& [sigma, v] : best) s.points.push_back({sigma, v, "sigma " + num(sigma) + ": " + num(v)});
      c.series.push_back(std::move(s));
      continue;
    }
    std::vector<const Record*> mine;
    for (const Record* r : rs)
      if (r->library == "clforge") mine.push_back(r);
    const Metric m = primary_metric(routine, rs);
    c.y_label = m.unit + " (higher is better)";
    c.keys.push_back({label, style});
    add_points(c, mine, rs, label, m.value);
  }
  return c;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> report_charts(const AllResults& res) {
  const Styles styles = styles_of(res);
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::string> routines;
  for (std::size_t k = 0; k < res.devices.size(); ++k) {
    const DeviceRun& run = res.devices[k];
    for (const std::string& routine : routines_of(run.report)) {
      if (std::find(routines.begin(), routines.end(), routine) == routines.end()) routines.push_back(routine);
      const std::vector<const Record*> rs = records_of(run.report, routine);
      if (routine == "blur") {
        for (const std::string& image : blur_images(rs))
          out.emplace_back(blur_chart_file(k + 1, image), svg_chart(blur_chart(k + 1, run, image, styles)));
        continue;
      }
      out.emplace_back(chart_file(routine, k + 1), svg_chart(routine_chart(routine, k + 1, run, styles)));
      if (has_ratio_chart(routine, rs))
        out.emplace_back(ratio_chart_file(routine, k + 1), svg_chart(ratio_chart(routine, k + 1, run, styles)));
    }
  }
  for (const std::string& routine : routines)
    out.emplace_back(devices_chart_file(routine), svg_chart(devices_chart(routine, res)));
  return out;
}

}  // namespace clforge::bench
