// The one size grammar of the command line's `--size` (run, bench, tune, bench all, blur, tune
// blur-crossover) and of the benchmarks' own size lists: the CLI (tools/args.hpp) and the
// benchmarks (bench fft reads its cases with it) parse sizes here. No CLI11 here.
//
//   SIZE  := DIMS { "," KEY "=" VALUE | "," FLAG }
//   DIMS  := COUNT | COUNT "x" COUNT | COUNT "x" COUNT "x" COUNT
//   COUNT := decimal digits, 1 ... 2^31 - 1
//
//   routine    DIMS                        KEYS
//   transpose  N (N x N) or RxC            elem=4|8|16 (bytes per element; default 4)
//   sgemm      N (N x N x N) or MxNxK      trans=NN|NT|TN|TT (op of A, op of B; default NN),
//                                          batch=B (a strided batch of B products)
//   fft        N, NxM or NxMxK (1-D, 2-D,  batch=B (transforms) or mib=M (a batch of M MiB),
//              3-D: row-major, the last    layout=contiguous|interleaved (default contiguous),
//              axis fastest)               real (a word without value: real input, R2C and C2R)
//   blur       N (N x N) or WxH            channels=1|4 (floats per pixel; default 1)
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace clforge::bench {

/// The routine families, in the order commands list them: transpose, sgemm, fft, blur.
const std::vector<std::string>& routine_names();
/// The family of a routine or kernel name ("sgemm_direct" -> "sgemm", "blur" -> "blur"); ""
/// when the name belongs to none.
std::string family_of(const std::string& name);

/// One parsed size. Fields not used by the routine keep their defaults.
struct Size {
  std::string routine;                    ///< family: transpose, sgemm, fft or blur
  std::size_t x = 0, y = 0, z = 0;        ///< transpose rows, cols; sgemm m, n, k; fft axes (0: none); blur w, h
  std::size_t elem = 4;                   ///< transpose: bytes per element
  bool trans_a = false, trans_b = false;  ///< sgemm: op(A), op(B) transposed
  std::size_t batch = 0, mib = 0;         ///< fft: transforms, or MiB of data; sgemm: products; 0: not given
  bool interleaved = false;               ///< fft: stride batch, distance 1
  bool real = false;                      ///< fft: real input (R2C forward, C2R inverse)
  std::size_t channels = 1;               ///< blur: floats per pixel
  bool has_channels = false;              ///< blur: channels given
  double sigma = 0;                       ///< blur (tune): the sigma of this size; 0: not given

  /// The canonical text, which parses to the same size ("4096x4096", "64,batch=16").
  std::string text() const;
  /// fft: batch, else the transforms in mib MiB, else in default_bytes (at least 1).
  std::size_t fft_batch(std::size_t default_bytes) const;
  /// fft: points per transform, x * y * z over the axes given (above kMaxCount: some value above it).
  std::size_t fft_points() const;
  /// fft: the lengths of the axes given, slowest first ({x}, {x, y} or {x, y, z}).
  std::vector<std::size_t> fft_shape() const;
};

/// Parses `text` as a size of `routine` (a family or kernel name); throws InvalidArgument
/// saying what is wrong and what the routine's sizes look like.
Size parse_size(const std::string& routine, const std::string& text);
/// The grammar of a routine's sizes, for help texts ("N or RxC, keys elem=4|8|16").
std::string size_grammar(const std::string& routine);

}  // namespace clforge::bench
