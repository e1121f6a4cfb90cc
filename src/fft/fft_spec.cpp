// Tuning space of the FFT kernel (cl/fft/fft.cl and its parts). The database variant is the
// transform length ("1024"; "*" for every length); the passes of multi-pass plans resolve "pass"
// and their length ("pass512", fft_pass_variant).
#include <algorithm>

#include "fft/fft_internal.hpp"
#include "tuning/spec.hpp"

namespace clforge::detail {

namespace {
// The length a configuration's largest kernel has for a variant ("*": the local limit; "passN":
// the passes of length N).
std::size_t kernel_length(const ParamMap& p, const std::string& variant) {
  const std::size_t lm = static_cast<std::size_t>(p.at("FFT_LOCAL_MAX"));
  std::size_t n = lm;
  if (variant != "*" && !variant.empty()) {
    try {
      n = std::stoull(variant.rfind("pass", 0) == 0 ? variant.substr(4) : variant);
    } catch (...) {
      n = lm;
    }
  }
  if (n == 0) n = 1;
  if (!fft_smooth(n)) n = fft_bluestein_length(n);
  if (n > lm) n = lm;  // passes of a multi-pass plan are at most the local limit
  return n;
}

// The kernel of a configuration: its work-group and local memory (the length from the variant).
Resources fft_resources(const ParamMap& p, const std::string& variant) {
  Resources r;
  const std::size_t n = kernel_length(p, variant);
  FftShape sh;
  try {
    sh = fft_base_shape(n, p, 1024);
  } catch (const std::exception&) {
    r.local = {std::size_t{1} << 20, 1, 1};  // cannot run: an impossible work-group
    return r;
  }
  if (sh.t > 1)
    sh.in_mode = 0;
  else
    sh.in_mode = 1;  // one transform per work-item stages its loads through local memory
  // The launcher caps the work-group at the device maximum (fewer transforms per group, or more
  // butterflies per work-item), so only local memory can really fail to fit; 256 work-items
  // fit every OpenCL GPU.
  r.local = {std::min<std::size_t>(sh.work_group(), 256), 1, 1};
  r.local_mem_bytes = sh.local_bytes();
  r.fp64 = p.at("FFT_TWIDDLE") == 2 || p.at("FFT_TWIDDLE") == 3;
  return r;
}

// Twiddles in double first (the one step that fits a device without cl_khr_fp64; the
// step's trigger is not known here, so a kernel too large for local memory also drops them:
// 3 becomes the float products of the same passes, 2 the table),
// then halve the local memory, then fewer work-items per transform (larger radix), a smaller
// work-group, and last a smaller single-kernel limit.
std::optional<ParamMap> fft_shrink(const ParamMap& p, const std::string&) {
  ParamMap q = p;
  if (q["FFT_TWIDDLE"] == 2 || q["FFT_TWIDDLE"] == 3) {
    q["FFT_TWIDDLE"] = q["FFT_TWIDDLE"] == 3 ? 4 : 0;  // 3 and 4 treat the same large tables
    return q;
  }
  if (q["FFT_HALVE"] == 0) {
    q["FFT_HALVE"] = 1;
    return q;
  }
  if (q["FFT_RADIX"] < 16) {
    q["FFT_RADIX"] *= 2;
    return q;
  }
  if (q["FFT_WG"] > 16) {
    q["FFT_WG"] /= 2;
    return q;
  }
  if (q["FFT_LOCAL_MAX"] > 256) {
    q["FFT_LOCAL_MAX"] /= 2;
    return q;
  }
  return std::nullopt;
}
}  // namespace

KernelSpec fft_spec() {
  KernelSpec s;
  s.name = "fft";
  // fft_local in parts (fft.cl lists them), joined in this order.
  s.files = {"fft/fft_butterflies.cl", "fft/fft_params.cl", "fft/fft_pass.cl",
             "fft/fft_exchange.cl",    "fft/fft_memory.cl", "fft/fft.cl"};
  s.database = "db/fft.json";
  s.params = {
      {"FFT_RADIX", 8, {2, 4, 8, 16, 32}, "largest power-of-two radix of a pass", true},
      {"FFT_WG", 256, {16, 32, 64, 128, 256, 512, 1024}, "work-items per work-group the launcher aims for", true},
      {"FFT_REG", 16, {1, 2, 4, 8, 16, 32, 64}, "lengths up to this: one transform per work-item, in registers", true},
      {"FFT_VPT",
       0,
       {0, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20, 24, 30, 32, 64},
       "values per work-item of the local-memory kernels (0: the largest radix, one butterfly per pass); more: "
       "several butterflies per pass, fewer work-items per transform (the same transforms per group); fewer: more "
       "work-items, some idle in the passes with fewer butterflies; the multiples of 3 and 5 balance the passes of "
       "mixed radices (3000 on 200 work-items: 16, 15, 15 values)",
       true},
      {"FFT_MIX",
       0,
       {0, 1, 2},
       "odd factors: 0 each prime its own pass; 1 pairs merged into one butterfly (3*5 = 15, 3*3 = 9); 2 also "
       "5*5 = 25 first: fewer passes, exchanges and twiddles, more values per butterfly",
       true},
      {"FFT_LOCAL_MAX",
       4096,
       {256, 512, 1024, 2048, 4096, 8192, 16384, 32768},
       "longest length done in one kernel; longer ones take passes through global memory",
       true},
      {"FFT_PASS_MAX",
       32768,
       {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768},
       "longest pass of a multi-pass plan (also capped by FFT_LOCAL_MAX): more, shorter passes",
       true},
      {"FFT_HALVE",
       0,
       {0, 1, 2},
       "local-memory halving: exchange real, then imaginary parts through half the buffer; 2: each also in two "
       "halves of the positions, through a quarter (kernels whose radices after the first are even, direct loads "
       "and stores; others fall back to 1)"},
      {"FFT_TWIDDLE",
       0,
       {0, 1, 2, 3, 4, 5},
       "0: twiddle table computed in double on the host; 1: sinpi/cospi in the kernel; 2: one twiddle per butterfly "
       "from a table in double, the others its powers in double (devices with cl_khr_fp64; others use 0); 3: 2 for "
       "the passes whose table would exceed 16 KiB, 0 for the others (without cl_khr_fp64: 4); 4: in those passes "
       "the powers w^l and w^(h S) of each butterfly's w from the table (S about sqrt R: 2 sqrt R entries per "
       "butterfly instead of R-1), the others as one float product w^(h S) w^l each, 0 in the others; 5: 4 in "
       "every pass"},
      {"FFT_DCHAIN",
       1,
       {1, 2},
       "twiddle powers in double (FFT_TWIDDLE 2, 3): one chain of products by w, or two (odd and even powers) "
       "of products by w^2: half the dependent products for more registers"},
      {"FFT_PAD", 1, {0, 1}, "pad local-memory rows against bank conflicts"},
      {"FFT_VEC", 1, {0, 1}, "global loads and stores as float2 (one 8-byte access) or as two floats"},
      {"FFT_STAGE",
       0,
       {0, 1, 2, 3},
       "global accesses through local memory: 0 where it coalesces, 1 always, 2 never, 3 never and a strided side "
       "coalesced by numbering the work-items transform-fastest",
       true},
      {"FFT_ACROSS",
       8,
       {4, 8, 16},
       "transforms per work-group aimed for where neighbouring transforms are adjacent in memory (a strided side, "
       "the passes of long plans): 8-byte values in runs of this many",
       true},
      {"FFT_COLS",
       1,
       {0, 1},
       "columns (neighbouring transforms adjacent, elements apart, 16 or more): 1 in passes whose groups hold "
       "neighbouring transforms at one position (FFT_COLS kernels) where one kernel of the length would hold fewer "
       "than FFT_ACROSS of them per group; 0 one kernel wherever one fits",
       true},
      {"FFT_CHUNK",
       0,
       {0, 4, 8, 16, 32, 64, 128, 256},
       "MiB per scratch buffer of a multi-pass plan (0: 256): the batch runs pass after pass in chunks of this "
       "size, so that small chunks stay in the device's last-level cache between passes",
       true},
  };
  s.check = [](const ParamMap&, const std::string&) -> std::string { return {}; };
  s.resources = fft_resources;
  s.shrink = fft_shrink;
  return s;
}

KernelSpec fft_lanes_spec() {
  KernelSpec s;
  s.name = "fft_lanes";
  s.files = {"fft/fft_butterflies.cl", "fft/fft_lanes.cl"};
  s.database = "db/fft_lanes.json";
  s.params = {
      {"FFT_LANES", 0, {0, 4, 8, 16}, "transforms per work-item of the CPU lane kernel (0: not used)"},
      {"FFT_LANE_RADIX", 8, {4, 8, 16, 32}, "lane kernel: largest power-of-two radix of a pass", true},
      {"FFT_LANE_MIN", 128, {1, 16, 32, 64, 128, 256, 512}, "lane kernel: shortest length it computes", true},
      {"FFT_LANE_MAX",
       4096,
       {256, 512, 1024, 2048, 4096, 8192, 16384},
       "lane kernel: longest length it computes in one launch (longer ones: two launches)",
       true},
      {"FFT_LANES2",
       8,
       {4, 8, 16},
       "lane kernel: transforms per work-item in the two launches of a longer length",
       true},
      {"FFT_LANE_EBLOCK",
       0,
       {0, 1},
       "lane kernel: where a transform's elements are adjacent, move blocks of elements as whole vectors "
       "transposed in registers (0: element by element)",
       true},
  };
  s.check = [](const ParamMap& p, const std::string&) -> std::string {
    if (p.at("FFT_LANE_MIN") > p.at("FFT_LANE_MAX")) return "FFT_LANE_MIN must not exceed FFT_LANE_MAX";
    return {};
  };
  s.resources = [](const ParamMap&, const std::string&) {
    Resources r;
    r.local = {1, 1, 1};
    return r;
  };
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    if (q["FFT_LANE_MAX"] <= 256) return std::nullopt;
    q["FFT_LANE_MAX"] /= 2;
    return q;
  };
  return s;
}

}  // namespace clforge::detail
