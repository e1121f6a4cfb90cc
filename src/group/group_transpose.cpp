// Group transpose (clforge/group.hpp): bands of input rows; band [r, r + count) of the
// rows x cols input becomes columns r .. r + count - 1 of the cols x rows output, brought back
// as a strided block. Each device runs a band on a TransposePlan of `chunk` rows, or of
// chunk / 2^k for a short band (plan_items), and brings back only the band's own columns.
#include "clforge/transpose.hpp"
#include "group/group_internal.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/plan_keys.hpp"

namespace clforge {

namespace {

TransposeDesc transpose_desc(std::size_t rows, std::size_t cols, std::size_t elem) {
  TransposeDesc d;
  d.rows = rows;
  d.cols = cols;
  d.elem_size = elem;
  return d;
}

// A device's transpose plans by band size.
struct TransposeWork : detail::DeviceWork {
  TransposeWork(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, std::size_t elem, std::size_t chunk,
                const Tuning& tuning)
      : rows(rows),
        cols(cols),
        elem(elem),
        plans(queue, tuning, [cols, elem](std::size_t r) { return transpose_desc(r, cols, elem); }) {
    plans.get(chunk);
  }
  std::unique_ptr<detail::ChunkTask> task(std::size_t chunk, const detail::HostData& data) override;

  std::size_t rows, cols, elem;
  detail::PlansBySize<TransposePlan, TransposeDesc> plans;
};

class TransposeTask : public detail::ChunkTask {
 public:
  TransposeTask(TransposeWork& work, std::size_t chunk, const detail::HostData& data)
      : w_(work), chunk_(chunk), in_(static_cast<const char*>(data.a)), out_(static_cast<char*>(data.out)) {
    w_.plans.get(chunk);
  }

  std::vector<std::size_t> slot_buffers() const override {
    return {chunk_ * w_.cols * w_.elem, chunk_ * w_.cols * w_.elem};
  }
  void inputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    v.push_back({const_cast<char*>(in_) + first * w_.cols * w_.elem, count * w_.cols * w_.elem, 1, 0, 0, 0, 0});
  }
  void outputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    // cols rows of `count` elements: host rows `rows` elements apart, device rows as many
    // elements apart as the band's plan has rows.
    v.push_back({out_ + first * w_.elem, count * w_.elem, w_.cols, w_.rows * w_.elem, 1, 0,
                 detail::plan_items(chunk_, count) * w_.elem});
  }
  void compute(cl::CommandQueue& queue, const std::vector<cl::Buffer>& b, std::size_t, std::size_t count) override {
    w_.plans.get(detail::plan_items(chunk_, count)).enqueue(queue, b[0], b[1]);
  }

 private:
  TransposeWork& w_;
  std::size_t chunk_;
  const char* in_;
  char* out_;
};

std::unique_ptr<detail::ChunkTask> TransposeWork::task(std::size_t chunk, const detail::HostData& data) {
  return std::make_unique<TransposeTask>(*this, chunk, data);
}

}  // namespace

struct GroupTransposePlan::Impl {
  std::size_t bytes;
  detail::GroupPlanCore core;
};

namespace {

// The job's host bytes (the shape checked).
std::size_t transpose_bytes(std::size_t rows, std::size_t cols, std::size_t elem_size) {
  const char* what = "group transpose";
  detail::require(rows > 0 && cols > 0, what, "rows and cols must be at least 1");
  detail::require(elem_size == 4 || elem_size == 8 || elem_size == 16, what, "elem_size must be 4, 8 or 16");
  return detail::mul_or_throw(detail::mul_or_throw(rows, cols, what, "rows * cols"), elem_size, what,
                              "rows * cols * elem_size");
}

detail::HostData bind_transpose(std::size_t bytes, const void* in, void* out) {
  return detail::in_out_data("group transpose", bytes, in, out, false);
}

}  // namespace

GroupTransposePlan::GroupTransposePlan(const DeviceGroup& group, std::size_t rows, std::size_t cols,
                                       std::size_t elem_size, const SplitOptions& options) {
  const std::size_t bytes = transpose_bytes(rows, cols, elem_size);
  const Tuning tuning = options.tuning;
  detail::GroupJob job;
  job.routine = "transpose";
  job.size_class = std::to_string(elem_size) + "B cols=" + std::to_string(cols);
  job.items = rows;
  job.item_bytes = cols * elem_size;
  job.make_work = [rows, cols, elem_size, tuning](std::size_t, cl::CommandQueue& queue, std::size_t chunk) {
    return std::make_unique<TransposeWork>(queue, rows, cols, elem_size, chunk, tuning);
  };
  impl_ = std::make_shared<const Impl>(Impl{bytes, detail::GroupPlanCore(group, std::move(job), options)});
}

GroupRun GroupTransposePlan::execute(const void* in, void* out) const {
  return impl_->core.execute(bind_transpose(impl_->bytes, in, out));
}

GroupRun transpose(const DeviceGroup& group, std::size_t rows, std::size_t cols, std::size_t elem_size, const void* in,
                   void* out, const SplitOptions& options) {
  // The arrays checked before the plan builds anything.
  bind_transpose(transpose_bytes(rows, cols, elem_size), in, out);
  return GroupTransposePlan(group, rows, cols, elem_size, options).execute(in, out);
}

namespace detail {

// The host-vector transpose (transpose.hpp; transpose_host_check ran first): a one-device group
// plan (no split, no calibration), bands through pinned staging with their transfers overlapped.
void transpose_host(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, std::size_t elem_size, const void* in,
                    void* out, const Tuning& tuning) {
  require(queue() != nullptr, "transpose", "null command queue");
  SplitOptions o;
  o.mode = SplitMode::Weights;
  o.weights = {1.0};
  o.tuning = tuning;
  GroupTransposePlan(queue_group(queue), rows, cols, elem_size, o).execute(in, out);
}

}  // namespace detail

}  // namespace clforge
