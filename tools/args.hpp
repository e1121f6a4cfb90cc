// Arguments of the clforge command line that several commands share: the usage error (exit
// status 2), the size grammar of `--size` (bench/sizes.hpp: one parser for the CLI and the
// benchmarks, whose errors become usage errors here), the routine names, and output folders.
// No CLI11 here: the tests link it.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/sizes.hpp"

namespace clforge::cli {

/// A command line that cannot be understood: main() prints it and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using bench::family_of;
using bench::routine_names;
using bench::Size;
using bench::size_grammar;

/// bench::parse_size, its InvalidArgument thrown as UsageError (same message); a blur size's
/// sigma key only where `tune` (the tuner's cases; run and bench take their sigmas as options).
Size parse_size(const std::string& routine, const std::string& text, bool tune = false);
/// The size in the syntax of TuneOptions::sizes (the library's tuner targets).
std::string tune_size(const Size& s);
/// The size in the syntax of bench::BenchOptions::sizes (fft: this grammar's text); throws
/// UsageError for what the benchmarks do not measure (transpose elem other than 4, fft layout
/// interleaved). Blur channels are not part of it (bench::BlurBenchOptions::channels).
std::string bench_size(const Size& s);
/// A size of the tuner's syntax (tune_size's, or a routine's default size) in the syntax of
/// bench::BenchOptions::sizes for the family's benchmark; "" for what the benchmarks do not
/// measure (interleaved FFT batches, transposes of other than 4-byte elements). A blur size's
/// channels go to `channels`, its sigma to `sigma` (0: the size names none).
std::string bench_size_of_tuned(const std::string& family, const std::string& size, std::size_t& channels,
                                double& sigma);
/// "ROUTINE:SIZE" of bench all: the routine and its parsed size.
Size parse_routine_size(const std::string& text, bool tune = false);

/// A folder that `--out` may name: an existing folder or a path that does not exist yet;
/// throws UsageError naming the option when it is something else.
void check_output_folder_arg(const std::string& path);
/// Creates the folder (and its parents) when missing; throws clforge::Error when it cannot.
void make_output_folder(const std::string& path);

}  // namespace clforge::cli
