// A small SVG line-chart writer for the benchmark reports (`clforge bench all`): throughput
// against size or sigma, one polyline with markers per series, dashed reference lines, axis
// labels, 1-2-5 ticks (linear or log) and a legend. Output is plain text, byte-for-byte
// deterministic for the same input, with no dependency beyond the standard library.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace clforge::bench {

/// One line of a chart.
struct ChartSeries {
  std::string label;                              ///< legend text
  std::vector<std::pair<double, double>> points;  ///< (x, y); drawn in order of x
  bool dashed = false;                            ///< dashed line without markers (bounds)
  int color = -1;                                 ///< palette index; -1: the series' own position
  bool line = true;                               ///< false: square markers only, no polyline
};

/// A horizontal reference line across the plot (a measured peak), dashed grey, labelled.
struct ChartLine {
  std::string label;
  double y = 0;
};

enum class AxisScale { Linear, Log, Auto };  ///< Auto: log when positive values span more than 30x

struct Chart {
  std::string title;
  std::string x_label, y_label;
  AxisScale x_scale = AxisScale::Log;
  AxisScale y_scale = AxisScale::Auto;
  std::vector<ChartSeries> series;
  std::vector<ChartLine> lines;
};

/// The chart as a complete SVG document ("<svg ...>...</svg>\n"). Points with a non-positive
/// or non-finite coordinate on a log axis (and non-finite ones on a linear axis) are left out;
/// every series still gets its group, its polyline (unless markers only) and a legend entry. Width 900, height 480 user
/// units.
std::string svg_chart(const Chart& chart);

/// Compact number for tick labels and tables: 3 significant digits, k/M/G above 10^4.
std::string short_number(double v);

}  // namespace clforge::bench
