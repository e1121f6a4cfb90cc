// Group strided-batched sgemm (clforge/group.hpp): the batch split in chunks of products. Each
// device receives per chunk its products' matrices as the caller stores them (ld gaps included),
// one after the other, runs a strided-batched SgemmPlan of `chunk` products on them (a short last
// chunk: the plan of plan_items products) and brings back each product's m x n elements of C only.
// An operand of stride 0 (one A or B for every product) goes to each device once (prepare).
#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include "clforge/sgemm.hpp"
#include "group/group_internal.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/plan_keys.hpp"

namespace clforge {

namespace {

// A strided batch on host memory in its column-major form (a row-major call is C^T = op(B)^T
// op(A)^T: the caller's A and B swapped): operands A, B, C (0, 1, 2), each product's matrix
// `span` elements from its first, `stride` elements after the one before (0: one for all).
struct HostBatch {
  SgemmDesc one;  // one product, column-major, the caller's leading dimensions (k 0 where A and B are not read)
  std::size_t stride[3] = {0, 0, 0}, span[3] = {0, 0, 0};
  const float* in[2] = {nullptr, nullptr};
  float* c = nullptr;
  bool reads_ab() const { return one.k > 0; }
  // Whether operand i travels with each chunk (else once per device, or not at all).
  bool per_chunk(int i) const { return i == 2 || (reads_ab() && stride[i] != 0); }
};

// The device's plan of `items` products: each product's matrices packed one after the other on
// the device (stride = one matrix's span; 0 for an operand sent once).
SgemmDesc batch_chunk_desc(const HostBatch& h, std::size_t items) {
  SgemmDesc d = h.one;
  d.batch = items;
  d.a_stride = h.per_chunk(0) ? h.span[0] : 0;
  d.b_stride = h.per_chunk(1) ? h.span[1] : 0;
  d.c_stride = h.span[2];
  return d;
}

struct SgemmBatchWork : detail::DeviceWork {
  SgemmBatchWork(cl::CommandQueue& queue, const HostBatch& h, std::size_t chunk, const Tuning& tuning)
      : h(h), plans(queue, tuning, [h](std::size_t c) { return batch_chunk_desc(h, c); }) {
    plans.get(chunk);
  }
  std::unique_ptr<detail::ChunkTask> task(std::size_t chunk, const detail::HostData& data) override;

  HostBatch h;
  detail::PlansBySize<SgemmPlan, SgemmDesc> plans;
};

class SgemmBatchTask : public detail::ChunkTask {
 public:
  SgemmBatchTask(SgemmBatchWork& work, const HostBatch& h, std::size_t chunk) : work_(work), h_(h), chunk_(chunk) {}

  std::vector<std::size_t> slot_buffers() const override {
    std::vector<std::size_t> bytes(3, 4);
    for (int i = 0; i < 3; ++i)
      if (h_.per_chunk(i)) bytes[i] = chunk_ * h_.span[i] * 4;
    return bytes;
  }
  void prepare(const cl::Context& context, const Upload& upload) override {
    for (int i = 0; i < 2; ++i) {
      if (!h_.reads_ab() || h_.per_chunk(i) || once_[i]()) continue;
      once_[i] = detail::device_buffer(context, CL_MEM_READ_ONLY, h_.span[i] * 4, "group sgemm batch operand");
      upload(once_[i], {host(i), h_.span[i] * 4, 1, 0, 0, 0, 0});
    }
  }
  void inputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    for (int i = 0; i < 2; ++i)
      if (h_.reads_ab() && h_.per_chunk(i)) whole_matrices(i, first, count, v);
    if (h_.one.beta != 0.0f) whole_matrices(2, first, count, v);
  }
  void outputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    const std::size_t m = h_.one.m, n = h_.one.n, ld = h_.one.c_ld;
    if (ld == m || n == 1) {  // each C without gaps: its span is its elements
      whole_matrices(2, first, count, v);
      return;
    }
    for (std::size_t z = 0; z < count; ++z)  // only the m x n elements; the ld gaps keep their bytes
      v.push_back({host(2) + (first + z) * h_.stride[2] * 4, m * 4, n, ld * 4, 2, z * h_.span[2] * 4, ld * 4});
  }
  void compute(cl::CommandQueue& queue, const std::vector<cl::Buffer>& b, std::size_t, std::size_t count) override {
    const cl::Buffer& a = h_.per_chunk(0) ? b[0] : once_[0];
    const cl::Buffer& bb = h_.per_chunk(1) ? b[1] : once_[1];
    work_.plans.get(detail::plan_items(chunk_, count)).enqueue(queue, a, bb, b[2]);
  }

 private:
  char* host(int i) const { return reinterpret_cast<char*>(i == 2 ? h_.c : const_cast<float*>(h_.in[i])); }
  // The chunk's matrices of operand i, each its whole span, packed one after the other on the
  // device: one block when they lie apart on the host, else one per product (read-only operands
  // may overlap).
  void whole_matrices(int i, std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const {
    const std::size_t bytes = h_.span[i] * 4, pitch = h_.stride[i] * 4;
    char* p = host(i) + first * pitch;
    if (pitch >= bytes) {
      v.push_back({p, bytes, count, pitch, static_cast<std::size_t>(i), 0, 0});
      return;
    }
    for (std::size_t z = 0; z < count; ++z)
      v.push_back({p + z * pitch, bytes, 1, bytes, static_cast<std::size_t>(i), z * bytes, 0});
  }

  SgemmBatchWork& work_;
  HostBatch h_;
  std::size_t chunk_;
  cl::Buffer once_[2];  // operands of stride 0, sent once
};

std::unique_ptr<detail::ChunkTask> SgemmBatchWork::task(std::size_t chunk, const detail::HostData& data) {
  HostBatch bound = h;
  bound.in[0] = static_cast<const float*>(data.a);
  bound.in[1] = static_cast<const float*>(data.b);
  bound.c = static_cast<float*>(data.out);
  plans.get(chunk);
  return std::make_unique<SgemmBatchTask>(*this, bound, chunk);
}

}  // namespace

struct GroupSgemmBatchedPlan::Impl {
  HostBatch h;             // without pointers
  bool row_major = false;  // the caller's A and B are h's B and A
  std::size_t batch = 0;
  std::array<std::size_t, 3> extent{};        // the caller's A, B and C: elements of the whole batch
  std::optional<detail::GroupPlanCore> core;  // none: nothing to compute
};

namespace {

// The batch's checks (sgemm_strided_batched's) and its column-major form, no plan yet.
GroupSgemmBatchedPlan::Impl batch_describe(Layout layout, Transpose ta, Transpose tb, std::size_t m, std::size_t n,
                                           std::size_t k, float alpha, std::size_t lda, std::size_t a_stride,
                                           std::size_t ldb, std::size_t b_stride, float beta, std::size_t ldc,
                                           std::size_t c_stride, std::size_t batch) {
  GroupSgemmBatchedPlan::Impl p;
  p.extent = sgemm_batched_spans(layout, ta, tb, m, n, k, lda, ldb, ldc, batch, a_stride, b_stride, c_stride);
  const std::array<std::size_t, 3> one = sgemm_spans(layout, ta, tb, m, n, k, lda, ldb, ldc);
  for (int i = 0; i < 3; ++i) detail::mul_or_throw(p.extent[i], 4, "group sgemm", "the batch's bytes");
  p.row_major = layout == Layout::RowMajor;
  p.batch = batch;
  const bool reads = k > 0 && alpha != 0.0f;  // alpha == 0: C = beta C without A and B, as in BLAS
  SgemmDesc& d = p.h.one;
  d.trans_a = p.row_major ? tb : ta, d.trans_b = p.row_major ? ta : tb;
  d.m = p.row_major ? n : m, d.n = p.row_major ? m : n, d.k = reads ? k : 0;
  d.alpha = alpha, d.beta = beta;
  d.a_ld = p.row_major ? ldb : lda, d.b_ld = p.row_major ? lda : ldb, d.c_ld = ldc;
  const std::size_t sa = p.row_major ? one[1] : one[0], sb = p.row_major ? one[0] : one[1];
  p.h.span[0] = reads ? sa : 0, p.h.span[1] = reads ? sb : 0, p.h.span[2] = one[2];
  p.h.stride[0] = p.row_major ? b_stride : a_stride, p.h.stride[1] = p.row_major ? a_stride : b_stride;
  p.h.stride[2] = c_stride;
  return p;
}

// An execution's matrices checked and bound in h's order.
detail::HostData batch_bind(const GroupSgemmBatchedPlan::Impl& p, const float* a, const float* b, float* c) {
  const char* what = "group sgemm";
  detail::HostData data;
  if (p.extent[2] == 0) return data;  // nothing to compute: nothing is touched
  detail::require(c != nullptr, what, "null C");
  data.a = p.row_major ? b : a;
  data.b = p.row_major ? a : b;
  data.out = c;
  if (!p.h.reads_ab()) return data;
  detail::require(a != nullptr && b != nullptr, what, "null A or B");
  const auto c0 = reinterpret_cast<std::uintptr_t>(c);
  for (auto [q, span] : {std::pair{a, p.extent[0]}, std::pair{b, p.extent[1]}}) {
    const auto q0 = reinterpret_cast<std::uintptr_t>(q);
    detail::require(!detail::ranges_overlap(c0, c0 + p.extent[2] * 4, q0, q0 + span * 4), what,
                    "C's batch overlaps A's or B's");
  }
  return data;
}

}  // namespace

GroupSgemmBatchedPlan::GroupSgemmBatchedPlan(const DeviceGroup& group, Layout layout, Transpose trans_a,
                                             Transpose trans_b, std::size_t m, std::size_t n, std::size_t k,
                                             float alpha, std::size_t lda, std::size_t a_stride, std::size_t ldb,
                                             std::size_t b_stride, float beta, std::size_t ldc, std::size_t c_stride,
                                             std::size_t batch, const SplitOptions& options) {
  Impl p = batch_describe(layout, trans_a, trans_b, m, n, k, alpha, lda, a_stride, ldb, b_stride, beta, ldc, c_stride,
                          batch);
  const HostBatch& h = p.h;
  if (p.extent[2] > 0 && !(h.one.k == 0 && beta == 1.0f)) {
    const Tuning tuning = options.tuning;
    detail::GroupJob job;
    job.routine = "sgemm_batched";
    job.size_class = "m=" + std::to_string(h.one.m) + " n=" + std::to_string(h.one.n) + " k=" + std::to_string(h.one.k);
    job.items = batch;
    job.item_bytes = h.span[2] * 4 * (beta != 0.0f ? 2 : 1);
    for (int i = 0; i < 2; ++i) job.item_bytes += h.per_chunk(i) ? h.span[i] * 4 : 0;
    job.make_work = [h, tuning](std::size_t, cl::CommandQueue& queue, std::size_t chunk) {
      return std::make_unique<SgemmBatchWork>(queue, h, chunk, tuning);
    };
    p.core.emplace(group, std::move(job), options);
  }
  impl_ = std::make_shared<const Impl>(std::move(p));
}

GroupRun GroupSgemmBatchedPlan::execute(const float* a, const float* b, float* c) const {
  const detail::HostData data = batch_bind(*impl_, a, b, c);
  return impl_->core ? impl_->core->execute(data) : GroupRun{};
}

GroupRun sgemm_strided_batched(const DeviceGroup& group, Layout layout, Transpose trans_a, Transpose trans_b,
                               std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
                               std::size_t lda, std::size_t a_stride, const float* b, std::size_t ldb,
                               std::size_t b_stride, float beta, float* c, std::size_t ldc, std::size_t c_stride,
                               std::size_t batch, const SplitOptions& options) {
  // The arrays are checked before the plan builds anything.
  batch_bind(batch_describe(layout, trans_a, trans_b, m, n, k, alpha, lda, a_stride, ldb, b_stride, beta, ldc, c_stride,
                            batch),
             a, b, c);
  return GroupSgemmBatchedPlan(group, layout, trans_a, trans_b, m, n, k, alpha, lda, a_stride, ldb, b_stride, beta, ldc,
                               c_stride, batch, options)
      .execute(a, b, c);
}

}  // namespace clforge
