// Group sgemm (clforge/group.hpp): C split in blocks of columns of its column-major form (a
// row-major call is the column-major product C^T = op(B)^T op(A)^T). Each device receives A once
// (prepare) and per chunk its columns of op(B) and, when beta != 0, of C; it runs an SgemmPlan of
// `chunk` columns (a short last block computes the whole chunk and brings back only its own
// columns). Where that plan packs A, the device packs it once, at its first chunk, and every
// chunk reads the packed copy (a chunk would otherwise pack all of A for its few columns).
#include <optional>

#include "clforge/sgemm.hpp"
#include "group/group_internal.hpp"
#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/plan_keys.hpp"

namespace clforge {

namespace {

// A column-major problem on host memory (the pointers are an execution's).
struct HostGemm {
  Transpose ta = Transpose::No, tb = Transpose::No;
  std::size_t m = 0, n = 0, k = 0;
  float alpha = 1, beta = 0;
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  std::size_t lda = 0, ldb = 0, ldc = 0;
  bool reads_ab() const { return k > 0 && alpha != 0.0f; }
};

SgemmDesc chunk_desc(const HostGemm& g, std::size_t chunk) {
  SgemmDesc d;
  d.layout = Layout::ColMajor;
  d.trans_a = g.ta;
  d.trans_b = g.tb;
  d.m = g.m;
  d.n = chunk;
  d.k = g.reads_ab() ? g.k : 0;  // alpha == 0: C = beta C without A and B, as in BLAS
  d.alpha = g.alpha;
  d.beta = g.beta;
  d.a_ld = g.ta == Transpose::No ? g.m : g.k;
  d.b_ld = g.tb == Transpose::No ? g.k : chunk;
  d.c_ld = g.m;
  return d;
}

// A device's plans by chunk size (an execution's chunks all run its chunk's plan).
struct SgemmWork : detail::DeviceWork {
  SgemmWork(cl::CommandQueue& queue, const HostGemm& g, std::size_t chunk, const Tuning& tuning)
      : g(g), plans(queue, tuning, [g](std::size_t c) { return chunk_desc(g, c); }) {
    plans.get(chunk);
  }
  std::unique_ptr<detail::ChunkTask> task(std::size_t chunk, const detail::HostData& data) override;

  HostGemm g;
  detail::PlansBySize<SgemmPlan, SgemmDesc> plans;
};

class SgemmTask : public detail::ChunkTask {
 public:
  SgemmTask(const HostGemm& g, std::size_t chunk, const SgemmPlan& plan) : g_(g), chunk_(chunk), plan_(plan) {}

  std::vector<std::size_t> slot_buffers() const override {
    return {g_.reads_ab() ? g_.k * chunk_ * 4 : 4, g_.m * chunk_ * 4};
  }
  void prepare(const cl::Context& context, const Upload& upload) override {
    if (!g_.reads_ab() || a_()) return;
    // A packed on the device: m x k (No) or k x m (Yes), column-major.
    const std::size_t rows = g_.ta == Transpose::No ? g_.m : g_.k, cols = g_.ta == Transpose::No ? g_.k : g_.m;
    a_ = detail::device_buffer(context, CL_MEM_READ_ONLY, rows * cols * 4, "group sgemm A");
    upload(a_, {reinterpret_cast<char*>(const_cast<float*>(g_.a)), rows * 4, cols, g_.lda * 4, 0, 0, rows * 4});
    if (const std::size_t bytes = plan_.packed_a_bytes(); bytes > 0)
      packed_a_ = detail::device_buffer(context, CL_MEM_READ_WRITE, bytes, "group sgemm packed A");
  }
  void inputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    if (g_.reads_ab()) {
      auto* b = reinterpret_cast<char*>(const_cast<float*>(g_.b));
      if (g_.tb == Transpose::No)  // op(B) columns = B columns: count runs of k floats, ldb apart
        v.push_back({b + first * g_.ldb * 4, g_.k * 4, count, g_.ldb * 4, 0, 0, g_.k * 4});
      else  // op(B) columns = B rows: k runs of count floats, ldb apart; device ld = chunk
        v.push_back({b + first * 4, count * 4, g_.k, g_.ldb * 4, 0, 0, chunk_ * 4});
    }
    if (g_.beta != 0.0f) v.push_back(c_block(first, count));
  }
  void outputs(std::size_t first, std::size_t count, std::vector<detail::BlockCopy>& v) const override {
    v.push_back(c_block(first, count));
  }
  void compute(cl::CommandQueue& queue, const std::vector<cl::Buffer>& b, std::size_t, std::size_t) override {
    if (!packed_a_()) {
      plan_.enqueue(queue, a_, g_.reads_ab() ? b[0] : cl::Buffer(), b[1]);
      return;
    }
    // A device's chunks come from one thread, possibly on several queues of its context: the
    // first packs A, the others wait for that pack's event.
    if (!packed_) {
      plan_.pack_a(queue, a_, packed_a_, {}, &packed_event_);
      packed_ = true;
    }
    plan_.enqueue_packed_a(queue, packed_a_, b[0], b[1], {packed_event_});
  }

 private:
  detail::BlockCopy c_block(std::size_t first, std::size_t count) const {
    return {reinterpret_cast<char*>(g_.c + first * g_.ldc), g_.m * 4, count, g_.ldc * 4, 1, 0, g_.m * 4};
  }
  HostGemm g_;
  std::size_t chunk_;
  const SgemmPlan& plan_;
  cl::Buffer a_;
  cl::Buffer packed_a_;  // A as the plan's multiply reads it, when the plan packs A
  cl::Event packed_event_;
  bool packed_ = false;
};

std::unique_ptr<detail::ChunkTask> SgemmWork::task(std::size_t chunk, const detail::HostData& data) {
  HostGemm bound = g;
  bound.a = static_cast<const float*>(data.a);
  bound.b = static_cast<const float*>(data.b);
  bound.c = static_cast<float*>(data.out);
  return std::make_unique<SgemmTask>(bound, chunk, plans.get(chunk));
}

}  // namespace

struct GroupSgemmPlan::Impl {
  HostGemm g;                                      // column-major, without pointers
  bool row_major = false;                          // the caller's A and B are g's B and A
  std::size_t a_span = 0, b_span = 0, c_span = 0;  // elements of g's A, B and C
  std::optional<detail::GroupPlanCore> core;       // none: m or n is 0
};

namespace {

// The shape's checks and spans (no plan yet).
GroupSgemmPlan::Impl describe(Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n,
                              std::size_t k, float alpha, std::size_t lda, std::size_t ldb, float beta,
                              std::size_t ldc) {
  const char* what = "group sgemm";
  detail::require(layout == Layout::RowMajor || layout == Layout::ColMajor, what, "unknown layout");
  detail::require((trans_a == Transpose::No || trans_a == Transpose::Yes) &&
                      (trans_b == Transpose::No || trans_b == Transpose::Yes),
                  what, "unknown transpose");
  GroupSgemmPlan::Impl impl;
  HostGemm& g = impl.g;
  impl.row_major = layout == Layout::RowMajor;
  g = {trans_a, trans_b, m, n, k, alpha, beta, nullptr, nullptr, nullptr, lda, ldb, ldc};
  if (impl.row_major) g = {trans_b, trans_a, n, m, k, alpha, beta, nullptr, nullptr, nullptr, ldb, lda, ldc};
  const char* a_name = impl.row_major ? "ldb" : "lda";
  const char* b_name = impl.row_major ? "lda" : "ldb";
  // Stored shapes (column-major): A is m x k or k x m, B k x n or n x k, C m x n.
  const std::size_t a_rows = g.ta == Transpose::No ? g.m : g.k, a_cols = g.ta == Transpose::No ? g.k : g.m;
  const std::size_t b_rows = g.tb == Transpose::No ? g.k : g.n, b_cols = g.tb == Transpose::No ? g.n : g.k;
  for (std::size_t s : {m, n, k}) detail::require(s <= detail::kMaxDim, what, "m, n and k must be below 2^31");
  detail::require(g.lda >= std::max<std::size_t>(1, a_rows), what, [&] { return std::string(a_name) + " too small"; });
  detail::require(g.ldb >= std::max<std::size_t>(1, b_rows), what, [&] { return std::string(b_name) + " too small"; });
  detail::require(g.ldc >= std::max<std::size_t>(1, g.m), what, "ldc too small");
  if (m == 0 || n == 0) return impl;
  impl.c_span = detail::matrix_span(what, "ldc", g.n, g.m, g.ldc);
  detail::mul_or_throw(impl.c_span, 4, what, "C's bytes");
  if (g.reads_ab()) {
    impl.a_span = detail::matrix_span(what, a_name, a_cols, a_rows, g.lda);
    impl.b_span = detail::matrix_span(what, b_name, b_cols, b_rows, g.ldb);
    detail::mul_or_throw(impl.a_span, 4, what, "A's bytes");
    detail::mul_or_throw(impl.b_span, 4, what, "B's bytes");
  }
  return impl;
}

// An execution's matrices (the caller's A, B and C) checked and bound in g's order.
detail::HostData bind(const GroupSgemmPlan::Impl& p, const float* a, const float* b, float* c) {
  const char* what = "group sgemm";
  detail::HostData data;
  if (p.c_span == 0) return data;  // m or n is 0: nothing is touched
  detail::require(c != nullptr, what, "null C");
  data.a = p.row_major ? b : a;
  data.b = p.row_major ? a : b;
  data.out = c;
  if (!p.g.reads_ab()) return data;
  detail::require(a != nullptr && b != nullptr, what, "null A or B");
  const auto c0 = reinterpret_cast<std::uintptr_t>(c);
  for (auto [q, span] : {std::pair{data.a, p.a_span}, std::pair{data.b, p.b_span}}) {
    const auto q0 = reinterpret_cast<std::uintptr_t>(q);
    detail::require(!detail::ranges_overlap(c0, c0 + p.c_span * 4, q0, q0 + span * 4), what, "C overlaps A or B");
  }
  return data;
}

}  // namespace

GroupSgemmPlan::GroupSgemmPlan(const DeviceGroup& group, Layout layout, Transpose trans_a, Transpose trans_b,
                               std::size_t m, std::size_t n, std::size_t k, float alpha, std::size_t lda,
                               std::size_t ldb, float beta, std::size_t ldc, const SplitOptions& options) {
  Impl impl = describe(layout, trans_a, trans_b, m, n, k, alpha, lda, ldb, beta, ldc);
  const HostGemm& g = impl.g;
  if (impl.c_span > 0) {
    const Tuning tuning = options.tuning;
    detail::GroupJob job;
    job.routine = "sgemm";
    job.size_class = "m=" + std::to_string(g.m) + " k=" + std::to_string(g.k);
    job.items = g.n;
    job.item_bytes = (g.reads_ab() ? g.k * 4 : 0) + g.m * 4 * (beta != 0.0f ? 2 : 1);
    job.make_work = [g, tuning](std::size_t, cl::CommandQueue& queue, std::size_t chunk) {
      return std::make_unique<SgemmWork>(queue, g, chunk, tuning);
    };
    impl.core.emplace(group, std::move(job), options);
  }
  impl_ = std::make_shared<const Impl>(std::move(impl));
}

GroupRun GroupSgemmPlan::execute(const float* a, const float* b, float* c) const {
  const detail::HostData data = bind(*impl_, a, b, c);
  return impl_->core ? impl_->core->execute(data) : GroupRun{};
}

GroupRun sgemm(const DeviceGroup& group, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
               std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda, const float* b,
               std::size_t ldb, float beta, float* c, std::size_t ldc, const SplitOptions& options) {
  // The arrays are checked before the plan builds anything.
  bind(describe(layout, trans_a, trans_b, m, n, k, alpha, lda, ldb, beta, ldc), a, b, c);
  return GroupSgemmPlan(group, layout, trans_a, trans_b, m, n, k, alpha, lda, ldb, beta, ldc, options).execute(a, b, c);
}

void sgemm(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n,
           std::size_t k, float alpha, const std::vector<float>& a, std::size_t lda, const std::vector<float>& b,
           std::size_t ldb, float beta, std::vector<float>& c, std::size_t ldc, const Tuning& tuning) {
  const char* const kRoutine = "sgemm";
  // Shapes and leading dimensions, the vectors' sizes, then (through the plans) the tuning
  // overrides, all before anything is allocated.
  const std::array<std::size_t, 3> span = sgemm_spans(layout, trans_a, trans_b, m, n, k, lda, ldb, ldc);
  const std::vector<float>* vecs[3] = {&a, &b, &c};
  const char* names[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i)
    detail::require(vecs[i]->size() >= span[i], kRoutine, [&] {
      return std::string("host vector ") + names[i] + " holds " + std::to_string(vecs[i]->size()) +
             " elements, the described matrix needs " + std::to_string(span[i]);
    });
  detail::require(queue() != nullptr, kRoutine, "null command queue");
  if (m == 0 || n == 0) {  // C is not touched (BLAS); the plan still checks the tuning overrides
    SgemmDesc d;
    d.layout = layout, d.trans_a = trans_a, d.trans_b = trans_b;
    d.m = m, d.n = n, d.k = k, d.alpha = alpha, d.beta = beta;
    d.a_ld = lda, d.b_ld = ldb, d.c_ld = ldc;
    SgemmPlan(queue, d, tuning);
    return;
  }
  // A one-device group plan (no split, no calibration): blocks of C's columns through pinned
  // staging, A sent once, on this thread.
  SplitOptions o;
  o.mode = SplitMode::Weights;
  o.weights = {1.0};
  o.tuning = tuning;
  GroupSgemmPlan(detail::queue_group(queue), layout, trans_a, trans_b, m, n, k, alpha, lda, ldb, beta, ldc, o)
      .execute(a.data(), b.data(), c.data());
}

}  // namespace clforge
