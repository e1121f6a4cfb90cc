// SgemmPlan construction: the checks that need no buffer, the route (which path a product
// takes), the configurations, the tile geometry, packing and k slices, the workspace size, the
// index width, the NDRanges and the programs, all decided once. The launches are in
// sgemm_launch.cpp.
//
// Paths (src/sgemm/sgemm_internal.hpp):
//   m or n == 0                    nothing (a marker carries the event)
//   k == 0 or alpha == 0           C = beta * C (sgemm_sum_scale with no slices), A and B are not read
//   m*n*k <= SGEMM_DIRECT_MAX^3    sgemm_direct_{nn,nt,tn,tt} on the user's buffers
//   otherwise                      pack A and B into k-major zero-padded form (sgemm_pack_*,
//                                  skipped for an operand that already has it), then
//                                  sgemm_xgemm (SGEMM_TILED=0) or sgemm_stream (1); both
//                                  write C in place with edge guards (no C copies);
//                                  with SGEMM_EDGE, a few rows (columns) past the last
//                                  whole C tile run on sgemm_direct instead.
#include <algorithm>
#include <cstdio>
#include <numeric>

#include "runtime/errors.hpp"
#include "runtime/extent.hpp"
#include "runtime/program_cache.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "sgemm/sgemm_plan_impl.hpp"
#include "tuning/spec.hpp"

namespace clforge {
namespace detail {
namespace {

// k slices of sgemm_xgemm for `tiles` C tiles and `ktiles` k tiles under the route row (1: no
// split); see sgemm_k_slices.
std::size_t k_slices_for(const Configuration& route, const DeviceInfo& dev, std::size_t tiles, std::size_t ktiles) {
  const std::size_t max_split = route.at("SGEMM_SPLITK");
  const std::size_t target = std::max<std::size_t>(1, dev.compute_units) * route.at("SGEMM_SPLIT_WAVES");
  if (max_split < 2 || route.at("SGEMM_TILED") || tiles >= target || ktiles < 2) return 1;
  const std::size_t want = std::min({max_split, ceil_div(target, tiles), ktiles});
  const std::size_t per = ceil_div(ktiles, want);
  return ceil_div(ktiles, per);  // no empty slice
}

// The path of a product under the route row.
SgemmPath path_for(const Configuration& route, std::size_t m, std::size_t n, std::size_t k, float alpha, float beta) {
  if (m == 0 || n == 0) return SgemmPath::Nothing;
  if (k == 0 || alpha == 0.0f) return beta == 1.0f ? SgemmPath::Nothing : SgemmPath::Scale;
  const double d = route.at("SGEMM_DIRECT_MAX");
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <= d * d * d) return SgemmPath::Direct;
  return route.at("SGEMM_TILED") ? SgemmPath::Stream : SgemmPath::Xgemm;
}

// The route row: strided and offset batches (batch > 1) take the variant "batch" where the
// device has one (many small products fill the device at sizes one product does not), else "*".
Configuration route_of(const DeviceInfo& device, const Tuning& tuning, std::size_t batch = 1) {
  return resolve_configuration("sgemm_route", sgemm_route_variant(batch), device,
                               sgemm_tuning_for(tuning, "sgemm_route"));
}

// A description with its leading dimensions resolved, the elements each operand spans, and
// where each ends (offset + span; 0 for an operand that describes no element). In the offsets
// form (`table`): one matrix's span, the last matrix's end, and the lists' checks.
struct Checked {
  SgemmDesc desc;
  std::array<std::size_t, 3> span, end;
  bool table = false;
  SgemmOffsets offsets;
};

bool offsets_form(const SgemmDesc& d) { return !d.a_offsets.empty() || !d.b_offsets.empty() || !d.c_offsets.empty(); }

// Offset lists that step evenly upwards turned into the strided batch they describe (the list
// of an operand that describes no element is ignored); false when one of them does not.
bool as_strided(SgemmDesc& d, const std::array<std::size_t, 3>& span) {
  std::vector<std::size_t>* lists[3] = {&d.a_offsets, &d.b_offsets, &d.c_offsets};
  std::size_t first[3] = {0, 0, 0}, step[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    const std::vector<std::size_t>& v = *lists[i];
    if (span[i] == 0 || v.empty()) continue;
    first[i] = v[0];
    if (v.size() > 1 && v[1] < v[0]) return false;
    step[i] = v.size() > 1 ? v[1] - v[0] : 0;
    for (std::size_t z = 1; z < v.size(); ++z)
      if (v[z] < v[z - 1] || v[z] - v[z - 1] != step[i]) return false;
  }
  d.a_offset = first[0], d.b_offset = first[1], d.c_offset = first[2];
  d.a_stride = step[0], d.b_stride = step[1], d.c_stride = step[2];
  for (auto* v : lists) v->clear();
  return true;
}

Checked check_desc(SgemmDesc d) {
  const bool row = d.layout == Layout::RowMajor, ta = d.trans_a == Transpose::Yes, tb = d.trans_b == Transpose::Yes;
  auto tight = [&](std::size_t rows, std::size_t cols) { return std::max<std::size_t>(1, row ? cols : rows); };
  if (d.a_ld == 0) d.a_ld = ta ? tight(d.k, d.m) : tight(d.m, d.k);
  if (d.b_ld == 0) d.b_ld = tb ? tight(d.n, d.k) : tight(d.k, d.n);
  if (d.c_ld == 0) d.c_ld = tight(d.m, d.n);
  if (offsets_form(d)) {
    const std::array<std::size_t, 3> span =
        sgemm_spans(d.layout, d.trans_a, d.trans_b, d.m, d.n, d.k, d.a_ld, d.b_ld, d.c_ld);
    SgemmOffsets o = sgemm_check_offsets(d, span);
    if (!as_strided(d, span)) return Checked{d, span, o.end, true, std::move(o)};
  }
  Checked c{d,
            sgemm_batched_spans(d.layout, d.trans_a, d.trans_b, d.m, d.n, d.k, d.a_ld, d.b_ld, d.c_ld, d.batch,
                                d.a_stride, d.b_stride, d.c_stride),
            {0, 0, 0},
            false,
            {}};
  const std::size_t offsets[3] = {d.a_offset, d.b_offset, d.c_offset};
  const char* names[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i) {
    if (c.span[i] == 0) continue;
    c.end[i] =
        add_or_throw(offsets[i], c.span[i], kSgemmRoutine, std::string(names[i]) + ".offset plus the described extent");
    mul_or_throw(c.end[i], sizeof(float), kSgemmRoutine, std::string(names[i]) + "'s extent in bytes");
  }
  return c;
}

// The sgemm_pack program's configuration and its work-group shape: PACK_TILE x (PACK_TILE /
// PACK_WPT) work-items per PACK_TILE x PACK_TILE tile.
struct PackShape {
  Configuration cfg;
  std::size_t t = 0, ly = 0;
  // Global range covering an x-by-y tile grid (x along the work-group's first dimension) for
  // each of z matrices.
  cl::NDRange global(std::size_t x, std::size_t y, std::size_t z) const {
    return cl::NDRange(round_up(x, t), ceil_div(y, t) * ly, z);
  }
};
PackShape pack_shape(SgemmPlan::Impl& im, const DeviceInfo& dev, const Tuning& tuning) {
  PackShape s;
  s.cfg = resolve_configuration("sgemm_pack", "*", dev, sgemm_tuning_for(tuning, "sgemm_pack"));
  s.t = s.cfg.at("PACK_TILE");
  s.ly = s.t / s.cfg.at("PACK_WPT");
  im.pack_local = cl::NDRange(s.t, s.ly, 1);
  im.cfgs.push_back(s.cfg);
  return s;
}

// Edge strips (SGEMM_EDGE): the rows (columns) of a single product's C past its last whole C
// tile leave the tiled multiply for the direct kernel when there are at most SGEMM_EDGE of them
// and at least one whole tile; im.m and im.n become the whole tiles' extent.
std::size_t edge_of(const Configuration& route, std::size_t x, std::size_t tile) {
  const std::size_t most = route.at("SGEMM_EDGE");
  return most > 0 && x > tile && x % tile <= most ? x % tile : 0;
}
void take_edges(SgemmPlan::Impl& im, const Configuration& route) {
  if (im.batch > 1 || im.table) return;
  im.edge_m = edge_of(route, im.m, im.mt), im.edge_n = edge_of(route, im.n, im.nt);
  im.m -= im.edge_m, im.n -= im.edge_n;
}

// The tiled paths' geometry; returns the multiply's configuration.
Configuration plan_tiled(SgemmPlan::Impl& im, const DeviceInfo& dev, const Configuration& route, const Tuning& tuning) {
  const bool stream = im.path == SgemmPath::Stream;
  const char* fam = stream ? "sgemm_stream" : "sgemm_xgemm";
  const Configuration cfg =
      resolve_configuration(fam, sgemm_size_class(im.m, im.n, im.k, im.batch), dev, sgemm_tuning_for(tuning, fam));
  im.cfgs.push_back(cfg);
  if (stream) {
    im.mt = static_cast<std::size_t>(cfg.at("SGS_WG")) * cfg.at("SGS_MWI");
    im.nt = cfg.at("SGS_N"), im.kt = cfg.at("SGS_K"), im.va = cfg.at("SGS_MWI"), im.vb = 1;
  } else {
    im.mt = cfg.at("MWG"), im.nt = cfg.at("NWG"), im.kt = cfg.at("KWG"), im.va = cfg.at("VWM"), im.vb = cfg.at("VWN");
  }
  take_edges(im, route);
  im.mp = round_up(im.m, im.mt), im.np = round_up(im.n, im.nt), im.kp = round_up(im.k, im.kt);
  require(im.mp <= kMaxDim && im.np <= kMaxDim && im.kp <= kMaxDim, kSgemmRoutine, "padded sizes must be below 2^31");

  // An operand already in k-major form with tile-multiple sizes and aligned rows is read in
  // place; the others are packed into the workspace. Panels (PANEL) are always packed.
  im.panel = !stream && cfg.at("PANEL") != 0;
  im.pack_a = im.table || im.panel ||
              !(!im.ta && im.m == im.mp && im.k == im.kp && im.a_ld % im.va == 0 && im.a_off % im.va == 0 &&
                im.a_z % im.va == 0);
  im.pack_b = im.table || im.panel ||
              !(im.tb && im.n == im.np && im.k == im.kp && im.b_ld % im.vb == 0 && im.b_off % im.vb == 0 &&
                im.b_z % im.vb == 0);
  im.a_elems = im.pack_a ? round_up(im.kp * im.mp, 64) : 0;
  im.b_elems = im.pack_b ? round_up(im.kp * im.np, 64) : 0;
  // One packed matrix per product, one for all of them when the caller's stride is 0. A batch
  // runs in groups of zchunk products that share the workspace, so that a batch of any size
  // packs into at most sgemm_batch_workspace_limit() bytes (or one product's operands).
  const std::size_t per = (im.a_each() ? im.a_elems : 0) + (im.b_each() ? im.b_elems : 0);
  const std::size_t fit = per > 0 ? sgemm_batch_workspace_limit() / sizeof(float) / per : im.batch;
  im.zchunk = std::max<std::size_t>(1, std::min({im.batch, fit, kSgemmMaxBatchLaunch}));
  im.a_mats = im.pack_a ? (im.a_each() ? im.zchunk : 1) : 0;
  im.b_mats = im.pack_b ? (im.b_each() ? im.zchunk : 1) : 0;
  // Split k: `slices` partial products of mp x np floats each, after the packed operands (a
  // batch fills the device with its products instead).
  const std::size_t ktiles = im.kp / im.kt;
  im.slices = stream || im.batch > 1 ? 1 : k_slices_for(route, dev, (im.mp / im.mt) * (im.np / im.nt), ktiles);
  im.kt_split = ceil_div(ktiles, im.slices);
  // K blocks, one launch each (not with a split, whose slices already divide k).
  const std::size_t kblock = stream ? 0 : static_cast<std::size_t>(cfg.at("KBLOCK")) / im.kt;
  im.kblock_tiles = im.slices == 1 && kblock > 0 && kblock < ktiles ? kblock : 0;
  im.kblocks = im.kblock_tiles > 0 ? ceil_div(ktiles, im.kblock_tiles) : 1;
  im.w_elems = im.slices > 1 ? mul_or_throw(im.slices, im.mp * im.np, kSgemmRoutine, "the k slices' workspace") : 0;
  const std::size_t packed = add_or_throw(mul_or_throw(im.a_mats, im.a_elems, kSgemmRoutine, "the batch's packed A"),
                                          mul_or_throw(im.b_mats, im.b_elems, kSgemmRoutine, "the batch's packed B"),
                                          kSgemmRoutine, "the packing workspace");
  mul_or_throw(add_or_throw(packed, im.w_elems, kSgemmRoutine, "the packing workspace"), sizeof(float), kSgemmRoutine,
               "the packing workspace in bytes");
  // The multiply's output: C, or with a split the workspace's slices (whole vectors: the
  // offset is a multiple of 64 and mp of the tile).
  const std::size_t out_off = im.slices > 1 ? packed : im.c_off;
  const std::size_t out_ld = im.slices > 1 ? im.mp : im.c_ld;
  im.c_vec = out_off % im.va == 0 && out_ld % im.va == 0 && (im.table ? im.c_align : im.c_z) % im.va == 0;
  if (stream) {
    im.sig = &kSgemmStream;
    im.global = cl::NDRange(im.mp / im.mt * cfg.at("SGS_WG"), im.np / im.nt, im.zchunk);
    im.local = cl::NDRange(cfg.at("SGS_WG"), 1, 1);
  } else {
    im.sig = &kSgemmXgemm;
    // The third dimension: k slices, or a group's products (never both).
    im.global = cl::NDRange(im.mp / im.mt * cfg.at("MDIMC"), im.np / im.nt * cfg.at("NDIMC"), im.slices * im.zchunk);
    im.local = cl::NDRange(cfg.at("MDIMC"), cfg.at("NDIMC"), 1);
  }
  return cfg;
}

std::string index_option(bool long_index) { return long_index ? "-DCLF_LONG_INDEX=1" : ""; }

// The offsets table: row z holds product z's offsets of the internal A, B and C (the caller's B,
// A and C in row-major storage; 0 for an operand that describes no element) as T, the kernels'
// index type.
template <typename T>
cl::Buffer offsets_table(const cl::Context& context, const SgemmPlan::Impl& im, const Checked& c) {
  const SgemmDesc& d = c.desc;
  const std::vector<std::size_t>* cols[3] = {im.swap ? &d.b_offsets : &d.a_offsets,
                                             im.swap ? &d.a_offsets : &d.b_offsets, &d.c_offsets};
  const bool used[3] = {c.span[im.swap ? 1 : 0] > 0, c.span[im.swap ? 0 : 1] > 0, c.span[2] > 0};
  std::vector<T> rows(3 * d.batch);
  for (std::size_t z = 0; z < d.batch; ++z)
    for (int i = 0; i < 3; ++i) rows[3 * z + i] = used[i] ? static_cast<T>((*cols[i])[z]) : T(0);
  cl_int st = CL_SUCCESS;
  cl::Buffer b(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, rows.size() * sizeof(T), rows.data(), &st);
  check(st, "clCreateBuffer", "sgemm offsets table");
  return b;
}

// The direct path of the internal problem in `im`: its configuration, ranges and program.
void plan_direct(SgemmPlan::Impl& im, const QueueContext& qc, const Tuning& tuning, bool long_index) {
  const Configuration cfg = resolve_configuration("sgemm_direct", sgemm_direct_variant(im.m, im.n, im.batch), *qc.info,
                                                  sgemm_tuning_for(tuning, "sgemm_direct"));
  im.cfgs.push_back(cfg);
  im.long_index = long_index;
  const std::size_t wgd = cfg.at("WGD"), lx = cfg.at("MDIMCD"), ly = cfg.at("NDIMCD");
  im.global = cl::NDRange(ceil_div(im.m, wgd) * lx, ceil_div(im.n, wgd) * ly, std::min(im.batch, kSgemmMaxBatchLaunch));
  im.local = cl::NDRange(lx, ly, 1);
  im.sig = &kSgemmDirect[im.ta][im.tb];
  im.program = get_program(qc, kernel_spec("sgemm_direct"), cfg, index_option(long_index));
  get_kernel(im.program, im.sig->kernel);  // fails here, not at the first enqueue, if missing
}

// The edge strips of a tiled plan (take_edges), direct-path plans on the same buffers and
// scalars in the internal problem's coordinates: the columns right of the whole tiles over
// every row, then the rows below them under the whole tiles' columns. The parent lists the
// direct kernel's configuration among its own.
void plan_strips(SgemmPlan::Impl& im, const QueueContext& qc, const Tuning& tuning, bool long_index) {
  const auto strip = [&](std::size_t m, std::size_t n, std::size_t a_off, std::size_t b_off, std::size_t c_off) {
    auto s = std::make_shared<SgemmPlan::Impl>();
    s->desc = im.desc, s->context = im.context, s->device = im.device, s->path = SgemmPath::Direct;
    s->m = m, s->n = n, s->k = im.k, s->ta = im.ta, s->tb = im.tb;
    s->a_off = a_off, s->a_ld = im.a_ld, s->b_off = b_off, s->b_ld = im.b_ld, s->c_off = c_off, s->c_ld = im.c_ld;
    plan_direct(*s, qc, tuning, long_index);
    if (im.strips.empty()) im.cfgs.push_back(s->cfgs.back());
    im.strips.push_back(std::move(s));
  };
  // Column j of the internal op(B) starts j elements (B transposed) or j columns in.
  if (im.edge_n > 0)
    strip(im.m + im.edge_m, im.edge_n, im.a_off, im.b_off + im.n * (im.tb ? 1 : im.b_ld), im.c_off + im.n * im.c_ld);
  // Row i of the internal op(A) starts i elements (A not transposed) or i columns in.
  if (im.edge_m > 0) strip(im.edge_m, im.n, im.a_off + im.m * (im.ta ? im.a_ld : 1), im.b_off, im.c_off + im.m);
}

std::shared_ptr<const SgemmPlan::Impl> build(const QueueContext& qc, const Checked& c, const Tuning& tuning) {
  const DeviceInfo& dev = *qc.info;
  sgemm_validate_overrides(tuning, dev);
  auto im = std::make_shared<SgemmPlan::Impl>();
  const SgemmDesc& d = c.desc;
  im->desc = d;
  im->span = c.span;
  im->context = qc.context;
  im->device = qc.device();
  const Configuration route = route_of(dev, tuning, d.batch);
  im->cfgs.push_back(route);

  // The internal column-major problem.
  im->swap = d.layout == Layout::RowMajor;
  im->m = im->swap ? d.n : d.m, im->n = im->swap ? d.m : d.n, im->k = d.k;
  const bool ta = d.trans_a == Transpose::Yes, tb = d.trans_b == Transpose::Yes;
  im->ta = im->swap ? tb : ta, im->tb = im->swap ? ta : tb;
  im->a_off = im->swap ? d.b_offset : d.a_offset, im->a_ld = im->swap ? d.b_ld : d.a_ld;
  im->b_off = im->swap ? d.a_offset : d.b_offset, im->b_ld = im->swap ? d.a_ld : d.b_ld;
  im->c_off = d.c_offset, im->c_ld = d.c_ld;
  if (d.batch > 1) {  // a single product keeps strides of 0, whatever the description says
    im->batch = d.batch;
    im->a_z = im->swap ? d.b_stride : d.a_stride, im->b_z = im->swap ? d.a_stride : d.b_stride;
    im->c_z = d.c_stride;
  }
  im->path = d.batch == 0 ? SgemmPath::Nothing : path_for(route, im->m, im->n, im->k, d.alpha, d.beta);
  if (c.table) {  // offsets and strides stay 0: the kernels read the table
    im->table = true;
    im->batch = d.batch;
    im->offsets = c.offsets;
    im->c_align = std::accumulate(d.c_offsets.begin(), d.c_offsets.end(), std::size_t(0),
                                  [](std::size_t g, std::size_t x) { return std::gcd(g, x); });
  }

  // The offsets table's entries are indexed as 3 z + column in the kernels' index type too.
  const bool table_long = c.table && d.batch > kMaxInt32Index / 3;
  const bool operands_long = std::max(c.end[0], c.end[1]) > kMaxInt32Index || table_long;
  const bool c_long = c.end[2] > kMaxInt32Index || table_long;
  switch (im->path) {
    case SgemmPath::Nothing:
      break;
    case SgemmPath::Scale: {
      im->long_index = c_long;  // A and B are not read
      const PackShape ps = pack_shape(*im, dev, tuning);
      im->sum_global = ps.global(im->m, im->n, std::min(im->batch, kSgemmMaxBatchLaunch));
      im->pack = get_program(qc, kernel_spec("sgemm_pack"), ps.cfg, index_option(im->long_index));
      get_kernel(im->pack, kSgemmSumScale.kernel);  // fails here, not at the first enqueue, if missing
      break;
    }
    case SgemmPath::Direct:
      plan_direct(*im, qc, tuning, operands_long || c_long);
      break;
    case SgemmPath::Xgemm:
    case SgemmPath::Stream: {
      const Configuration cfg = plan_tiled(*im, dev, route, tuning);
      im->long_index = operands_long || c_long || im->workspace_elems() > kMaxInt32Index;
      const bool uses_pack = im->pack_a || im->pack_b || im->slices > 1;  // packing and the split-k sum
      PackShape ps;
      if (uses_pack) {
        ps = pack_shape(*im, dev, tuning);
        im->pack_a_global = ps.global(im->mp, im->kp, std::max<std::size_t>(1, im->a_mats));
        im->pack_b_global = ps.global(im->np, im->kp, std::max<std::size_t>(1, im->b_mats));
        im->sum_global = ps.global(im->m, im->n, 1);  // the split-k sum (a single product)
      }
      const std::string fam = cfg.kernel;
      im->program = get_program(qc, kernel_spec(fam), cfg, sgemm_extra_options(dev, fam, cfg, im->long_index));
      get_kernel(im->program, im->sig->kernel);
      if (uses_pack) {
        im->pack = get_program(qc, kernel_spec("sgemm_pack"), ps.cfg, index_option(im->long_index));
        for (const KernelSignature* s : {&kSgemmPackCopy, &kSgemmPackTrans, &kSgemmPackPair, &kSgemmSumScale})
          get_kernel(im->pack, s->kernel);
      }
      if (im->edge_m + im->edge_n > 0) plan_strips(*im, qc, tuning, operands_long || c_long);
      break;
    }
  }
  if (im->table && im->path != SgemmPath::Nothing)
    im->zt = im->long_index ? offsets_table<cl_long>(qc.context, *im, c) : offsets_table<cl_int>(qc.context, *im, c);
  return im;
}

std::string number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}
}  // namespace

SgemmPath sgemm_path(const DeviceInfo& device, std::size_t m, std::size_t n, std::size_t k, float alpha, float beta,
                     const Tuning& tuning, std::size_t batch) {
  return path_for(route_of(device, tuning, batch), m, n, k, alpha, beta);
}

std::size_t sgemm_k_slices(const DeviceInfo& device, std::size_t m, std::size_t n, std::size_t k,
                           const Tuning& tuning) {
  const Configuration cfg =
      resolve_configuration("sgemm_xgemm", sgemm_size_class(m, n, k), device, sgemm_tuning_for(tuning, "sgemm_xgemm"));
  const Configuration route = route_of(device, tuning);
  const std::size_t mt = cfg.at("MWG"), nt = cfg.at("NWG");  // the tiles the multiply runs, past the edge strips
  return k_slices_for(route, device, ceil_div(m - edge_of(route, m, mt), mt) * ceil_div(n - edge_of(route, n, nt), nt),
                      ceil_div(k, cfg.at("KWG")));
}

SgemmPlan SgemmPlanAccess::make(const QueueContext& qc, const SgemmDesc& desc, const Tuning& tuning) {
  const Checked c = check_desc(desc);
  return SgemmPlan(build(qc, c, tuning));
}

SgemmPath SgemmPlanAccess::path(const SgemmPlan& plan) { return plan.impl_->path; }
std::size_t SgemmPlanAccess::k_slices(const SgemmPlan& plan) { return plan.impl_->slices; }
std::size_t SgemmPlanAccess::batch_group(const SgemmPlan& plan) { return plan.impl_->zchunk; }

void SgemmPlanAccess::run(const SgemmPlan& plan, cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& b,
                          const cl::Buffer& c, const EventList& wait_list, cl::Event* event) {
  plan.impl_->run(queue, a, b, c, wait_list, event);
}

}  // namespace detail

SgemmPlan::SgemmPlan(const cl::CommandQueue& queue, const SgemmDesc& desc, const Tuning& tuning) {
  using namespace detail;
  const Checked c = check_desc(desc);  // everything that needs neither queue nor device first
  require(queue() != nullptr, kSgemmRoutine, "null command queue");
  impl_ = build(queue_context_of(queue), c, tuning);
}

void SgemmPlan::enqueue(cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
                        const EventList& wait_list, cl::Event* event) const {
  using namespace detail;
  require_plan_queue(kSgemmRoutine, queue, impl_->context(), impl_->device);
  const SgemmDesc& d = impl_->desc;
  if (impl_->table)
    sgemm_check_offset_buffers(d, impl_->span, impl_->offsets, {&a, &b, &c});
  else
    sgemm_check_buffers(impl_->span, {&a, &b, &c}, {d.a_offset, d.b_offset, d.c_offset});
  impl_->run(queue, a, b, c, wait_list, event);
}

namespace {
// The checks of a packed A: the plan packs A, and `packed` holds its bytes and is not `other`.
void check_packed_a(const SgemmPlan::Impl& p, const cl::Buffer& packed, const cl::Buffer& other,
                    const char* other_name) {
  using namespace detail;
  require(p.packed_a_bytes() > 0, kSgemmRoutine, "this plan does not pack A (packed_a_bytes() is 0)");
  require(packed() != other(), kSgemmRoutine,
          [&] { return std::string("packed_a must be another buffer than ") + other_name; });
  require_extent(kSgemmRoutine, "packed_a", packed, 0, p.packed_a_bytes() / sizeof(float), sizeof(float));
}
}  // namespace

std::size_t SgemmPlan::packed_a_bytes() const { return impl_->packed_a_bytes(); }

void SgemmPlan::pack_a(cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& packed,
                       const EventList& wait_list, cl::Event* event) const {
  using namespace detail;
  require_plan_queue(kSgemmRoutine, queue, impl_->context(), impl_->device);
  check_packed_a(*impl_, packed, a, "a");
  sgemm_check_buffers({impl_->span[0], 0, 0}, {&a, &a, &a}, {impl_->desc.a_offset, 0, 0});
  impl_->pack_a_into(queue, a, packed, wait_list, event);
}

void SgemmPlan::enqueue_packed_a(cl::CommandQueue& queue, const cl::Buffer& packed_a, const cl::Buffer& b,
                                 const cl::Buffer& c, const EventList& wait_list, cl::Event* event) const {
  using namespace detail;
  require_plan_queue(kSgemmRoutine, queue, impl_->context(), impl_->device);
  check_packed_a(*impl_, packed_a, c, "c");
  const SgemmDesc& d = impl_->desc;
  sgemm_check_buffers({0, impl_->span[1], impl_->span[2]}, {&packed_a, &b, &c}, {0, d.b_offset, d.c_offset});
  impl_->run(queue, packed_a, b, c, wait_list, event, &packed_a);
}

const SgemmDesc& SgemmPlan::desc() const { return impl_->desc; }
const std::vector<Configuration>& SgemmPlan::configurations() const { return impl_->cfgs; }
std::size_t SgemmPlan::workspace_bytes() const { return impl_->workspace_elems() * sizeof(float); }

std::string SgemmPlan::describe() const {
  using detail::SgemmPath;
  const Impl& p = *impl_;
  const SgemmDesc& d = p.desc;
  std::string s = "sgemm " + std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k) +
                  (d.layout == Layout::RowMajor ? " row-major " : " column-major ") +
                  (d.trans_a == Transpose::Yes ? "T" : "N") + (d.trans_b == Transpose::Yes ? "T" : "N") + ", alpha " +
                  detail::number(d.alpha) + ", beta " + detail::number(d.beta) +
                  (d.batch == 1 ? std::string()
                   : p.table    ? ", batch " + std::to_string(d.batch) + " (offsets)"
                             : ", batch " + std::to_string(d.batch) + " (strides " + std::to_string(d.a_stride) + "/" +
                                   std::to_string(d.b_stride) + "/" + std::to_string(d.c_stride) + ")") +
                  ": ";
  switch (p.path) {
    case SgemmPath::Nothing:
      return s + "nothing to compute (C is left as it is)";
    case SgemmPath::Scale:
      s += "C = beta * C (A and B are not read)";
      break;
    case SgemmPath::Direct:
      s += "direct kernel " + std::string(p.sig->kernel) + ", " + std::to_string(p.cfgs.back().at("WGD")) + "x" +
           std::to_string(p.cfgs.back().at("WGD")) + " C tiles";
      break;
    case SgemmPath::Xgemm:
    case SgemmPath::Stream: {
      // The caller's A is the internal B in row-major storage.
      const bool a_packed = p.swap ? p.pack_b : p.pack_a, b_packed = p.swap ? p.pack_a : p.pack_b;
      s += std::string(detail::to_string(p.path)) + " with " + std::to_string(p.mt) + "x" + std::to_string(p.nt) +
           " C tiles, k tiles of " + std::to_string(p.kt) + ", " + std::to_string(p.slices) +
           (p.slices == 1 ? " k slice; A " : " k slices; A ") + (a_packed ? "packed" : "read in place") + ", B " +
           (b_packed ? "packed" : "read in place") + (p.panel ? " (in panels of a tile's width)" : "") +
           (p.kblocks > 1 ? "; " + std::to_string(p.kblocks) + " k blocks" : "") +
           (p.zchunk < p.batch ? "; groups of " + std::to_string(p.zchunk) + " products" : "") +
           (p.strips.empty() ? std::string()
                             : "; edges on the direct kernel: " + std::to_string(p.edge_m) + " rows, " +
                                   std::to_string(p.edge_n) + " columns") +
           "; workspace " + detail::number(static_cast<double>(workspace_bytes()) / (1024.0 * 1024.0)) + " MiB";
      break;
    }
  }
  return s + (p.long_index ? ", 64-bit indices" : "");
}

}  // namespace clforge
