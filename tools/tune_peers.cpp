// `tune all --peers` (tools/tune_report.hpp): clforge and the best peer on each size class's
// timed sizes, measured by the routine family's benchmark (bench/routines.hpp) after the tune.
#include <cmath>
#include <cstdio>
#include <map>

#include "bench/blur_peers.hpp"
#include "bench/peak.hpp"
#include "bench/report.hpp"
#include "bench/routines.hpp"
#include "runtime/strings.hpp"
#include "tools/args.hpp"
#include "tools/tune_report.hpp"

namespace clforge::cli {
namespace {

// One size through the family's benchmark: clforge's median (blur: of the job's method, the one
// it runs) and the fastest peer's, with its library ("" when none ran).
struct SizeFigures {
  double clforge_ms = 0, peer_ms = 0;
  std::string peer;
};

SizeFigures bench_one(Session& s, const bench::Peaks& peaks, const TuneResult& job, const std::string& family,
                      const std::string& size, bool quick) {
  bench::Report report(s.entry.info);
  bench::BenchOptions opt;
  opt.quick = quick;
  std::size_t channels = 1;
  double sigma = 0;
  opt.sizes = {bench_size_of_tuned(family, size, channels, sigma)};
  if (opt.sizes[0].empty()) return {};
  if (family == "transpose") bench::bench_transpose(s, report, opt, peaks);
  if (family == "sgemm") bench::bench_sgemm(s, report, opt, peaks);
  if (family == "fft") bench::bench_fft(s, report, opt, peaks);
  if (family == "blur") {
    bench::BlurBenchOptions b;
    b.sigmas = {sigma > 0 ? sigma : std::stod(job.routine_options.at("sigma"))};
    b.methods = {job.routine_options.at("method")};
    b.channels = static_cast<int>(channels);
    bench::bench_blur(s, report, opt, peaks, b);
  }
  SizeFigures f;
  for (const bench::Record& r : report.records()) {
    if (r.routine != family || !bench::report::timed(r)) continue;
    const bool peer = family == "blur" ? bench::is_blur_peer(r) : r.library != "clforge";
    if (!peer) f.clforge_ms = r.timing.median_ms;  // the one method blur ran
    if (peer && (f.peer_ms == 0 || r.timing.median_ms < f.peer_ms)) {
      f.peer_ms = r.timing.median_ms;
      f.peer = r.library;
    }
  }
  return f;
}

}  // namespace

std::vector<std::vector<ClassPeer>> bench_class_peers(Session& s, const TuneAllResult& all, bool quick) {
  bench::Report peak_report(s.entry.info);
  const bench::Peaks peaks = bench::routine_peaks(s, peak_report, quick);
  std::map<std::pair<std::string, std::string>, SizeFigures> done;  // (family and options, size)
  std::vector<std::vector<ClassPeer>> out;
  for (const TuneResult& job : all.results) {
    out.emplace_back();
    const std::string family = family_of(job.routine);
    std::string key = family;
    if (family == "blur") key += " " + job.routine_options.at("method") + " " + job.routine_options.at("sigma");
    for (const TuneClassResult& c : job.classes) {
      ClassPeer cp;
      double log_c = 0, log_p = 0;
      for (const std::string& size : c.sizes) {
        auto it = done.find({key, size});
        if (it == done.end())
          it = done.emplace(std::make_pair(key, size), bench_one(s, peaks, job, family, size, quick)).first;
        const SizeFigures& f = it->second;
        if (f.clforge_ms <= 0 || f.peer_ms <= 0) continue;
        log_c += std::log(f.clforge_ms);
        log_p += std::log(f.peer_ms);
        if (cp.peer.find(f.peer) == std::string::npos) cp.peer += (cp.peer.empty() ? "" : "/") + f.peer;
        ++cp.sizes;
      }
      if (cp.sizes > 0) {
        cp.clforge_ms = std::exp(log_c / static_cast<double>(cp.sizes));
        cp.peer_ms = std::exp(log_p / static_cast<double>(cp.sizes));
      }
      out.back().push_back(cp);
    }
  }
  return out;
}

}  // namespace clforge::cli
