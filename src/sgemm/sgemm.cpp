// sgemm's free functions and the pieces the plan shares with them: argument checks, size
// classes, build options and the per-kernel share of the tuning overrides. A call checks every
// argument, then runs an SgemmPlan (src/sgemm/sgemm_plan.cpp) from a bounded cache.
#include "clforge/sgemm.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/host_io.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/program_cache.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "tuning/spec.hpp"

namespace clforge {
namespace detail {

const char* to_string(SgemmPath p) {
  switch (p) {
    case SgemmPath::Nothing:
      return "nothing";
    case SgemmPath::Scale:
      return "scale";
    case SgemmPath::Direct:
      return "direct";
    case SgemmPath::Xgemm:
      return "xgemm";
    case SgemmPath::Stream:
      return "stream";
  }
  return "?";
}

std::string sgemm_size_class(std::size_t m, std::size_t n, std::size_t k, std::size_t batch) {
  const double w = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const std::string c = w < 1536.0 * 1536.0 * 1536.0 ? "small" : w < 3072.0 * 3072.0 * 3072.0 ? "medium" : "large";
  if (batch > 1) return c + ":batch";
  return std::min(m, n) > 0 && std::max(m, n) >= 8 * std::min(m, n) ? c + ":wide" : c;
}

std::string sgemm_direct_variant(std::size_t m, std::size_t n, std::size_t batch) {
  if (batch <= 1) return "*";
  const std::size_t edge = std::max(m, n);
  return edge <= 16 ? "batch16" : edge <= 32 ? "batch32" : "batch";
}

bool sgemm_register_cap_applies(const DeviceInfo& device) {
  return device.platform_name.find("NVIDIA CUDA") != std::string::npos;
}

std::string sgemm_extra_options(const DeviceInfo& device, const std::string& family, const Configuration& cfg,
                                bool long_index) {
  std::string extra = long_index ? "-DCLF_LONG_INDEX=1" : "";
  // NVIDIA's compiler takes a register cap; other platforms would reject the option.
  if (family == "sgemm_xgemm" && cfg.at("NVRREG") > 0 && sgemm_register_cap_applies(device))
    extra += (extra.empty() ? "" : " ") + std::string("-cl-nv-maxrregcount=") + std::to_string(cfg.at("NVRREG"));
  return extra;
}

Tuning sgemm_tuning_for(const Tuning& tuning, const std::string& spec_name) { return overrides_for(tuning, spec_name); }

std::atomic<std::size_t>& sgemm_batch_workspace_limit() {
  static std::atomic<std::size_t> limit{std::size_t(256) << 20};
  return limit;
}

void sgemm_validate_overrides(const Tuning& tuning, const DeviceInfo& dev) {
  if (tuning.overrides.empty()) return;
  check_override_names("sgemm", tuning, std::vector<std::string>(std::begin(kSgemmSpecs), std::end(kSgemmSpecs)));
  for (const char* s : kSgemmSpecs) {
    const Tuning t = sgemm_tuning_for(tuning, s);
    if (!t.overrides.empty()) resolve_configuration(s, "*", dev, t);
  }
}

void sgemm_check_buffers(const std::array<std::size_t, 3>& span, const std::array<const cl::Buffer*, 3>& buffers,
                         const std::array<std::size_t, 3>& offsets) {
  const char* names[3] = {"a", "b", "c"};
  std::size_t end[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i)
    if (span[i] > 0) end[i] = require_extent(kSgemmRoutine, names[i], *buffers[i], offsets[i], span[i], sizeof(float));
  for (int i = 0; i < 2; ++i) {
    if (span[i] == 0 || span[2] == 0 || (*buffers[i])() != (*buffers[2])()) continue;
    require(!ranges_overlap(offsets[i], end[i], offsets[2], end[2]), kSgemmRoutine,
            [&] { return std::string("c overlaps ") + names[i] + " in the same buffer (C must not alias an input)"; });
  }
}

namespace {
const char* const kOffsetLists[3] = {"a_offsets", "b_offsets", "c_offsets"};

// The largest end (offset + span) of an operand's matrices in the offsets form, checked.
std::size_t last_end(const std::vector<std::size_t>& offsets, std::size_t span, int operand) {
  std::size_t end = 0;
  for (std::size_t z = 0; z < offsets.size(); ++z) {
    const std::optional<std::size_t> e = add_checked(offsets[z], span);
    require(e.has_value(), kSgemmRoutine, [&] {
      return std::string(kOffsetLists[operand]) + "[" + std::to_string(z) + "] (" + std::to_string(offsets[z]) +
             ") plus the described extent does not fit in size_t";
    });
    end = std::max(end, *e);
  }
  mul_or_throw(end, sizeof(float), kSgemmRoutine, std::string(kOffsetLists[operand]) + "'s extent in bytes");
  return end;
}
}  // namespace

SgemmOffsets sgemm_check_offsets(const SgemmDesc& d, const std::array<std::size_t, 3>& span) {
  require(d.batch <= kMaxDim, kSgemmRoutine,
          [&] { return "batch (" + std::to_string(d.batch) + ") must be below 2^31"; });
  const std::vector<std::size_t>* lists[3] = {&d.a_offsets, &d.b_offsets, &d.c_offsets};
  for (int i = 0; i < 3; ++i)
    require(lists[i]->size() == d.batch, kSgemmRoutine, [&] {
      return std::string(kOffsetLists[i]) + " holds " + std::to_string(lists[i]->size()) +
             " offsets, not one per product (batch " + std::to_string(d.batch) + ")";
    });
  require(
      d.a_offset == 0 && d.b_offset == 0 && d.c_offset == 0 && d.a_stride == 0 && d.b_stride == 0 && d.c_stride == 0,
      kSgemmRoutine,
      "offset lists take no a_offset, b_offset, c_offset or strides beside them (put them in the lists)");
  SgemmOffsets o;
  for (int i = 0; i < 3; ++i)
    if (span[i] > 0) o.end[i] = last_end(*lists[i], span[i], i);
  if (span[2] == 0) return o;
  o.c_sorted = d.c_offsets;
  std::sort(o.c_sorted.begin(), o.c_sorted.end());
  for (std::size_t z = 1; z < o.c_sorted.size(); ++z)
    require(o.c_sorted[z] - o.c_sorted[z - 1] >= span[2], kSgemmRoutine, [&] {
      return "c_offsets " + std::to_string(o.c_sorted[z - 1]) + " and " + std::to_string(o.c_sorted[z]) +
             " are less than one C matrix's extent (" + std::to_string(span[2]) +
             " elements) apart: the batch's C matrices must not overlap";
    });
  return o;
}

void sgemm_check_offset_buffers(const SgemmDesc& d, const std::array<std::size_t, 3>& span, const SgemmOffsets& o,
                                const std::array<const cl::Buffer*, 3>& buffers) {
  const char* names[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i)
    if (o.end[i] > 0) require_extent(kSgemmRoutine, names[i], *buffers[i], 0, o.end[i], sizeof(float));
  const std::vector<std::size_t>* lists[2] = {&d.a_offsets, &d.b_offsets};
  for (int i = 0; i < 2; ++i) {
    if (span[i] == 0 || span[2] == 0 || (*buffers[i])() != (*buffers[2])()) continue;
    for (std::size_t z = 0; z < lists[i]->size(); ++z) {
      // The C matrix that starts last before this operand's matrix ends is the only one that can
      // reach into it (C's matrices are sorted and apart).
      const std::size_t x = (*lists[i])[z];
      const auto next = std::lower_bound(o.c_sorted.begin(), o.c_sorted.end(), x + span[i]);
      require(next == o.c_sorted.begin() || *(next - 1) + span[2] <= x, kSgemmRoutine, [&] {
        return std::string("c overlaps ") + names[i] + " in the same buffer: product " + std::to_string(z) + "'s " +
               names[i] + " at " + std::to_string(x) + " shares elements with the C matrix at " +
               std::to_string(*(next - 1)) + " (C must not alias an input)";
      });
    }
  }
}

namespace {
// The plan of a checked call, from the process's plan cache (keyed by context, device, the
// whole description with alpha's and beta's bits, and the tuning fingerprint).
std::shared_ptr<const SgemmPlan> cached_sgemm_plan(const cl::CommandQueue& queue, const SgemmDesc& d,
                                                   const Tuning& tuning) {
  const QueueContext qc = queue_context_of(queue);
  return cached_plan<SgemmPlan>(tuning_fingerprint(*qc.info, tuning), d, qc.context(), qc.device(),
                                [&] { return SgemmPlanAccess::make(qc, d, tuning); });
}

SgemmDesc desc_of(Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n, std::size_t k,
                  float alpha, float beta, std::size_t a_off, std::size_t lda, std::size_t b_off, std::size_t ldb,
                  std::size_t c_off, std::size_t ldc) {
  SgemmDesc d;
  d.layout = layout, d.trans_a = trans_a, d.trans_b = trans_b;
  d.m = m, d.n = n, d.k = k, d.alpha = alpha, d.beta = beta;
  d.a_offset = a_off, d.a_ld = lda, d.b_offset = b_off, d.b_ld = ldb, d.c_offset = c_off, d.c_ld = ldc;
  return d;
}
}  // namespace
}  // namespace detail

std::array<std::size_t, 3> sgemm_spans(Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                                       std::size_t n, std::size_t k, std::size_t lda, std::size_t ldb,
                                       std::size_t ldc) {
  using namespace detail;
  require(m <= kMaxDim, kSgemmRoutine, [&] { return "m (" + std::to_string(m) + ") must be below 2^31"; });
  require(n <= kMaxDim, kSgemmRoutine, [&] { return "n (" + std::to_string(n) + ") must be below 2^31"; });
  require(k <= kMaxDim, kSgemmRoutine, [&] { return "k (" + std::to_string(k) + ") must be below 2^31"; });
  require(layout == Layout::RowMajor || layout == Layout::ColMajor, kSgemmRoutine, "unknown layout");
  require(trans_a == Transpose::No || trans_a == Transpose::Yes, kSgemmRoutine, "unknown trans_a");
  require(trans_b == Transpose::No || trans_b == Transpose::Yes, kSgemmRoutine, "unknown trans_b");
  const bool row = layout == Layout::RowMajor, ta = trans_a == Transpose::Yes, tb = trans_b == Transpose::Yes;
  // Stored shape of each operand (rows x cols) and its contiguous extent.
  struct Stored {
    const char* name;
    const char* ld_name;
    std::size_t ld, rows, cols;
  };
  const Stored ops[3] = {
      {"a", "a.ld", lda, ta ? k : m, ta ? m : k}, {"b", "b.ld", ldb, tb ? n : k, tb ? k : n}, {"c", "c.ld", ldc, m, n}};
  std::array<std::size_t, 3> span{};
  for (int i = 0; i < 3; ++i) {
    const Stored& s = ops[i];
    const std::size_t inner = row ? s.cols : s.rows, outer = row ? s.rows : s.cols;
    const std::size_t need = std::max<std::size_t>(1, inner);
    require(s.ld >= need, kSgemmRoutine, [&] {
      return std::string(s.ld_name) + " (" + std::to_string(s.ld) + ") is smaller than " +
             (row ? "the columns" : "the rows") + " of " + s.name + " (" + std::to_string(need) + ", " +
             (row ? "row" : "column") + "-major " + std::to_string(s.rows) + " x " + std::to_string(s.cols) + ")";
    });
    span[i] = matrix_span(kSgemmRoutine, s.ld_name, outer, inner, s.ld);
  }
  return span;
}

std::array<std::size_t, 3> sgemm_batched_spans(Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                                               std::size_t n, std::size_t k, std::size_t lda, std::size_t ldb,
                                               std::size_t ldc, std::size_t batch, std::size_t a_stride,
                                               std::size_t b_stride, std::size_t c_stride) {
  using namespace detail;
  std::array<std::size_t, 3> span = sgemm_spans(layout, trans_a, trans_b, m, n, k, lda, ldb, ldc);
  require(batch <= kMaxDim, kSgemmRoutine, [&] { return "batch (" + std::to_string(batch) + ") must be below 2^31"; });
  if (batch == 0) return {0, 0, 0};
  require(batch == 1 || span[2] == 0 || c_stride >= span[2], kSgemmRoutine, [&] {
    return "c_stride (" + std::to_string(c_stride) + ") is smaller than one C matrix's extent (" +
           std::to_string(span[2]) + " elements): the batch's C matrices must not overlap";
  });
  const std::size_t stride[3] = {a_stride, b_stride, c_stride};
  const char* names[3] = {"a_stride", "b_stride", "c_stride"};
  for (int i = 0; i < 3; ++i)
    if (span[i] > 0 && batch > 1)
      span[i] =
          add_or_throw(mul_or_throw(batch - 1, stride[i], kSgemmRoutine, std::string("(batch - 1) * ") + names[i]),
                       span[i], kSgemmRoutine, std::string("the batch's extent along ") + names[i]);
  return span;
}

void sgemm_strided_batched(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                           std::size_t n, std::size_t k, float alpha, const MatrixRef& a, std::size_t a_stride,
                           const MatrixRef& b, std::size_t b_stride, float beta, const MatrixRef& c,
                           std::size_t c_stride, std::size_t batch, const EventList& wait_list, cl::Event* event,
                           const Tuning& tuning) {
  using namespace detail;
  // Every argument is checked before a plan is looked up or built (the tuning overrides by the
  // plan, before it resolves or builds anything; a cached plan's overrides passed already).
  const std::array<std::size_t, 3> span =
      sgemm_batched_spans(layout, trans_a, trans_b, m, n, k, a.ld, b.ld, c.ld, batch, a_stride, b_stride, c_stride);
  sgemm_check_buffers(span, {&a.buffer, &b.buffer, &c.buffer}, {a.offset, b.offset, c.offset});
  require(queue() != nullptr, "sgemm", "null command queue");
  SgemmDesc d = desc_of(layout, trans_a, trans_b, m, n, k, alpha, beta, a.offset, a.ld, b.offset, b.ld, c.offset, c.ld);
  d.batch = batch, d.a_stride = a_stride, d.b_stride = b_stride, d.c_stride = c_stride;
  const auto plan = cached_sgemm_plan(queue, d, tuning);
  SgemmPlanAccess::run(*plan, queue, a.buffer, b.buffer, c.buffer, wait_list, event);  // checked above, same queue
}

void sgemm_batched(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                   std::size_t n, std::size_t k, float alpha, const cl::Buffer& a,
                   const std::vector<std::size_t>& a_offsets, std::size_t lda, const cl::Buffer& b,
                   const std::vector<std::size_t>& b_offsets, std::size_t ldb, float beta, const cl::Buffer& c,
                   const std::vector<std::size_t>& c_offsets, std::size_t ldc, const EventList& wait_list,
                   cl::Event* event, const Tuning& tuning) {
  using namespace detail;
  // Every argument is checked before a plan is looked up or built, as for the strided form.
  const std::array<std::size_t, 3> span = sgemm_spans(layout, trans_a, trans_b, m, n, k, lda, ldb, ldc);
  SgemmDesc d = desc_of(layout, trans_a, trans_b, m, n, k, alpha, beta, 0, lda, 0, ldb, 0, ldc);
  d.batch = a_offsets.size();
  d.a_offsets = a_offsets, d.b_offsets = b_offsets, d.c_offsets = c_offsets;
  sgemm_check_offset_buffers(d, span, sgemm_check_offsets(d, span), {&a, &b, &c});
  require(queue() != nullptr, "sgemm", "null command queue");
  const auto plan = cached_sgemm_plan(queue, d, tuning);
  SgemmPlanAccess::run(*plan, queue, a, b, c, wait_list, event);  // checked above, same queue
}

namespace {

// The products of a scalar list, grouped by their (alpha, beta) bits in the order of each pair's
// first product.
std::vector<std::vector<std::size_t>> products_by_scalars(const std::vector<float>& alphas,
                                                          const std::vector<float>& betas) {
  std::map<std::uint64_t, std::size_t> group_of;  // a pair's bits -> its group (O(batch log pairs))
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    std::uint32_t ab[2];
    std::memcpy(&ab[0], &alphas[i], 4);
    std::memcpy(&ab[1], &betas[i], 4);
    const auto [it, added] = group_of.emplace((std::uint64_t{ab[0]} << 32) | ab[1], groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

std::vector<std::size_t> pick(const std::vector<std::size_t>& v, const std::vector<std::size_t>& at) {
  std::vector<std::size_t> out;
  for (const std::size_t i : at) out.push_back(v[i]);
  return out;
}

}  // namespace

void sgemm_batched(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m,
                   std::size_t n, std::size_t k, const std::vector<float>& alphas, const cl::Buffer& a,
                   const std::vector<std::size_t>& a_offsets, std::size_t lda, const cl::Buffer& b,
                   const std::vector<std::size_t>& b_offsets, std::size_t ldb, const std::vector<float>& betas,
                   const cl::Buffer& c, const std::vector<std::size_t>& c_offsets, std::size_t ldc,
                   const EventList& wait_list, cl::Event* event, const Tuning& tuning) {
  using namespace detail;
  require(alphas.size() == a_offsets.size() && betas.size() == a_offsets.size(), "sgemm_batched",
          std::to_string(alphas.size()) + " alphas and " + std::to_string(betas.size()) + " betas for " +
              std::to_string(a_offsets.size()) + " products");
  // The whole batch is checked (as if every product read A, B and C) before any plan is built;
  // then every pair's plan is built before the first is enqueued.
  const std::array<std::size_t, 3> span = sgemm_spans(layout, trans_a, trans_b, m, n, k, lda, ldb, ldc);
  SgemmDesc d = desc_of(layout, trans_a, trans_b, m, n, k, 1.0f, 1.0f, 0, lda, 0, ldb, 0, ldc);
  d.batch = a_offsets.size();
  d.a_offsets = a_offsets, d.b_offsets = b_offsets, d.c_offsets = c_offsets;
  sgemm_check_offset_buffers(d, span, sgemm_check_offsets(d, span), {&a, &b, &c});
  require(queue() != nullptr, "sgemm", "null command queue");
  const std::vector<std::vector<std::size_t>> groups = products_by_scalars(alphas, betas);
  if (groups.size() <= 1) {  // one pair, or no product
    const float alpha = groups.empty() ? 1.0f : alphas[0], beta = groups.empty() ? 1.0f : betas[0];
    sgemm_batched(queue, layout, trans_a, trans_b, m, n, k, alpha, a, a_offsets, lda, b, b_offsets, ldb, beta, c,
                  c_offsets, ldc, wait_list, event, tuning);
    return;
  }
  std::vector<std::shared_ptr<const SgemmPlan>> plans;
  for (const auto& g : groups) {
    SgemmDesc gd = d;
    gd.alpha = alphas[g[0]], gd.beta = betas[g[0]];
    gd.batch = g.size();
    gd.a_offsets = pick(a_offsets, g), gd.b_offsets = pick(b_offsets, g), gd.c_offsets = pick(c_offsets, g);
    plans.push_back(cached_sgemm_plan(queue, gd, tuning));
  }
  std::vector<cl::Event> done(plans.size());
  for (std::size_t i = 0; i < plans.size(); ++i) SgemmPlanAccess::run(*plans[i], queue, a, b, c, wait_list, &done[i]);
  if (event != nullptr)
    check(queue.enqueueMarkerWithWaitList(&done, event), "clEnqueueMarkerWithWaitList", "sgemm_batched");
}

void sgemm(cl::CommandQueue& queue, Layout layout, Transpose trans_a, Transpose trans_b, std::size_t m, std::size_t n,
           std::size_t k, float alpha, const MatrixRef& a, const MatrixRef& b, float beta, const MatrixRef& c,
           const EventList& wait_list, cl::Event* event, const Tuning& tuning) {
  sgemm_strided_batched(queue, layout, trans_a, trans_b, m, n, k, alpha, a, 0, b, 0, beta, c, 0, 1, wait_list, event,
                        tuning);
}

}  // namespace clforge
