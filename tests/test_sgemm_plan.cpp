// SgemmPlan: built once and enqueued many times on fresh data against the host reference,
// its description, its refusals before anything is enqueued, use from several threads, the
// free function's plan cache; the kernels' signatures against the compiled kernels; the tuning
// target (which builds and runs plans) and the 64-bit index builds.
#include <doctest/doctest.h>

#include <atomic>
#include <functional>
#include <limits>
#include <set>
#include <thread>

#include "runtime/host_io.hpp"
#include "runtime/launch.hpp"
#include "runtime/program_cache.hpp"
#include "sgemm/sgemm_internal.hpp"
#include "tests/sgemm_support.hpp"
#include "tests/support.hpp"
#include "tuning/spec.hpp"
#include "tuning/tuner_testing.hpp"

using namespace clforge;
using namespace clforge::sgemm_test;
using detail::SgemmPath;
using detail::SgemmPlanAccess;

namespace {

// Programs looked up (built, or found in the memory or disk cache) in this process.
std::uint64_t lookups(const CacheStats& c = cache_stats()) { return c.memory_hits + c.disk_hits + c.compiles; }

// 32 x 32 C tiles, k tiles of 16, vectors of 2, no split k, operands in rows and k in one launch:
// tile multiples decide the packing.
Tuning small_tiles() {
  return forced(SgemmPath::Xgemm, {{"MWG", 32},
                                   {"NWG", 32},
                                   {"KWG", 16},
                                   {"MDIMC", 8},
                                   {"NDIMC", 8},
                                   {"MDIMA", 8},
                                   {"NDIMB", 8},
                                   {"KWI", 2},
                                   {"VWM", 2},
                                   {"VWN", 2},
                                   {"STRM", 1},
                                   {"STRN", 1},
                                   {"SA", 1},
                                   {"SB", 1},
                                   {"DBUF", 1},
                                   {"PANEL", 0},
                                   {"KBLOCK", 0},
                                   {"NVRREG", 0},
                                   {"SGEMM_SPLITK", 0}});
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("sgemm") {
  TEST_CASE("SgemmPlan: built once, enqueued many times on fresh data, on every path") {
    auto& s = test::session();
    std::uint64_t seed = test::seed() + 120000;
    struct P {
      SgemmPath path;
      Tuning tuning;
      float alpha, beta;
    };
    const Tuning split = forced(SgemmPath::Xgemm, {{"SGEMM_SPLITK", 4}, {"SGEMM_SPLIT_WAVES", 64}});
    for (const P& p :
         {P{SgemmPath::Direct, forced(SgemmPath::Direct), -0.5f, 2.5f},
          P{SgemmPath::Xgemm, forced(SgemmPath::Xgemm), -0.5f, 2.5f}, P{SgemmPath::Xgemm, split, 1.0f, 0.0f},
          P{SgemmPath::Stream, forced(SgemmPath::Stream), -0.5f, 2.5f},
          P{SgemmPath::Scale, Tuning{{}, false}, 0.0f, 2.5f}, P{SgemmPath::Nothing, Tuning{{}, false}, 0.0f, 1.0f}}) {
      Case c;
      c.m = 67, c.n = 45, c.k = 333, c.alpha = p.alpha, c.beta = p.beta;
      c.ta = Transpose::Yes, c.layout = Layout::RowMajor;
      c.pad_a = 3, c.off_b = 5, c.off_c = 2, c.pad_c = 1;
      const SgemmPlan plan(s.queue, desc_of(c), p.tuning);
      CAPTURE(plan.describe());
      CHECK(SgemmPlanAccess::path(plan) == p.path);
      if (p.tuning.overrides.count("SGEMM_SPLITK")) CHECK(SgemmPlanAccess::k_slices(plan) >= 2);
      // Enqueues look nothing up: no program is built or found in a cache.
      const auto before = cache_stats();
      for (int i = 0; i < 3; ++i) CHECK(sgemm_problem(c, p.tuning, seed++, nullptr, &plan) == "");
      CHECK(lookups() == lookups(before));
    }
  }

  TEST_CASE("SgemmPlan::describe names the path, the tiles, the k slices and what is packed") {
    auto& s = test::session();
    SgemmDesc d;
    d.m = 64, d.n = 64, d.k = 32, d.trans_b = Transpose::Yes;  // leading dimensions 0: the smallest legal
    const SgemmPlan in_place(s.queue, d, small_tiles());
    CHECK(in_place.desc().a_ld == 64);
    CHECK(in_place.desc().b_ld == 64);
    CHECK(in_place.desc().c_ld == 64);
    CHECK(in_place.workspace_bytes() == 0);
    const std::string text = in_place.describe();
    INFO(text);
    CHECK(contains(text, "sgemm 64x64x32 column-major NT, alpha 1, beta 0: xgemm with 32x32 C tiles, k tiles of 16"));
    CHECK(contains(text, "1 k slice; A read in place, B read in place"));
    const std::vector<Configuration>& cfgs = in_place.configurations();
    REQUIRE(cfgs.size() == 2);  // nothing to pack: no sgemm_pack
    CHECK(cfgs[0].kernel == "sgemm_route");
    CHECK(cfgs[1].kernel == "sgemm_xgemm");
    CHECK(cfgs[1].variant == detail::sgemm_size_class(64, 64, 32));
    CHECK(cfgs[1].at("MWG") == 32);
    CHECK(cfgs[1].sources.at("MWG") == "override");

    // An offset that is not a multiple of the vector width: A is packed (32 k rows of 64 floats).
    d.a_offset = 1;
    const SgemmPlan a_packed(s.queue, d, small_tiles());
    CHECK(a_packed.workspace_bytes() == 32 * 64 * 4);
    CHECK(contains(a_packed.describe(), "A packed, B read in place; workspace 0.0078125 MiB"));
    CHECK(a_packed.configurations().back().kernel == "sgemm_pack");
    // Row-major NN is the column-major C^T = B^T A^T: the caller's B is read in place, A packed.
    SgemmDesc r;
    r.layout = Layout::RowMajor, r.m = 64, r.n = 64, r.k = 32;
    CHECK(contains(SgemmPlan(s.queue, r, small_tiles()).describe(), "row-major NN, alpha 1, beta 0: xgemm"));
    CHECK(contains(SgemmPlan(s.queue, r, small_tiles()).describe(), "A packed, B read in place"));
    // Panels (PANEL=1) pack both operands, also those that could be read in place.
    Tuning panels = small_tiles();
    panels.overrides["PANEL"] = 1;
    const SgemmPlan paneled(s.queue, d, panels);
    CHECK(contains(paneled.describe(), "A packed, B packed (in panels of a tile's width)"));
    CHECK(paneled.workspace_bytes() == 2 * 32 * 64 * 4);

    // The other paths.
    SgemmDesc z;
    z.m = 5, z.n = 0, z.k = 3;
    CHECK(
        contains(SgemmPlan(s.queue, z).describe(), "sgemm 5x0x3 column-major NN, alpha 1, beta 0: nothing to compute"));
    CHECK(SgemmPlan(s.queue, z).configurations().size() == 1);
    z.n = 4, z.alpha = 0, z.beta = 2;
    CHECK(contains(SgemmPlan(s.queue, z).describe(), "alpha 0, beta 2: C = beta * C"));
    z.alpha = -0.5f, z.trans_a = Transpose::Yes;
    const SgemmPlan direct(s.queue, z, forced(SgemmPath::Direct));
    CHECK(contains(direct.describe(), "alpha -0.5, beta 2: direct kernel sgemm_direct_tn"));
    CHECK(direct.configurations().back().kernel == "sgemm_direct");
    SgemmDesc k;
    k.m = 65, k.n = 47, k.k = 333;
    const SgemmPlan split(s.queue, k, forced(SgemmPath::Xgemm, {{"SGEMM_SPLITK", 4}, {"SGEMM_SPLIT_WAVES", 64}}));
    const std::size_t slices = SgemmPlanAccess::k_slices(split);
    CHECK(slices >= 2);
    CHECK(contains(split.describe(), std::to_string(slices) + " k slices"));
    CHECK(split.workspace_bytes() > 0);
  }

  TEST_CASE("SgemmPlan refuses bad descriptions before building, bad buffers and queues before enqueueing") {
    auto& s = test::session();
    const auto expect = test::expect_invalid_argument;
    SgemmDesc d;
    d.m = 40, d.n = 30, d.k = 20, d.a_offset = 3;
    const auto built = lookups();
    SgemmDesc bad = d;
    bad.a_ld = 39;
    expect([&] { SgemmPlan(s.queue, bad); }, "a.ld (39)");
    bad = d;
    bad.m = std::size_t(1) << 31;
    expect([&] { SgemmPlan(s.queue, bad); }, "m (");
    bad = d;
    bad.layout = static_cast<Layout>(7);
    expect([&] { SgemmPlan(s.queue, bad); }, "unknown layout");
    bad = d;
    bad.c_offset = std::numeric_limits<std::size_t>::max() - 10;
    expect([&] { SgemmPlan(s.queue, bad); }, "c.offset");
    expect([&] { SgemmPlan(s.queue, d, Tuning{{{"NOPE", 1}}, false}); }, "unknown parameter 'NOPE'");
    expect([&] { SgemmPlan(s.queue, d, Tuning{{{"MWG", 12}}, false}); }, "not legal");
    CHECK(lookups() == built);  // no program was looked up for a refused plan

    const SgemmPlan plan(s.queue, d, forced(SgemmPath::Xgemm));
    const cl_mem_flags rw = CL_MEM_READ_WRITE;
    cl::Buffer a(s.context, rw, (3 + 40 * 20) * 4), b(s.context, rw, 20 * 30 * 4), c(s.context, rw, 40 * 30 * 4);
    cl::Buffer tiny(s.context, rw, 16), shared(s.context, rw, 4000 * 4);
    cl::Context other(s.entry.device);
    cl::CommandQueue oq(other, s.entry.device);
    cl::Buffer oa(other, rw, (3 + 40 * 20) * 4), ob(other, rw, 20 * 30 * 4), oc(other, rw, 40 * 30 * 4);
    const detail::Activity before = detail::activity();
    expect([&] { plan.enqueue(s.queue, tiny, b, c); }, "a buffer too small");
    expect([&] { plan.enqueue(s.queue, a, tiny, c); }, "b buffer too small");
    expect([&] { plan.enqueue(s.queue, a, b, tiny); }, "c buffer too small");
    expect([&] { plan.enqueue(s.queue, cl::Buffer(), b, c); }, "a is a null buffer");
    expect([&] { plan.enqueue(s.queue, shared, b, shared); }, "c overlaps a");
    expect([&] { plan.enqueue(oq, oa, ob, oc); }, "another context");
    CHECK(detail::activity().enqueued == before.enqueued);
    CHECK(detail::activity().buffers == before.buffers);
    // The plan itself is fine on its own queue.
    Case k;
    k.m = 40, k.n = 30, k.k = 20, k.off_a = 3;
    CHECK(sgemm_problem(k, forced(SgemmPath::Xgemm), test::seed() + 125000, nullptr, &plan) == "");
  }

  TEST_CASE("SgemmPlan: edge strips past the whole tiles run on the direct kernel (SGEMM_EDGE)") {
    // 32 x 32 C tiles: 101 = 3 tiles + 5 rows, 71 = 2 tiles + 7 columns, both at most 8.
    auto& s = test::session();
    std::uint64_t seed = test::seed() + 126000;
    Tuning edges = small_tiles();
    edges.overrides["SGEMM_EDGE"] = 8;
    Case c;
    c.m = 101, c.n = 71, c.k = 45, c.pad_a = 3, c.pad_b = 1, c.pad_c = 2, c.off_a = 1, c.off_b = 2, c.off_c = 3;
    for (const Layout layout : kLayouts)
      for (const Transpose ta : kT)
        for (const Transpose tb : kT)
          for (const float beta : {0.0f, -1.5f}) {
            c.layout = layout, c.ta = ta, c.tb = tb, c.alpha = 0.75f, c.beta = beta;
            const SgemmPlan plan(s.queue, desc_of(c), edges);
            INFO(plan.describe());
            // Row-major swaps m and n: the internal C is 71 x 101, 7 rows and 5 columns past the tiles.
            CHECK(contains(plan.describe(), layout == Layout::ColMajor
                                                ? "edges on the direct kernel: 5 rows, 7 columns"
                                                : "edges on the direct kernel: 7 rows, 5 columns"));
            CHECK(plan.packed_a_bytes() == 0);  // the strips read the caller's A
            CHECK(sgemm_problem(c, edges, seed++, nullptr, &plan) == "");
          }
    // Strips with the other tiled kernel, with k slices, on an out-of-order queue; remainders
    // above SGEMM_EDGE, and products of less than one tile, keep the tiled multiply's guards.
    c.layout = Layout::ColMajor, c.ta = Transpose::Yes, c.tb = Transpose::No, c.beta = 2.5f;
    Tuning stream = forced(SgemmPath::Stream, {{"SGEMM_EDGE", 8}});
    Tuning split = edges;
    split.overrides["SGEMM_SPLITK"] = 4, split.overrides["SGEMM_SPLIT_WAVES"] = 64;
    cl_int st = CL_SUCCESS;
    cl::CommandQueue ooo(s.context, s.entry.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &st);
    for (const Tuning* t : {&stream, &split}) {
      const SgemmPlan plan(s.queue, desc_of(c), *t);
      INFO(plan.describe());
      CHECK(contains(plan.describe(), "edges on the direct kernel"));
      CHECK(sgemm_problem(c, *t, seed++, nullptr, &plan) == "");
      if (st == CL_SUCCESS) CHECK(sgemm_problem(c, *t, seed++, &ooo, &plan) == "");
    }
    {
      // k slices as sgemm_k_slices counts them, for the 6 whole tiles the multiply runs (not
      // the 12 of the whole C): on a device of 2 compute units, 16 slices for 6 tiles, 11 for 12.
      Tuning many = split;
      many.overrides["SGEMM_SPLITK"] = 16;
      Case deep = c;
      deep.k = 1024;
      const SgemmPlan plan(s.queue, desc_of(deep), many);
      CHECK(SgemmPlanAccess::k_slices(plan) == detail::sgemm_k_slices(s.entry.info, deep.m, deep.n, deep.k, many));
      CHECK(sgemm_problem(deep, many, seed++, nullptr, &plan) == "");
    }
    for (const Dims d : {Dims{101, 84, 20}, Dims{20, 9, 33}}) {  // 84 = 2 tiles + 20; 20 x 9: less than a tile
      c.m = d.m, c.n = d.n, c.k = d.k;
      const SgemmPlan plan(s.queue, desc_of(c), edges);
      INFO(plan.describe());
      CHECK(contains(plan.describe(), d.m == 101 ? "edges on the direct kernel: 5 rows, 0 columns"
                                                 : "1 k slice; A packed, B packed; workspace"));
      CHECK(sgemm_problem(c, edges, seed++, nullptr, &plan) == "");
    }
  }

  TEST_CASE("SgemmPlan used from several threads at once") {
    auto& s = test::session();
    Case c;
    c.m = 70, c.n = 52, c.k = 333, c.ta = Transpose::Yes, c.alpha = -0.5f, c.beta = 2.5f, c.off_c = 1;
    const Tuning t = forced(SgemmPath::Xgemm, {{"SGEMM_SPLITK", 4}, {"SGEMM_SPLIT_WAVES", 64}});
    const SgemmPlan plan(s.queue, desc_of(c), t);
    REQUIRE(plan.workspace_bytes() > 0);  // the calls share the context's packing workspace pool
    cl::CommandQueue shared(s.context, s.entry.device);
    cl_int st = CL_SUCCESS;
    cl::CommandQueue ooo(s.context, s.entry.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &st);
    if (st != CL_SUCCESS) ooo = shared;  // the device has no out-of-order queues
    std::atomic<int> right{0};
    std::vector<std::thread> threads;
    for (int th = 0; th < 5; ++th)
      threads.emplace_back([&, th] {
        // Two threads with a queue each, two on one shared queue, one on an out-of-order queue.
        cl::CommandQueue own(s.context, s.entry.device);
        cl::CommandQueue& q = th < 2 ? own : th < 4 ? shared : ooo;
        for (int i = 0; i < 4; ++i) {
          try {
            right += run_case(c, t, test::seed() + 130000 + 100 * th + i, q, &plan).ok();
          } catch (const std::exception&) {
          }
        }
      });
    for (auto& th : threads) th.join();
    CHECK(right == 20);
  }

  TEST_CASE("the free function runs cached plans, keyed by the whole description and the tuning") {
    clear_memory_cache();  // plans of earlier cases with these shapes go too
    std::uint64_t seed = test::seed() + 140000;
    Case c;
    c.m = 37, c.n = 29, c.k = 41, c.alpha = -0.5f, c.beta = 2.5f, c.off_b = 2;
    const Tuning t = forced(SgemmPath::Xgemm);
    CHECK(sgemm_problem(c, t, seed++) == "");
    const auto warm = cache_stats();
    CHECK(sgemm_problem(c, t, seed++) == "");  // the same call on other buffers and data: the cached plan
    CHECK(lookups() == lookups(warm));
    auto another_plan = [&](const Case& k, const Tuning& tuning) {
      const auto before = cache_stats();
      CHECK(sgemm_problem(k, tuning, seed++) == "");
      CHECK(lookups() > lookups(before));
    };
    Case k = c;
    k.alpha = 2.0f;
    another_plan(k, t);
    k = c;
    k.beta = -0.0f;
    another_plan(k, t);
    k = c;
    k.off_b = 3;
    another_plan(k, t);
    k = c;
    k.pad_c = 1;
    another_plan(k, t);
    another_plan(c, forced(SgemmPath::Stream));
  }

  TEST_CASE("every sgemm kernel's signature names its parameters as the compiled kernel does") {
    auto& s = test::session();
    // Built from source (the disk cache off), so the argument names come from the compiler.
    test::ScopedEnv no_disk("CLFORGE_CACHE_DIR", std::string("off"));
    const detail::QueueContext qc = detail::queue_context_of(s.queue);
    struct Family {
      const char* spec;
      std::vector<const detail::KernelSignature*> kernels;
    };
    const Family families[] = {
        {"sgemm_xgemm", {&detail::kSgemmXgemm}},
        {"sgemm_stream", {&detail::kSgemmStream}},
        {"sgemm_direct",
         {&detail::kSgemmDirect[0][0], &detail::kSgemmDirect[0][1], &detail::kSgemmDirect[1][0],
          &detail::kSgemmDirect[1][1]}},
        {"sgemm_pack",
         {&detail::kSgemmPackCopy, &detail::kSgemmPackTrans, &detail::kSgemmPackPair, &detail::kSgemmSumScale}}};
    for (const Family& f : families) {
      const Configuration cfg = resolve_configuration(f.spec, "*", s.entry.info, Tuning{{}, false});
      const cl::Program program = detail::get_program(qc, detail::kernel_spec(f.spec), cfg, "-cl-kernel-arg-info");
      for (const detail::KernelSignature* sig : f.kernels) {
        CAPTURE(sig->kernel);
        CHECK(test::compiled_params(program, sig->kernel) ==
              std::vector<std::string>(sig->args.begin(), sig->args.end()));
      }
    }
    const char* names[2][2] = {{"sgemm_direct_nn", "sgemm_direct_nt"}, {"sgemm_direct_tn", "sgemm_direct_tt"}};
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) CHECK(std::string(detail::kSgemmDirect[a][b].kernel) == names[a][b]);
  }

  TEST_CASE("clforge tune sgemm verifies candidates and stores the entry the launcher then uses") {
    auto& s = test::session();
    test::ScopedEnv user_dir("CLFORGE_USER_TUNING_DIR", test::temp_dir("sgemm-tune"));
    const DeviceInfo& dev = s.entry.info;
    TuneOptions o;
    o.sizes = {"96x80x64:NT"};
    o.compile_threads = 1;
    o.min_reps = 2, o.max_reps = 3, o.min_time_ms = 0;
    // A two-candidate space around the shipped CPU row (KWI = 2 or 4, the row has 4): the
    // KWI=2 candidate is made to look fastest, the other one is corrupted and must be rejected.
    for (const auto& [name, value] : vendor_row(VendorClass::CPU, "sgemm_xgemm")) o.param_values[name] = {value};
    o.param_values["KWI"] = {2, 4};
    const detail::TuneFaultScope fault([](const ParamMap& p) {
      detail::TuneFault f;
      if (p.at("KWI") == 2)
        f.time_scale = 1e-3;
      else
        f.corrupt_output = true;
      return f;
    });
    const TuneResult r = tune(s.queue, "sgemm", o);
    REQUIRE(r.classes.size() == 1);
    const TuneClassResult& c = r.classes[0];
    CHECK(r.kernel == "sgemm_xgemm");
    CHECK(c.variant == detail::sgemm_size_class(96, 80, 64));
    CHECK(c.rejected >= 1);
    REQUIRE(c.has_best);
    CHECK(c.best.at("KWI") == 2);
    CHECK(c.stored);
    const Configuration cfg = resolve_configuration("sgemm_xgemm", c.variant, dev);
    CHECK(cfg.values == c.best);
    CHECK(cfg.sources.at("KWI").find("user") == 0);
    // The stored entry is what the next call uses, and it computes the right answer. The
    // tuner built the plans its runs enqueued, so the call finds every program in memory.
    Case k;
    k.m = 96, k.n = 80, k.k = 64, k.tb = Transpose::Yes, k.alpha = -0.5f, k.beta = 2.5f;
    const CacheStats before = cache_stats();
    CHECK(sgemm_problem(k, Tuning{force(detail::SgemmPath::Xgemm), true}, test::seed() + 110000) == "");
    CHECK(cache_stats().compiles == before.compiles);
    CHECK(cache_stats().disk_hits == before.disk_hits);
  }

  TEST_CASE("clforge tune sgemm measures each kernel once: parameters the kernel or its compiler ignores") {
    auto& s = test::session();
    test::ScopedEnv user_dir("CLFORGE_USER_TUNING_DIR", test::temp_dir("sgemm-tune-canonical"));
    TuneOptions o;
    o.sizes = {"96x80x64:NT"};
    o.compile_threads = 4;  // batches of several: two configurations of one kernel must not share one
    o.min_reps = 2, o.max_reps = 2, o.min_time_ms = 0;
    o.store = false;
    // The CPU row stages neither tile (SA = SB = 0: the loaders' shapes MDIMA, NDIMB unread), has
    // one work-item per work-group (MDIMC = 1: STRM changes no index), and the register cap
    // reaches NVIDIA's compiler only: of these 32 configurations, 2 kernels (KWI) elsewhere and 4
    // there.
    for (const auto& [name, value] : vendor_row(VendorClass::CPU, "sgemm_xgemm")) o.param_values[name] = {value};
    REQUIRE(o.param_values.at("SA") == std::vector<int>{0});
    REQUIRE(o.param_values.at("MDIMC") == std::vector<int>{1});
    o.param_values["KWI"] = {4, 8};
    o.param_values["MDIMA"] = {1, 2};
    o.param_values["NDIMB"] = {1, 2};
    o.param_values["STRM"] = {0, 1};
    o.param_values["NVRREG"] = {0, 96};
    const bool nvidia = s.entry.info.platform_name.find("NVIDIA CUDA") != std::string::npos;
    const std::size_t kernels = nvidia ? 4 : 2;
    // Each strategy: the enumerated space, and the seeds, steps and fits that make their own
    // configurations (anneal, model under a budget).
    for (const TuneStrategy strategy : {TuneStrategy::Exhaustive, TuneStrategy::Anneal, TuneStrategy::Model}) {
      o.strategy = strategy;
      o.budget = strategy == TuneStrategy::Exhaustive ? 0 : 32;
      const TuneResult r = tune(s.queue, "sgemm", o);
      REQUIRE(r.classes.size() == 1);
      const TuneClassResult& c = r.classes[0];
      CAPTURE(static_cast<int>(strategy));
      CHECK(c.space == 32);
      CHECK(c.candidates == kernels);
      // Measured: the references (default, current) and at most one configuration per kernel.
      std::set<std::vector<int>> built;
      std::size_t searched = 0;
      for (const TuneRow& row : c.rows) {
        if (row.is_default || row.is_current) continue;
        ++searched;
        built.insert({row.params.at("KWI"), nvidia ? row.params.at("NVRREG") : 0});
      }
      CAPTURE(searched);
      CHECK(searched == built.size());
      CHECK(searched <= kernels);
    }
  }

  TEST_CASE("every sgemm program also builds with 64-bit indexing (-DCLF_LONG_INDEX=1)") {
    // Buffers of more than 2^31 elements cannot be allocated here; the launcher switches to
    // 64-bit indices for them, so at least the programs of those calls must build.
    auto& s = test::session();
    const detail::QueueContext qc = detail::queue_context_of(s.queue);
    for (const char* kernel : {"sgemm_xgemm", "sgemm_stream", "sgemm_direct", "sgemm_pack"})
      for (VendorClass v : {VendorClass::NVIDIA, VendorClass::CPU}) {
        Configuration cfg = resolve_configuration(kernel, "*", s.entry.info, Tuning{vendor_row(v, kernel), false});
        CAPTURE(kernel);
        CHECK_NOTHROW(detail::get_program(qc, detail::kernel_spec(kernel), cfg, "-DCLF_LONG_INDEX=1"));
      }
  }

  TEST_CASE("SgemmPlan: a call that packs both operands packs them in one launch, one operand in its own") {
    auto& s = test::session();
    // The kernels one call launches, in order.
    const auto launched = [&](const std::function<void()>& call) {
      std::vector<detail::RecordedLaunch> launches;
      {
        detail::LaunchRecorder recorder;
        call();
        launches = recorder.launches();
      }
      std::vector<std::string> names;
      for (const auto& l : launches) names.emplace_back(l.kernel.getInfo<CL_KERNEL_FUNCTION_NAME>().c_str());
      return names;
    };
    Case c;
    c.m = 67, c.n = 45, c.k = 70;  // no tile multiples: both packed
    const SgemmPlan both(s.queue, desc_of(c), small_tiles());
    const std::size_t bytes = 4 * 67 * 70 + 4 * 70 * 64;
    const cl::Buffer a = detail::device_buffer(s.context, CL_MEM_READ_WRITE, bytes, "test");
    const cl::Buffer b = detail::device_buffer(s.context, CL_MEM_READ_WRITE, bytes, "test");
    const cl::Buffer out = detail::device_buffer(s.context, CL_MEM_READ_WRITE, bytes, "test");
    CHECK(launched([&] { both.enqueue(s.queue, a, b, out); }) ==
          std::vector<std::string>{"sgemm_pack_pair", "sgemm_xgemm"});
    const cl::Buffer packed = detail::device_buffer(s.context, CL_MEM_READ_WRITE, both.packed_a_bytes(), "test");
    CHECK(launched([&] { both.pack_a(s.queue, a, packed); }) == std::vector<std::string>{"sgemm_pack_copy"});
    CHECK(launched([&] { both.enqueue_packed_a(s.queue, packed, b, out); }) ==
          std::vector<std::string>{"sgemm_pack_trans", "sgemm_xgemm"});
    c.m = 64, c.k = 64;  // A in place (tile multiples, not transposed)
    const SgemmPlan one(s.queue, desc_of(c), small_tiles());
    CHECK(launched([&] { one.enqueue(s.queue, a, b, out); }) ==
          std::vector<std::string>{"sgemm_pack_trans", "sgemm_xgemm"});
    s.queue.finish();
  }

  TEST_CASE("SgemmPlan: A packed once serves later calls, bitwise as the plan's own packing") {
    auto& s = test::session();
    Case c;
    c.m = 67, c.n = 45, c.k = 70, c.alpha = 1.5f, c.beta = 0.0f;  // 67 is no tile multiple: A is packed
    const SgemmPlan plan(s.queue, desc_of(c), small_tiles());
    CAPTURE(plan.describe());
    REQUIRE(plan.packed_a_bytes() > 0);
    auto values = [](std::size_t n, float scale) {
      std::vector<float> v(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 37 + 11) % 101) - 50.0f * scale;
      return v;
    };
    const std::vector<float> ha = values(c.m * c.k, 0.01f), hb = values(c.k * c.n, 0.02f);
    auto device = [&](const std::vector<float>& v) {
      return detail::upload(s.context, CL_MEM_READ_WRITE, v.data(), v.size() * sizeof(float), "test");
    };
    const cl::Buffer a = device(ha), b = device(hb);
    const cl::Buffer own = device(std::vector<float>(c.m * c.n)), shared = device(std::vector<float>(c.m * c.n));
    const cl::Buffer packed = detail::device_buffer(s.context, CL_MEM_READ_WRITE, plan.packed_a_bytes(), "test");
    plan.enqueue(s.queue, a, b, own);
    cl::Event pack_done;
    plan.pack_a(s.queue, a, packed, {}, &pack_done);
    for (int call = 0; call < 2; ++call) plan.enqueue_packed_a(s.queue, packed, b, shared, {pack_done});
    std::vector<float> want(c.m * c.n), got(c.m * c.n);
    detail::download(s.queue, own, want.size() * sizeof(float), want.data(), {}, "test");
    detail::download(s.queue, shared, got.size() * sizeof(float), got.data(), {}, "test");
    CHECK(want == got);

    const cl::Buffer small = detail::device_buffer(s.context, CL_MEM_READ_WRITE, plan.packed_a_bytes() - 4, "test");
    test::expect_invalid_argument([&] { plan.pack_a(s.queue, a, small); }, "packed_a");
    test::expect_invalid_argument([&] { plan.pack_a(s.queue, a, a); }, "another buffer than a");
    test::expect_invalid_argument([&] { plan.enqueue_packed_a(s.queue, packed, b, packed); }, "another buffer than c");
    Case row = c;
    row.layout = Layout::RowMajor;  // the internal A is the caller's B: nothing to share
    const SgemmPlan swapped(s.queue, desc_of(row), small_tiles());
    CHECK(swapped.packed_a_bytes() == 0);
    test::expect_invalid_argument([&] { swapped.pack_a(s.queue, a, packed); }, "does not pack A");
  }
}
