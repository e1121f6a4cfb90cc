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

class TransposeTask : public detail::ChunkTask {
 public:
  TransposeTask(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, std::size_t elem, std::size_t chunk,
                const char* in, char* out, const Tuning& tuning)
      : plans_(queue, tuning, [cols, elem](std::size_t r) { return desc(r, cols, elem); }),
        rows_(rows),
        cols_(cols),
        elem_(elem),
        chunk_(chunk),
        in_(in),
        out_(out) {
    plans_.get(chunk);
  }

  std::vector<std::size_t> slot_buffers() const override { return {chunk_ * cols_ * elem_, chunk_ * cols_ * elem_}; }
  void inputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    v.push_back({const_cast<char*>(in_) + first * cols_ * elem_, count * cols_ * elem_, 1, 0, 0, 0, 0});
  }
  void outputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    // cols rows of `count` elements: host rows `rows` elements apart, device rows as many
    // elements apart as the band's plan has rows.
    v.push_back(
        {out_ + first * elem_, count * elem_, cols_, rows_ * elem_, 1, 0, detail::plan_items(chunk_, count) * elem_});
  }
  void compute(cl::CommandQueue& queue, const std::vector<cl::Buffer>& b, std::size_t, std::size_t count) override {
    plans_.get(detail::plan_items(chunk_, count)).enqueue(queue, b[0], b[1]);
  }

 private:
  static TransposeDesc desc(std::size_t rows, std::size_t cols, std::size_t elem) {
    TransposeDesc d;
    d.rows = rows;
    d.cols = cols;
    d.elem_size = elem;
    return d;
  }
  detail::PlansBySize<TransposePlan, TransposeDesc> plans_;
  std::size_t rows_, cols_, elem_, chunk_;
  const char* in_;
  char* out_;
};

}  // namespace

GroupRun transpose(const DeviceGroup& group, std::size_t rows, std::size_t cols, std::size_t elem_size, const void* in,
                   void* out, const SplitOptions& options) {
  const char* what = "group transpose";
  detail::require(rows > 0 && cols > 0, what, "rows and cols must be at least 1");
  detail::require(elem_size == 4 || elem_size == 8 || elem_size == 16, what, "elem_size must be 4, 8 or 16");
  detail::require(in != nullptr && out != nullptr, what, "null input or output");
  const std::size_t bytes = detail::mul_or_throw(detail::mul_or_throw(rows, cols, what, "rows * cols"), elem_size, what,
                                                 "rows * cols * elem_size");
  const auto i0 = reinterpret_cast<std::uintptr_t>(in), o0 = reinterpret_cast<std::uintptr_t>(out);
  detail::require(!detail::ranges_overlap(i0, i0 + bytes, o0, o0 + bytes), what, "input and output overlap");
  const Tuning tuning = options.tuning;
  detail::GroupJob job;
  job.routine = "transpose";
  job.size_class = std::to_string(elem_size) + "B cols=" + std::to_string(cols);
  job.items = rows;
  job.item_bytes = cols * elem_size;
  job.make_task = [&](std::size_t, cl::CommandQueue& queue, std::size_t chunk) {
    return std::make_unique<TransposeTask>(queue, rows, cols, elem_size, chunk, static_cast<const char*>(in),
                                           static_cast<char*>(out), tuning);
  };
  return detail::run_group_job(group, job, options);
}

namespace detail {

// The host-vector transpose (transpose.hpp; transpose_host_check ran first): a one-device group
// call, bands through pinned staging with their transfers overlapped.
void transpose_host(cl::CommandQueue& queue, std::size_t rows, std::size_t cols, std::size_t elem_size, const void* in,
                    void* out, const Tuning& tuning) {
  require(queue() != nullptr, "transpose", "null command queue");
  SplitOptions o;
  o.mode = SplitMode::Weights;
  o.weights = {1.0};
  o.tuning = tuning;
  transpose(queue_group(queue), rows, cols, elem_size, in, out, o);
}

}  // namespace detail

}  // namespace clforge
