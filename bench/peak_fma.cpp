// The FMA probe (see peak_internal.hpp): a search over the kernel peak_fma (bench/peak.cl)
// and its launch shape, since no one configuration is near the peak everywhere: PoCL on an
// AVX-512 CPU needs float16 chains (scalar work-items are not vectorised there), a GPU needs
// enough independent chains and work-groups to hide the FMA latency on every unit.
//   1. every vector width (1, 2, 4, 8, 16) x chains (4, 8, 16) at work-group 256 and 8 groups
//      per compute unit (quick: chains 8, then 4 and 16 for the best width);
//   2. for the best one (two outside quick), work-groups 64 ... 1024 x 2, 8, 32 groups per unit;
//   3. each width's best configuration timed again, all interleaved, with the full plan: those
//      are the "fma floatN" records and the best of them is "fma", the FMA peak.
// Every work-item does 65536 FMA lanes (PEAK_ITERS = 65536 / (width x chains)), so a launch's
// flops are 2 x 65536 x work-items whatever the configuration: at 8 groups per compute unit
// about 0.5 ms on an H100 and 2 ms on 16 AVX-512 cores, long beside a launch's own 5-40 us
// (a quarter of that made PoCL's figures swing by 30 %).
#include <algorithm>
#include <cstdio>
#include <map>

#include "bench/peak_internal.hpp"
#include "runtime/errors.hpp"
#include "runtime/launch.hpp"

namespace clforge::bench::detail_peak {

namespace {

constexpr int kLanesPerItem = 65536;

struct FmaConfig {
  int width = 1, chains = 4;
  std::size_t wg = 256, groups_per_cu = 8, items = 0;
  std::string text() const {
    return "float" + std::to_string(width) + " x " + std::to_string(chains) + " chains, work-group " +
           std::to_string(wg) + ", " + std::to_string(items) + " work-items";
  }
  nlohmann::json json() const {
    return {{"vector_width", width},
            {"chains", chains},
            {"work_group_size", wg},
            {"groups_per_compute_unit", groups_per_cu},
            {"work_items", items},
            {"iterations", kLanesPerItem / (width * chains)},
            {"fma_lanes_per_item", kLanesPerItem}};
  }
};

struct Tried {
  FmaConfig cfg;
  double gflops = 0;
};

class FmaSearch {
 public:
  explicit FmaSearch(Session& s) : s_(s), cu_(std::max(1u, s.entry.info.compute_units)) {
    cl_int st = CL_SUCCESS;
    sink_ = cl::Buffer(s.context, CL_MEM_WRITE_ONLY, cu_ * 1024 * 32 * sizeof(float), nullptr, &st);
    detail::check(st, "clCreateBuffer", "fma sink");
  }

  // The kernel of (width, chains) and the largest work-group it may run with; null when it
  // does not build (noted in the record's params).
  cl::Kernel* kernel(int width, int chains, std::size_t* max_wg) {
    const auto key = std::make_pair(width, chains);
    auto it = kernels_.find(key);
    if (it == kernels_.end()) {
      Entry e;
      try {
        const std::string options = "-DPEAK_CHAINS=" + std::to_string(chains) +
                                    " -DPEAK_ITERS=" + std::to_string(kLanesPerItem / (width * chains)) +
                                    " -DPEAK_VW=" + std::to_string(width);
        e.kernel = detail::get_kernel(peak_program(s_, options), "peak_fma");
        detail::set_args(e.kernel, sink_, 0.9999f, 0.0001f);
        e.max_wg = std::min(s_.entry.info.max_work_group_size,
                            e.kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(s_.entry.device));
      } catch (const std::exception& x) {
        e.kernel = cl::Kernel();
        skipped_.push_back("float" + std::to_string(width) + " x " + std::to_string(chains) + ": " + x.what());
      }
      it = kernels_.emplace(key, std::move(e)).first;
    }
    *max_wg = it->second.max_wg;
    return it->second.kernel() != nullptr ? &it->second.kernel : nullptr;
  }

  // One launch's milliseconds (event START to END).
  double run(const FmaConfig& c) {
    std::size_t max_wg = 0;
    cl::Kernel* k = kernel(c.width, c.chains, &max_wg);
    cl::Event e;
    detail::launch(s_.queue, *k, cl::NDRange(c.items), cl::NDRange(c.wg), nullptr, &e);
    detail::check(e.wait(), "clWaitForEvents");
    return detail::event_ms(e, e);
  }

  static double gflops(const FmaConfig& c, double ms) { return ms > 0 ? 2.0 * kLanesPerItem * c.items / ms / 1e6 : 0; }

  // Times a configuration briefly (one warm-up, three runs, median); 0 when it cannot run.
  double try_config(FmaConfig c) {
    std::size_t max_wg = 0;
    if (kernel(c.width, c.chains, &max_wg) == nullptr || c.wg > max_wg) return 0;
    c.items = c.wg * c.groups_per_cu * cu_;
    const Timing t = detail::sample_runs(TimingPlan{1, 3, 10, 0, 0}, {[&] { return run(c); }}).front();
    const double g = gflops(c, t.median_ms);
    tried_.push_back({c, g});
    return g;
  }

  std::vector<Tried>& tried() { return tried_; }
  const std::vector<std::string>& skipped() const { return skipped_; }
  std::size_t max_wg() const { return s_.entry.info.max_work_group_size; }

 private:
  struct Entry {
    cl::Kernel kernel;
    std::size_t max_wg = 0;
  };
  Session& s_;
  std::size_t cu_;
  cl::Buffer sink_;
  std::map<std::pair<int, int>, Entry> kernels_;
  std::vector<Tried> tried_;
  std::vector<std::string> skipped_;
};

const Tried* best_of(const std::vector<Tried>& v, int width = 0) {
  const Tried* b = nullptr;
  for (const Tried& t : v)
    if ((width == 0 || t.cfg.width == width) && t.gflops > 0 && (b == nullptr || t.gflops > b->gflops)) b = &t;
  return b;
}

}  // namespace

void measure_fma(Session& s, Report& report, Peaks& peaks, bool quick) {
  FmaSearch search(s);
  const int widths[] = {1, 2, 4, 8, 16};
  const std::size_t base_wg = std::min<std::size_t>(256, search.max_wg());
  const auto at_base = [&](int w, int c) {
    FmaConfig cfg;
    cfg.width = w, cfg.chains = c, cfg.wg = base_wg, cfg.groups_per_cu = 8;
    return search.try_config(cfg);
  };
  // A GPU leaves its idle clocks first: about 100 ms of FMA work before anything is compared.
  {
    FmaConfig warm;
    warm.width = 4, warm.chains = 8, warm.wg = base_wg, warm.groups_per_cu = 8;
    warm.items = base_wg * 8 * std::max(1u, s.entry.info.compute_units);
    std::size_t max_wg = 0;
    if (search.kernel(4, 8, &max_wg) != nullptr && base_wg <= max_wg) {
      double ms = 0;
      for (int i = 0; i < 200 && ms < 100; ++i) ms += search.run(warm);
    }
  }
  // 1. vector width x chains at one launch shape.
  for (int w : widths)
    for (int c : {4, 8, 16})
      if (!quick || c == 8) at_base(w, c);
  if (quick)
    if (const Tried* b = best_of(search.tried())) {
      const int w = b->cfg.width;
      for (int c : {4, 16}) at_base(w, c);
    }
  // 2. launch shapes for the best kernels.
  std::vector<std::pair<int, int>> top;
  {
    std::vector<Tried> by_kernel = search.tried();
    std::sort(by_kernel.begin(), by_kernel.end(), [](const Tried& a, const Tried& b) { return a.gflops > b.gflops; });
    for (const Tried& t : by_kernel)
      if (t.gflops > 0 && top.size() < (quick ? 1u : 2u)) top.emplace_back(t.cfg.width, t.cfg.chains);
  }
  for (const auto& [w, c] : top)
    for (std::size_t wg : {64, 128, 256, 512, 1024})
      for (std::size_t g : {2, 8, 32}) {
        if (wg > search.max_wg() || (wg == base_wg && g == 8)) continue;
        FmaConfig cfg;
        cfg.width = w, cfg.chains = c, cfg.wg = wg, cfg.groups_per_cu = g;
        search.try_config(cfg);
      }
  progress("peak fma: " + std::to_string(search.tried().size()) + " configurations searched");
  // 3. each width's best, timed again together.
  std::vector<FmaConfig> finals;
  for (int w : widths)
    if (const Tried* b = best_of(search.tried(), w)) finals.push_back(b->cfg);
  if (finals.empty())
    throw Error("peak fma: no configuration ran" +
                (search.skipped().empty() ? std::string() : ": " + search.skipped().front()));
  std::vector<std::function<double()>> runs;
  for (const FmaConfig& c : finals) runs.push_back([&search, c] { return search.run(c); });
  const std::vector<Timing> timings = detail::sample_runs(TimingPlan{}, runs, [&] { s.queue.finish(); });
  nlohmann::json tried = nlohmann::json::array();
  for (const Tried& t : search.tried()) {
    nlohmann::json j = t.cfg.json();
    j["gflops"] = t.gflops;
    tried.push_back(std::move(j));
  }
  Record best;
  std::string best_text;
  for (std::size_t i = 0; i < finals.size(); ++i) {
    const FmaConfig& c = finals[i];
    Record r = Record::of("peak", "fma float" + std::to_string(c.width), "searched");
    r.flops = 2.0 * kLanesPerItem * c.items;
    r.timing = timings[i];
    r.status = "ok (" + c.text() + ")";
    r.params = c.json();
    char line[200];
    std::snprintf(line, sizeof line, "peak fma float%d: %.1f GFLOP/s (%s)", c.width, r.gflops(), c.text().c_str());
    progress(line);
    if (r.gflops() > best.gflops()) best = r, best_text = c.text();
    report.add(r);
  }
  best.library = "fma";
  best.params["searched"] = tried;
  if (!search.skipped().empty()) best.params["not_built"] = search.skipped();
  peaks.fma_gflops = best.gflops();
  peaks.fma_config = best_text;
  progress("peak fma: " + std::to_string(best.gflops()) + " GFLOP/s (" + peaks.fma_config + ")");
  report.add(best);
}

}  // namespace clforge::bench::detail_peak
