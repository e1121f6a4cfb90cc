// The launches of one SgemmPlan call, on the launch layer: every argument bound by name
// (the signatures below, checked against the compiled kernels by a test), single-kernel paths
// chained with detail::Chain, and the tiled paths' small graph with explicit events:
//
//   wait list + workspace's last use --> pack A --+
//                                    \-> pack B --+--> multiply --> (split k) sum into C
//
// The two packs depend on nothing but the call's wait list and the workspace's previous user,
// so an out-of-order queue may run them at once; the workspace goes back to the pool with the
// event of the last command that touches it.
#include <vector>

#include "runtime/errors.hpp"
#include "runtime/host_io.hpp"
#include "runtime/launch.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/workspace.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "sgemm/sgemm_plan_impl.hpp"

namespace clforge {
namespace detail {

const KernelSignature kSgemmXgemm{"sgemm_xgemm",
                                  {"M", "N", "Kp", "alpha", "beta", "ag", "a_off", "a_ld", "bg", "b_off", "b_ld", "cg",
                                   "c_off", "c_ld", "c_vec", "kt_split", "c_split"}};
const KernelSignature kSgemmStream{
    "sgemm_stream",
    {"M", "N", "Kp", "alpha", "beta", "ag", "a_off", "a_ld", "bg", "b_off", "b_ld", "cg", "c_off", "c_ld", "c_vec"}};

namespace {
const std::vector<const char*> kDirectArgs{"M",    "N", "K",     "alpha", "beta", "a",     "a_off",
                                           "a_ld", "b", "b_off", "b_ld",  "c",    "c_off", "c_ld"};
const std::vector<const char*> kPackArgs{"K", "X", "Kp", "Xp", "src", "s_off", "s_ld", "dst", "d_off", "d_ld", "d_pw"};
}  // namespace

const KernelSignature kSgemmDirect[2][2] = {{{"sgemm_direct_nn", kDirectArgs}, {"sgemm_direct_nt", kDirectArgs}},
                                            {{"sgemm_direct_tn", kDirectArgs}, {"sgemm_direct_tt", kDirectArgs}}};
const KernelSignature kSgemmPackCopy{"sgemm_pack_copy", kPackArgs};
const KernelSignature kSgemmPackTrans{"sgemm_pack_trans", kPackArgs};
const KernelSignature kSgemmSumScale{"sgemm_sum_scale",
                                     {"M", "N", "S", "w", "w_off", "w_ld", "w_split", "beta", "c", "c_off", "c_ld"}};

namespace {
EventList joined(const EventList& a, const EventList& b) {
  EventList l = a;
  l.insert(l.end(), b.begin(), b.end());
  return l;
}

// C = beta * C, or (slices > 0) C = sum of the slices + beta * C, over the internal m x n C.
void bind_sum(cl::Kernel& k, const SgemmPlan::Impl& p, const cl::Buffer& w, std::size_t w_off, std::size_t slices,
              const cl::Buffer& c) {
  Args(k, kSgemmSumScale, p.long_index)
      .i32("M", static_cast<long long>(p.m))
      .i32("N", static_cast<long long>(p.n))
      .i32("S", static_cast<long long>(slices))
      .buffer("w", w)
      .index("w_off", w_off)
      .index("w_ld", slices > 0 ? p.mp : 1)
      .index("w_split", slices > 0 ? p.mp * p.np : 0)
      .f32("beta", p.desc.beta)
      .buffer("c", c)
      .index("c_off", p.c_off)
      .index("c_ld", p.c_ld)
      .finish();
}

// The multiply's operands as the kernel reads them: offsets and leading dimensions in floats.
struct Operand {
  const cl::Buffer* buffer;
  std::size_t offset, ld;
};

}  // namespace
}  // namespace detail

void SgemmPlan::Impl::run(cl::CommandQueue& queue, const cl::Buffer& user_a, const cl::Buffer& user_b,
                          const cl::Buffer& c, const EventList& wait, cl::Event* event,
                          const cl::Buffer* packed_a) const {
  using namespace detail;
  const cl::Buffer& a = swap ? user_b : user_a;
  const cl::Buffer& b = swap ? user_a : user_b;
  switch (path) {
    case SgemmPath::Nothing:
      if (event != nullptr) enqueue_marker(queue, wait, event);
      return;
    case SgemmPath::Scale: {
      cl::Kernel k = get_kernel(pack, kSgemmSumScale.kernel);  // this thread's kernel object
      bind_sum(k, *this, c, 0, 0, c);                          // no slices: the w arguments are not read
      Chain(queue, wait, event).kernel(k, sum_global, pack_local, true);
      return;
    }
    case SgemmPath::Direct: {
      cl::Kernel k = get_kernel(program, sig->kernel);
      Args(k, *sig, long_index)
          .i32("M", static_cast<long long>(m))
          .i32("N", static_cast<long long>(n))
          .i32("K", static_cast<long long>(this->k))
          .f32("alpha", desc.alpha)
          .f32("beta", desc.beta)
          .buffer("a", a)
          .index("a_off", a_off)
          .index("a_ld", a_ld)
          .buffer("b", b)
          .index("b_off", b_off)
          .index("b_ld", b_ld)
          .buffer("c", c)
          .index("c_off", c_off)
          .index("c_ld", c_ld)
          .finish();
      Chain(queue, wait, event).kernel(k, global, local, true);
      return;
    }
    case SgemmPath::Xgemm:
    case SgemmPath::Stream:
      run_tiled(queue, a, b, c, wait, event, packed_a);
      return;
  }
}

std::size_t SgemmPlan::Impl::packed_a_bytes() const {
  const bool tiled = path == detail::SgemmPath::Xgemm || path == detail::SgemmPath::Stream;
  return tiled && pack_a && !swap ? kp * mp * sizeof(float) : 0;
}

void SgemmPlan::Impl::bind_pack(cl::Kernel& k, const detail::KernelSignature& s, const cl::Buffer& src, std::size_t off,
                                std::size_t ld, std::size_t x, std::size_t xp, std::size_t pw, const cl::Buffer& dst,
                                std::size_t dst_off) const {
  detail::Args(k, s, long_index)
      .i32("K", static_cast<long long>(this->k))
      .i32("X", static_cast<long long>(x))
      .i32("Kp", static_cast<long long>(kp))
      .i32("Xp", static_cast<long long>(xp))
      .buffer("src", src)
      .index("s_off", off)
      .index("s_ld", ld)
      .buffer("dst", dst)
      .index("d_off", dst_off)
      .index("d_ld", xp)
      .i32("d_pw", static_cast<long long>(pw))
      .finish();
}

void SgemmPlan::Impl::pack_a_into(cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& packed,
                                  const EventList& wait, cl::Event* event) const {
  using namespace detail;
  require(packed_a_bytes() > 0, "sgemm", "this plan does not pack A");
  const KernelSignature& s = ta ? kSgemmPackTrans : kSgemmPackCopy;
  cl::Kernel pk = get_kernel(pack, s.kernel);
  bind_pack(pk, s, a, a_off, a_ld, m, mp, panel ? mt : 0, packed, 0);
  Chain(queue, wait, event).kernel(pk, pack_a_global, pack_local, true, "pack A");
}

void SgemmPlan::Impl::run_tiled(cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
                                const EventList& wait, cl::Event* event, const cl::Buffer* packed_a) const {
  using namespace detail;
  const bool split = slices > 1;
  // Binds the multiply: the operands as read (packed or in place) and its output (C, or the
  // slices of the workspace: alpha times each partial product, beta 0). With k blocks, launch
  // `block` covers k rows block * kblock_tiles * kt onwards, and the blocks after the first add
  // to C (beta 1).
  const std::size_t blocks = kblocks;
  auto bind_multiply = [&](cl::Kernel& k, const Operand& pa, const Operand& pb, const Operand& out, std::size_t block) {
    const std::size_t row = block * kblock_tiles * kt;  // first k row of this launch
    Args args(k, *sig, long_index);
    args.i32("M", static_cast<long long>(m))
        .i32("N", static_cast<long long>(n))
        .i32("Kp", static_cast<long long>(kp))
        .f32("alpha", desc.alpha)
        .f32("beta", split       ? 0.0f
                     : block > 0 ? 1.0f
                                 : desc.beta)
        .buffer("ag", *pa.buffer)
        .index("a_off", (pa.offset + row * pa.ld) / va)
        .index("a_ld", pa.ld / va)
        .buffer("bg", *pb.buffer)
        .index("b_off", (pb.offset + row * pb.ld) / vb)
        .index("b_ld", pb.ld / vb)
        .buffer("cg", *out.buffer)
        .index("c_off", out.offset)
        .index("c_ld", out.ld)
        .i32("c_vec", c_vec ? 1 : 0);
    if (path == SgemmPath::Xgemm)
      args.i32("kt_split", static_cast<long long>(blocks > 1 ? std::min(kblock_tiles, kp / kt - row / kt) : kt_split))
          .index("c_split", split ? mp * np : 0);
    args.finish();
  };
  cl::Kernel multiply = get_kernel(program, sig->kernel);

  // A packed by the caller (pack_a_into) is read from packed_a and takes no room in the
  // workspace: B and the slices move down.
  const bool packs_a = pack_a && packed_a == nullptr;
  const Operand caller_a = pack_a ? Operand{packed_a, 0, panel ? mt : mp} : Operand{&a, a_off, a_ld};
  const std::size_t a_ws = packs_a ? a_elems : 0;
  const std::size_t ws_elems = a_ws + b_elems + w_elems;
  if (ws_elems == 0) {  // operands in place or packed by the caller, no split: the multiply's launches
    Chain chain(queue, wait, event);
    for (std::size_t block = 0; block < blocks; ++block) {
      bind_multiply(multiply, caller_a, {&b, b_off, b_ld}, {&c, c_off, c_ld}, block);
      chain.kernel(multiply, global, local, block + 1 == blocks);
    }
    return;
  }

  WorkspaceLease ws(workspace_pool().acquire(context, ws_elems * sizeof(float), "sgemm packing workspace"));
  // The packs (or the multiply) wait for the previous user of the workspace. On an in-order
  // queue the commands run in order: no event between them, and the workspace goes back with
  // the queue as its last use; on an out-of-order queue the two packs may overlap.
  const bool ordered = in_order(queue);
  const EventList pack_wait = joined(wait, ws.waits(queue));
  EventList gemm_wait;
  // Packs one operand into rows p < kp of xp floats at dst_off of the workspace, or (panel
  // width pw > 0) into panels of pw columns, kp rows each.
  auto pack_one = [&](const KernelSignature& s, const cl::Buffer& src, std::size_t off, std::size_t ld, std::size_t x,
                      std::size_t xp, std::size_t pw, std::size_t dst_off, const cl::NDRange& g, const char* tag) {
    cl::Kernel pk = get_kernel(pack, s.kernel);
    bind_pack(pk, s, src, off, ld, x, xp, pw, ws.buffer(), dst_off);
    if (ordered) {
      launch(queue, pk, g, pack_local, &pack_wait, nullptr, tag);  // the tag tells the two packs apart
      ws.used_on(queue);
      return;
    }
    cl::Event e;
    launch(queue, pk, g, pack_local, &pack_wait, &e, tag);
    gemm_wait.push_back(e);
    ws.used_until(gemm_wait);  // given back with this event should a later launch throw
  };
  Operand pa = caller_a, pb{&b, b_off, b_ld};
  // A is copied when not transposed (its rows are k-major already), B when transposed.
  if (packs_a) {
    pack_one(ta ? kSgemmPackTrans : kSgemmPackCopy, a, a_off, a_ld, m, mp, panel ? mt : 0, 0, pack_a_global, "pack A");
    pa = {&ws.buffer(), 0, panel ? mt : mp};
  }
  if (pack_b) {
    pack_one(tb ? kSgemmPackCopy : kSgemmPackTrans, b, b_off, b_ld, n, np, panel ? nt : 0, a_ws, pack_b_global,
             "pack B");
    pb = {&ws.buffer(), a_ws, panel ? nt : np};
  }
  // An operand read in place is read after the call's wait list (and, like everything here,
  // after the workspace's previous user).
  if (!ordered && (!packs_a || !pack_b)) gemm_wait.insert(gemm_wait.end(), pack_wait.begin(), pack_wait.end());
  if (ordered && !packs_a && !pack_b) gemm_wait = pack_wait;  // nothing packed here: the multiply is first

  const Operand out = split ? Operand{&ws.buffer(), a_ws + b_elems, mp} : Operand{&c, c_off, c_ld};
  if (ordered) {
    cl::Kernel sum;
    if (split) {
      sum = get_kernel(pack, kSgemmSumScale.kernel);
      bind_sum(sum, *this, ws.buffer(), a_ws + b_elems, slices, c);
    }
    for (std::size_t block = 0; block < blocks; ++block) {
      bind_multiply(multiply, pa, pb, out, block);
      const bool last = block + 1 == blocks && !split;
      launch(queue, multiply, global, local, block == 0 ? &gemm_wait : nullptr, last ? event : nullptr);
      ws.used_on(queue);
    }
    if (split) launch(queue, sum, sum_global, pack_local, nullptr, event);
    ws.used_on(queue);
    return;
  }
  cl::Event done;
  for (std::size_t block = 0; block < blocks; ++block) {
    bind_multiply(multiply, pa, pb, out, block);
    const EventList after{done};
    launch(queue, multiply, global, local, block == 0 ? &gemm_wait : &after, &done);
    ws.used_until({done});
  }
  if (split) {
    cl::Kernel sum = get_kernel(pack, kSgemmSumScale.kernel);
    bind_sum(sum, *this, ws.buffer(), a_ws + b_elems, slices, c);
    const EventList sum_wait{done};
    cl::Event summed;
    launch(queue, sum, sum_global, pack_local, &sum_wait, &summed);
    done = summed;
    ws.used_until({done});
  }
  if (event != nullptr) *event = done;
}

}  // namespace clforge
