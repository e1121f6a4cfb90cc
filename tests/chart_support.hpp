// Reads the SVG charts of `clforge bench all` (bench/svg_plot.hpp documents their structure)
// into what tests/test_bench_charts.cpp checks: the series with their polylines and markers,
// the reference lines, the legend entries with their swatches and text, the y ticks.
#pragma once
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace clforge::test {

/// The value of attribute `name` in the first tag of `text` that has it ("" when none).
inline std::string attr(const std::string& text, const std::string& name, std::size_t from = 0) {
  const std::string key = " " + name + "=\"";
  const auto at = text.find(key, from);
  if (at == std::string::npos) return "";
  const auto begin = at + key.size();
  std::string v = text.substr(begin, text.find('"', begin) - begin);
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '&') {
      out += v[i];
      continue;
    }
    const auto semi = v.find(';', i);
    const std::string entity = v.substr(i, semi - i + 1);
    out += entity == "&amp;" ? "&" : entity == "&lt;" ? "<" : entity == "&gt;" ? ">" : entity == "&quot;" ? "\"" : "?";
    i = semi;
  }
  return out;
}

/// Text between `open` (from its '>') and `close`, with XML entities of the chart writer undone.
inline std::string inner(const std::string& text, std::size_t at, const std::string& close) {
  const auto begin = text.find('>', at) + 1;
  std::string v = text.substr(begin, text.find(close, begin) - begin);
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '&') {
      const auto semi = v.find(';', i);
      const std::string e = v.substr(i, semi - i + 1);
      out += e == "&amp;" ? "&" : e == "&lt;" ? "<" : e == "&gt;" ? ">" : "\"";
      i = semi;
    } else {
      out += v[i];
    }
  }
  return out;
}

struct SvgMarker {
  std::string shape, fill, stroke, title;
  double x = 0, y = 0;  ///< the path's first point
};

struct SvgSeries {
  std::string key, family;
  std::vector<std::pair<double, double>> line;  ///< polyline points; empty: none
  std::string line_stroke, line_dash, line_width;
  std::vector<SvgMarker> markers;
  bool drawn() const { return line.size() >= 2 || !markers.empty(); }
};

struct SvgLegend {
  std::string kind, label;
  std::string line_stroke, line_dash;  ///< of the swatch's line ("" when none)
  bool has_line = false;
  SvgMarker marker;                                  ///< shape "" when none
  std::vector<std::pair<double, std::string>> text;  ///< (x, line)
};

struct SvgReference {
  std::string label, stroke, dash;
  double y = 0;
};

struct SvgChart {
  double width = 0, height = 0;
  std::string y_label;
  std::vector<SvgSeries> series;
  std::vector<SvgReference> references;
  std::vector<SvgLegend> legend;
  std::vector<std::pair<double, double>> y_ticks;  ///< (pixel y, value)
};

inline std::vector<std::pair<double, double>> points_of(const std::string& list) {
  std::vector<std::pair<double, double>> out;
  std::istringstream in(list);
  std::string pair;
  while (in >> pair) out.emplace_back(std::atof(pair.c_str()), std::atof(pair.c_str() + pair.find(',') + 1));
  return out;
}

inline SvgMarker marker_of(const std::string& line) {
  SvgMarker m;
  const auto at = line.find("<path class=\"marker ");
  if (at == std::string::npos) return m;
  m.shape = attr(line, "class", at).substr(7);
  m.fill = attr(line, "fill", at);
  m.stroke = attr(line, "stroke", at);
  const std::string d = attr(line, "d", at);
  m.x = std::atof(d.c_str() + 1);
  m.y = std::atof(d.c_str() + d.find(',') + 1);
  const auto title = line.find("<title>");
  if (title != std::string::npos) m.title = inner(line, title, "</title>");
  return m;
}

inline SvgChart parse_chart(const std::string& svg) {
  SvgChart c;
  std::istringstream in(svg);
  std::string line;
  SvgSeries* open = nullptr;
  while (std::getline(in, line)) {
    if (line.rfind("<svg ", 0) == 0) {
      c.width = std::atof(attr(line, "width").c_str());
      c.height = std::atof(attr(line, "height").c_str());
    } else if (line.rfind("<g class=\"series\"", 0) == 0) {
      c.series.push_back({attr(line, "data-key"), attr(line, "data-family"), {}, "", "", "", {}});
      open = &c.series.back();
    } else if (open && line.rfind("<polyline ", 0) == 0) {
      open->line = points_of(attr(line, "points"));
      open->line_stroke = attr(line, "stroke");
      open->line_dash = attr(line, "stroke-dasharray");
      open->line_width = attr(line, "stroke-width");
    } else if (open && line.find("<path class=\"marker ") != std::string::npos) {
      open->markers.push_back(marker_of(line));
    } else if (open && line == "</g>") {
      open = nullptr;
    } else if (line.rfind("<g class=\"reference\"", 0) == 0) {
      const auto l = line.find("<line ");
      c.references.push_back({attr(line, "data-label"), attr(line, "stroke", l), attr(line, "stroke-dasharray", l),
                              std::atof(attr(line, "y1", l).c_str())});
    } else if (line.rfind("<g class=\"legend\"", 0) == 0) {
      SvgLegend e{attr(line, "data-kind"), attr(line, "data-label"), "", "", false, marker_of(line), {}};
      const auto l = line.find("<line ");
      if (l != std::string::npos) {
        e.has_line = true;
        e.line_stroke = attr(line, "stroke", l);
        e.line_dash = attr(line, "stroke-dasharray", l);
      }
      for (auto t = line.find("<tspan "); t != std::string::npos; t = line.find("<tspan ", t + 1))
        e.text.emplace_back(std::atof(attr(line, "x", t).c_str()), inner(line, t, "</tspan>"));
      c.legend.push_back(std::move(e));
    } else if (line.rfind("<text class=\"ytick\"", 0) == 0) {
      c.y_ticks.emplace_back(std::atof(attr(line, "y").c_str()) - 4, std::atof(inner(line, 0, "</text>").c_str()));
    } else if (line.rfind("<text transform=", 0) == 0) {
      c.y_label = inner(line, 0, "</text>");
    }
  }
  return c;
}

}  // namespace clforge::test
