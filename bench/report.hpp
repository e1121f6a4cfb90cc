// What report.md and the SVG charts of `clforge bench all` share: which records count, each
// routine's throughput metric and peak, blur's method x sigma view, ordering and file names.
// Internal to the bench library (report_markdown.cpp, report_charts.cpp).
#pragma once
#include <string>
#include <vector>

#include "bench/bench_all.hpp"

namespace clforge::bench::report {

/// A timed measurement: status "ok" (or "ok (...)") and a positive median.
bool timed(const Record& r);

/// A routine's throughput: unit, value of a record, and the peak it is compared with.
struct Metric {
  std::string unit;  ///< "GB/s", "GFLOP/s", "MP/s"
  double (*value)(const Record&);
  double (*peak)(const Peaks&);  ///< nullptr: no peak (blur has per-method bounds)
  std::string peak_name;         ///< "copy bandwidth", "FMA peak"
};
/// transpose and fft: GB/s against the copy bandwidth; sgemm: GFLOP/s against the FMA peak;
/// blur: MP/s; another routine: GB/s when its first record moves bytes, else GFLOP/s.
Metric primary_metric(const std::string& routine, const std::vector<const Record*>& records);
/// fft's second view: GFLOP/s (5 n log2 n per transform) against the FMA peak.
Metric flop_metric();

/// Routines of a report in order of appearance, without the peak probes and "session".
std::vector<std::string> routines_of(const Report& report);
/// Records of one routine, in report order.
std::vector<const Record*> records_of(const Report& report, const std::string& routine);
/// Libraries (blur: methods) in order of appearance, "clforge" first when present.
std::vector<std::string> libraries_of(const std::vector<const Record*>& records);
/// Distinct shapes ordered by fft_kind (fft: complex, 2-D, 3-D, real, real 2-D, real 3-D), size_key, then first
/// appearance; "-" (a routine failure) excluded.
std::vector<std::string> shapes_of(const std::vector<const Record*>& records);
/// A chart series of a record beyond its library: fft's data size ("64 MiB") when a library
/// has several records of one length (the default list's 64 and 512 MiB batches), else "".
std::string series_group(const Record& r, const std::vector<const Record*>& all);

/// Blur records: image ("4096x4096"), sigma, megapixels per second and the method's bound.
std::string blur_image(const Record& r);
double blur_sigma(const Record& r);
double blur_mps(const Record& r);
double blur_bound_mps(const Record& r);  ///< 0: unknown
/// Images of the blur records ordered by pixels; sigmas ascending.
std::vector<std::string> blur_images(const std::vector<const Record*>& records);
std::vector<double> blur_sigmas(const std::vector<const Record*>& records);

/// Axis text of a routine's size key.
std::string size_axis(const std::string& routine);

/// File names of the charts (also the links in report.md).
std::string chart_file(const std::string& routine, std::size_t device);  ///< device counts from 1
std::string blur_chart_file(std::size_t device, const std::string& image);
std::string devices_chart_file(const std::string& routine);
std::string ratio_chart_file(const std::string& routine, std::size_t device);  ///< clforge / best peer
/// Whether a routine's records get a ratio chart: not blur, and a shape that clforge and a peer
/// both measured.
bool has_ratio_chart(const std::string& routine, const std::vector<const Record*>& records);

/// 3 significant digits (no exponent up to 10^15): 2942, 47.4, 0.312.
std::string num(double v);

}  // namespace clforge::bench::report
