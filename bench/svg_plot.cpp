// SVG charts for the benchmark reports (see svg_plot.hpp): axes, series, reference lines and a
// legend laid out from measured text widths.
#include "bench/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

namespace clforge::bench {

namespace {

constexpr double kLeft = 80, kRight = 640, kTop = 50, kBottom = 420;  // plot area (the least: see bottom)
constexpr double kMinWidth = 700;
constexpr double kLegendX = kRight + 24, kTextX = kLegendX + 36;  // swatch, then text
constexpr double kRow = 18, kWrapAt = 320;                        // legend line height, text width
constexpr double kFont = 12, kTitleFont = 15;
const char* const kFamilyColor = "#555555";

// Advance widths of DejaVu Sans, characters 32..126, in 1/2048 em.
constexpr unsigned short kAdvance[95] = {
    651,  821,  942,  1716, 1303, 1946, 1597, 563,  799,  799,  1024, 1716, 651,  739,  651,  690,  1303, 1303, 1303,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 690,  690,  1716, 1716, 1716, 1087, 2048, 1401, 1405, 1430, 1577, 1294,
    1178, 1587, 1540, 604,  604,  1343, 1141, 1767, 1532, 1612, 1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403,
    1251, 1403, 799,  690,  799,  1716, 1024, 1024, 1255, 1300, 1126, 1300, 1260, 721,  1300, 1298, 569,  569,  1186,
    569,  1995, 1298, 1253, 1300, 1300, 842,  1067, 803,  1298, 1212, 1675, 1212, 1212, 1075, 1303, 690,  1303, 1716};

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

// Ticks of a log axis: 1-2-5 values up to 3 decades, else powers of ten (at most about 8).
std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> t;
  const int first = static_cast<int>(std::floor(std::log10(lo))), last = static_cast<int>(std::ceil(std::log10(hi)));
  const bool all = std::log10(hi / lo) <= 3;
  const int every = all ? 1 : std::max(1, (last - first + 7) / 8);
  for (int k = first; k <= last; k += every)
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, k);
      if ((all || m == 1) && v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.push_back(v);
    }
  return t;
}

// The range of the values with a little room at both ends (a linear axis from zero starts at 0),
// ticks inside it; where fewer than two ticks would fall inside, the range widens to 1-2-5 values.
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
    const double pad = std::pow(10.0, std::max(0.02, 0.03 * std::log10(*mx / *mn)));
    a.lo = *mn / pad;
    a.hi = *mx * pad;
    a.ticks = log_ticks(a.lo, a.hi);
    if (a.ticks.size() < 2) {
      a.lo = nice125(a.lo, false);
      a.hi = nice125(a.hi, true);
      a.ticks = log_ticks(a.lo, a.hi);
    }
    return a;
  }
  double mn = std::numeric_limits<double>::infinity(), mx = -mn;
  for (double v : values)
    if (std::isfinite(v)) mn = std::min(mn, v), mx = std::max(mx, v);
  if (!std::isfinite(mn)) mn = 0, mx = 1;
  if (from_zero) mn = std::min(mn, 0.0);
  if (mx <= mn) mx = mn + (mn == 0 ? 1 : std::fabs(mn));
  const double pad = 0.04 * (mx - mn);
  a.lo = from_zero && mn == 0 ? 0 : mn - pad;
  a.hi = mx + pad;
  const double step = nice125((a.hi - a.lo) / 5, false);  // 5 to 10 ticks
  for (long k = std::lround(std::ceil(a.lo / step - 1e-9)); static_cast<double>(k) * step <= a.hi + step * 1e-9; ++k)
    a.ticks.push_back(static_cast<double>(k) * step);
  return a;
}

std::string rtrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Lines of at most kWrapAt user units: breaks at spaces, inside a word only where the word alone
// is wider than a line.
std::vector<std::string> wrap(const std::string& text, double px) {
  std::vector<std::string> lines;
  std::string line;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t space = text.find(' ', pos);
    std::string word = text.substr(pos, space == std::string::npos ? std::string::npos : space - pos + 1);
    pos = space == std::string::npos ? text.size() : space + 1;
    if (!line.empty() && text_width(line + rtrim(word), px) > kWrapAt) {
      lines.push_back(rtrim(line));
      line.clear();
    }
    while (text_width(rtrim(word), px) > kWrapAt) {
      std::size_t n = 1;
      while (n < word.size() &&
             ((static_cast<unsigned char>(word[n]) & 0xC0) == 0x80 || text_width(word.substr(0, n + 1), px) <= kWrapAt))
        ++n;
      lines.push_back(word.substr(0, n));
      word = word.substr(n);
    }
    line += word;
  }
  if (!rtrim(line).empty() || lines.empty()) lines.push_back(rtrim(line));
  return lines;
}

const char* marker_name(Marker m) {
  switch (m) {
    case Marker::Circle:
      return "circle";
    case Marker::Square:
      return "square";
    case Marker::Triangle:
      return "triangle";
    case Marker::TriangleDown:
      return "triangle-down";
    case Marker::Diamond:
      return "diamond";
    case Marker::None:
      break;
  }
  return "none";
}

// A marker centred on (x, y): <path class="marker NAME">, filled or hollow (only outlined).
std::string marker(Marker m, double x, double y, const std::string& color, bool hollow) {
  const auto p = [](double v) { return fmt("%.1f", v); };
  std::string d;
  switch (m) {
    case Marker::Circle:
      d = "M" + p(x - 4) + "," + p(y) + " a4,4 0 1,0 8,0 a4,4 0 1,0 -8,0 Z";
      break;
    case Marker::Square:
      d = "M" + p(x - 3.5) + "," + p(y - 3.5) + " h7 v7 h-7 Z";
      break;
    case Marker::Triangle:
      d = "M" + p(x) + "," + p(y - 5) + " l4.5,8 h-9 Z";
      break;
    case Marker::TriangleDown:
      d = "M" + p(x) + "," + p(y + 5) + " l4.5,-8 h-9 Z";
      break;
    case Marker::Diamond:
      d = "M" + p(x) + "," + p(y - 5) + " l5,5 l-5,5 l-5,-5 Z";
      break;
    case Marker::None:
      return "";
  }
  return std::string("<path class=\"marker ") + marker_name(m) + "\" d=\"" + d + "\" fill=\"" +
         (hollow ? "none" : color) + "\" stroke=\"" + color + "\" stroke-width=\"" + (hollow ? "1.5" : "1") + "\"/>";
}

std::string stroke(const std::string& color, double width, const std::string& dash) {
  return "fill=\"none\" stroke=\"" + color + "\" stroke-width=\"" + fmt("%g", width) + "\"" +
         (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"");
}

std::string segment(double x1, double y1, double x2, double y2, const std::string& attrs) {
  return "<line x1=\"" + fmt("%.1f", x1) + "\" y1=\"" + fmt("%.1f", y1) + "\" x2=\"" + fmt("%.1f", x2) + "\" y2=\"" +
         fmt("%.1f", y2) + "\" " + attrs + "/>";
}

// One legend row block: a heading, or an entry with its swatch and (wrapped) text.
struct LegendEntry {
  std::string kind;  // "heading", "key", "family", "line", "note"
  std::string label, swatch;
  std::vector<std::string> text;
};

}  // namespace

double text_width(const std::string& text, double px, bool bold) {
  double units = 0;
  for (unsigned char ch : text) {
    if ((ch & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    units += ch >= 32 && ch < 127 ? kAdvance[ch - 32] : 1303;
  }
  return units / 2048 * px * (bold ? 1.12 : 1.0);
}

std::string short_number(double v) {
  const double a = std::fabs(v);
  if (a == 0) return "0";
  if (a >= 1e9) return sig3(v / 1e9) + "G";
  if (a >= 1e6) return sig3(v / 1e6) + "M";
  if (a >= 1e4) return sig3(v / 1e3) + "k";
  return sig3(v);
}

std::string svg_chart(const Chart& c) {
  std::vector<ChartKey> keys = c.keys;  // a series' key missing from c.keys: black circles
  for (const auto& s : c.series)
    if (std::none_of(keys.begin(), keys.end(), [&](const ChartKey& k) { return k.label == s.key; }))
      keys.push_back({s.key, {"#000000", Marker::Circle, "", 2, false}});
  const auto key_of = [&](const std::string& label) -> const ChartKey& {
    return *std::find_if(keys.begin(), keys.end(), [&](const ChartKey& k) { return k.label == label; });
  };
  const auto family_of = [&](const std::string& label) -> const ChartFamily* {
    for (const auto& f : c.families)
      if (f.label == label && !label.empty()) return &f;
    return nullptr;
  };

  std::vector<double> xs, ys;
  for (const auto& s : c.series)
    for (const auto& p : s.points) xs.push_back(p.x);
  const Axis ax = make_axis(xs, c.x_scale, false);
  for (const auto& s : c.series)
    for (const auto& p : s.points)
      if (ax.usable(p.x)) ys.push_back(p.y);
  for (const auto& l : c.lines) ys.push_back(l.y);
  const Axis ay = make_axis(ys, c.y_scale, c.y_from_zero);
  // The plot's bottom: lower than kBottom where a linear axis' unit needs the pixels.
  const double bottom = c.y_scale == AxisScale::Linear
                            ? std::max(kBottom, std::ceil(kTop + (ay.hi - ay.lo) * c.y_min_px_per_unit))
                            : kBottom;
  const auto px = [&](double x) { return kLeft + ax.frac(x) * (kRight - kLeft); };
  const auto py = [&](double y) { return bottom - ay.frac(y) * (bottom - kTop); };
  const double eps = 1e-9 * std::max(std::fabs(ay.lo), std::fabs(ay.hi));
  const auto in_y = [&](double y) { return ay.usable(y) && y >= ay.lo - eps && y <= ay.hi + eps; };

  std::ostringstream o;  // everything below the <svg> element, whose size depends on the legend
  o << "<text x=\"" << kLeft << "\" y=\"28\" font-size=\"" << kTitleFont << "\" font-weight=\"bold\">" << xml(c.title)
    << "</text>\n";
  o << "<g class=\"grid\" stroke=\"#e4e4e4\" stroke-width=\"1\">\n";
  for (double t : ax.ticks) o << segment(px(t), kTop, px(t), bottom, "") << "\n";
  for (double t : ay.ticks) o << segment(kLeft, py(t), kRight, py(t), "") << "\n";
  o << "</g>\n<g class=\"ticks\">\n";
  for (double t : ax.ticks)
    o << "<text class=\"xtick\" x=\"" << fmt("%.1f", px(t)) << "\" y=\"" << bottom + 18 << "\" text-anchor=\"middle\">"
      << short_number(t) << "</text>\n";
  for (double t : ay.ticks)
    o << "<text class=\"ytick\" x=\"" << kLeft - 6 << "\" y=\"" << fmt("%.1f", py(t) + 4) << "\" text-anchor=\"end\">"
      << short_number(t) << "</text>\n";
  o << "</g>\n<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kRight - kLeft << "\" height=\""
    << bottom - kTop << "\" fill=\"none\" stroke=\"#444\"/>\n";
  o << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << bottom + 42 << "\" text-anchor=\"middle\">"
    << xml(c.x_label + (ax.log ? " (log scale)" : "")) << "</text>\n";
  o << "<text transform=\"translate(22," << (kTop + bottom) / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
    << xml(c.y_label + (ay.log ? " (log scale)" : "")) << "</text>\n";

  // Reference lines under the series.
  std::vector<bool> line_drawn(c.lines.size(), false);
  for (std::size_t i = 0; i < c.lines.size(); ++i) {
    const ChartLine& l = c.lines[i];
    if (!in_y(l.y)) continue;
    line_drawn[i] = true;
    o << "<g class=\"reference\" data-label=\"" << xml(l.label) << "\">"
      << segment(kLeft, py(l.y), kRight, py(l.y), stroke(l.color, l.width, l.dash)) << "</g>\n";
  }

  // Series: a polyline where joined, a marker per point with its tooltip.
  const std::size_t ns = c.series.size();
  std::vector<std::vector<ChartPoint>> pts_of(ns);
  std::vector<std::vector<std::pair<double, double>>> line_of(ns);
  std::vector<bool> joined_of(ns);
  for (std::size_t i = 0; i < ns; ++i) {
    const ChartSeries& s = c.series[i];
    const ChartFamily* f = family_of(s.family);
    joined_of[i] = f == nullptr || f->line;
    std::vector<ChartPoint>& pts = pts_of[i];
    for (const auto& p : s.points)
      if (ax.usable(p.x) && in_y(p.y)) pts.push_back(p);
    std::stable_sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
    for (const auto& p : pts) line_of[i].emplace_back(px(p.x), py(p.y));
    if (line_of[i].size() == 1 &&
        key_of(s.key).style.marker == Marker::None)  // a lone point without markers: a short dash
      line_of[i] = {{std::max(kLeft, line_of[i][0].first - 12), line_of[i][0].second},
                    {std::min(kRight, line_of[i][0].first + 12), line_of[i][0].second}};
  }
  // A joined line of another key lying on a later one (within 2 units at every point, as equal
  // throughputs do) is drawn wider, a band under it: 3 units wider than every such later line.
  std::vector<double> width_of(ns);
  for (std::size_t i = ns; i-- > 0;) {
    width_of[i] = key_of(c.series[i].key).style.width;
    for (std::size_t j = i + 1; j < ns; ++j) {
      const auto &a = line_of[i], &b = line_of[j];
      if (!joined_of[i] || !joined_of[j] || a.size() < 2 || a.size() != b.size() || c.series[i].key == c.series[j].key)
        continue;
      bool same = true;
      for (std::size_t k = 0; k < a.size() && same; ++k)
        same = std::fabs(a[k].first - b[k].first) <= 2 && std::fabs(a[k].second - b[k].second) <= 2;
      if (same) width_of[i] = std::max(width_of[i], width_of[j] + 3);
    }
  }
  std::map<std::string, bool> key_drawn, key_joined, family_drawn;
  for (std::size_t i = 0; i < ns; ++i) {
    const ChartSeries& s = c.series[i];
    const KeyStyle& st = key_of(s.key).style;
    const ChartFamily* f = family_of(s.family);
    const bool joined = joined_of[i];
    const std::string& dash = f ? f->dash : st.dash;
    const std::vector<ChartPoint>& pts = pts_of[i];
    const std::vector<std::pair<double, double>>& line = line_of[i];
    o << "<g class=\"series\" data-key=\"" << xml(s.key) << "\" data-family=\"" << xml(f ? s.family : "") << "\">\n";
    if (joined && line.size() >= 2) {
      o << "<polyline " << stroke(st.color, width_of[i], dash) << " stroke-linejoin=\"round\" points=\"";
      for (std::size_t k = 0; k < line.size(); ++k)
        o << (k ? " " : "") << fmt("%.1f", line[k].first) << ',' << fmt("%.1f", line[k].second);
      o << "\"/>\n";
      key_joined[s.key] = true;
    }
    for (const auto& p : pts) {
      if (st.marker == Marker::None) break;
      o << "<g><title>" << xml(s.key + (f ? ", " + s.family : "") + ": ")
        << xml(p.note.empty() ? short_number(p.x) + ", " + short_number(p.y) : p.note) << "</title>"
        << marker(st.marker, px(p.x), py(p.y), st.color, st.hollow || !joined) << "</g>\n";
    }
    o << "</g>\n";
    if (!pts.empty() && (key_joined[s.key] || st.marker != Marker::None)) {
      key_drawn[s.key] = true;
      if (f) family_drawn[s.family] = true;
    }
  }

  // Legend: drawn keys, drawn families, drawn lines; keys with nothing drawn in a note.
  std::vector<LegendEntry> legend;
  const auto add = [&](const std::string& kind, const std::string& label, std::string swatch) {
    legend.push_back({kind, label, std::move(swatch), wrap(label, kFont)});
  };
  std::string missing;
  for (const auto& k : keys) {
    if (!key_drawn[k.label]) {
      missing += (missing.empty() ? "" : ", ") + k.label;
      continue;
    }
    if (legend.empty() && !c.key_title.empty()) add("heading", c.key_title, "");
    const KeyStyle& st = k.style;
    add("key", k.label,
        (key_joined[k.label] ? segment(kLegendX, 0, kLegendX + 28, 0, stroke(st.color, st.width, st.dash)) : "") +
            marker(st.marker, kLegendX + 14, 0, st.color, st.hollow));
  }
  bool family_heading = false;
  for (const auto& f : c.families) {
    if (!family_drawn[f.label]) continue;
    if (!family_heading && !c.family_title.empty()) add("heading", c.family_title, "");
    family_heading = true;
    add("family", f.label,
        (f.line ? segment(kLegendX, 0, kLegendX + 28, 0, stroke(kFamilyColor, 2, f.dash)) : "") +
            marker(Marker::Circle, kLegendX + 14, 0, kFamilyColor, !f.line));
  }
  for (std::size_t i = 0; i < c.lines.size(); ++i)
    if (line_drawn[i]) {
      const ChartLine& l = c.lines[i];
      add("line", l.label, segment(kLegendX, 0, kLegendX + 28, 0, stroke(l.color, l.width, l.dash)));
    }
  if (!missing.empty()) add("note", "not measured: " + missing, "");

  double width = std::max(kMinWidth, kLeft + text_width(c.title, kTitleFont, true) + 16);
  double y = kTop + 6;
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const LegendEntry& e = legend[i];
    const bool text_only = e.kind == "heading" || e.kind == "note";
    if (i > 0 && (e.kind == "heading" || e.kind == "note" || (e.kind == "line" && legend[i - 1].kind != "line")))
      y += kRow / 2;  // a gap before each section
    const double tx = text_only ? kLegendX : kTextX;
    o << "<g class=\"legend\" data-kind=\"" << e.kind << "\" data-label=\"" << xml(e.label) << "\">";
    if (!e.swatch.empty()) {  // drawn at y = 0, moved to the row
      o << "<g transform=\"translate(0," << fmt("%.1f", y) << ")\">" << e.swatch << "</g>";
    }
    o << "<text x=\"" << tx << "\" y=\"" << fmt("%.1f", y + 4) << "\""
      << (e.kind == "heading" ? " font-weight=\"bold\""
          : e.kind == "note"  ? " fill=\"#777\""
                              : "")
      << ">";
    for (std::size_t k = 0; k < e.text.size(); ++k) {
      o << "<tspan x=\"" << tx << "\"" << (k ? " dy=\"" + fmt("%g", kRow) + "\"" : "") << ">" << xml(e.text[k])
        << "</tspan>";
      width = std::max(width, tx + text_width(e.text[k], kFont, e.kind == "heading") + 16);
    }
    o << "</text></g>\n";
    y += kRow * static_cast<double>(e.text.size());
  }
  if (key_drawn.empty())
    o << "<text x=\"" << (kLeft + kRight) / 2 << "\" y=\"" << (kTop + bottom) / 2
      << "\" text-anchor=\"middle\" fill=\"#999\">no measurement</text>\n";
  width = std::ceil(width / 10) * 10;
  const double height = std::max(bottom + 60, std::ceil((y + 10) / 10) * 10);

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height
      << "\" font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"" << kFont
      << "\">\n<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"white\"/>\n"
      << o.str() << "</svg>\n";
  return svg.str();
}

}  // namespace clforge::bench
