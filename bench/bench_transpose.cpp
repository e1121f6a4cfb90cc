// clforge transpose against CLBlast's Omatcopy and the device's copy bandwidth.
#include <cstdio>
#include <cstring>
#include <functional>

#include "bench/routines.hpp"
#include "clforge/transpose.hpp"
#include "host/reference.hpp"
#include "runtime/errors.hpp"

#if CLFORGE_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace clforge::bench {

namespace {
std::vector<std::string> sizes_of(const BenchOptions& opt) {
  if (!opt.sizes.empty()) return opt.sizes;
  return opt.quick ? std::vector<std::string>{"256", "1000x999"}
                   : std::vector<std::string>{"1024", "4096", "8192", "16384", "4097x31", "8191x8193"};
}

}  // namespace

std::vector<std::string> transpose_sizes(const BenchOptions& opt) { return sizes_of(opt); }
std::size_t transpose_cases(const BenchOptions& opt) { return sizes_of(opt).size(); }

void bench_transpose(Session& s, Report& report, const BenchOptions& opt, const Peaks& peaks) {
  const std::vector<std::string> sizes = sizes_of(opt);
  const ProgressScope scope(sizes.size());
  for (const auto& sz : sizes) {
    progress_step();
    const auto [rows, cols] = parse_shape(sz);
    const std::size_t n = rows * cols;
    const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
    cl::Buffer in = random_buffer(s.context, s.queue, n, 1234 + n);
    cl_int st = CL_SUCCESS;
    cl::Buffer out(s.context, CL_MEM_READ_WRITE, n * 4, nullptr, &st);
    detail::check(st, "clCreateBuffer", "transpose benchmark output");
    const double bytes = 2.0 * n * 4;

    // Correctness first, for every library: poisoned output, exact match with the host transpose.
    std::vector<float> host_in(n), ref(n);
    s.queue.enqueueReadBuffer(in, CL_TRUE, 0, n * 4, host_in.data());
    host::transpose(rows, cols, 4, host_in.data(), cols, ref.data(), rows);
    const auto exact = [&](Record& rec, const std::function<void()>& call) {
      std::vector<float> dev_out(n, std::nanf(""));
      s.queue.enqueueWriteBuffer(out, CL_TRUE, 0, n * 4, dev_out.data());
      call();
      s.queue.enqueueReadBuffer(out, CL_TRUE, 0, n * 4, dev_out.data());
      rec.error = std::memcmp(dev_out.data(), ref.data(), n * 4) == 0 ? 0.0 : 1.0;
      if (rec.error != 0) rec.status = "failed: result differs from the host transpose";
    };
    // Every library that computed the right answer is timed the same way (everything between
    // two marker kernels), their regions interleaved so that a drifting device (a shared CPU)
    // treats them alike.
    std::vector<Record> records;
    std::vector<std::function<void()>> calls;
    // `refused` (optional) names a library's refusal of the call ("" when it accepted).
    const auto enter = [&](Record rec, const std::function<void()>& call,
                           const std::function<std::string()>& refused = {}) {
      rec.bytes = bytes;
      exact(rec, call);
      if (const std::string why = refused ? refused() : ""; !why.empty()) {
        rec.status = why;
        rec.error = -1;
      }
      if (rec.status == "ok") calls.push_back(call);
      records.push_back(std::move(rec));
    };
    const auto call_clforge = [&] {
      transpose(s.queue, rows, cols, 4, {in, 0, cols}, {out, 0, rows}, {}, nullptr, opt.tuning);
    };
    {
      Record r = Record::of("transpose", "clforge", shape);
      r.params = params_json(resolve_configuration("transpose", "4", s.entry.info, opt.tuning));
      enter(std::move(r), call_clforge);
    }
#if CLFORGE_HAVE_CLBLAST
    cl_command_queue q = s.queue();
    clblast::StatusCode status = clblast::StatusCode::kSuccess;
    const auto call_clblast = [&] {
      status = clblast::Omatcopy<float>(clblast::Layout::kRowMajor, clblast::Transpose::kYes, rows, cols, 1.0f, in(), 0,
                                        cols, out(), 0, rows, &q, nullptr);
    };
    if (opt.peers)
      enter(Record::of("transpose", "CLBlast", shape), call_clblast, [&] {
        return status == clblast::StatusCode::kSuccess
                   ? std::string()
                   : "refused: CLBlast status " + std::to_string(static_cast<int>(status));
      });
#endif
    const std::vector<Timing> timings = time_regions(s.queue, calls, opt.plan);
    std::size_t next = 0;
    for (Record& rec : records) {
      if (rec.status == "ok") rec.timing = timings.at(next++);
      char line[256];
      if (rec.library == "clforge")
        std::snprintf(line, sizeof line, "transpose %s clforge: %.4f ms, %.1f GB/s (%.0f%% of copy) %s", shape.c_str(),
                      rec.timing.median_ms, rec.gbps(), peaks.copy_gbps > 0 ? 100 * rec.gbps() / peaks.copy_gbps : 0.0,
                      rec.status.c_str());
      else
        std::snprintf(line, sizeof line, "transpose %s %s: %.4f ms, %.1f GB/s %s", shape.c_str(), rec.library.c_str(),
                      rec.timing.median_ms, rec.gbps(), rec.status.c_str());
      progress(line);
      report.add(rec);
    }
  }
}

}  // namespace clforge::bench
