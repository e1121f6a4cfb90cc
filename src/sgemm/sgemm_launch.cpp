// The launches of one SgemmPlan call, described to one detail::Execution: every argument bound
// by name (the signatures below, checked against the compiled kernels by a test), and the tiled
// paths' small graph of launches with the launches each one waits for:
//
//   start (wait list + workspace's last use) --> pack A and B --> multiply --> (split k) sum into C
//   start --> edge strips (direct kernel, SGEMM_EDGE) --> multiply
//
// A group of products that packs both operands packs them in one launch (sgemm_pack_pair: a
// launch less, docs/sgemm.md); one that packs one operand, or a plan's pack_a(), launches that
// operand's kernel. The execution gives the workspace back with the last command that touches it.
#include <algorithm>
#include <vector>

#include "runtime/errors.hpp"
#include "runtime/execution.hpp"
#include "runtime/host_io.hpp"
#include "runtime/launch.hpp"
#include "runtime/program_cache.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "sgemm/sgemm_plan_impl.hpp"

namespace clforge {
namespace detail {

const KernelSignature kSgemmXgemm{
    "sgemm_xgemm", {"M",   "N",  "Kp",    "alpha", "beta", "ag",    "a_off",    "a_ld", "a_z", "bg",    "b_off", "b_ld",
                    "b_z", "cg", "c_off", "c_ld",  "c_z",  "c_vec", "kt_split", "k_z",  "zt",  "zt_at", "zt_on"}};
const KernelSignature kSgemmStream{
    "sgemm_stream", {"M",    "N",   "Kp", "alpha", "beta", "ag",  "a_off", "a_ld", "a_z",   "bg",   "b_off",
                     "b_ld", "b_z", "cg", "c_off", "c_ld", "c_z", "c_vec", "zt",   "zt_at", "zt_on"}};

namespace {
const std::vector<const char*> kDirectArgs{"M",     "N",    "K",   "alpha", "beta",  "a",    "a_off",
                                           "a_ld",  "a_z",  "b",   "b_off", "b_ld",  "b_z",  "c",
                                           "c_off", "c_ld", "c_z", "zt",    "zt_at", "zt_on"};
const std::vector<const char*> kPackArgs{"K",   "X",     "Kp",   "Xp",   "src", "s_off", "s_ld",  "s_z",
                                         "dst", "d_off", "d_ld", "d_pw", "d_z", "zt",    "zt_at", "zt_on"};
}  // namespace

const KernelSignature kSgemmDirect[2][2] = {{{"sgemm_direct_nn", kDirectArgs}, {"sgemm_direct_nt", kDirectArgs}},
                                            {{"sgemm_direct_tn", kDirectArgs}, {"sgemm_direct_tt", kDirectArgs}}};
const KernelSignature kSgemmPackCopy{"sgemm_pack_copy", kPackArgs};
const KernelSignature kSgemmPackTrans{"sgemm_pack_trans", kPackArgs};
const KernelSignature kSgemmPackPair{
    "sgemm_pack_pair", {"K",     "Kp",    "dst",   "zt",    "zt_on",   "a_tiles", "a_n",     "a_tr",   "a_X",  "a_Xp",
                        "a_src", "a_off", "a_ld",  "a_z",   "a_zt_at", "a_doff",  "a_pw",    "a_dz",   "b_n",  "b_tr",
                        "b_X",   "b_Xp",  "b_src", "b_off", "b_ld",    "b_z",     "b_zt_at", "b_doff", "b_pw", "b_dz"}};
const KernelSignature kSgemmSumScale{
    "sgemm_sum_scale",
    {"M", "N", "S", "w", "w_off", "w_ld", "w_split", "beta", "c", "c_off", "c_ld", "c_z", "zt", "zt_at", "zt_on"}};

namespace {
// The offsets table's entry of product z0's operand col (0: the internal A, 1: B, 2: C); 0
// without a table.
std::size_t table_at(const SgemmPlan::Impl& p, std::size_t z0, std::size_t col) { return p.table ? 3 * z0 + col : 0; }

// The offsets table's arguments of a launch whose first product is z0: the entries of column
// `col` (0: the internal A, 1: B, 2: C; a launch that reads all three, the first) from row z0
// on. Without a table (a strided batch, or `on` false) the kernel ignores them and `other`, a
// buffer of the call, stands in for the table.
void bind_table(Args& args, const SgemmPlan::Impl& p, const cl::Buffer& other, std::size_t z0, std::size_t col,
                bool on = true) {
  on = on && p.table;
  args.buffer("zt", on ? p.zt : other).index("zt_at", on ? table_at(p, z0, col) : 0).i32("zt_on", on ? 1 : 0);
}

// C = beta * C (every matrix of a batch), or (slices > 0) C = sum of the slices + beta * C, over
// the internal m x n C.
void bind_sum(cl::Kernel& k, const SgemmPlan::Impl& p, const cl::Buffer& w, std::size_t w_off, std::size_t slices,
              const cl::Buffer& c, std::size_t z0 = 0) {
  Args args(k, kSgemmSumScale, p.long_index);
  bind_table(args, p, c, z0, 2, slices == 0);
  args.i32("M", static_cast<long long>(p.m))
      .i32("N", static_cast<long long>(p.n))
      .i32("S", static_cast<long long>(slices))
      .buffer("w", w)
      .index("w_off", w_off)
      .index("w_ld", slices > 0 ? p.mp : 1)
      .index("w_split", slices > 0 ? p.mp * p.np : 0)
      .f32("beta", p.desc.beta)
      .buffer("c", c)
      .index("c_off", p.c_off + z0 * p.c_z)
      .index("c_ld", p.c_ld)
      .index("c_z", p.c_z)
      .finish();
}

// Binds the direct kernel for the products from z0 on.
void bind_direct(cl::Kernel& k, const SgemmPlan::Impl& p, const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
                 std::size_t z0) {
  Args args(k, *p.sig, p.long_index);
  bind_table(args, p, c, z0, 0);
  args.i32("M", static_cast<long long>(p.m))
      .i32("N", static_cast<long long>(p.n))
      .i32("K", static_cast<long long>(p.k))
      .f32("alpha", p.desc.alpha)
      .f32("beta", p.desc.beta)
      .buffer("a", a)
      .index("a_off", p.a_off + z0 * p.a_z)
      .index("a_ld", p.a_ld)
      .index("a_z", p.a_z)
      .buffer("b", b)
      .index("b_off", p.b_off + z0 * p.b_z)
      .index("b_ld", p.b_ld)
      .index("b_z", p.b_z)
      .buffer("c", c)
      .index("c_off", p.c_off + z0 * p.c_z)
      .index("c_ld", p.c_ld)
      .index("c_z", p.c_z)
      .finish();
}

// A range with its third dimension set to z (the products of one launch).
cl::NDRange with_z(const cl::NDRange& r, std::size_t z) { return cl::NDRange(r.get()[0], r.get()[1], z); }

// One kernel over the whole batch: a launch per kSgemmMaxBatchLaunch products, each after the
// one before, bind(z0) setting the arguments of the launch that starts at product z0.
template <class Bind>
void run_batched(cl::CommandQueue& q, const EventList& wait, cl::Event* event, const SgemmPlan::Impl& p,
                 const cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local, Bind&& bind) {
  Execution x(q, wait, event);
  for (std::size_t z0 = 0; z0 < p.batch; z0 += kSgemmMaxBatchLaunch) {
    bind(z0);
    x.then(k, with_z(global, std::min(kSgemmMaxBatchLaunch, p.batch - z0)), local,
           z0 + kSgemmMaxBatchLaunch >= p.batch);
  }
  x.finish();
}

// The operand a packing kernel reads: offset, leading dimension and the stride between the
// batch's matrices (elements), and its columns x, padded to xp.
// With an offsets table: the launch's first product z0 and the operand's column (2: none).
struct PackSource {
  std::size_t off, ld, z, x, xp;
  std::size_t z0 = 0, col = 2;
};

// Binds one packing kernel: the operand src into rows p < kp of xp floats, or (panel width pw >
// 0) into panels of pw columns, kp rows each, at dst_off of dst, matrix z at z * dst_z.
void bind_pack(cl::Kernel& k, const SgemmPlan::Impl& p, const KernelSignature& s, const cl::Buffer& src,
               const PackSource& from, std::size_t pw, const cl::Buffer& dst, std::size_t dst_off, std::size_t dst_z) {
  Args args(k, s, p.long_index);
  bind_table(args, p, src, from.z0, from.col, from.col < 2);
  args.i32("K", static_cast<long long>(p.k))
      .i32("X", static_cast<long long>(from.x))
      .i32("Kp", static_cast<long long>(p.kp))
      .i32("Xp", static_cast<long long>(from.xp))
      .buffer("src", src)
      .index("s_off", from.off)
      .index("s_ld", from.ld)
      .index("s_z", from.z)
      .buffer("dst", dst)
      .index("d_off", dst_off)
      .index("d_ld", from.xp)
      .i32("d_pw", static_cast<long long>(pw))
      .index("d_z", dst_z)
      .finish();
}

// The multiply's operands as the kernel reads them: offsets, leading dimensions and the stride
// between the batch's matrices, in floats.
struct Operand {
  const cl::Buffer* buffer;
  std::size_t offset, ld, z;
};

// What the multiply reads and writes: A and B (packed or in place) and its output (C, or the
// slices of the workspace).
struct Operands {
  Operand a, b, out;
  std::size_t z0 = 0;  // the first product (the offsets table's row of C)
};

// The products z0 .. z0 + count - 1 that one group of launches computes (all of a single product).
struct Group {
  std::size_t z0, count;
};

// The internal A of the group's products as a packing kernel reads it (A is copied when not
// transposed: its rows are k-major already), and the same of B (copied when transposed).
PackSource source_a(const SgemmPlan::Impl& p, const Group& g) {
  return {p.a_off + g.z0 * p.a_z, p.a_ld, p.a_z, p.m, p.mp, g.z0, 0};
}
PackSource source_b(const SgemmPlan::Impl& p, const Group& g) {
  return {p.b_off + g.z0 * p.b_z, p.b_ld, p.b_z, p.n, p.np, g.z0, 1};
}

// Packs the internal A of the group's products, after `after`; a broadcast A (stride 0) is one
// matrix.
Step launch_pack_a(Execution& x, const SgemmPlan::Impl& p, const cl::Buffer& a, const cl::Buffer& dst, const Group& g,
                   const Deps& after) {
  const KernelSignature& s = p.ta ? kSgemmPackTrans : kSgemmPackCopy;
  cl::Kernel k = get_kernel(p.pack, s.kernel);  // this thread's kernel object
  bind_pack(k, p, s, a, source_a(p, g), p.panel ? p.mt : 0, dst, 0, p.a_elems);
  return x.launch(k, with_z(p.pack_a_global, p.a_each() ? g.count : 1), p.pack_local, after, false,
                  "pack A");  // the tag tells the packs apart
}

// Packs the internal B of the group's products at dst_off of dst.
Step launch_pack_b(Execution& x, const SgemmPlan::Impl& p, const cl::Buffer& b, const cl::Buffer& dst,
                   std::size_t dst_off, const Group& g, const Deps& after) {
  const KernelSignature& s = p.tb ? kSgemmPackCopy : kSgemmPackTrans;
  cl::Kernel k = get_kernel(p.pack, s.kernel);
  bind_pack(k, p, s, b, source_b(p, g), p.panel ? p.nt : 0, dst, dst_off, p.b_elems);
  return x.launch(k, with_z(p.pack_b_global, p.b_each() ? g.count : 1), p.pack_local, after, false, "pack B");
}

// Packs both internal operands of the group's products in one launch: A at 0 of dst, B at
// dst_off (sgemm_pack_pair; each operand as launch_pack_a and launch_pack_b would).
Step launch_pack_pair(Execution& x, const SgemmPlan::Impl& p, const cl::Buffer& a, const cl::Buffer& b,
                      const cl::Buffer& dst, std::size_t dst_off, const Group& g, const Deps& after) {
  cl::Kernel k = get_kernel(p.pack, kSgemmPackPair.kernel);
  Args args(k, kSgemmPackPair, p.long_index);
  const std::size_t tile = p.pack_local.get()[0];
  const std::size_t a_n = p.a_each() ? g.count : 1, b_n = p.b_each() ? g.count : 1;
  const auto side = [&](const std::string& o, const PackSource& from, bool turned, const cl::Buffer& src, std::size_t n,
                        std::size_t pw, std::size_t doff, std::size_t dz) {
    const auto name = [&](const char* field) { return o + field; };
    args.i32(name("_n").c_str(), static_cast<long long>(n))
        .i32(name("_tr").c_str(), turned ? 1 : 0)
        .i32(name("_X").c_str(), static_cast<long long>(from.x))
        .i32(name("_Xp").c_str(), static_cast<long long>(from.xp))
        .buffer(name("_src").c_str(), src)
        .index(name("_off").c_str(), from.off)
        .index(name("_ld").c_str(), from.ld)
        .index(name("_z").c_str(), from.z)
        .index(name("_zt_at").c_str(), table_at(p, from.z0, from.col))
        .index(name("_doff").c_str(), doff)
        .i32(name("_pw").c_str(), static_cast<long long>(pw))
        .index(name("_dz").c_str(), dz);
  };
  args.i32("K", static_cast<long long>(p.k))
      .i32("Kp", static_cast<long long>(p.kp))
      .buffer("dst", dst)
      .buffer("zt", p.table ? p.zt : a)
      .i32("zt_on", p.table ? 1 : 0)
      .i32("a_tiles", static_cast<long long>(ceil_div(p.mp, tile)));
  side("a", source_a(p, g), p.ta, a, a_n, p.panel ? p.mt : 0, 0, p.a_elems);
  side("b", source_b(p, g), !p.tb, b, b_n, p.panel ? p.nt : 0, dst_off, p.b_elems);
  args.finish();
  const cl::NDRange global(p.pack_a_global.get()[0] + p.pack_b_global.get()[0], p.pack_a_global.get()[1],
                           std::max(a_n, b_n));
  return x.launch(k, global, p.pack_local, after, false, "pack A and B");
}

// Binds the multiply's launch `block`. Its output is C, or (split k) the slices: alpha times
// each partial product, beta 0. With k blocks, launch `block` covers k rows block *
// kblock_tiles * kt onwards, and the blocks after the first add to C (beta 1). Work-group z
// moves on by one k slice (split k) or one product of the batch.
void bind_multiply(cl::Kernel& k, const SgemmPlan::Impl& p, const Operands& o, std::size_t block) {
  const bool split = p.slices > 1;
  const std::size_t row = block * p.kblock_tiles * p.kt;  // first k row of this launch
  const std::size_t kz = split ? p.kt_split : 0;          // k tiles from one z group to the next
  const std::size_t az = split ? kz * p.kt * o.a.ld : o.a.z, bz = split ? kz * p.kt * o.b.ld : o.b.z;
  Args args(k, *p.sig, p.long_index);
  bind_table(args, p, *o.out.buffer, o.z0, 2, !split);
  args.i32("M", static_cast<long long>(p.m))
      .i32("N", static_cast<long long>(p.n))
      .i32("Kp", static_cast<long long>(p.kp))
      .f32("alpha", p.desc.alpha)
      .f32("beta", split       ? 0.0f
                   : block > 0 ? 1.0f
                               : p.desc.beta)
      .buffer("ag", *o.a.buffer)
      .index("a_off", (o.a.offset + row * o.a.ld) / p.va)
      .index("a_ld", o.a.ld / p.va)
      .index("a_z", az / p.va)
      .buffer("bg", *o.b.buffer)
      .index("b_off", (o.b.offset + row * o.b.ld) / p.vb)
      .index("b_ld", o.b.ld / p.vb)
      .index("b_z", bz / p.vb)
      .buffer("cg", *o.out.buffer)
      .index("c_off", o.out.offset)
      .index("c_ld", o.out.ld)
      .index("c_z", o.out.z)
      .i32("c_vec", p.c_vec ? 1 : 0);
  if (p.path == SgemmPath::Xgemm)
    args.i32("kt_split",
             static_cast<long long>(p.kblocks > 1 ? std::min(p.kblock_tiles, p.kp / p.kt - row / p.kt) : p.kt_split))
        .i32("k_z", static_cast<long long>(kz));
  args.finish();
}

// The multiply's launches for `count` products, one per k block, each after the one before;
// the first after `ready`. `last`: the final block ends the call.
Step launch_multiply(Execution& x, const SgemmPlan::Impl& p, const Operands& o, const Deps& ready, bool last,
                     std::size_t count) {
  cl::Kernel k = get_kernel(p.program, p.sig->kernel);
  Step done = Execution::kStart;
  for (std::size_t block = 0; block < p.kblocks; ++block) {
    bind_multiply(k, p, o, block);
    done = x.launch(k, with_z(p.global, p.slices * count), p.local, block == 0 ? ready : Deps{done},
                    last && block + 1 == p.kblocks);
  }
  return done;
}

// What the tiled launches of one call read and write: the internal A and B, C, the workspace
// (null when none) with packed B at b_at, and A packed by the caller (null when it is not);
// `edges`, the last of the edge strips' launches (the start when there are none).
struct Tiled {
  const cl::Buffer *a, *b, *c, *ws, *packed_a;
  std::size_t b_at;
  Step edges = Execution::kStart;
};

// The edge strips of a tiled plan on the direct kernel, one after the other from the start
// (they write other elements of C than the multiply); returns the last one's launch.
Step launch_strips(Execution& x, const SgemmPlan::Impl& p, const cl::Buffer& a, const cl::Buffer& b,
                   const cl::Buffer& c) {
  Step done = Execution::kStart;
  for (const auto& s : p.strips) {
    cl::Kernel k = get_kernel(s->program, s->sig->kernel);
    bind_direct(k, *s, a, b, c, 0);
    done = x.launch(k, s->global, s->local, done == Execution::kStart ? Deps{} : Deps{done}, false, "edge");
  }
  return done;
}

// One group of products: its packs after `prev` (the previous group's multiply, which read the
// workspace they overwrite; the call's start for the first group), the multiply after its packs,
// after `prev` and after the start when it reads an operand in place. A broadcast operand is
// packed by the first group only. Returns the multiply's last launch.
Step run_group(Execution& x, const SgemmPlan::Impl& p, const Tiled& t, const Group& g, Step prev, bool last) {
  const bool packs_a = p.pack_a && t.packed_a == nullptr, first = g.z0 == 0;
  const Deps after = first ? Deps{} : Deps{prev};
  Operands o{
      p.pack_a ? Operand{t.packed_a, 0, p.panel ? p.mt : p.mp, 0} : Operand{t.a, p.a_off + g.z0 * p.a_z, p.a_ld, p.a_z},
      {t.b, p.b_off + g.z0 * p.b_z, p.b_ld, p.b_z},
      {},
      g.z0};
  Deps ready;  // what the multiply waits for
  const bool a_now = packs_a && (first || p.a_each()), b_now = p.pack_b && (first || p.b_each());
  if (a_now && b_now)
    ready.add(launch_pack_pair(x, p, *t.a, *t.b, *t.ws, t.b_at, g, after));
  else if (a_now)
    ready.add(launch_pack_a(x, p, *t.a, *t.ws, g, after));
  else if (b_now)
    ready.add(launch_pack_b(x, p, *t.b, *t.ws, t.b_at, g, after));
  if (packs_a) o.a = {t.ws, 0, p.panel ? p.mt : p.mp, p.a_each() ? p.a_elems : 0};
  if (p.pack_b) o.b = {t.ws, t.b_at, p.panel ? p.nt : p.np, p.b_each() ? p.b_elems : 0};
  if (!packs_a || !p.pack_b) ready.add(Execution::kStart);  // an operand read in place
  if (!first) ready.add(prev);
  if (first && !(t.edges == Execution::kStart)) ready.add(t.edges);  // the call's last launch joins them
  const bool split = p.slices > 1;
  o.out = split ? Operand{t.ws, t.b_at + p.b_mats * p.b_elems, p.mp, p.mp * p.np}
                : Operand{t.c, p.c_off + g.z0 * p.c_z, p.c_ld, p.c_z};
  return launch_multiply(x, p, o, ready, last && !split, g.count);
}

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
      // No slices: the w arguments are not read.
      run_batched(queue, wait, event, *this, k, sum_global, pack_local,
                  [&](std::size_t z0) { bind_sum(k, *this, c, 0, 0, c, z0); });
      return;
    }
    case SgemmPath::Direct: {
      cl::Kernel k = get_kernel(program, sig->kernel);
      run_batched(queue, wait, event, *this, k, global, local,
                  [&](std::size_t z0) { bind_direct(k, *this, a, b, c, z0); });
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
  return tiled && pack_a && !swap && batch == 1 && strips.empty() ? kp * mp * sizeof(float) : 0;
}

void SgemmPlan::Impl::pack_a_into(cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& packed,
                                  const EventList& wait, cl::Event* event) const {
  using namespace detail;
  require(packed_a_bytes() > 0, "sgemm", "this plan does not pack A");
  const KernelSignature& s = ta ? kSgemmPackTrans : kSgemmPackCopy;
  cl::Kernel pk = get_kernel(pack, s.kernel);
  bind_pack(pk, *this, s, a, {a_off, a_ld, 0, m, mp}, panel ? mt : 0, packed, 0, 0);
  Execution x(queue, wait, event);
  x.then(pk, pack_a_global, pack_local, true, "pack A");
  x.finish();
}

// The packs (after the call's start), the multiply after them (and after the start when it reads
// an operand in place), then the split-k sum. A packed by the caller (pack_a_into) is read from
// packed_a and takes no room in the workspace: B and the slices move down. A batch runs in groups
// of zchunk products that reuse the workspace, each group's packs after the multiply of the group
// before.
void SgemmPlan::Impl::run_tiled(cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
                                const EventList& wait, cl::Event* event, const cl::Buffer* packed_a) const {
  using namespace detail;
  const bool packs_a = pack_a && packed_a == nullptr;
  const std::size_t a_ws = packs_a ? a_mats * a_elems : 0, b_ws = b_mats * b_elems;
  const std::size_t ws_elems = a_ws + b_ws + w_elems;
  Execution x(queue, wait, event);
  const cl::Buffer* ws =
      ws_elems > 0 ? &x.workspace(context, ws_elems * sizeof(float), "sgemm packing workspace") : nullptr;
  const Tiled t{&a, &b, &c, ws, packed_a, a_ws, launch_strips(x, *this, a, b, c)};
  Step done = Execution::kStart;
  for (std::size_t z0 = 0; z0 < batch; z0 += zchunk)
    done = run_group(x, *this, t, {z0, std::min(zchunk, batch - z0)}, done, z0 + zchunk >= batch);
  if (slices > 1) {
    cl::Kernel sum = get_kernel(pack, kSgemmSumScale.kernel);
    bind_sum(sum, *this, *ws, a_ws + b_ws, slices, c);
    x.launch(sum, sum_global, pack_local, {done}, true);
  }
  x.finish();
}

}  // namespace clforge
