// Transpose launcher: argument checks, tuning space, and the host-vector convenience.
#include "clforge/transpose.hpp"

#include <climits>

#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/program_cache.hpp"
#include "tuning/spec.hpp"

namespace clforge {
namespace detail {

KernelSpec transpose_spec() {
  KernelSpec s;
  s.name = "transpose";
  s.files = {"transpose/transpose.cl"};
  s.database = "db/transpose.json";
  s.variants = {"4", "8", "16"};
  s.params = {
      {"TRA_TILE", 16, {4, 8, 16, 32, 64}, "tile edge in elements"},
      {"TRA_WPT", 1, {1, 2, 4, 8, 16}, "tile rows moved by each work-item"},
      {"TRA_VW", 1, {1, 2, 4, 8}, "consecutive columns moved by each work-item"},
      {"TRA_PAD", 1, {0, 1}, "local-memory padding column against bank conflicts"},
      {"TRA_DIAG", 0, {0, 1}, "diagonal work-group mapping"},
      {"TRA_SWZ", 0, {0, 1, 2, 4, 8, 16, 32},
       "band swizzle of the work-group order: band width in tiles (0: off; ignored when TRA_DIAG = 1)"},
      {"TRA_LOCAL", 1, {0, 1}, "1: local-memory tile; 0: register blocks of TRA_WPT x TRA_VW"},
      {"TRA_NT", 0, {0, 1},
       "non-temporal stores of the square register blocks (TRA_LOCAL = 0, TRA_WPT a multiple of TRA_VW = 4 or 8)"},
  };
  s.check = [](const ParamMap& p, const std::string&) -> std::string {
    if (p.at("TRA_WPT") > p.at("TRA_TILE")) return "TRA_WPT must not exceed TRA_TILE";
    if (p.at("TRA_VW") > p.at("TRA_TILE")) return "TRA_VW must not exceed TRA_TILE";
    return {};
  };
  // Two work-group orders: the diagonal mapping, when on, takes precedence over the band
  // swizzle (a user who turns TRA_DIAG on over a database row with a swizzle gets the diagonal).
  // Non-temporal stores exist only in the register-block path.
  s.canonical = [](const ParamMap& p) {
    ParamMap q = p;
    if (q.at("TRA_DIAG")) q["TRA_SWZ"] = 0;
    if (q.at("TRA_LOCAL")) q["TRA_NT"] = 0;  // the local-tile path has plain stores
    return q;
  };
  s.resources = [](const ParamMap& p, const std::string& variant) {
    Resources r;
    const int t = p.at("TRA_TILE");
    r.local = {static_cast<std::size_t>(t / p.at("TRA_VW")), static_cast<std::size_t>(t / p.at("TRA_WPT")), 1};
    const std::size_t elem = variant == "*" ? 16 : std::stoul(variant);
    r.local_mem_bytes = p.at("TRA_LOCAL") ? static_cast<std::uint64_t>(t) * (t + p.at("TRA_PAD")) * elem : 0;
    return r;
  };
  // Halve the tile (the local memory falls by 4, the work-group by up to 4).
  s.shrink = [](const ParamMap& p, const std::string&) -> std::optional<ParamMap> {
    ParamMap q = p;
    if (q["TRA_TILE"] <= 4) return std::nullopt;
    q["TRA_TILE"] /= 2;
    q["TRA_WPT"] = std::min(q["TRA_WPT"], q["TRA_TILE"]);
    q["TRA_VW"] = std::min(q["TRA_VW"], q["TRA_TILE"]);
    return q;
  };
  return s;
}

std::string transpose_build_options(const Configuration& cfg, std::size_t elem_size, bool long_index,
                                    std::size_t in_ld, std::size_t in_off, std::size_t out_ld, std::size_t out_off) {
  // Whole-vector global access for float elements (buffers themselves are aligned to
  // CL_DEVICE_MEM_BASE_ADDR_ALIGN). The register-block path stores TRA_WPT elements per vector.
  const std::size_t vw = cfg.at("TRA_VW");
  const std::size_t out_vw = cfg.at("TRA_LOCAL") ? vw : static_cast<std::size_t>(cfg.at("TRA_WPT"));
  std::string extra = "-DTRA_ELEM_SIZE=" + std::to_string(elem_size) + (long_index ? " -DCLF_LONG_INDEX=1" : "");
  if (elem_size == 4 && vw > 1 && in_ld % vw == 0 && in_off % vw == 0) extra += " -DTRA_ALIGN_IN=1";
  if (elem_size == 4 && out_vw > 1 && out_ld % out_vw == 0 && out_off % out_vw == 0) extra += " -DTRA_ALIGN_OUT=1";
  return extra;
}

namespace {
const char* const kRoutine = "transpose";

// The shape checks shared by the buffer and host-vector forms.
void check_shape(std::size_t rows, std::size_t cols, std::size_t elem_size, std::size_t in_ld, std::size_t out_ld) {
  const char* R = kRoutine;
  require(rows >= 1 && cols >= 1, R, "rows and cols must be at least 1 (got " + std::to_string(rows) + " x " +
                                         std::to_string(cols) + ")");
  require(rows <= kMaxDim && cols <= kMaxDim, R,
          "rows and cols must be below 2^31 (got " + std::to_string(rows) + " x " + std::to_string(cols) + ")");
  require(elem_size == 4 || elem_size == 8 || elem_size == 16, R,
          "elem_size must be 4, 8 or 16 bytes (got " + std::to_string(elem_size) + ")");
  require(in_ld >= cols, R, "in.ld (" + std::to_string(in_ld) + ") is smaller than cols (" + std::to_string(cols) + ")");
  require(out_ld >= rows, R, "out.ld (" + std::to_string(out_ld) + ") is smaller than rows (" + std::to_string(rows) + ")");
}
}  // namespace

void transpose_host_check(std::size_t rows, std::size_t cols, std::size_t elem_size, std::size_t count) {
  check_shape(rows, cols, elem_size, cols, rows);
  const std::size_t elems = mul_or_throw(rows, cols, kRoutine, "rows * cols");
  require(count == elems, kRoutine,
          "host vector holds " + std::to_string(count) + " elements, rows*cols is " + std::to_string(elems));
}

void transpose_host(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, std::size_t elem_size, const void* in,
                    void* out, const Tuning& tuning) {
  check_shape(rows, cols, elem_size, cols, rows);
  const std::size_t bytes = mul_or_throw(mul_or_throw(rows, cols, kRoutine, "rows * cols"), elem_size, kRoutine,
                                         "the matrix size in bytes");
  // Overrides and databases are checked before anything is allocated.
  const QueueContext qc = queue_context_of(queue);
  resolve_configuration("transpose", std::to_string(elem_size), *qc.info, tuning);
  const cl::Buffer bin = upload(qc.context, CL_MEM_READ_ONLY, in, bytes, "transpose input");
  const cl::Buffer bout = device_buffer(qc.context, CL_MEM_WRITE_ONLY, bytes, "transpose output");
  cl::Event done;
  transpose(queue, rows, cols, elem_size, MatrixRef{bin, 0, cols}, MatrixRef{bout, 0, rows}, {}, &done, tuning);
  download(queue, bout, bytes, out, {done}, "transpose output");
}

}  // namespace detail

void transpose(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, std::size_t elem_size, const MatrixRef& in,
               const MatrixRef& out, const EventList& wait_list, cl::Event* event, const Tuning& tuning) {
  using namespace detail;
  const char* R = kRoutine;
  check_shape(rows, cols, elem_size, in.ld, out.ld);
  const std::size_t in_end = require_extent(R, "in", in.buffer, in.offset, matrix_span(R, "in.ld", rows, cols, in.ld),
                                            elem_size);
  const std::size_t out_end =
      require_extent(R, "out", out.buffer, out.offset, matrix_span(R, "out.ld", cols, rows, out.ld), elem_size);
  require(in.buffer() != out.buffer(), R, "in and out must be different buffers (the transpose is out-of-place)");

  const QueueContext qc = queue_context_of(queue);
  const std::string variant = std::to_string(elem_size);
  const Configuration cfg = resolve_configuration("transpose", variant, *qc.info, tuning);
  const bool long_index = in_end > kMaxInt32Index || out_end > kMaxInt32Index;
  const std::string extra = transpose_build_options(cfg, elem_size, long_index, in.ld, in.offset, out.ld, out.offset);
  cl::Program program = get_program(qc, kernel_spec("transpose"), cfg, extra);
  cl::Kernel k = get_kernel(program, "transpose_tiled");

  const int tile = cfg.at("TRA_TILE");
  const std::size_t lx = tile / cfg.at("TRA_VW"), ly = tile / cfg.at("TRA_WPT");
  const std::size_t gx = ceil_div(cols, tile), gy = ceil_div(rows, tile);
  const int r = static_cast<int>(rows), c = static_cast<int>(cols);
  if (long_index) {
    set_args(k, r, c, in.buffer, static_cast<cl_long>(in.offset), static_cast<cl_long>(in.ld), out.buffer,
             static_cast<cl_long>(out.offset), static_cast<cl_long>(out.ld));
  } else {
    set_args(k, r, c, in.buffer, static_cast<cl_int>(in.offset), static_cast<cl_int>(in.ld), out.buffer,
             static_cast<cl_int>(out.offset), static_cast<cl_int>(out.ld));
  }
  launch(queue, k, cl::NDRange(gx * lx, gy * ly), cl::NDRange(lx, ly), &wait_list, event);
}

}  // namespace clforge
