// The charts of `clforge bench all`, drawn without a device from the committed H100 results
// (docs/bench/h200/results.json) and from synthetic results, then read back from the SVG
// (tests/chart_support.hpp). Every chart: no line goes back in x (no zigzag between shapes of
// one size), every legend entry is drawn in its style and every drawn thing has its legend
// entry, legend text lies whole inside the canvas; across charts one colour per library; the
// ratio charts resolve a 2 % gap; coinciding blur methods stay apart; values not measured are
// left out; a bound with one sigma is drawn.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "bench/bench_all.hpp"
#include "bench/svg_plot.hpp"
#include "runtime/files.hpp"
#include "tests/chart_support.hpp"

using namespace clforge;
using namespace clforge::bench;
using clforge::test::SvgChart;
using clforge::test::SvgSeries;

namespace {

std::map<std::string, SvgChart> charts_of(const AllResults& res) {
  std::map<std::string, SvgChart> out;
  for (const auto& [name, svg] : report_charts(res)) {
    CAPTURE(name);
    CHECK(svg.rfind("<svg ", 0) == 0);
    CHECK(svg.size() > 7);
    CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
    out[name] = test::parse_chart(svg);
  }
  return out;
}

std::string no_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

// The colour a series is drawn in: its polyline's, else its markers' outline.
std::string color_of(const SvgSeries& s) { return !s.line.empty() ? s.line_stroke : s.markers.front().stroke; }

// What holds for every chart.
void check_chart(const std::string& name, const SvgChart& c) {
  CAPTURE(name);
  REQUIRE(c.width > 0);
  // No zigzag: a line never goes back or stays in x.
  for (const SvgSeries& s : c.series)
    for (std::size_t i = 1; i < s.line.size(); ++i) {
      CAPTURE(s.key);
      CAPTURE(s.family);
      CHECK(s.line[i].first > s.line[i - 1].first);
    }
  const auto entry = [&](const std::string& kind, const std::string& label) -> const test::SvgLegend* {
    for (const auto& e : c.legend)
      if (e.kind == kind && e.label == label) return &e;
    return nullptr;
  };
  // Every drawn series in the legend, in its colour, marker and dash; one colour per key.
  std::map<std::string, std::string> key_color;
  for (const SvgSeries& s : c.series) {
    if (!s.drawn()) continue;
    CAPTURE(s.key);
    CAPTURE(s.family);
    const test::SvgLegend* k = entry("key", s.key);
    REQUIRE_MESSAGE(k != nullptr, "drawn series without a legend entry");
    const std::string color = color_of(s);
    CHECK(k->marker.shape.empty() ? k->line_stroke == color : k->marker.stroke == color);
    if (!key_color.count(s.key)) key_color[s.key] = color;
    CHECK(key_color[s.key] == color);
    for (const auto& m : s.markers) {
      CHECK(m.stroke == color);
      CHECK(m.shape == k->marker.shape);
    }
    if (!s.line.empty()) CHECK(s.line_stroke == color);
    if (s.family.empty()) {
      if (!s.line.empty()) CHECK(s.line_dash == k->line_dash);
      continue;
    }
    const test::SvgLegend* f = entry("family", s.family);
    REQUIRE_MESSAGE(f != nullptr, "drawn family without a legend entry");
    if (f->has_line) {
      if (s.line.size() >= 2) CHECK(s.line_dash == f->line_dash);
    } else {  // points: hollow markers, never joined
      CHECK(s.line.empty());
      for (const auto& m : s.markers) CHECK(m.fill == "none");
    }
  }
  for (const auto& r : c.references) {
    CAPTURE(r.label);
    const test::SvgLegend* e = entry("line", r.label);
    REQUIRE_MESSAGE(e != nullptr, "drawn line without a legend entry");
    CHECK(e->line_stroke == r.stroke);
    CHECK(e->line_dash == r.dash);
  }
  // Every legend entry drawn.
  for (const auto& e : c.legend) {
    CAPTURE(e.kind);
    CAPTURE(e.label);
    if (e.kind == "key")
      CHECK(std::any_of(c.series.begin(), c.series.end(), [&](const SvgSeries& s) {
        return s.key == e.label && s.drawn() &&
               color_of(s) == (e.marker.shape.empty() ? e.line_stroke : e.marker.stroke);
      }));
    if (e.kind == "family")
      CHECK(std::any_of(c.series.begin(), c.series.end(),
                        [&](const SvgSeries& s) { return s.family == e.label && s.drawn(); }));
    if (e.kind == "line")
      CHECK(std::any_of(c.references.begin(), c.references.end(), [&](const test::SvgReference& r) {
        return r.label == e.label && r.stroke == e.line_stroke && r.dash == e.line_dash;
      }));
    // The whole text, inside the canvas, by the writer's measure and by a plain 0.5 em per character.
    std::string joined;
    for (const auto& [x, text] : e.text) {
      CHECK(x + text_width(text, 12) <= c.width);
      CHECK(x + 6.0 * static_cast<double>(text.size()) <= c.width);
      joined += text;
    }
    CHECK(no_spaces(joined) == no_spaces(e.label));
  }
  // Series of two keys drawn on top of each other stay apart: another dash or width (a wide
  // band under a thin line), another marker.
  for (std::size_t i = 0; i < c.series.size(); ++i)
    for (std::size_t j = i + 1; j < c.series.size(); ++j) {
      const SvgSeries &a = c.series[i], &b = c.series[j];
      if (a.line.size() < 2 || a.line.size() != b.line.size()) continue;
      bool same = true;
      for (std::size_t k = 0; k < a.line.size(); ++k)
        same = same && std::fabs(a.line[k].first - b.line[k].first) <= 2 &&
               std::fabs(a.line[k].second - b.line[k].second) <= 2;
      if (!same || a.key == b.key) continue;
      CAPTURE(a.key);
      CAPTURE(b.key);
      CHECK((a.line_dash != b.line_dash || a.line_width != b.line_width));
      if (!a.markers.empty() && !b.markers.empty()) CHECK(a.markers[0].shape != b.markers[0].shape);
    }
}

// One colour per library across the charts of libraries (not devices, not blur methods), and
// one library per colour; the reference lines in none of them.
void check_library_colors(const std::map<std::string, SvgChart>& charts) {
  std::map<std::string, std::string> color_of_lib, lib_of_color;
  for (const auto& [name, c] : charts) {
    if (name.find("_devices") != std::string::npos || name.rfind("blur", 0) == 0) continue;
    for (const SvgSeries& s : c.series) {
      if (!s.drawn()) continue;
      CAPTURE(name);
      CAPTURE(s.key);
      const std::string col = color_of(s);
      if (!color_of_lib.count(s.key)) color_of_lib[s.key] = col;
      if (!lib_of_color.count(col)) lib_of_color[col] = s.key;
      CHECK(color_of_lib[s.key] == col);
      CHECK(lib_of_color[col] == s.key);
    }
    for (const auto& r : c.references) CHECK_MESSAGE(lib_of_color.count(r.stroke) == 0, r.label);
  }
  CHECK(color_of_lib.size() >= 2);
}

// Timed records with a positive throughput, as results.json says (not as the report computes).
std::size_t timed_in_json(const nlohmann::json& ms, const std::string& routine, const std::string& library) {
  std::size_t n = 0;
  for (const auto& m : ms) {
    if (m["routine"] != routine || m["library"] != library || m["shape"] == "-") continue;
    const bool ok = m["status"].get<std::string>().rfind("ok", 0) == 0 && m["median_ms"].is_number() &&
                    m["median_ms"].get<double>() > 0;
    const char* unit = routine == "sgemm" ? "flops" : "bytes";
    if (ok && m[unit].get<double>() > 0) ++n;
  }
  return n;
}

std::size_t markers_of(const SvgChart& c, const std::string& key) {
  std::size_t n = 0;
  for (const SvgSeries& s : c.series)
    if (s.key == key) n += s.markers.size();
  return n;
}

Record timed_record(const std::string& routine, const std::string& library, const std::string& shape, double ms,
                    double bytes, double flops = 0) {
  Record r = Record::of(routine, library, shape);
  r.timing.median_ms = r.timing.min_ms = r.timing.max_ms = r.timing.q1_ms = r.timing.q3_ms = ms;
  r.timing.reps = 10;
  r.bytes = bytes;
  r.flops = flops;
  return r;
}

Record not_measured(const std::string& routine, const std::string& library, const std::string& shape,
                    const std::string& status) {
  Record r = Record::of(routine, library, shape);
  r.status = status;
  r.bytes = 1e8;
  return r;
}

// Two devices with long names; transpose with a refused peer, an unknown peer library and an ok
// record without a time (read from JSON as null); fft at two data sizes and an odd length;
// blur at one sigma with equal bounds of two methods, one method without a bound.
AllResults synthetic() {
  AllResults res;
  for (int k = 0; k < 2; ++k) {
    DeviceInfo d;
    d.name = k == 0 ? "pthread-Intel(R) Xeon(R) Platinum 8480+ (Sapphire Rapids, 2 sockets, 112 cores)"
                    : "NVIDIA H100 80GB HBM3 with a name long enough to wrap in any legend";
    DeviceRun run(d);
    const double speed = k == 0 ? 1 : 1.3;  // device 2 is faster
    const auto timed = [&](const std::string& routine, const std::string& library, const std::string& shape, double ms,
                           double bytes) { return timed_record(routine, library, shape, ms / speed, bytes); };
    run.peaks.copy_gbps = k == 0 ? 100 : 0;  // device 2: the peak probe failed
    Report& rep = run.report;
    for (double n : {1024.0, 2048.0, 4096.0}) {
      const std::string shape = std::to_string(int(n)) + "x" + std::to_string(int(n));
      rep.add(timed("transpose", "clforge", shape, n * n * 8 / 90e6, n * n * 8));
      if (n == 4096)
        rep.add(not_measured("transpose", "CLBlast", shape, "refused: too large"));
      else
        rep.add(timed("transpose", "CLBlast", shape, n * n * 8 / 85e6, n * n * 8));
      rep.add(timed("transpose", "MyTranspose", shape, n * n * 8 / 70e6, n * n * 8));
    }
    rep.add(timed("transpose", "clforge", "4097x31", 0.01, 4097 * 31 * 8));
    rep.add(timed("transpose", "CLBlast", "4097x31", 0.02, 4097 * 31 * 8));
    rep.add(record_from_json({{"routine", "transpose"},
                              {"library", "clforge"},
                              {"shape", "8192x8192"},
                              {"status", "ok"},
                              {"median_ms", nullptr},
                              {"bytes", 8192.0 * 8192 * 8}}));
    for (double mib : {64.0, 512.0})
      for (int n : {256, 1000, 1024})
        for (const char* lib : {"clforge", "VkFFT"})
          rep.add(timed("fft", lib, "n=" + std::to_string(n) + " batch=" + std::to_string(int(mib * 131072 / n)),
                        mib / (lib[0] == 'c' ? 80.0 : 78.0), mib * 2 * 1048576));
    for (const char* method : {"separable", "recursive", "rec-fused"}) {
      Record r = timed("blur", method, "64x48 s=2", 0.01, 64 * 48 * 16);
      r.params["sigma"] = 2;
      r.params["bound_ms"] = std::string(method) == "separable" ? 0.002 : 0.004;
      rep.add(r);
    }
    Record none = not_measured("blur", "direct", "64x48 s=2", "skipped: too many taps");
    none.params["sigma"] = 2;
    none.params["bound_ms"] = nullptr;
    rep.add(none);
    res.devices.push_back(std::move(run));
  }
  return res;
}

}  // namespace

TEST_SUITE("bench_charts") {
  TEST_CASE("charts of the committed H200 results read at a glance") {
    const std::string path = std::string(CLFORGE_SOURCE_DIR) + "/docs/bench/h200/results.json";
    const std::optional<std::string> text = detail::read_file(path);
    REQUIRE_MESSAGE(text.has_value(), path);
    const nlohmann::json doc = nlohmann::json::parse(*text);
    const AllResults res = results_from_json(doc);
    REQUIRE(res.devices.size() >= 1);  // the H200, and its PoCL CPU device where the run had both
    const auto charts = charts_of(res);
    for (const auto& [name, c] : charts) check_chart(name, c);
    check_library_colors(charts);

    // report.md links every chart, and every chart is linked.
    const std::string md = report_markdown(res);
    std::set<std::string> linked, drawn;
    for (auto p = md.find("]("); p != std::string::npos; p = md.find("](", p + 2))
      linked.insert(md.substr(p + 2, md.find(')', p) - p - 2));
    for (const auto& [name, c] : charts) drawn.insert(name);
    CHECK(linked == drawn);

    // One legend key per library of the routine (no key per data size or shape), and every timed
    // record a marker (one-off shapes included), in the chart of its routine, on every device
    // (the CPU device's charts hold FFTW and OpenBLAS).
    for (std::size_t d = 0; d < res.devices.size(); ++d) {
      const nlohmann::json& dms = doc["devices"][d]["measurements"];
      for (const char* routine : {"transpose", "sgemm", "fft"}) {
        CAPTURE(d);
        CAPTURE(routine);
        const SvgChart& c = charts.at(std::string(routine) + "_device" + std::to_string(d + 1) + ".svg");
        std::set<std::string> libs, keys;  // the libraries with a timed record (cuFFT on a CPU: none)
        for (const auto& m : dms)
          if (m["routine"] == routine && timed_in_json(dms, routine, m["library"]) > 0)
            libs.insert(m["library"].get<std::string>());
        for (const auto& e : c.legend)
          if (e.kind == "key") keys.insert(e.label);
        CHECK(keys == libs);
        if (d == 1)
          CHECK(libs.count(std::string(routine) == "fft" ? "FFTW" : "OpenBLAS") ==
                (std::string(routine) != "transpose"));
        for (const std::string& lib : libs) {
          CAPTURE(lib);
          CHECK(markers_of(c, lib) == timed_in_json(dms, routine, lib));
        }
      }
    }
    const nlohmann::json& ms = doc["devices"][0]["measurements"];
    // The shapes that made zigzags are there: several shapes of one size in one chart.
    std::map<double, int> sgemm_x;
    for (const SvgSeries& s : charts.at("sgemm_device1.svg").series)
      if (s.key == "clforge")
        for (const auto& m : s.markers) ++sgemm_x[std::round(m.x)];
    CHECK(std::any_of(sgemm_x.begin(), sgemm_x.end(), [](const auto& kv) { return kv.second >= 3; }));

    // The ratio charts: linear, with parity, one point per shape that clforge and a peer timed,
    // higher ratios higher up, and 2 % at least 4 pixels apart.
    for (const char* routine : {"transpose", "sgemm", "fft"}) {
      CAPTURE(routine);
      const std::string name = std::string(routine) + "_device1_ratio.svg";
      REQUIRE(charts.count(name) == 1);
      const SvgChart& c = charts.at(name);
      CHECK(c.y_label.find("log") == std::string::npos);
      CHECK(std::any_of(c.references.begin(), c.references.end(),
                        [](const test::SvgReference& r) { return r.label.find("parity") != std::string::npos; }));
      std::map<std::string, double> best_peer, mine;  // shape -> throughput, from the JSON
      const char* unit = std::string(routine) == "sgemm" ? "gflops" : "gbps";
      for (const auto& m : ms)
        if (m["routine"] == routine && m["status"].get<std::string>().rfind("ok", 0) == 0 && m[unit].is_number()) {
          const double v = m[unit].get<double>();
          if (m["library"] == "clforge")
            mine[m["shape"]] = v;
          else
            best_peer[m["shape"]] = std::max(best_peer[m["shape"]], v);
        }
      std::vector<std::pair<double, double>> ratio_y;  // (ratio, pixel y)
      for (const SvgSeries& s : c.series)
        for (const auto& m : s.markers) {
          // "<series>: <shape>: <ratio> (...)"; a series name may hold ": " too ("(n: points)").
          const std::size_t end = m.title.rfind(": "), start = m.title.rfind(": ", end - 1) + 2;
          const std::string shape = m.title.substr(start, end - start);
          CAPTURE(m.title);
          REQUIRE(mine.count(shape) == 1);
          REQUIRE(best_peer.count(shape) == 1);
          ratio_y.emplace_back(mine[shape] / best_peer[shape], m.y);
        }
      std::size_t both = 0;
      for (const auto& [shape, v] : mine) both += best_peer.count(shape);
      CHECK(ratio_y.size() == both);
      REQUIRE(c.y_ticks.size() >= 2);
      const double px_per_unit =
          (c.y_ticks.front().first - c.y_ticks.back().first) / (c.y_ticks.back().second - c.y_ticks.front().second);
      CHECK(px_per_unit * 0.02 >= 4);
      for (const auto& a : ratio_y)
        for (const auto& b : ratio_y)
          if (a.first > b.first * 1.01) CHECK(a.second < b.second);
    }

    // clforge's series in the fft chart: one colour, its lines (the data sizes of the complex
    // rows, the real rows) told apart by dash.
    std::set<std::string> clforge_colors, clforge_dashes;
    std::size_t clforge_lines = 0;
    for (const SvgSeries& s : charts.at("fft_device1.svg").series)
      if (s.key == "clforge" && s.line.size() >= 2)
        clforge_colors.insert(s.line_stroke), clforge_dashes.insert(s.line_dash), ++clforge_lines;
    CHECK(clforge_colors.size() == 1);
    CHECK(clforge_lines >= 2);
    CHECK(clforge_dashes.size() == clforge_lines);

    // recursive and rec-fused coincide on the H100: both drawn, told apart (check_chart).
    const SvgChart& blur = charts.at("blur_device1_4096x4096.svg");
    std::vector<const SvgSeries*> rec;
    for (const SvgSeries& s : blur.series)
      if (s.key == "recursive" || s.key == "rec-fused") rec.push_back(&s);
    REQUIRE(rec.size() == 2);
    CHECK(rec[0]->line.size() == 5);
    CHECK(rec[1]->line.size() == 5);
    for (std::size_t k = 0; k < rec[0]->line.size() && k < rec[1]->line.size(); ++k)
      CHECK(std::fabs(rec[0]->line[k].second - rec[1]->line[k].second) <= 2);
  }

  TEST_CASE("synthetic results: long device names, one sigma, values not measured, an unknown library") {
    const AllResults res = synthetic();
    const auto charts = charts_of(res);
    for (const auto& [name, c] : charts) check_chart(name, c);
    check_library_colors(charts);

    // Values not measured are left out: CLBlast's refused 4096x4096, clforge's 8192x8192 without a time.
    const SvgChart& t1 = charts.at("transpose_device1.svg");
    CHECK(markers_of(t1, "clforge") == 4);
    CHECK(markers_of(t1, "CLBlast") == 3);
    CHECK(markers_of(t1, "MyTranspose") == 3);
    for (const SvgSeries& s : t1.series)
      for (const auto& m : s.markers) CHECK(m.title.find("8192x8192") == std::string::npos);
    // The peak line where it was measured, in the legend; none where it was not.
    CHECK(t1.references.size() == 1);
    CHECK(charts.at("transpose_device2.svg").references.empty());
    for (const auto& e : charts.at("transpose_device2.svg").legend) CHECK(e.kind != "line");
    // The one-off 4097x31 is a point, not joined to the squares.
    for (const SvgSeries& s : t1.series)
      for (const auto& m : s.markers)
        if (m.title.find("4097x31") != std::string::npos) CHECK(s.line.empty());

    // Blur at one sigma: each bound is drawn (separable's; recursive's and rec-fused's as one line).
    const SvgChart& b = charts.at("blur_device1_64x48.svg");
    CHECK(b.references.size() == 2);
    std::size_t bound_entries = 0;
    for (const auto& e : b.legend) bound_entries += e.kind == "line";
    CHECK(bound_entries == 2);
    for (const auto& e : b.legend) CHECK(e.label != "direct");  // not measured: a note, no entry

    // clforge on each device: two devices, two data sizes each; legend labels whole.
    const SvgChart& f = charts.at("fft_devices.svg");
    std::set<std::pair<std::string, std::string>> styles;
    std::size_t lines = 0;
    for (const SvgSeries& s : f.series)
      if (s.line.size() >= 2) ++lines, styles.insert({s.line_stroke, s.line_dash});
    CHECK(lines == 4);
    CHECK(styles.size() == 4);
    std::size_t device_entries = 0;
    for (const auto& e : f.legend) device_entries += e.kind == "key";
    CHECK(device_entries == 2);
  }

  TEST_CASE("fft charts and tables: complex and real lines of their own, 2-D and 3-D rows as points (complex, real)") {
    AllResults res;
    DeviceInfo d;
    d.name = "GPU";
    DeviceRun run(d);
    for (const char* lib : {"clforge", "VkFFT"})
      for (int n : {256, 1024, 4096}) {
        const double mib = 64.0, speed = lib[0] == 'c' ? 80.0 : 78.0;
        run.report.add(timed_record("fft", lib, "n=" + std::to_string(n) + " batch=" + std::to_string(8388608 / n),
                                    mib / speed, mib * 2 * 1048576));
        run.report.add(timed_record("fft", lib,
                                    "real n=" + std::to_string(n) + " batch=" + std::to_string(16777216 / n),
                                    mib / speed / 1.5, mib * 2 * 1048576));
      }
    for (const char* shape : {"2-D n=1024x1024 batch=1", "3-D n=64x64x64 batch=1", "real 2-D n=1024x1024 batch=1",
                              "real 3-D n=64x64x64 batch=1"})
      for (const char* lib : {"clforge", "VkFFT"}) run.report.add(timed_record("fft", lib, shape, 0.2, 16 * 1048576));
    res.devices.push_back(std::move(run));
    const auto charts = charts_of(res);
    for (const auto& [name, c] : charts) check_chart(name, c);
    std::set<std::string> clforge_lines, clforge_point_families;
    for (const SvgSeries& s : charts.at("fft_device1.svg").series) {
      if (s.key != "clforge") continue;
      if (s.line.size() >= 2) {
        CHECK(s.line.size() == 3);  // each kind's three lengths, not the other kinds' (real 2-D: 2^20 points)
        clforge_lines.insert(s.line_dash);
      }
      if (!s.markers.empty() && s.line.empty()) clforge_point_families.insert(s.family);
    }
    CHECK(clforge_lines.size() == 2);  // complex and real told apart by dash
    // The 2-D and 3-D points: complex and real families.
    CHECK(clforge_point_families.size() == 2);
    const std::string md = report_markdown(res);
    const auto at = [&](const char* text) { return md.find(text); };
    REQUIRE(at("| 2-D n=1024x1024 batch=1") != std::string::npos);
    REQUIRE(at("| real n=256 batch=65536") != std::string::npos);
    CHECK(at("| n=4096 batch=2048") < at("| 2-D n=1024x1024 batch=1"));  // complex 1-D, 2-D, 3-D, real
    CHECK(at("| 2-D n=1024x1024 batch=1") < at("| 3-D n=64x64x64 batch=1"));
    CHECK(at("| 3-D n=64x64x64 batch=1") < at("| real n=256 batch=65536"));
    CHECK(at("| real n=4096 batch=4096") < at("| real 2-D n=1024x1024 batch=1"));  // then real 2-D, 3-D
    REQUIRE(at("| real 3-D n=64x64x64 batch=1") != std::string::npos);
    CHECK(at("| real 2-D n=1024x1024 batch=1") < at("| real 3-D n=64x64x64 batch=1"));
  }
}
