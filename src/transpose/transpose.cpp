// Transpose launcher: argument checks, the plan, and the host-vector convenience.
#include "clforge/transpose.hpp"

#include <climits>
#include <mutex>

#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/launch.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/program_cache.hpp"
#include "transpose/transpose_internal.hpp"
#include "tuning/spec.hpp"

namespace clforge {
namespace detail {

std::string transpose_variant(std::size_t rows, std::size_t cols, std::size_t elem_size, bool on_grid) {
  const double bytes = static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(elem_size);
  if (bytes < static_cast<double>(kLargeTransposeBytes)) return std::to_string(elem_size);
  return std::to_string(elem_size) + (elem_size == 4 && !on_grid ? ":large:odd" : ":large");
}

namespace {
// Routine constants of a transpose build (element size, 64-bit indexing, whole-vector access
// when leading dimensions and offsets are multiples of the vector widths).
std::string transpose_build_options(const Configuration& cfg, std::size_t elem_size, bool long_index, std::size_t in_ld,
                                    std::size_t in_off, std::size_t out_ld, std::size_t out_off) {
  // Whole-vector global access for float elements (buffers themselves are aligned to
  // CL_DEVICE_MEM_BASE_ADDR_ALIGN). The register-block path stores TRA_WPT elements per vector.
  const std::size_t vw = cfg.at("TRA_VW");
  const std::size_t out_vw = cfg.at("TRA_LOCAL") ? vw : static_cast<std::size_t>(cfg.at("TRA_WPT"));
  std::string extra = "-DTRA_ELEM_SIZE=" + std::to_string(elem_size) + (long_index ? " -DCLF_LONG_INDEX=1" : "");
  if (elem_size == 4 && vw > 1 && in_ld % vw == 0 && in_off % vw == 0) extra += " -DTRA_ALIGN_IN=1";
  if (elem_size == 4 && out_vw > 1 && out_ld % out_vw == 0 && out_off % out_vw == 0) extra += " -DTRA_ALIGN_OUT=1";
  return extra;
}

// The shape checks shared by the buffer and host-vector forms.
void check_shape(std::size_t rows, std::size_t cols, std::size_t elem_size, std::size_t in_ld, std::size_t out_ld) {
  require(rows >= 1 && cols >= 1, kTransposeRoutine, [&] {
    return "rows and cols must be at least 1 (got " + std::to_string(rows) + " x " + std::to_string(cols) + ")";
  });
  require(rows <= kMaxDim && cols <= kMaxDim, kTransposeRoutine, [&] {
    return "rows and cols must be below 2^31 (got " + std::to_string(rows) + " x " + std::to_string(cols) + ")";
  });
  require(elem_size == 4 || elem_size == 8 || elem_size == 16, kTransposeRoutine,
          [&] { return "elem_size must be 4, 8 or 16 bytes (got " + std::to_string(elem_size) + ")"; });
  require(in_ld >= cols, kTransposeRoutine,
          [&] { return "in.ld (" + std::to_string(in_ld) + ") is smaller than cols (" + std::to_string(cols) + ")"; });
  require(out_ld >= rows, kTransposeRoutine, [&] {
    return "out.ld (" + std::to_string(out_ld) + ") is smaller than rows (" + std::to_string(rows) + ")";
  });
}
}  // namespace

void transpose_host_check(std::size_t rows, std::size_t cols, std::size_t elem_size, std::size_t count) {
  check_shape(rows, cols, elem_size, cols, rows);
  const std::size_t elems = mul_or_throw(rows, cols, kTransposeRoutine, "rows * cols");
  require(count == elems, kTransposeRoutine,
          "host vector holds " + std::to_string(count) + " elements, rows*cols is " + std::to_string(elems));
}

// The kernel's parameters, as cl/transpose/transpose.cl declares them.
const KernelSignature kTransposeTiled{"transpose_tiled",
                                      {"rows", "cols", "in", "in_off", "in_ld", "out", "out_off", "out_ld"}};

namespace {
// Elements spanned by each side, checked (ld 0 means packed).
struct Spans {
  std::size_t in_end, out_end;
};
Spans check_desc(const TransposeDesc& d) {
  check_shape(d.rows, d.cols, d.elem_size, d.in_ld, d.out_ld);
  const std::size_t in_span = matrix_span(kTransposeRoutine, "in.ld", d.rows, d.cols, d.in_ld);
  const std::size_t out_span = matrix_span(kTransposeRoutine, "out.ld", d.cols, d.rows, d.out_ld);
  const Spans s{add_or_throw(d.in_offset, in_span, kTransposeRoutine, "in.offset plus the described extent"),
                add_or_throw(d.out_offset, out_span, kTransposeRoutine, "out.offset plus the described extent")};
  mul_or_throw(s.in_end, d.elem_size, kTransposeRoutine, "in's extent in bytes");
  mul_or_throw(s.out_end, d.elem_size, kTransposeRoutine, "out's extent in bytes");
  return s;
}

// The checks of enqueue(): buffers that hold the described memory, and two of them.
void check_buffers(const TransposeDesc& d, const cl::Buffer& in, const cl::Buffer& out) {
  require_extent(kTransposeRoutine, "in", in, d.in_offset,
                 matrix_span(kTransposeRoutine, "in.ld", d.rows, d.cols, d.in_ld), d.elem_size);
  require_extent(kTransposeRoutine, "out", out, d.out_offset,
                 matrix_span(kTransposeRoutine, "out.ld", d.cols, d.rows, d.out_ld), d.elem_size);
  require(in() != out(), kTransposeRoutine, "in and out must be different buffers (the transpose is out-of-place)");
}

TransposeDesc packed(TransposeDesc d) {
  if (d.in_ld == 0) d.in_ld = d.cols;
  if (d.out_ld == 0) d.out_ld = d.rows;
  return d;
}
}  // namespace

}  // namespace detail

struct TransposePlan::Impl {
  TransposeDesc desc;
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  Configuration cfg;
  cl::Program program;
  bool long_index = false;
  cl::NDRange global, local;

  // Enqueues without checks (the caller checked the buffers and the queue) as the next command
  // of execution x; `last` marks the call's final command.
  void run(detail::Execution& x, const cl::Buffer& in, const cl::Buffer& out, bool last) const {
    using namespace detail;
    cl::Kernel kernel = get_kernel(program, kTransposeTiled.kernel);  // this thread's kernel object
    Args(kernel, kTransposeTiled, long_index)
        .i32("rows", static_cast<long long>(desc.rows))
        .i32("cols", static_cast<long long>(desc.cols))
        .buffer("in", in)
        .index("in_off", desc.in_offset)
        .index("in_ld", desc.in_ld)
        .buffer("out", out)
        .index("out_off", desc.out_offset)
        .index("out_ld", desc.out_ld)
        .finish();
    x.then(kernel, global, local, last);
  }
  void run(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, const EventList& wait,
           cl::Event* event) const {
    detail::Execution x(queue, wait, event);
    run(x, in, out, true);
    x.finish();
  }
};

namespace detail {

struct TransposeAccess {
  // Checks the description, resolves the configuration and builds the program.
  static TransposePlan make(const QueueContext& qc, const TransposeDesc& d, const Tuning& tuning) {
    const TransposeDesc desc = packed(d);
    const Spans spans = check_desc(desc);
    auto im = std::make_shared<TransposePlan::Impl>();
    im->desc = desc;
    im->context = qc.context();
    im->device = qc.device();
    const bool on_grid = (desc.in_ld | desc.in_offset | desc.out_ld | desc.out_offset) % 4 == 0;
    im->cfg = resolve_configuration("transpose", transpose_variant(desc.rows, desc.cols, desc.elem_size, on_grid),
                                    *qc.info, tuning);
    im->long_index = spans.in_end > kMaxInt32Index || spans.out_end > kMaxInt32Index;
    const std::string extra = transpose_build_options(im->cfg, desc.elem_size, im->long_index, desc.in_ld,
                                                      desc.in_offset, desc.out_ld, desc.out_offset);
    im->program = get_program(qc, kernel_spec("transpose"), im->cfg, extra);
    get_kernel(im->program, kTransposeTiled.kernel);  // fails here, not at the first enqueue, if missing
    const std::size_t tile = im->cfg.at("TRA_TILE");
    const std::size_t lx = tile / im->cfg.at("TRA_VW"), ly = tile / im->cfg.at("TRA_WPT");
    im->global = cl::NDRange(ceil_div(desc.cols, tile) * lx, ceil_div(desc.rows, tile) * ly);
    im->local = cl::NDRange(lx, ly);
    return TransposePlan(std::shared_ptr<const TransposePlan::Impl>(std::move(im)));
  }
  static const TransposePlan::Impl& impl(const TransposePlan& p) { return *p.impl_; }
};

TransposePlan make_transpose_plan(const QueueContext& qc, const TransposeDesc& desc, const Tuning& tuning) {
  return TransposeAccess::make(qc, desc, tuning);
}

void transpose_step(const TransposePlan& plan, Execution& x, const cl::Buffer& in, const cl::Buffer& out, bool last) {
  TransposeAccess::impl(plan).run(x, in, out, last);
}

}  // namespace detail

TransposePlan::TransposePlan(const cl::CommandQueue& queue, const TransposeDesc& d, const Tuning& tuning)
    : TransposePlan(detail::TransposeAccess::make(detail::queue_context_of(queue), d, tuning)) {}

void TransposePlan::enqueue(cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out,
                            const EventList& wait_list, cl::Event* event) const {
  using namespace detail;
  require_plan_queue(kTransposeRoutine, queue, impl_->context, impl_->device);
  check_buffers(impl_->desc, in, out);
  impl_->run(queue, in, out, wait_list, event);
}

const TransposeDesc& TransposePlan::desc() const { return impl_->desc; }
const Configuration& TransposePlan::configuration() const { return impl_->cfg; }

std::string TransposePlan::describe() const {
  const Configuration& c = impl_->cfg;
  const TransposeDesc& d = impl_->desc;
  std::string s = "transpose " + std::to_string(d.rows) + "x" + std::to_string(d.cols) + ", " +
                  std::to_string(d.elem_size) + "-byte elements: ";
  if (c.at("TRA_LOCAL"))
    s += "local tiles of " + std::to_string(c.at("TRA_TILE")) + ", " + std::to_string(c.at("TRA_WPT")) + " rows x " +
         std::to_string(c.at("TRA_VW")) + " columns per work-item";
  else
    s += "register blocks of " + std::to_string(c.at("TRA_WPT")) + " x " + std::to_string(c.at("TRA_VW"));
  return s + (impl_->long_index ? ", 64-bit indices" : "");
}

void transpose(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, std::size_t elem_size, const MatrixRef& in,
               const MatrixRef& out, const EventList& wait_list, cl::Event* event, const Tuning& tuning) {
  using namespace detail;
  TransposeDesc d;
  d.rows = rows;
  d.cols = cols;
  d.elem_size = elem_size;
  d.in_offset = in.offset;
  d.in_ld = in.ld;
  d.out_offset = out.offset;
  d.out_ld = out.ld;
  // Every argument is checked before a plan is looked up or built.
  check_shape(rows, cols, elem_size, in.ld, out.ld);
  check_buffers(d, in.buffer, out.buffer);
  require(queue() != nullptr, kTransposeRoutine, "null command queue");
  const QueueContext qc = queue_context_of(queue);
  const auto plan = cached_plan<TransposePlan>(tuning_fingerprint(*qc.info, tuning), d, qc.context(), qc.device(),
                                               [&] { return TransposePlan(queue, d, tuning); });
  plan->impl_->run(queue, in.buffer, out.buffer, wait_list, event);  // checked above, same queue
}

}  // namespace clforge
