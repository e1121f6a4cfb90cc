// SVG line charts for the benchmark reports (see svg_plot.hpp).
#include "bench/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace clforge::bench {

namespace {

constexpr double kWidth = 900, kHeight = 480;
constexpr double kLeft = 80, kRight = 640, kTop = 50, kBottom = 420;  // plot area
constexpr double kLegendX = 660;
const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string xml(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string sig3(double v) { return std::fabs(v) >= 100 ? fmt("%.0f", v) : fmt("%.3g", v); }

// One axis: value range, scale and tick values.
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;
  std::vector<double> ticks;
  double t(double v) const { return log ? std::log10(v) : v; }
  // Position of v between lo (0) and hi (1).
  double frac(double v) const { return (t(v) - t(lo)) / (t(hi) - t(lo)); }
  bool usable(double v) const { return std::isfinite(v) && (!log || v > 0); }
};

// The 1-2-5 value at or below (down) / at or above (up) v > 0.
double nice125(double v, bool up) {
  const double mag = std::pow(10.0, std::floor(std::log10(v)));
  const double steps[] = {1, 2, 5, 10};
  if (up) {
    for (double m : steps)
      if (m * mag >= v * (1 - 1e-12)) return m * mag;
    return 10 * mag;
  }
  double best = mag;
  for (double m : steps)
    if (m * mag <= v * (1 + 1e-12)) best = m * mag;
  return best;
}

Axis make_axis(std::vector<double> values, AxisScale scale, bool from_zero) {
  Axis a;
  std::vector<double> positive;
  for (double v : values)
    if (std::isfinite(v) && v > 0) positive.push_back(v);
  if (scale == AxisScale::Auto) {
    a.log = false;
    if (!positive.empty()) {
      const auto [mn, mx] = std::minmax_element(positive.begin(), positive.end());
      a.log = *mx / *mn > 30;
    }
  } else {
    a.log = scale == AxisScale::Log;
  }
  if (a.log) {
    if (positive.empty()) positive = {1, 10};
    const auto [mn, mx] = std::minmax_element(positive.begin(), positive.end());
    a.lo = nice125(*mn, false);
    a.hi = nice125(*mx, true);
    if (a.hi <= a.lo) {
      a.lo = nice125(a.lo * 0.99, false);
      a.hi = nice125(a.hi * 1.01, true);
    }
    const double decades = std::log10(a.hi / a.lo);
    if (decades <= 3) {
      for (int k = static_cast<int>(std::floor(std::log10(a.lo))) - 1; k <= std::ceil(std::log10(a.hi)); ++k)
        for (double m : {1.0, 2.0, 5.0}) {
          const double v = m * std::pow(10.0, k);
          if (v >= a.lo * (1 - 1e-9) && v <= a.hi * (1 + 1e-9)) a.ticks.push_back(v);
        }
    } else {
      a.lo = std::pow(10.0, std::floor(std::log10(a.lo) + 1e-9));
      a.hi = std::pow(10.0, std::ceil(std::log10(a.hi) - 1e-9));
      const int first = static_cast<int>(std::lround(std::log10(a.lo)));
      const int last = static_cast<int>(std::lround(std::log10(a.hi)));
      const int every = (last - first + 7) / 8;
      for (int k = first; k <= last; k += every) a.ticks.push_back(std::pow(10.0, k));
    }
    return a;
  }
  double mn = std::numeric_limits<double>::infinity(), mx = -mn;
  for (double v : values)
    if (std::isfinite(v)) mn = std::min(mn, v), mx = std::max(mx, v);
  if (!std::isfinite(mn)) mn = 0, mx = 1;
  if (from_zero) mn = std::min(mn, 0.0);
  if (mx <= mn) mx = mn + (mn == 0 ? 1 : std::fabs(mn));
  const double step = nice125((mx - mn) / 5, true);
  a.lo = std::floor(mn / step) * step;
  a.hi = std::ceil(mx / step - 1e-9) * step;
  const int steps = static_cast<int>(std::lround((a.hi - a.lo) / step));
  for (int k = 0; k <= steps; ++k) a.ticks.push_back(a.lo + k * step);
  return a;
}

}  // namespace

std::string short_number(double v) {
  const double a = std::fabs(v);
  if (a == 0) return "0";
  if (a >= 1e9) return sig3(v / 1e9) + "G";
  if (a >= 1e6) return sig3(v / 1e6) + "M";
  if (a >= 1e4) return sig3(v / 1e3) + "k";
  return sig3(v);
}

std::string svg_chart(const Chart& c) {
  std::vector<double> xs, ys;
  for (const auto& s : c.series)
    for (const auto& [x, y] : s.points) xs.push_back(x), ys.push_back(y);
  for (const auto& l : c.lines) ys.push_back(l.y);
  const Axis ax = make_axis(xs, c.x_scale, false);
  const Axis ay = make_axis(ys, c.y_scale, true);
  const auto px = [&](double x) { return kLeft + ax.frac(x) * (kRight - kLeft); };
  const auto py = [&](double y) { return kBottom - ay.frac(y) * (kBottom - kTop); };
  const auto in_y = [&](double y) { return ay.usable(y) && y >= ay.lo * (1 - 1e-9) && y <= ay.hi * (1 + 1e-9); };

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
    << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  o << "<rect x=\"0\" y=\"0\" width=\"" << kWidth << "\" height=\"" << kHeight << "\" fill=\"white\"/>\n";
  o << "<text x=\"" << kLeft << "\" y=\"28\" font-size=\"15\" font-weight=\"bold\">" << xml(c.title) << "</text>\n";

  // Grid, ticks and tick labels.
  o << "<g class=\"grid\" stroke=\"#e4e4e4\" stroke-width=\"1\">\n";
  for (double t : ax.ticks)
    o << "<line x1=\"" << fmt("%.1f", px(t)) << "\" y1=\"" << kTop << "\" x2=\"" << fmt("%.1f", px(t)) << "\" y2=\""
      << kBottom << "\"/>\n";
  for (double t : ay.ticks)
    o << "<line x1=\"" << kLeft << "\" y1=\"" << fmt("%.1f", py(t)) << "\" x2=\"" << kRight << "\" y2=\""
      << fmt("%.1f", py(t)) << "\"/>\n";
  o << "</g>\n<g class=\"ticks\">\n";
  for (double t : ax.ticks)
    o << "<text x=\"" << fmt("%.1f", px(t)) << "\" y=\"" << kBottom + 18 << "\" text-anchor=\"middle\">"
      << short_number(t) << "</text>\n";
  for (double t : ay.ticks)
    o << "<text x=\"" << kLeft - 6 << "\" y=\"" << fmt("%.1f", py(t) + 4) << "\" text-anchor=\"end\">"
      << short_number(t) << "</text>\n";
  o << "</g>\n";
  o << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kRight - kLeft << "\" height=\"" << kBottom - kTop
    << "\" fill=\"none\" stroke=\"#444\"/>\n";
  o << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << kHeight - 18 << "\" text-anchor=\"middle\">"
    << xml(c.x_label + (ax.log ? " (log scale)" : "")) << "</text>\n";
  o << "<text transform=\"translate(22," << (kTop + kBottom) / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
    << xml(c.y_label + (ay.log ? " (log scale)" : "")) << "</text>\n";

  // Reference lines.
  for (const auto& l : c.lines) {
    if (!in_y(l.y)) continue;
    const std::string y = fmt("%.1f", py(l.y));
    o << "<g class=\"reference\"><line x1=\"" << kLeft << "\" y1=\"" << y << "\" x2=\"" << kRight << "\" y2=\"" << y
      << "\" stroke=\"#777\" stroke-width=\"1.5\" stroke-dasharray=\"2,3\"/><text x=\"" << kRight - 4 << "\" y=\""
      << fmt("%.1f", py(l.y) - kTop < 18 ? py(l.y) + 15 : py(l.y) - 5)  // below the line near the top edge
      << "\" text-anchor=\"end\" fill=\"#555\">" << xml(l.label) << "</text></g>\n";
  }

  // Series: polyline, markers with their values as tooltips, legend entry.
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const ChartSeries& s = c.series[i];
    const char* color = kPalette[(s.color >= 0 ? s.color : static_cast<int>(i)) % 10];
    std::vector<std::pair<double, double>> pts;
    for (const auto& p : s.points)
      if (ax.usable(p.first) && in_y(p.second)) pts.push_back(p);
    std::stable_sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::string dash = s.dashed ? " stroke-dasharray=\"7,4\"" : "";
    o << "<g class=\"series\" data-label=\"" << xml(s.label) << "\">\n";
    if (s.line) {
      o << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\"" << dash << " points=\"";
      for (std::size_t k = 0; k < pts.size(); ++k)
        o << (k ? " " : "") << fmt("%.1f", px(pts[k].first)) << ',' << fmt("%.1f", py(pts[k].second));
      o << "\"/>\n";
    }
    // A marker: circle on a line, square alone.
    const auto marker = [&](double x, double y) {
      if (s.line)
        return "<circle cx=\"" + fmt("%.1f", x) + "\" cy=\"" + fmt("%.1f", y) + "\" r=\"3.5\" fill=\"" + color + "\"/>";
      return "<rect x=\"" + fmt("%.1f", x - 3.5) + "\" y=\"" + fmt("%.1f", y - 3.5) +
             "\" width=\"7\" height=\"7\" fill=\"" + color + "\"/>";
    };
    if (!s.dashed)
      for (const auto& [x, y] : pts)
        o << "<g><title>" << xml(s.label) << ": " << short_number(x) << ", " << short_number(y) << "</title>"
          << marker(px(x), py(y)) << "</g>\n";
    const double ly = kTop + 8 + 18 * static_cast<double>(i);
    if (s.line)
      o << "<line x1=\"" << kLegendX << "\" y1=\"" << ly << "\" x2=\"" << kLegendX + 24 << "\" y2=\"" << ly
        << "\" stroke=\"" << color << "\" stroke-width=\"2\"" << dash << "/>";
    if (!s.dashed) o << marker(kLegendX + 12, ly);
    // Legend text of at most 30 characters; a trailing " (...)" stays whole, the text before it is cut.
    std::string label = s.label;
    if (label.size() > 30) {
      const auto paren = label.rfind(" (");
      const std::string tail = paren != std::string::npos && label.size() - paren <= 18 ? label.substr(paren) : "";
      label = label.substr(0, 29 - tail.size()) + "~" + tail;
    }
    o << "<text x=\"" << kLegendX + 30 << "\" y=\"" << ly + 4 << "\">" << xml(label) << "</text>\n</g>\n";
  }
  if (c.series.empty() || xs.empty())
    o << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << (kTop + kBottom) / 2
      << "\" text-anchor=\"middle\" fill=\"#999\">no measurement</text>\n";
  o << "</svg>\n";
  return o.str();
}

}  // namespace clforge::bench
