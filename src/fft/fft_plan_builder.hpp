// Construction of an FFT plan's steps: one builder per route (fft_local in one kernel or in
// passes, Bluestein, Rader, the CPU lane kernel's forms), chosen by one route table
// (FftPlanBuilder::choose_route, fft_plan_build.cpp), and the tables the stages read.
#pragma once
#include <map>

#include "fft/fft_plan_impl.hpp"

namespace clforge::fft_plan_parts {

// The routes of a plan (the kernel kinds of fft_plan_build.cpp's header).
enum class Route {
  Single,              // smooth n in one fft_local launch
  BluesteinSingle,     // Bluestein in one fft_local launch of a power of two
  Passes,              // smooth n in passes through global memory
  BluesteinPasses,     // Bluestein: two FFTs of a 7-smooth length in passes
  RaderPasses,         // Rader: a gather, two (n - 1)-point FFTs in passes, a scatter
  Lanes,               // the lane kernel in one launch
  LanesBluestein,      // Bluestein in one lane launch
  LanesTwo,            // the lane kernel in two launches, n = n1 n2
  LanesBluesteinFour,  // Bluestein in four lane launches
  LanesRaderFour,      // Rader: a gather, four lane launches, a scatter
};

// The stages a route builds and the summary describe() opens with ("one kernel").
struct RouteSteps {
  std::vector<Stage> stages;
  std::string summary;
};

// The lane kernel's view of the length (fft_plan_lanes.cpp, lane_facts).
struct LaneFacts {
  Configuration cfg;               // fft_lanes of the length
  bool enabled = false;            // the lane row asks for the lane kernel and no chosen fft_local row outranks it
  std::size_t one_length = 0;      // the length of a one-launch plan (Bluestein's power of two)
  bool one_launch = false;         // one_length fits one launch
  bool rader = false;              // Rader's convolution of n - 1 in two-launch FFTs
  std::size_t length = 0, n1 = 0;  // the two-launch forms' length and its first factor (0: none)
};

// Columns (FFT_COLS): batches of at least this many transforms, adjacent in memory.
using detail::kColumnsMin;

class FftPlanBuilder {
 public:
  FftPlanBuilder(const detail::QueueContext& qc, const FftDesc& desc, const Tuning& tuning, bool real_inside = false);
  FftSteps build();

 private:
  // The route table: the route of this length and configuration, and its builder.
  Route choose_route();
  RouteSteps build_route(Route route);
  std::string describe(const std::string& summary) const;

  // fft_local routes (fft_plan_build.cpp).
  RouteSteps single_route();
  RouteSteps bluestein_single_route();
  RouteSteps passes_route();
  RouteSteps bluestein_passes_route();
  RouteSteps rader_passes_route();
  struct PassPlan;
  PassPlan plan_passes(std::size_t length, const char* convolution);
  std::vector<Stage> pass_stages(const PassPlan& pp);
  Stage pass_stage(const PassPlan& pp, const Configuration& cfg, std::size_t index, std::size_t p, std::size_t ns);
  std::optional<Stage> single_stage(std::size_t len, const Configuration& cfg, bool bluestein);
  bool columns_layout() const;
  bool columns_in_passes() const;
  Stage make_stage(std::size_t len, const Configuration& cfg, std::size_t in_es, std::size_t in_adj, std::size_t out_es,
                   std::size_t out_adj, bool bluestein = false);
  void fit_to_device(Stage& s, std::size_t len, std::size_t in_es, std::size_t in_adj, std::size_t out_es,
                     std::size_t out_adj);
  void user_sides(Stage& s) const;
  void lay_out_scratch(std::vector<Stage>& stages, std::size_t ntot, const Configuration& cfg, bool two,
                       std::size_t side = 0);

  // Lane kernel routes (fft_plan_lanes.cpp).
  LaneFacts lane_facts() const;
  Stage lane_stage(std::size_t len, int width);
  Stage one_launch_stage();
  cl::Buffer lane_pair_twiddles();
  Stage lane_columns(Buf in, long long in_distance, long long in_stride, const cl::Buffer& pair);
  Stage lane_rows(Buf out, long long out_distance, long long out_stride);
  Stage lane_first(const cl::Buffer& pair);
  Stage lane_last();
  RouteSteps finish_lanes(std::vector<Stage> stages, const std::string& what);
  RouteSteps lanes_route();
  RouteSteps lanes_bluestein_route();
  RouteSteps lanes_two_route();
  RouteSteps lanes_bluestein_four_route();
  RouteSteps lanes_rader_four_route();

  // Rader's ends (fft_rader.cpp): the gather writes rows of n - 1 to `gathered`, the scatter reads
  // the convolution from `conv`; spectrum is FFT(b) / (n - 1), for the store of the forward FFT's
  // last launch. Sets steps_.rader_groups.
  struct RaderEnds {
    Stage gather, scatter;
    cl::Buffer spectrum;
  };
  RaderEnds rader_ends(Buf gathered, Buf conv);

  // Tables (fft_plan_tables.cpp), built once per plan: stages with the same length or the same
  // passes share them (the two 1024-point passes of 2^20, the two phases of a Bluestein plan).
  struct BluesteinTables {
    cl::Buffer w, wc, bq;
  };
  cl::Buffer table(const std::vector<cl_float2>& data) const;
  BluesteinTables bluestein_tables(std::size_t n, std::size_t m, std::size_t pad) const;
  cl::Buffer twiddles(std::size_t n);
  cl::Buffer pass_twiddles(const std::vector<int>& radices, int mode);

  const detail::QueueContext& qc_;
  const DeviceInfo& dev_;
  const FftDesc& desc_;
  const Tuning& all_;        // every override (fft_local's, fft_lanes', fft_rader's)
  const Tuning tuning_;      // fft_local's overrides
  const Configuration top_;  // fft_local of the length (of its columns: "<n>:cols")
  const bool smooth_;
  std::optional<Configuration> rader_cfg_;  // fft_rader of a length Rader's algorithm can transform
  int rader_mode_ = 0;                      // its FFT_RADER (0 where it cannot)
  LaneFacts lanes_;
  std::optional<Stage> single_;  // the one fft_local kernel where one fits
  bool cols_ = false;            // the passes in the column form (columns_layout)
  FftSteps steps_;
  std::map<std::size_t, cl::Buffer> root_tables_;
  std::map<std::pair<std::vector<int>, int>, cl::Buffer> pass_tables_;
};

}  // namespace clforge::fft_plan_parts
