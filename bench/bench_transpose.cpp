// clforge transpose against CLBlast's Omatcopy and the device's copy bandwidth.
#include <cstdio>
#include <cstring>

#include "bench/routines.hpp"
#include "clforge/transpose.hpp"
#include "host/reference.hpp"
#include "runtime/errors.hpp"

#if CLFORGE_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace clforge::bench {

namespace {
std::pair<std::size_t, std::size_t> parse_shape(const std::string& s) {
  const auto x = s.find('x');
  if (x == std::string::npos) return {std::stoul(s), std::stoul(s)};
  return {std::stoul(s.substr(0, x)), std::stoul(s.substr(x + 1))};
}

nlohmann::json params_json(const Configuration& cfg) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : cfg.values) j[k] = {{"value", v}, {"source", cfg.sources.at(k)}};
  return j;
}
}  // namespace

void bench_transpose(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks) {
  std::vector<std::string> sizes = opt.sizes;
  if (sizes.empty()) sizes = opt.quick ? std::vector<std::string>{"256", "1000x999"}
                                       : std::vector<std::string>{"1024", "4096", "8192", "16384", "4097x31", "8191x8193"};
  for (const auto& sz : sizes) {
    const auto [rows, cols] = parse_shape(sz);
    const std::size_t n = rows * cols;
    const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
    cl::Buffer in = random_buffer(s.context, s.queue, n, 1234 + n);
    cl_int st = CL_SUCCESS;
    cl::Buffer out(s.context, CL_MEM_READ_WRITE, n * 4, nullptr, &st);
    detail::check(st, "clCreateBuffer", "transpose benchmark output");
    const double bytes = 2.0 * n * 4;

    // Correctness first: poisoned output, exact match with the host transpose.
    Record r = Record::of("transpose", "clforge", shape);
    r.bytes = bytes;
    {
      std::vector<float> host_in(n), dev_out(n, std::nanf("")), ref(n);
      s.queue.enqueueWriteBuffer(out, CL_TRUE, 0, n * 4, dev_out.data());
      s.queue.enqueueReadBuffer(in, CL_TRUE, 0, n * 4, host_in.data());
      transpose(s.queue, rows, cols, 4, {in, 0, cols}, {out, 0, rows}, {}, nullptr, opt.tuning);
      s.queue.enqueueReadBuffer(out, CL_TRUE, 0, n * 4, dev_out.data());
      host::transpose(rows, cols, 4, host_in.data(), cols, ref.data(), rows);
      r.error = std::memcmp(dev_out.data(), ref.data(), n * 4) == 0 ? 0.0 : 1.0;
      if (r.error != 0) r.status = "failed: result differs from the host transpose";
    }
    const Configuration cfg = resolve_configuration("transpose", "4", s.entry.info, opt.tuning);
    r.params = params_json(cfg);
    // Both libraries are timed the same way: everything between two marker kernels.
    r.timing = time_region(s.queue, [&] {
      transpose(s.queue, rows, cols, 4, {in, 0, cols}, {out, 0, rows}, {}, nullptr, opt.tuning);
    }, opt.plan);
    char line[256];
    std::snprintf(line, sizeof line, "transpose %s clforge: %.4f ms, %.1f GB/s (%.0f%% of copy)", shape.c_str(),
                  r.timing.median_ms, r.gbps(), peaks.copy_gbps > 0 ? 100 * r.gbps() / peaks.copy_gbps : 0.0);
    progress(line);
    report.add(r);

#if CLFORGE_HAVE_CLBLAST
    Record c = Record::of("transpose", "CLBlast", shape);
    c.bytes = bytes;
    cl_command_queue q = s.queue();
    const auto status = clblast::Omatcopy<float>(clblast::Layout::kRowMajor, clblast::Transpose::kYes, rows, cols, 1.0f,
                                                 in(), 0, cols, out(), 0, rows, &q, nullptr);
    if (status != clblast::StatusCode::kSuccess) {
      c.status = "refused: CLBlast status " + std::to_string(static_cast<int>(status));
    } else {
      c.timing = time_region(s.queue, [&] {
        clblast::Omatcopy<float>(clblast::Layout::kRowMajor, clblast::Transpose::kYes, rows, cols, 1.0f, in(), 0, cols,
                                 out(), 0, rows, &q, nullptr);
      }, opt.plan);
    }
    std::snprintf(line, sizeof line, "transpose %s CLBlast: %.4f ms, %.1f GB/s", shape.c_str(), c.timing.median_ms,
                  c.gbps());
    progress(line);
    report.add(c);
#endif
  }
}

}  // namespace clforge::bench
