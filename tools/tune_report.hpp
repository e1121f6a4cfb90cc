// What `clforge tune` prints and writes (tools/tune_report.cpp): each routine's summary, the
// results as a tuning file, and `tune all`'s closing table; the command's arguments they read.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "clforge/tuning.hpp"

namespace clforge::cli {

struct TuneArgs {
  std::string routine;
  std::vector<std::string> sizes;
  std::string strategy = "auto";
  std::size_t budget = 0;
  double time_s = 0;
  bool dry_run = false;
  bool no_store = false;
  std::string tuning_file;
  std::uint64_t seed = 0;
  unsigned threads = 0;
  bool no_compile_workers = false;
  std::size_t finalists = TuneOptions{}.finalists;
  bool resume = false;
  bool replay = false;
  bool quick = false;               // tune all: the sizes of `bench all --quick`
  bool own_sizes = false;           // tune all: each routine's own default sizes, not bench all's
  std::size_t sizes_per_class = 0;  // TuneOptions::sizes_per_class
  std::vector<std::string> steps = {"kernels", "crossover", "group"};  // tune all: what it runs
  bool peers = false;  // tune all: bench the classes' sizes with their peers afterwards
  std::string cache;
  double min_gain_pct = TuneOptions{}.min_gain * 100;
  std::map<std::string, std::string> routine_options;  // --NAME VALUE of the routine ("" : not given)
  std::map<std::string, std::string> shown;            // tuner size -> the size as given
};

/// "m:ss" or "h:mm:ss"; "--:--" for a negative time.
std::string clock_text(double s);
/// "NAME=V NAME=V ...".
std::string params_text(const ParamMap& p);
/// A routine's summary on stdout: per size class the space, the candidates tried, the best,
/// default and current configurations, the fastest of the search and the run-off, and where the
/// entry was stored (or why not).
void print_summary(const TuneResult& r, const TuneArgs& a);
/// The results as a tuning file (TuneArgs::tuning_file), written atomically.
void write_results(const TuneResult& r, const DeviceInfo& dev, const TuneArgs& a);
/// clforge and the best peer on one size class's timed sizes (geometric means over the sizes
/// where both ran; sizes 0: none did).
struct ClassPeer {
  double clforge_ms = 0, peer_ms = 0;
  std::string peer;  ///< the fastest peer's library per size, "/"-joined where they differ
  std::size_t sizes = 0;
};
/// `tune all --peers` (tools/tune_peers.cpp): per job of `all` and per size class, clforge as it
/// runs now (after the tune's stores) and the fastest peer, each size run once through its
/// family's benchmark (bench/routines.hpp: its harness, peers and checks; blur at the job's
/// method and sigma); sizes the benchmark does not measure (interleaved FFT batches) are left out.
std::vector<std::vector<ClassPeer>> bench_class_peers(Session& s, const TuneAllResult& all, bool quick);
/// `tune all`'s closing table on stdout; with `peers` (bench_class_peers) also clforge against
/// the best peer per size class.
void print_all_table(const TuneAllResult& all, bool store, const std::vector<std::vector<ClassPeer>>& peers = {});

}  // namespace clforge::cli
