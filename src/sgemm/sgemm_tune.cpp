// Tuning targets of the sgemm kernels, one per kernel family (docs/tuning.md): `clforge tune
// sgemm` searches sgemm_xgemm, `sgemm_stream` and `sgemm_direct` the other two; each run
// forces its path through the routing parameters. `sgemm_route` searches those routing
// parameters themselves (one row, variant "*"), every shape timed with the kernels' rows, and
// `sgemm_pack` the packing kernels' (one row, variant "*") on sgemm_xgemm's path.
// Sizes "N", "MxNxK", optionally ":NT" etc. (op of A, op of B; column-major, tight leading
// dimensions). Candidates are checked against the double-precision host reference with the bound
// of host::gemm_tolerance: every entry of a check size, whole seeded rows of C of a timed size
// (the first, the last and others: about 16384 entries, 8 to 64 rows); all of C must be finite
// and its guard tail must stay NaN.
#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>

#include "clforge/sgemm.hpp"
#include "host/data.hpp"
#include "host/gemm.hpp"
#include "runtime/errors.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner.hpp"

namespace clforge::detail {

SgemmSize parse_sgemm_size(const std::string& text) {
  static const std::string kSyntax = "N, MxNxK, optionally followed by :NN, :NT, :TN or :TT, then by @B (a batch)";
  auto bad = [&](const std::string& why) {
    return InvalidArgument("sgemm size '" + text + "': " + why + " (sizes are " + kSyntax + ")");
  };
  SgemmSize s;
  std::string dims = text;
  if (const auto at = dims.find('@'); at != std::string::npos) {
    s.batch = parse_size_count(dims.substr(at + 1), "sgemm", text, kSyntax, std::size_t{1} << 30);
    dims = dims.substr(0, at);
  }
  if (const auto colon = dims.find(':'); colon != std::string::npos) {
    const std::string ops = dims.substr(colon + 1);
    dims = dims.substr(0, colon);
    if (ops.size() != 2 || (ops[0] != 'N' && ops[0] != 'T') || (ops[1] != 'N' && ops[1] != 'T'))
      throw bad("'" + ops + "' is not NN, NT, TN or TT");
    s.ta = ops[0] == 'T';
    s.tb = ops[1] == 'T';
  }
  std::vector<std::size_t> v;
  std::size_t pos = 0;
  for (;;) {
    const auto x = dims.find('x', pos);
    const std::string part = dims.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    v.push_back(parse_size_count(part, "sgemm", text, kSyntax, INT_MAX));
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  if (v.size() == 1)
    s.m = s.n = s.k = v[0];
  else if (v.size() == 3)
    s.m = v[0], s.n = v[1], s.k = v[2];
  else
    throw bad("expected one or three dimensions");
  return s;
}

namespace {

constexpr double kTuneBatchBytes = 256.0 * 1024 * 1024;  // tune all's batches: operands of at most this
constexpr double kCheapBytes = 64.0 * 1024 * 1024;       // sizes every search times: operands of at most this

// The multiply-adds of one product.
double product_mnk(const SgemmSize& z) {
  return static_cast<double>(z.m) * static_cast<double>(z.n) * static_cast<double>(z.k);
}

// The bytes of one product's A, B and C.
double product_bytes(const SgemmSize& z) {
  const double m = static_cast<double>(z.m), n = static_cast<double>(z.n), k = static_cast<double>(z.k);
  return 4.0 * (m * k + k * n + m * n);
}

class SgemmInstance : public TuneInstance {
 public:
  SgemmInstance(cl::CommandQueue& queue, const SgemmSize& z, const std::string& kernel, std::uint64_t seed,
                Verification verification)
      : z_(z), kernel_(kernel) {
    sh_.trans_a = z.ta;
    sh_.trans_b = z.tb;
    sh_.m = z.m, sh_.n = z.n, sh_.k = z.k;
    sh_.lda = z.ta ? z.k : z.m;
    sh_.ldb = z.tb ? z.n : z.k;
    sh_.ldc = z.m;
    desc_.trans_a = z.ta ? Transpose::Yes : Transpose::No;
    desc_.trans_b = z.tb ? Transpose::Yes : Transpose::No;
    desc_.m = z.m, desc_.n = z.n, desc_.k = z.k;
    desc_.alpha = 1.0f, desc_.beta = 0.0f;
    desc_.a_ld = sh_.lda, desc_.b_ld = sh_.ldb, desc_.c_ld = sh_.ldc;
    desc_.batch = z.batch;
    desc_.a_stride = z.m * z.k, desc_.b_stride = z.k * z.n, desc_.c_stride = z.m * z.n;
    const std::vector<float> a = host::random_floats(z.m * z.k * z.batch, seed),
                             b = host::random_floats(z.k * z.n * z.batch, seed + 1);
    // The first product, the last and one between (every product of a small checked batch).
    std::vector<std::size_t> products = {0};
    if (verification == Verification::Full && z.batch <= 8) {
      for (std::size_t p = 1; p < z.batch; ++p) products.push_back(p);
    } else if (z.batch > 1) {
      if (z.batch > 2) products.push_back(z.batch / 2);
      products.push_back(z.batch - 1);
    }
    for (const std::size_t p : verification == Verification::None ? std::vector<std::size_t>{} : products)
      add_reference(a.data() + p * desc_.a_stride, b.data() + p * desc_.b_stride, p * desc_.c_stride, verification,
                    seed + 2 + p);
    const cl::Context ctx = queue_context(queue);
    a_ = input_buffer(ctx, a, "tuner sgemm A");
    b_ = input_buffer(ctx, b, "tuner sgemm B");
    c_ = GuardedOutput(ctx, z.m * z.n * z.batch, "tuner sgemm C");
  }

  std::string label() const override {
    return std::to_string(z_.m) + "x" + std::to_string(z_.n) + "x" + std::to_string(z_.k) + " " + (z_.ta ? "T" : "N") +
           (z_.tb ? "T" : "N") + (z_.batch > 1 ? " batch " + std::to_string(z_.batch) : "");
  }

  // The plan run() enqueues for these parameters: built here, on a worker thread, so that the
  // programs (the kernel family's, and the packing kernels' the tiled paths use) are compiled
  // before the candidate is evaluated.
  void build(const QueueContext& qc, const Configuration& cfg) const override {
    plans_.keep(cfg.values, std::make_shared<const SgemmPlan>(SgemmPlanAccess::make(qc, desc_, tuning_of(cfg.values))));
  }

  void poison(cl::CommandQueue& queue) override { c_.poison(queue); }

  cl::Event run(cl::CommandQueue& queue, const ParamMap& params) override {
    const auto plan =
        plans_.get(params, [&] { return std::make_shared<const SgemmPlan>(queue, desc_, tuning_of(params)); });
    plan->enqueue(queue, a_, b_, c_.buffer());
    return cl::Event();  // packing and multiply: timed between markers
  }

  std::vector<float>& read_output(cl::CommandQueue& queue) override { return c_.read(queue); }

  Verdict check(const std::vector<float>& out) const override {
    Verdict v;
    if (!c_.scan(out, "C", v)) return v;
    std::vector<float> y(index_.size());
    for (std::size_t e = 0; e < index_.size(); ++e) y[e] = out[index_[e]];
    const double err = host::gemm_scaled_error(y.data(), ref_.data(), mag_.data(), y.size());
    const double tol = host::gemm_tolerance(z_.k);
    v.error = std::isfinite(err) ? err : 1.0;
    if (!(err <= tol))
      v.message = label() + ": " + host::compare(y.data(), ref_.data(), y.size()).summary() + ", scaled error " +
                  std::to_string(err) + " above " + std::to_string(tol);
    v.ok = err <= tol;
    return v;
  }

  // A whole row of C: the first compared one, or the first one the sample skips (the middle one
  // when every row is compared).
  std::vector<std::size_t> fault_region(bool in_sample) const override {
    const std::size_t i = fault_index(rows_, z_.m, in_sample);
    std::vector<std::size_t> region;
    for (std::size_t j = 0; j < z_.n; ++j) region.push_back(host::gemm_c_index(sh_, i, j));
    return region;
  }

 private:
  // The candidate's parameters with the route forced onto the tuned kernel family. A route
  // candidate runs with the kernels' rows as the library resolves them (the user database's first:
  // tune all tunes the kernels before the route).
  Tuning tuning_of(const ParamMap& params) const {
    if (kernel_ == "sgemm_route") return Tuning{params, true};
    ParamMap p = params;
    if (kernel_ == "sgemm_direct") {
      p["SGEMM_DIRECT_MAX"] = 16384;
    } else {
      p["SGEMM_DIRECT_MAX"] = 0;
      p["SGEMM_TILED"] = kernel_ == "sgemm_stream" ? 1 : 0;
    }
    return Tuning{p, false};
  }

  // The reference of one product whose C starts at element c_offset: every entry (Full), else
  // whole rows, about kSampledEntries entries in all (8 to 64 rows). rows_ keeps the first
  // product's rows.
  void add_reference(const float* a, const float* b, std::size_t c_offset, Verification verification,
                     std::uint64_t seed) {
    std::vector<std::size_t> rows;
    if (verification == Verification::Full) {
      for (std::size_t i = 0; i < z_.m; ++i) rows.push_back(i);
    } else {
      rows = sample_indices(z_.m, std::clamp<std::size_t>(kSampledEntries / z_.n, 8, 64), seed);
    }
    std::vector<std::pair<std::size_t, std::size_t>> ij;
    for (const std::size_t i : rows)
      for (std::size_t j = 0; j < z_.n; ++j) ij.emplace_back(i, j);
    std::vector<double> ref, mag;
    host::gemm_entries(sh_, 1.0, a, b, 0.0, nullptr, ij, ref, &mag);
    for (const auto& [i, j] : ij) index_.push_back(c_offset + host::gemm_c_index(sh_, i, j));
    ref_.insert(ref_.end(), ref.begin(), ref.end());
    mag_.insert(mag_.end(), mag.begin(), mag.end());
    if (rows_.empty()) rows_ = std::move(rows);
  }

  SgemmSize z_;
  std::string kernel_;
  host::GemmShape sh_;
  SgemmDesc desc_;
  static constexpr std::size_t kSampledEntries = 16384;

  CandidatePlans<SgemmPlan> plans_;
  std::vector<std::size_t> rows_;   // checked rows of C, ascending
  std::vector<std::size_t> index_;  // checked elements of C
  std::vector<double> ref_, mag_;   // reference and magnitude at those elements
  cl::Buffer a_, b_;
  GuardedOutput c_;
};

// The search of each kernel: its seed axes and links, and the sizes tune all gives it.
void set_search(TuneTarget& t, const std::string& kernel) {
  // A star of single steps around the best so far, the tile's shape first: from the default row
  // (64 x 64 tiles of 8 x 8 work-items, vectors of 2) every parameter the H200's row changes is a
  // step or more away (256 x 128 of 16 x 16, vectors of 4, KWI 16, double-buffered), and random
  // draws of a space of 10^11 rarely come near (the H200's cold start of 2026-11-30: 9 to 65
  // candidates per class, none 2 % faster than the default).
  if (kernel == "sgemm_xgemm") {
    t.seed_axes = {"VWM",   "VWN", "MWG",  "NWG", "MDIMC", "NDIMC", "SA",    "SB",
                   "PANEL", "KWI", "DBUF", "KWG", "MDIMA", "NDIMB", "KBLOCK"};
    // A side of the tile with its work-items (each one's share kept), both sides so, both sides of
    // the tile alone (each work-item's share four times or a quarter), both vector widths.
    t.seed_links = {
        {"MWG", "MDIMC"}, {"NWG", "NDIMC"}, {"MWG", "NWG", "MDIMC", "NDIMC"}, {"MWG", "NWG"}, {"VWM", "VWN"}};
    // KWI's end (a whole k tile unrolled): on the H200 (2026-12-01, `clforge -d nvidia tune sgemm
    // --size 4096 --strategy exhaustive` on a grid about the shipped and cold-started rows) KWI 4
    // ran slower than 2 where 16 ran faster (128 x 128 tiles, KWG 32: 3.16, 2.99 and 2.93 ms;
    // 1000^3 and 1024^3, 128 x 64 of 32 x 4, double-buffered: KWI 2 0.073, 16 0.064 ms).
    t.seed_ends = {"KWI"};
  }
  if (kernel == "sgemm_xgemm" || kernel == "sgemm_stream") {
    // tune all: strided batches from 64^3 up; the smaller ones go to the direct kernel's batch
    // classes on every shipped row (C tiles fitted to 16^2 and 32^2). Timed on bench all's 16^3 and
    // 32^3 batches and 512 x 512 x 64, the tiled kernel's batch class of the H200's cold start of
    // 2026-12-01 stored a row 1.68x faster there that ran its 256^3 batch 1.46x slower.
    t.tune_all_keeps = [](const std::string& size) {
      const SgemmSize z = parse_sgemm_size(size);
      return z.batch <= 1 || product_mnk(z) >= 64.0 * 64 * 64;
    };
  }
  if (kernel == "sgemm_direct") {
    t.seed_axes = {"WGD", "VWMD", "VWND", "MDIMCD", "NDIMCD", "KWID"};
    // tune all: the products the route could give the direct kernel: up to 1024^3 (the shipped
    // rows cross over to the tiled kernels at 96^3 to 512^3), in strided batches up to 128^3 (the
    // shipped rows' batch crossovers: 96^3 to 128^3). Timed on all of bench all's products, the
    // direct kernel's class of the H200's cold start of 2026-12-01 spent 21 s of its job's 26 on
    // 4096^3 TT and the run-off's larger shapes, where no route runs it, and its three batch
    // classes measured their default alone. Timed on bench all's batches of 128^3 and 256^3 (its
    // quartiles; 0.53 ms a run), its batch class measured its default alone in the next cold
    // start too, and 64^3 x 10^4, the one size of that class the H200's route gives it, was never
    // timed.
    t.tune_all_keeps = [](const std::string& size) {
      const SgemmSize z = parse_sgemm_size(size);
      return product_mnk(z) <= (z.batch > 1 ? 128.0 * 128 * 128 : 1024.0 * 1024 * 1024);
    };
  }
  if (kernel == "sgemm_pack") {
    // One row packs every operand of the tiled kernels: each candidate times a product of each
    // packing kernel per operand (NN: A copied, B turned; TN: both turned) with the device's
    // multiply. tune all: the single products up to 2048^3, where packing is a share of the time
    // to win back (on the 2-core development VM, PoCL 3.1, the CPU row's packs took 3.9 of 10.3 ms
    // of 1024^3 TN: clforge -v -d cpu run sgemm --size 1024,trans=TN, CLFORGE_PROFILE_KERNELS=1).
    t.default_sizes = {"1024", "1024:TN"};
    t.time_every_size = true;
    t.tune_all_keeps = [](const std::string& size) {
      const SgemmSize z = parse_sgemm_size(size);
      return z.batch <= 1 && product_mnk(z) <= 2048.0 * 2048 * 2048;
    };
  }
  t.seed_neighbours = !t.seed_axes.empty();
  if (kernel == "sgemm_route") {
    // One row for every shape: the shapes on both sides of the crossovers, timed together.
    t.default_sizes = {"128", "384", "640", "1024", "64x64x16384"};
    t.time_every_size = true;
    // Each value of each choice on the best so far, the direct kernel's crossover first (in the
    // first batch, on the reference: TuneTarget::seed_axes): the choices act on different
    // shapes, and random draws change several at once. On the H200's cold start of 2026-11-30
    // nine draws over 14 shapes kept the default's crossover at 128^3 (256^3 at 0.66 of the
    // shipped rows, direct up to 512^3); the one draw with a crossover at 512^3 also split k.
    t.seed_axes = {"SGEMM_DIRECT_MAX", "SGEMM_TILED", "SGEMM_SPLITK", "SGEMM_SPLIT_WAVES"};
    // tune all: the products up to 4096^3. Every candidate times every size, and bench all's
    // larger ones (8192^3, 16384^3: 3 GiB of host data) lie past every crossover, where the
    // choice of tiled kernel is decided on 4096^3 as well (on the H200 the class of bench all's
    // 18 shapes took 80 s before its first candidate).
    t.tune_all_keeps = [](const std::string& size) {
      return product_mnk(parse_sgemm_size(size)) <= 4096.0 * 4096 * 4096;
    };
  }
}

TuneTarget make_target(const std::string& routine, const std::string& kernel) {
  TuneTarget t;
  t.routine = routine;
  t.kernel = kernel;
  t.size_syntax =
      "N (square) or MxNxK, optionally :NN, :NT, :TN or :TT (op of A, op of B), then @B (a strided batch of B "
      "products); column-major";
  t.default_sizes = {kernel == "sgemm_direct" ? "256" : "1024"};
  set_search(t, kernel);
  // tune all: a strided batch cut to the products whose operands (A, B and C) fill 256 MiB. Each
  // product runs alike in a batch of hundreds or of 10^4 (the device full either way), and the
  // size class does not depend on the count; making bench all's batches of 10^4 (7.9 GB of host
  // data at 256^3) took the whole share of the route's and the direct kernel's batch classes on
  // the H200 (cold start of 2026-12-01: 16.5 s of the route's 34 s set up, one candidate each).
  t.tune_all_size = [](const std::string& size) {
    const SgemmSize z = parse_sgemm_size(size);
    const auto fits = static_cast<std::size_t>(std::max(1.0, std::floor(kTuneBatchBytes / product_bytes(z))));
    if (z.batch <= fits) return size;
    return size.substr(0, size.rfind('@')) + "@" + std::to_string(fits);
  };
  // Exactly what the launcher resolves for the size. Strided batches ("@B") resolve variants of
  // their own: the direct kernel's "batch16", "batch32", "batch", the tiled kernels' "<class>:batch"
  // and the route's "batch" (route_of), so a batch's rows never set single products.
  t.variant_of = [kernel](const std::string& size) {
    const SgemmSize z = parse_sgemm_size(size);
    if (kernel == "sgemm_direct") return sgemm_direct_variant(z.m, z.n, z.batch);
    if (kernel == "sgemm_route") return sgemm_route_variant(z.batch);
    if (kernel == "sgemm_pack") return std::string("*");  // one row for every operand
    return sgemm_size_class(z.m, z.n, z.k, z.batch);
  };
  // Partial tiles in every direction for tiles up to 256 (a batch's: up to 128, in batches of
  // two and three products), every transpose pair.
  t.check_sizes = [](const std::string& variant, const std::vector<std::string>&) {
    if (variant.find("batch") != std::string::npos)
      return std::vector<std::string>{"13x29x45:NN@3", "31x17x33:TN@2", "67x131x45:NT@2", "130x67x59:TT@3"};
    return std::vector<std::string>{"67x131x45:NN", "257x129x33:TN", "130x67x259:NT", "33x260x70:TT"};
  };
  t.make = [kernel](cl::CommandQueue& queue, const std::string& size, std::uint64_t seed,
                    Verification verification) -> std::unique_ptr<TuneInstance> {
    return std::make_unique<SgemmInstance>(queue, parse_sgemm_size(size), kernel, seed, verification);
  };
  // Multiply-adds: bench all's 16384^3 (3 GiB of host data) beside the 8192^3 a class timed.
  t.size_work = [](const std::string& size) {
    const SgemmSize z = parse_sgemm_size(size);
    return product_mnk(z) * static_cast<double>(z.batch);
  };
  // Products whose operands fill at most 64 MiB (bench all's shapes up to 2048^3 and
  // 512 x 8192 x 512): each class's search times them all.
  t.cheap_size = [](const std::string& size) {
    const SgemmSize z = parse_sgemm_size(size);
    return product_bytes(z) * static_cast<double>(z.batch) <= kCheapBytes;
  };
  return t;
}

}  // namespace

TuneTarget sgemm_tune_target() { return make_target("sgemm", "sgemm_xgemm"); }
TuneTarget sgemm_stream_tune_target() { return make_target("sgemm_stream", "sgemm_stream"); }
TuneTarget sgemm_direct_tune_target() { return make_target("sgemm_direct", "sgemm_direct"); }
TuneTarget sgemm_route_tune_target() { return make_target("sgemm_route", "sgemm_route"); }
TuneTarget sgemm_pack_tune_target() { return make_target("sgemm_pack", "sgemm_pack"); }

}  // namespace clforge::detail
