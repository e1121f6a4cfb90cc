// FFTW reference (see fftw_reference.hpp): one fftw_plan_many_dft over the gathered batch.
#include "host/fftw_reference.hpp"

#include <fftw3.h>

#include <cstring>
#include <stdexcept>

namespace clforge::host {

std::vector<cdouble> fftw_batch(const float* in, std::size_t n, std::size_t batch, std::size_t stride,
                                std::size_t distance, std::size_t offset, bool inverse, double scale) {
  const std::size_t total = n * batch;
  fftw_complex* buf = static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * (total ? total : 1)));
  if (buf == nullptr) throw std::bad_alloc();
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = offset + b * distance + k * stride;
      buf[b * n + k][0] = in[2 * i];
      buf[b * n + k][1] = in[2 * i + 1];
    }
  const int len = static_cast<int>(n);
  fftw_plan plan = fftw_plan_many_dft(1, &len, static_cast<int>(batch), buf, nullptr, 1, len, buf, nullptr, 1, len,
                                      inverse ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
  if (plan == nullptr) {
    fftw_free(buf);
    throw std::runtime_error("fftw_plan_many_dft failed for n = " + std::to_string(n));
  }
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  std::vector<cdouble> out(total);
  for (std::size_t i = 0; i < total; ++i) out[i] = cdouble(buf[i][0], buf[i][1]) * scale;
  fftw_free(buf);
  return out;
}

std::vector<cdouble> fftw_nd(const float* in, const std::vector<std::size_t>& shape, bool inverse) {
  std::size_t total = 1;
  std::vector<int> dims;
  for (std::size_t n : shape) {
    total *= n;
    dims.push_back(static_cast<int>(n));
  }
  fftw_complex* buf = static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * (total ? total : 1)));
  if (buf == nullptr) throw std::bad_alloc();
  for (std::size_t i = 0; i < total; ++i) {
    buf[i][0] = in[2 * i];
    buf[i][1] = in[2 * i + 1];
  }
  fftw_plan plan = fftw_plan_dft(static_cast<int>(dims.size()), dims.data(), buf, buf,
                                 inverse ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
  if (plan == nullptr) {
    fftw_free(buf);
    throw std::runtime_error("fftw_plan_dft failed for a " + std::to_string(dims.size()) + "-D transform");
  }
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  std::vector<cdouble> out(total);
  for (std::size_t i = 0; i < total; ++i) out[i] = cdouble(buf[i][0], buf[i][1]);
  fftw_free(buf);
  return out;
}

}  // namespace clforge::host
