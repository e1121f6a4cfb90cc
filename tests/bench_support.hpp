// Checks of a `clforge bench all` device entry in results.json shared by the bench tests
// (tests/test_bench_all.cpp): the peak probes and the host peers of CPU devices.
#pragma once
#include <nlohmann/json.hpp>

#include "clforge/device.hpp"

namespace clforge::test {

/// The probes of bench all --quick: copy buffers of at least 4x the cache and 64 MiB (where the
/// device's memory allows), the FMA search (a record per vector width, "fma" the best and no
/// lower than the scalar one, its configuration reported), host<->device pinned and pageable
/// each way and both at once, and the launch latency; each also in the device's peaks object.
void check_peaks(const nlohmann::json& device, const DeviceInfo& dev);

/// On a CPU device: FFTW rows with an error within the FFT tolerance (and its wisdom file in the
/// cache dir), OpenBLAS naming its kernels in its rows and the peers; elsewhere no FFTW rows.
void check_cpu_peers(const nlohmann::json& device, const DeviceInfo& dev);

}  // namespace clforge::test
