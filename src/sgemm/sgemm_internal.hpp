// Internal view of the sgemm launcher: which path a call takes, for the CLI, the benchmark
// and the tests (the threshold between the direct and the tiled kernels is a tuning
// parameter, so the choice must be observable).
#pragma once
#include <cstddef>
#include <string>

#include "clforge/device.hpp"
#include "clforge/tuning.hpp"

namespace clforge::detail {

enum class SgemmPath {
  Nothing,  ///< m or n is 0, or (k == 0 or alpha == 0) with beta == 1
  Scale,    ///< C = beta * C only (k == 0 or alpha == 0)
  Direct,   ///< sgemm_direct on the user's buffers
  Xgemm,    ///< pack + sgemm_xgemm
  Stream,   ///< pack + sgemm_stream
};
const char* to_string(SgemmPath p);

/// The path sgemm takes on `device` for an m x n x k product (any layout: the choice does
/// not depend on it) with these alpha, beta and tuning overrides.
SgemmPath sgemm_path(const DeviceInfo& device, std::size_t m, std::size_t n, std::size_t k, float alpha, float beta,
                     const Tuning& tuning = {});

/// Size class of an m x n x k product: the database variant the tiled kernels (sgemm_xgemm,
/// sgemm_stream) are resolved with, so that `clforge tune` can store separate entries for
/// small, medium and large products. "small": m*n*k < 1536^3, "medium": < 3072^3, else "large".
/// Shipped rows use "*" (every class).
std::string sgemm_size_class(std::size_t m, std::size_t n, std::size_t k);

/// Number of k slices sgemm_xgemm runs for an m x n x k product in the internal layout (1: no
/// split): with SGEMM_SPLITK >= 2, enough slices for tiles x slices to reach compute units x
/// SGEMM_SPLIT_WAVES work-groups, at most SGEMM_SPLITK, at least one k tile each.
std::size_t sgemm_k_slices(const DeviceInfo& device, std::size_t m, std::size_t n, std::size_t k,
                           const Tuning& tuning);

/// Compiler options the launcher adds to a family's program besides the parameters: 64-bit
/// indexing when needed and, for sgemm_xgemm on NVIDIA's OpenCL, the register cap NVRREG.
std::string sgemm_extra_options(const DeviceInfo& device, const std::string& family, const Configuration& cfg,
                                bool long_index);

/// The overrides of `tuning` that belong to kernel `spec_name` (user-database switch kept).
Tuning sgemm_tuning_for(const Tuning& tuning, const std::string& spec_name);

/// A problem size as the benchmark, the CLI and the tuner write it: "N" (square) or "MxNxK",
/// optionally followed by ":NN", ":NT", ":TN" or ":TT" (op of A, op of B).
struct SgemmSize {
  std::size_t m = 0, n = 0, k = 0;
  bool ta = false, tb = false;
};
/// Throws InvalidArgument naming the text when it is not such a size.
SgemmSize parse_sgemm_size(const std::string& text);

/// The sgemm kernel families, in the order they are listed in the registry.
inline const char* const kSgemmSpecs[] = {"sgemm_xgemm", "sgemm_stream", "sgemm_direct", "sgemm_pack", "sgemm_route"};

}  // namespace clforge::detail
