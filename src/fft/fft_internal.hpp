// FFT internals shared by the plan, the tuning spec, the tuner and the tests: factorisation,
// radix and pass decomposition, the shape of one fft_local kernel (the routine constants of
// cl/fft/fft_params.cl, derived from the length and the tuning parameters), and the programs of a plan.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "clforge/device.hpp"
#include "clforge/fft.hpp"
#include "clforge/tuning.hpp"
#include "runtime/launch.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/plan_keys.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner.hpp"

namespace clforge::detail {

/// The family's kernel spec and tuner target (listed by src/library/families.cpp).
KernelSpec fft_spec();
/// The CPU lane kernel (cl/fft/fft_lanes.cl): several transforms per work-item, one per vector lane.
KernelSpec fft_lanes_spec();
TuneTarget fft_tune_target();
/// `clforge tune fft_lanes`: the CPU lane kernel's parameters (fft_lanes) of one length.
TuneTarget fft_lanes_tune_target();
/// `clforge tune fft_rader`: Rader's parameters (fft_rader) of one prime length.
TuneTarget fft_rader_tune_target();
/// `clforge tune fft_real`: the real-input ends' row (fft_real).
TuneTarget fft_real_tune_target();
/// A size of the FFT tune targets: "N", "N@BATCH", "N@BATCH:t" (interleaved) or "N@BATCH:r"
/// (real input); InvalidArgument for any other text (src/fft/fft_tune.cpp).
struct FftTuneSize {
  std::size_t n = 0, batch = 0;
  bool interleaved = false, real = false;
};
FftTuneSize parse_fft_size(const std::string& size);

/// Rader's gather and scatter kernels (cl/fft/fft_rader.cl) and their tuning space.
KernelSpec fft_rader_spec();
/// The real-input transforms' ends (cl/fft/fft_real.cl): pack, post, pre and unpack launches.
KernelSpec fft_real_spec();
/// Is n a prime from 17 on whose n - 1 is smooth (Rader's algorithm can transform it)?
bool fft_rader_applies(std::size_t n);
/// The smallest primitive root modulo the prime p.
std::size_t fft_primitive_root(std::size_t p);

/// Prime factors of n in ascending order.
std::vector<std::size_t> fft_prime_factors(std::size_t n);
/// True when every prime factor of n is 2, 3, 5, 7, 11 or 13 (n = 1 included).
bool fft_smooth(std::size_t n);
/// Smallest power of two >= x.
std::size_t fft_pow2_at_least(std::size_t x);
/// Bluestein length for n: the smallest power of two >= 2n - 1 (used when the convolution runs
/// inside one kernel, where power-of-two passes are cheapest).
std::size_t fft_bluestein_length(std::size_t n);
/// Bluestein length for the multi-pass form: the smallest 2,3,5,7-smooth number >= 2n - 1
/// (about 2n instead of up to 4n: half the memory traffic of every pass).
std::size_t fft_bluestein_length_smooth(std::size_t n);

/// Radix passes of a smooth in-kernel length: powers of two split as evenly as possible into
/// radices <= max_radix (larger first), then the odd factors, largest first: each odd prime a
/// pass of its own (mix 0), or pairs of them merged into one butterfly, 3 * 5 = 15 and 3 * 3 = 9
/// (mix 1), and 5 * 5 = 25 before those (mix 2): fewer passes, exchanges and twiddles.
/// Empty for n = 1.
std::vector<int> fft_radices(std::size_t n, int max_radix, int mix = 0);

/// Do these radices allow exchanges in quarters (FFT_HALVE 2)? Two passes or more, every radix
/// after the first even (fft_exchange.cl, FFT_QPUT); FftShape::quarter_ok adds the shape's conditions.
bool fft_quarter_radices(const std::vector<int>& radices);

/// Table entries of one pass above which FFT_TWIDDLE 3 takes that pass's twiddles in double
/// (16 KiB of float2: beyond it the table competes with the data for the first-level cache).
constexpr std::size_t kFftTwiddleBig = 2048;
/// Is the table of the pass with radix r after ns points, (r - 1) * ns entries, large (above
/// kFftTwiddleBig; fft_params.cl, FFT_TWLARGE)? FFT_TWIDDLE 3 and 4 treat those passes differently.
inline bool fft_large_table(int r, std::size_t ns) { return static_cast<std::size_t>(r - 1) * ns > kFftTwiddleBig; }
/// Does the pass with radix r after ns points take its twiddles as powers in double of one base
/// per butterfly (fft_params.cl, FFT_TWD)? Always with FFT_TWIDDLE 2; with 3 where its table is large.
inline bool fft_double_twiddles(int mode, int r, std::size_t ns) {
  return mode == 2 || (mode == 3 && fft_large_table(r, ns));
}
/// Does the pass with radix r after ns points make its twiddles as float products w^(h*s) * w^l of
/// powers of w = W_(ns*r)^jj read from the table (l, h < s = fft_product_split(r); FFT_TWIDDLE 5,
/// and 4 where its table is large; fft_params.cl, FFT_TWP)?
inline bool fft_product_twiddles(int mode, int r, std::size_t ns) {
  return mode == 5 || (mode == 4 && fft_large_table(r, ns));
}
/// The split s of such a pass (fft_params.cl, FFT_TWSQ): about sqrt(r), a power of two.
inline int fft_product_split(int r) { return r > 16 ? 8 : r > 4 ? 4 : 2; }

/// Database variant of the passes of length len in multi-pass plans ("pass512"). Passes have
/// rows of their own: a row tuned for the one-kernel transform of a length (variant "512")
/// would otherwise set the passes of that length too, whose strided side it never saw. The
/// passes after the first of a phase, strided on both sides (the first stores each transform
/// contiguously), resolve the sub-variant "pass512:later", which falls back to "pass512"'s rows.
inline std::string fft_pass_variant(std::size_t len, bool later = false) {
  return "pass" + std::to_string(len) + (later ? ":later" : "");
}

/// Transforms that are columns: at least this many adjacent in memory (distance 1) on both
/// sides, their elements apart (the columns of a 2-D array, an interleaved batch).
constexpr std::size_t kColumnsMin = 16;

/// Database variant of a length's columns ("1024:cols"): the rows of a length whose transforms
/// are columns, which fall back to the length's own rows ("1024"). A column kernel reads and
/// writes across transforms, which the length's contiguous rows never saw.
inline std::string fft_columns_variant(std::size_t len) { return std::to_string(len) + ":cols"; }

/// Database variant of the complex FFT inside a real-input plan ("64:real" for R2C and C2R of
/// 128 points): its rows fall back to the length's own ("64"). That kernel carries the real
/// ends in its loads or stores, so a row measured on the complex transform alone may not suit it.
inline std::string fft_real_variant(std::size_t len) { return std::to_string(len) + ":real"; }

/// Whether a description's transforms lie as columns (kColumnsMin or more, distance 1 on both
/// sides, their elements apart), and so resolve fft_columns_variant: the plan and the tuner ask
/// this one rule.
inline bool fft_lies_as_columns(const FftDesc& d) {
  return d.batch >= kColumnsMin && d.in.distance == 1 && d.out.distance == 1 && d.in.stride > 1 && d.out.stride > 1;
}

/// Factors of a smooth length too long for one kernel into global passes, each <= local_max,
/// as few and as balanced as possible. Empty when impossible (a prime factor > local_max).
std::vector<std::size_t> fft_global_factors(std::size_t n, std::size_t local_max);

/// Routine constants of one fft_local kernel.
struct FftShape {
  int n = 1;                      ///< kernel length
  std::vector<int> radices;       ///< passes
  int t = 1;                      ///< work-items per transform
  int b = 1;                      ///< transforms per work-group
  int in_mode = 0, out_mode = 0;  ///< 0 direct, 1 staged by transform, 2 staged across transforms
  int pre = 0, post = 0;          ///< load / store operations (see fft_params.cl)
  bool in_check = false, out_check = false, split = false, bluestein = false, inplace = false;
  bool long_index = false;
  /// Element strides of 1 on the input and output side: passed as literals (FFT_IN_UNIT,
  /// FFT_OUT_UNIT), so that compilers see consecutive positions as consecutive addresses.
  bool in_unit = false, out_unit = false;
  /// An odd-length real plan's ends in the kernel: loads of real values (FFT_IN_REAL: floats,
  /// imaginary parts zero; the forward), the Hermitian extension of a half spectrum of `in_herm`
  /// points on load and stores of the real parts (FFT_IN_HERM, FFT_OUT_REAL; the inverse).
  bool in_real = false, out_real = false;
  int in_herm = 0;
  int split_l = 1, split_ns = 1;  ///< kernel transforms per user transform (L), a pass's NS
  /// A pass in the column form (FFT_COLS): its launch's transforms are the user transforms, each
  /// at the group's lo (NDRange dimension 2, split_l positions), so that neighbouring user
  /// transforms share a group (columns: adjacent in memory).
  bool cols = false;
  /// Work-items of a group numbered transform-fastest (lid = tid * b + tb) instead of
  /// element-fastest: direct accesses of a batch whose transforms are adjacent in memory then
  /// coalesce across the group's transforms without staging (the column side of the passes).
  bool tfast = false;
  int halve = 0, pad = 1;  ///< copies of the tuning values (local-memory size depends on them)

  bool priv() const { return t == 1; }
  bool uses_local() const { return !priv() || in_mode != 0 || out_mode != 0; }
  std::size_t work_group() const { return static_cast<std::size_t>(b) * t; }
  std::size_t local_bytes() const;
  /// Can the exchanges run in quarters (FFT_HALVE 2)? Needs local memory exchanges, direct loads
  /// and stores, no Bluestein convolution, and even radices after the first (fft_exchange.cl, FFT_QPUT).
  bool quarter_ok() const;
  /// FFT_HALVE 2 runs as 1 where the shape cannot exchange in quarters: applies that, true when
  /// it changed the shape.
  bool halve_fallback();
  /// "-DFFT_N=... -DFFT_NPASS=... ..." (the tuning parameters come from the configuration).
  std::string options() const;
  /// "radix 16*8*8, 64 work-items x 4 transforms".
  std::string summary() const;
};

/// The in-kernel shape for length n under params, before the layout decides the modes:
/// radices, work-items per transform (at most max_wg), transforms per group. Throws
/// UnsupportedDevice when n cannot run in one work-group of max_wg.
FftShape fft_base_shape(std::size_t n, const ParamMap& params, std::size_t max_wg);

/// Largest length the tuning parameters and the device allow in one kernel; with `quartered`,
/// counting kernels whose exchanges run in quarters (direct loads and stores, FFT_HALVE 2).
std::size_t fft_local_limit(const ParamMap& params, const DeviceInfo& dev, bool quartered = true);

/// The passes of a multi-pass plan of smooth length n whose length row is `params` (its
/// FFT_PASS_MAX and FFT_LOCAL_MAX): fft_global_factors under the shorter of the two limits.
/// The plan builder and the tuner's pass rows both take them from here.
std::vector<std::size_t> fft_pass_factors(std::size_t n, const ParamMap& params, const DeviceInfo& dev);

/// Does one kernel of `shape` fit the device (work-group and local memory)?
bool fft_fits(const FftShape& shape, const DeviceInfo& dev);

/// fft_fits, or else with the exchanges in quarters where the shape allows them (the shape's
/// halve becomes 2 then).
bool fft_fits_quartered(FftShape& shape, const DeviceInfo& dev);

/// The parameters of fft_local, the one entry point of every FFT kernel (cl/fft/fft.cl).
extern const KernelSignature kFftLocal;
/// The parameters of fft_lanes, the CPU lane kernel (cl/fft/fft_lanes.cl).
extern const KernelSignature kFftLanes;
/// The parameters of fft_rader_in and fft_rader_out (cl/fft/fft_rader.cl).
extern const KernelSignature kFftRaderIn, kFftRaderOut;
/// The parameters of the real-input ends (cl/fft/fft_real.cl).
extern const KernelSignature kFftRealPack, kFftRealPost, kFftRealPre, kFftRealUnpack;
/// Every FFT entry point's signature (tests check each against the compiled kernel).
std::vector<const KernelSignature*> fft_signatures();

/// Compiles (through the compile cache) every program an FftPlan of desc with these tuning
/// options uses, with the plan's own options, and runs nothing: the tuner's prebuild. Throws
/// as the FftPlan constructor does.
void fft_build_programs(const QueueContext& qc, const FftDesc& desc, const Tuning& tuning);

}  // namespace clforge::detail
