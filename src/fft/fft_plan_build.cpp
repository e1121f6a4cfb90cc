// FFT plan construction: the decomposition of a plan into fft_local launches (one kernel,
// several passes through global memory, or Bluestein), twiddle and chirp tables, the size of
// the scratch an execution leases, and the programs.
//
// Kernel kinds of a plan (each a "stage", the same entry point with different constants, except
// the lane kernel):
//   lanes       CPU devices (fft_lanes: FFT_LANES > 0), smooth n in [FFT_LANE_MIN, FFT_LANE_MAX]:
//               fft_lanes.cl, FFT_LANES transforms per work-item in vector lanes, one launch;
//               above FFT_LANE_MAX two launches of it through a scratch buffer, n = n1 n2
//   single      n <= local limit, smooth: the whole batch in one launch
//   passes      smooth n = R_1 * ... * R_P: pass p is a batch of R_p-point FFTs over the
//               Stockham positions (input stride n / R_p, twiddle on load, output split by NS)
//   bluestein   otherwise: one kernel (chirp, FFT, spectrum, FFT, chirp) when M = 2^k >= 2n - 1
//               fits, else the passes of two M-point FFTs, M the smallest 7-smooth length
//               >= 2n - 1, with the chirps fused into the first load and the last store and the
//               spectrum into the store between them.
#include "fft/fft_plan_impl.hpp"

namespace clforge {

void FftPlan::Impl::build(const Tuning& all) {
  const DeviceInfo& dev = *qc.info;
  const std::size_t n = desc.n, batch = desc.batch;
  const FftLayout& li = desc.in;
  const FftLayout& lo = desc.out;
  const Tuning tuning = detail::overrides_for(all, kRoutine);
  const Configuration top = resolve_configuration(kRoutine, std::to_string(n), dev, tuning);
  std::ostringstream how_s;
  how_s << "n=" << n << " batch=" << batch << ": ";

  // A stage of the whole transform: it reads and writes the caller's layouts and scales.
  auto user_sides = [&](Stage& s) {
    s.in_off = static_cast<long long>(li.offset);
    s.in_dh = static_cast<long long>(li.distance);
    s.in_S = static_cast<long long>(li.stride);
    s.out_off = static_cast<long long>(lo.offset);
    s.out_dh = static_cast<long long>(lo.distance);
    s.out_S = static_cast<long long>(lo.stride);
    s.scaled = true;
  };

  // The lane kernel where its row asks for it and the length is in its range (and its passes
  // have butterflies: smooth lengths, at most 8 passes). fft_local parameters that someone chose
  // for this length (the user database, a tuning file, an override: a `clforge tune fft` result)
  // take precedence over a shipped lane row; a lane row chosen the same way over them.
  const Configuration lanes =
      resolve_configuration("fft_lanes", std::to_string(n), dev, detail::overrides_for(all, "fft_lanes"));
  auto chosen = [](const std::string& source) {
    return source.rfind("shipped", 0) != 0 && source.rfind("built-in", 0) != 0;
  };
  bool local_chosen = false;
  for (const auto& [name, source] : top.sources) local_chosen = local_chosen || chosen(source);
  const bool lanes_wanted = lanes.at("FFT_LANES") > 0 && (chosen(lanes.sources.at("FFT_LANES")) || !local_chosen);
  const std::size_t lane_min = static_cast<std::size_t>(lanes.at("FFT_LANE_MIN"));
  const std::size_t lane_max = static_cast<std::size_t>(lanes.at("FFT_LANE_MAX"));
  // Radices of one lane launch of length len (empty: none, a prime factor above 13 or more than
  // 8 passes).
  auto lane_radices = [&](std::size_t len) {
    if (!detail::fft_smooth(len)) return std::vector<int>{};
    std::vector<int> r = detail::fft_radices(len, lanes.at("FFT_LANE_RADIX"), 0);
    return r.size() <= 8 ? r : std::vector<int>{};
  };
  auto lane_stage = [&](std::size_t len, const std::vector<int>& radices, int width) {
    Stage s;
    s.lanes = true;
    s.cfg = lanes;
    s.cfg.values["FFT_LANES"] = width;
    s.shape.n = static_cast<int>(len);
    s.shape.radices = radices;
    s.twl = twiddles(len);
    s.role = "lane kernel, " + std::to_string(width) + " transforms per work-item";
    return s;
  };
  auto lane_how = [&](const Stage& s) {
    how_s << "\n  " << s.role << ": radix ";
    for (std::size_t i = 0; i < s.shape.radices.size(); ++i) how_s << (i ? "*" : "") << s.shape.radices[i];
  };
  if (lanes_wanted && n >= lane_min && n <= lane_max) {
    const std::vector<int> radices = lane_radices(n);
    if (!radices.empty()) {
      Stage s = lane_stage(n, radices, lanes.at("FFT_LANES"));
      user_sides(s);
      s.in_dc = s.in_dh;
      s.out_dc = s.out_dh;
      s.shape.long_index = span_of(li, n, batch) > static_cast<std::size_t>(INT_MAX) ||
                           span_of(lo, n, batch) > static_cast<std::size_t>(INT_MAX);
      stages.push_back(std::move(s));
      chunk = std::min<std::size_t>(batch, std::size_t{1} << 30);
      how_s << "one lane kernel";
      lane_how(stages[0]);
      how = how_s.str();
      return;
    }
  }
  // Bluestein in one lane launch where its power-of-two convolution length fits one (fft_lanes.cl,
  // FFT_LANE_BLUE): elements gathered and scattered one by one (the length is odd).
  if (lanes_wanted && !detail::fft_smooth(n)) {
    const std::size_t m = detail::fft_bluestein_length(n);
    const std::vector<int> radices = m >= lane_min && m <= lane_max ? lane_radices(m) : std::vector<int>{};
    if (!radices.empty()) {
      Stage s = lane_stage(m, radices, lanes.at("FFT_LANES"));
      user_sides(s);
      s.in_dc = s.in_dh;
      s.out_dc = s.out_dh;
      s.lane_len = static_cast<int>(n);
      s.cj_out = Sign::MinusDir;
      const BluesteinTables t = bluestein_tables(n, m);
      s.tw2 = t.w;
      s.bq = t.bq;
      s.shape.long_index = span_of(li, n, batch) > static_cast<std::size_t>(INT_MAX) ||
                           span_of(lo, n, batch) > static_cast<std::size_t>(INT_MAX);
      s.role = "Bluestein in one " + s.role + ", M=" + std::to_string(m);
      stages.push_back(std::move(s));
      chunk = std::min<std::size_t>(batch, std::size_t{1} << 30);
      how_s << "Bluestein, one lane kernel of " << m << " points";
      lane_how(stages[0]);
      how = how_s.str();
      return;
    }
  }
  // Longer lengths in two lane launches through a scratch buffer, n = n1 n2 (the most even split
  // whose sides both fit a launch and hold whole vectors of transforms): the first transforms
  // the n2 columns x[j1 n2 + j2] of length n1 and multiplies by W_n^(k1 j2), storing Y[k1 n2 +
  // j2]; the second transforms the n1 rows of Y, storing X[k1 + n1 k2]. Both launches read or
  // write adjacent transforms as whole vectors on the scratch side and on a unit-stride side of
  // the caller's.
  if (lanes_wanted && n > lane_max) {
    const int width = lanes.at("FFT_LANES2");
    const std::size_t L = static_cast<std::size_t>(width);
    std::size_t n1 = 0;
    for (std::size_t d = L; d * d <= n; d += L) {
      if (n % d != 0 || (n / d) % L != 0 || n / d > lane_max || d < lane_min || n / d < lane_min) continue;
      if (!lane_radices(d).empty() && !lane_radices(n / d).empty()) n1 = n / d;  // the last: the most even
    }
    if (n1 != 0) {
      const std::size_t n2 = n / n1;
      Stage s1 = lane_stage(n1, lane_radices(n1), width), s2 = lane_stage(n2, lane_radices(n2), width);
      s1.lane_count = static_cast<int>(n2);
      s1.in_off = static_cast<long long>(li.offset);
      s1.in_dh = static_cast<long long>(li.distance);
      s1.in_dc = static_cast<long long>(li.stride);
      s1.in_S = static_cast<long long>(n2 * li.stride);
      s1.out_buf = Buf::A;
      s1.out_dh = static_cast<long long>(n);
      s1.out_dc = 1;
      s1.out_S = static_cast<long long>(n2);
      s1.cj_out = Sign::Plus;
      std::vector<detail::cdouble> w(n);
      for (std::size_t k1 = 0; k1 < n1; ++k1)
        for (std::size_t j2 = 0; j2 < n2; ++j2) w[k1 * n2 + j2] = root(k1 * j2, n);
      s1.tw2 = table(to_float2(w));
      s1.role += " (" + std::to_string(n2) + " columns of " + std::to_string(n1) + " points, twiddled)";
      s2.lane_count = static_cast<int>(n1);
      s2.in_buf = Buf::A;
      s2.in_dh = static_cast<long long>(n);
      s2.in_dc = static_cast<long long>(n2);
      s2.in_S = 1;
      s2.out_off = static_cast<long long>(lo.offset);
      s2.out_dh = static_cast<long long>(lo.distance);
      s2.out_dc = static_cast<long long>(lo.stride);
      s2.out_S = static_cast<long long>(n1 * lo.stride);
      s2.cj_in = Sign::Plus;
      s2.scaled = true;
      s2.role += " (" + std::to_string(n1) + " rows of " + std::to_string(n2) + " points)";
      // Chunks of the batch as for passes: the scratch holds FFT_CHUNK MiB of transforms.
      const std::size_t per = n * sizeof(cl_float2);
      std::size_t cap = top.at("FFT_CHUNK") > 0 ? static_cast<std::size_t>(top.at("FFT_CHUNK")) << 20 : kScratchCap;
      if (dev.max_alloc_size != 0) cap = std::min<std::size_t>(cap, dev.max_alloc_size);
      chunk = std::max<std::size_t>(1, std::min<std::size_t>(batch, cap / per));
      while (chunk > 1 && chunk * n > static_cast<std::size_t>(INT_MAX)) chunk /= 2;
      scratch_elems = chunk * n;
      scratch_bytes = scratch_elems * sizeof(cl_float2);
      const bool long_index = span_of(li, n, batch) > static_cast<std::size_t>(INT_MAX) ||
                              span_of(lo, n, batch) > static_cast<std::size_t>(INT_MAX) ||
                              scratch_elems > static_cast<std::size_t>(INT_MAX);
      for (Stage* s : {&s1, &s2}) s->shape.long_index = long_index;
      // Whole vectors where a launch's adjacent transforms are adjacent in memory (the columns of
      // a count that is a multiple of the vector width, by the choice of n1 and n2).
      s1.shape.in_unit = s1.in_dc == 1;
      s1.shape.out_unit = true;
      s2.shape.in_unit = false;
      s2.shape.out_unit = s2.out_dc == 1;
      how_s << "two lane kernels, " << n1 << " x " << n2;
      stages.push_back(std::move(s1));
      stages.push_back(std::move(s2));
      for (const Stage& s : stages) lane_how(s);
      how = how_s.str();
      return;
    }
  }

  // One kernel of the length (smooth) or of its power-of-two Bluestein length, where the limit
  // allows it and make_stage fits it with the layout's own access modes (a length that fits only
  // with its exchanges in quarters does not when the layout needs staged accesses); else passes.
  auto single_stage = [&](std::size_t len, const Configuration& cfg, bool bluestein) -> std::optional<Stage> {
    if (len > detail::fft_local_limit(cfg.values, dev, !bluestein)) return std::nullopt;
    try {
      Stage s = make_stage(len, cfg, li.stride, li.distance, lo.stride, lo.distance, bluestein);
      user_sides(s);
      s.shape.inplace = desc.in_place;
      return s;
    } catch (const UnsupportedDevice&) {
      return std::nullopt;
    }
  };

  const bool smooth = detail::fft_smooth(n);
  std::size_t ntot = n;  // length of the FFTs the passes compute (M for Bluestein)
  std::optional<Stage> single;
  if (smooth) {
    single = single_stage(n, top, false);
  } else {
    ntot = detail::fft_bluestein_length(n);
    single = single_stage(ntot, resolve_configuration(kRoutine, std::to_string(ntot), dev, tuning), true);
  }
  if (single && smooth) {
    single->role = "single kernel";
    stages.push_back(std::move(*single));
    how_s << "one kernel";
  } else if (single) {
    Stage s = std::move(*single);
    s.in_len = static_cast<int>(n);
    s.out_len = static_cast<int>(n);
    s.shape.in_check = s.shape.out_check = true;
    s.shape.pre = 2;
    s.shape.post = 1;
    s.cj_in = Sign::Dir;
    s.cj_out = Sign::MinusDir;
    s.role = "Bluestein in one kernel, M=" + std::to_string(ntot);
    stages.push_back(std::move(s));
    how_s << "Bluestein, one kernel of " << ntot << " points";
  } else {
    // Passes through global memory ---------------------------------------------------------
    if (!smooth) ntot = detail::fft_bluestein_length_smooth(n);
    const Configuration cfg_t = smooth ? top : resolve_configuration(kRoutine, std::to_string(ntot), dev, tuning);
    // Passes of at most FFT_PASS_MAX points: a long pass has few transforms per work-group on
    // its strided side (16-byte runs for 1024 points in 128 work-items on the H100), so three
    // passes of 128 can beat two of 1024.
    const std::size_t pass_max =
        std::min(detail::fft_local_limit(cfg_t.values, dev, false), static_cast<std::size_t>(cfg_t.at("FFT_PASS_MAX")));
    const std::vector<std::size_t> factors = detail::fft_global_factors(ntot, pass_max);
    if (factors.size() < 2)
      throw UnsupportedDevice("fft: no decomposition of length " + std::to_string(ntot) + " fits device \"" + dev.name +
                              "\"");
    const int phases = smooth ? 1 : 2;
    const std::size_t P = factors.size();
    std::size_t shift = 0;
    while ((std::size_t{1} << (2 * shift)) < ntot) ++shift;  // lo table 2^shift >= sqrt(ntot)
    std::vector<detail::cdouble> hi_t((ntot + (std::size_t{1} << shift) - 1) >> shift), lo_t(std::size_t{1} << shift);
    for (std::size_t q = 0; q < hi_t.size(); ++q) hi_t[q] = root(q << shift, ntot);
    for (std::size_t r = 0; r < lo_t.size(); ++r) lo_t[r] = root(r, ntot);
    const cl::Buffer tw_hi = table(to_float2(hi_t)), tw_lo = table(to_float2(lo_t));
    how_s << (smooth ? "" : "Bluestein M=" + std::to_string(ntot) + ", 2 x ") << P << " passes of ";
    for (std::size_t i = 0; i < P; ++i) how_s << (i ? "*" : "") << factors[i];
    std::map<std::pair<std::size_t, bool>, Configuration> cfgs;  // by (length, later pass)
    int stage_index = 0;
    const int n_stages = static_cast<int>(phases * P);
    for (int ph = 0; ph < phases; ++ph) {
      std::size_t ns = 1;
      for (std::size_t p = 0; p < P; ++p, ++stage_index) {
        const std::size_t r = factors[p];
        const auto key = std::make_pair(r, p > 0);
        if (!cfgs.count(key))
          cfgs.emplace(key, resolve_configuration(kRoutine, detail::fft_pass_variant(r, p > 0), dev, tuning));
        const bool first = stage_index == 0, last = stage_index == n_stages - 1;
        const std::size_t in_mem_s = first ? li.stride : 1, out_mem_s = last ? lo.stride : 1;
        Stage s = make_stage(r, cfgs.at(key), (ntot / r) * in_mem_s, in_mem_s, ns * out_mem_s, out_mem_s);
        s.shape.split = true;
        s.shape.split_l = static_cast<int>(ntot / r);
        s.shape.split_ns = static_cast<int>(ns);
        s.in_buf = first ? Buf::User : (stage_index - 1) % 2 == 0 ? Buf::A : Buf::B;
        s.out_buf = last ? Buf::User : stage_index % 2 == 0 ? Buf::A : Buf::B;
        if (first) {
          s.in_off = static_cast<long long>(li.offset);
          s.in_dh = static_cast<long long>(li.distance);
          s.in_S = static_cast<long long>(li.stride);
        } else {
          s.in_dh = static_cast<long long>(ntot);
        }
        if (last) {
          s.out_off = static_cast<long long>(lo.offset);
          s.out_dh = static_cast<long long>(lo.distance);
          s.out_S = static_cast<long long>(lo.stride);
        } else {
          s.out_dh = static_cast<long long>(ntot);
        }
        if (p > 0) {
          s.shape.pre = 1;
          s.tw_hi = tw_hi;
          s.tw_lo = tw_lo;
          s.tw_shift = static_cast<int>(shift);
          // Direct loads split the pass twiddle per butterfly (fft.cl, FFT_PRE 3): W_(R0*NS)^k.
          if (s.shape.in_mode == 0 && s.cfg.at("FFT_TWIDDLE") != 1) {
            const std::size_t nb = static_cast<std::size_t>(s.shape.radices.front()) * ns;
            s.shape.pre = 3;
            s.tw_b = twiddles(nb);
          }
        }
        s.cj_in = p == 0 && ph == 0 ? Sign::Dir : Sign::Plus;
        s.cj_out = Sign::Plus;
        if (smooth) {
          if (p == P - 1) s.cj_out = Sign::Dir;
        } else {
          if (ph == 0 && p == 0) {  // chirp and zero padding on the user's input
            s.shape.pre = 2;
            s.shape.in_check = true;
            s.in_len = static_cast<int>(n);
          }
          if (ph == 0 && p == P - 1) {  // spectrum of the chirp kernel, then conjugate
            s.shape.post = 1;
            s.cj_out = Sign::Minus;
          }
          if (ph == 1 && p == P - 1) {  // conjugate chirp, result conjugated back, length n
            s.shape.post = 1;
            s.shape.out_check = true;
            s.out_len = static_cast<int>(n);
            s.cj_out = Sign::MinusDir;
          }
        }
        s.scaled = last;
        s.role = std::string(phases == 2 ? (ph == 0 ? "Bluestein forward " : "Bluestein inverse ") : "") + "pass " +
                 std::to_string(p + 1) + "/" + std::to_string(P) + " (" + std::to_string(r) + " points)";
        stages.push_back(std::move(s));
        ns *= r;
      }
    }
    // Scratch: the batch runs in chunks of at most FFT_CHUNK MiB (kScratchCap) per buffer, every
    // pass of a chunk before the next chunk. Every execution leases its scratch (run()), so that
    // executions of one plan can overlap: buffer A at the start of one workspace and, with three
    // passes or more, buffer B after it, or in a workspace of its own where the two together
    // would pass the device's largest allocation.
    const std::size_t per = ntot * sizeof(cl_float2);
    std::size_t cap = cfg_t.at("FFT_CHUNK") > 0 ? static_cast<std::size_t>(cfg_t.at("FFT_CHUNK")) << 20 : kScratchCap;
    if (dev.max_alloc_size != 0) cap = std::min<std::size_t>(cap, dev.max_alloc_size);
    chunk = std::max<std::size_t>(1, std::min<std::size_t>(batch, cap / per));
    while (chunk > 1 && chunk * ntot > static_cast<std::size_t>(INT_MAX)) chunk /= 2;
    const std::size_t region = chunk * ntot;
    std::size_t b_off = 0;
    scratch_elems = region;
    if (n_stages > 2) {
      const std::size_t joint = detail::round_up(region, kScratchAlign) + region;
      if (dev.max_alloc_size == 0 || joint * sizeof(cl_float2) <= dev.max_alloc_size) {
        b_off = joint - region;
        scratch_elems = joint;
      } else {
        scratch_b_bytes = region * sizeof(cl_float2);
      }
    }
    scratch_bytes = scratch_elems * sizeof(cl_float2) + scratch_b_bytes;
    for (Stage& s : stages) {
      if (s.in_buf == Buf::B) s.in_off = static_cast<long long>(b_off);
      if (s.out_buf == Buf::B) s.out_off = static_cast<long long>(b_off);
    }
  }

  // Bluestein tables: chirp w_k = exp(-pi i k^2 / n), its conjugate, and the kernel spectrum.
  if (!smooth) {
    const BluesteinTables t = bluestein_tables(n, ntot);
    for (std::size_t i = 0; i < stages.size(); ++i) {
      Stage& s = stages[i];
      s.aux_in = t.w;
      s.bq = t.bq;
      s.aux_out = (stages.size() == 1 || i == stages.size() - 1) ? t.wc : t.bq;
    }
  }

  if (stages.size() == 1) chunk = std::min<std::size_t>(batch, std::size_t{1} << 30);
  // 64-bit indices when an address in the user's buffers or in the scratch can pass 2^31 - 1.
  const bool long_index = span_of(li, n, batch) > static_cast<std::size_t>(INT_MAX) ||
                          span_of(lo, n, batch) > static_cast<std::size_t>(INT_MAX) ||
                          scratch_elems > static_cast<std::size_t>(INT_MAX);
  for (auto& s : stages) {
    s.shape.long_index = long_index;
    s.shape.in_unit = s.in_S == 1;
    s.shape.out_unit = s.out_S == 1;
  }
  for (std::size_t i = 0; i < stages.size(); ++i)
    how_s << "\n  " << stages[i].role << ": " << stages[i].shape.summary();
  how = how_s.str();
}

void FftPlan::Impl::compile() {
  const detail::KernelSpec& spec = detail::kernel_spec(kRoutine);
  for (auto& s : stages) {
    if (s.lanes) {  // routine constants: the length, the radices of its passes and the sides
      std::ostringstream o;
      o << "-DFFT_N=" << s.shape.n << " -DFFT_NP=" << s.shape.radices.size();
      for (std::size_t i = 0; i < s.shape.radices.size(); ++i) o << " -DFFT_R" << i + 1 << "=" << s.shape.radices[i];
      if (s.shape.long_index) o << " -DCLF_LONG_INDEX=1";
      if (s.lane_len > 0) o << " -DFFT_LANE_BLUE=1 -DFFT_LANE_LEN=" << s.lane_len;
      if (s.tw2() && s.lane_count > 0) o << " -DFFT_LANE_TW=1";
      // Whole vectors where a side's lanes are adjacent transforms (two-launch plans) or its
      // transforms' elements are adjacent (transposed in registers, FFT_LANE_EBLOCK).
      const bool in_lanes = s.lane_count > 0 && s.shape.in_unit;
      const bool out_lanes = s.lane_count > 0 && s.shape.out_unit;
      const bool eblock = s.cfg.at("FFT_LANE_EBLOCK") == 1 && s.lane_len == 0 && s.shape.n % s.cfg.at("FFT_LANES") == 0;
      if (in_lanes) o << " -DFFT_IN_LUNIT=1";
      if (out_lanes) o << " -DFFT_OUT_LUNIT=1";
      if (!in_lanes && eblock && s.in_S == 1) o << " -DFFT_IN_EUNIT=1";
      if (!out_lanes && eblock && s.out_S == 1) o << " -DFFT_OUT_EUNIT=1";
      s.program = detail::get_program(qc, detail::kernel_spec("fft_lanes"), s.cfg, o.str());
      continue;
    }
    // The program depends on the routine constants (which already encode the radices, the
    // work-group and the modes) and on the parameters the kernel reads: the launcher-only ones
    // stay out of the build options (ParamInfo::launcher_only), and the local-memory ones of a
    // kernel without local memory take their declared defaults, so equal kernels share one program.
    Configuration key = s.cfg;
    for (const char* name : {"FFT_HALVE", "FFT_PAD"})
      if (!s.shape.uses_local()) key.values[name] = spec.find(name)->default_value;
    s.program = detail::get_program(qc, spec, key, s.shape.options());
  }
}

}  // namespace clforge
