// A small SVG chart writer for the benchmark reports (`clforge bench all`): throughput against
// size or sigma, axes with 1-2-5 ticks (linear or log), series with markers, reference lines and
// a legend measured to fit beside the plot (the canvas grows to hold it; long labels wrap, none
// is cut). Output is plain text, byte-for-byte deterministic for the same input, with no
// dependency beyond the standard library. report_charts.cpp decides what is drawn.
#pragma once
#include <string>
#include <vector>

namespace clforge::bench {

enum class Marker { Circle, Square, Triangle, TriangleDown, Diamond, None };

/// How the series of one legend key (a library, a blur method, a device) are drawn.
struct KeyStyle {
  std::string color;               ///< "#1f77b4"
  Marker marker = Marker::Circle;  ///< None: a line without markers (a bound)
  std::string dash;                ///< stroke-dasharray of its lines ("" solid) where no family sets one
  double width = 2;                ///< line width
  bool hollow = false;             ///< markers only outlined in the colour
};

/// A legend key, in legend order.
struct ChartKey {
  std::string label;
  KeyStyle style;
};

/// A second legend entry that series share across keys (a family of shapes, a data size): its
/// lines take the family's dash; a family that is not a line draws hollow markers only.
struct ChartFamily {
  std::string label;
  std::string dash;  ///< "" solid
  bool line = true;
};

struct ChartPoint {
  double x = 0, y = 0;
  std::string note;  ///< tooltip text ("" : the coordinates)
};

/// The points of one key and family. Points are joined in order of x (they are expected to
/// have distinct x when joined); markers are drawn at every point.
struct ChartSeries {
  std::string key;     ///< a ChartKey label
  std::string family;  ///< a ChartFamily label, or "": the key's own dash, joined
  std::vector<ChartPoint> points;
};

/// A horizontal line across the plot (a measured peak, a bound, parity), in the legend.
struct ChartLine {
  std::string label;
  double y = 0;
  std::string color = "#7f7f7f";
  std::string dash = "2,3";
  double width = 1.5;
};

enum class AxisScale { Linear, Log, Auto };  ///< Auto: log when positive values span more than 30x

struct Chart {
  std::string title;
  std::string x_label, y_label;
  AxisScale x_scale = AxisScale::Log;
  AxisScale y_scale = AxisScale::Auto;
  bool y_from_zero = true;       ///< a linear y axis starts at 0 (false: fits the values)
  double y_min_px_per_unit = 0;  ///< a linear y axis: the plot grows taller to give a unit at least this many pixels
  std::string key_title = "library", family_title = "shapes";  ///< legend headings
  std::vector<ChartKey> keys;
  std::vector<ChartFamily> families;
  std::vector<ChartSeries> series;
  std::vector<ChartLine> lines;
};

/// The chart as a complete SVG document ("<svg ...>...</svg>\n"). Points with a non-positive
/// or non-finite coordinate on a log axis (non-finite ones on a linear axis) are left out. The
/// legend holds exactly what is drawn: the keys, families and lines with at least one drawn
/// element; keys with nothing drawn are named in a note under it ("not measured: ..."). Plot
/// 560 x 370 user units; the canvas is at least 480 high and as wide as the legend needs.
/// Structure, for readers and tests: each series is <g class="series" data-key data-family>
/// with an optional <polyline> and <path class="marker"> elements; each line is
/// <g class="reference" data-label> with one <line>; each legend entry is <g class="legend"
/// data-kind="key|family|line" data-label> with its swatch and <text> (one <tspan> per line).
std::string svg_chart(const Chart& chart);

/// Width of text in DejaVu Sans (a wide sans-serif) at font size `px`, in user units.
double text_width(const std::string& text, double px, bool bold = false);

/// Compact number for tick labels and tables: 3 significant digits, k/M/G above 10^4.
std::string short_number(double v);

}  // namespace clforge::bench
