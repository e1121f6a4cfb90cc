// FFT plan construction: the decomposition of a plan into fft_local launches (one kernel,
// several passes through global memory, or Bluestein), twiddle and chirp tables, the size of
// the scratch an execution leases, and the programs. The lane kernel's plans are built in
// fft_plan_lanes.cpp.
//
// Kernel kinds of a plan (each a "stage", the same entry point with different constants, except
// the lane kernel):
//   lanes       CPU devices (fft_lanes: FFT_LANES > 0; fft_plan_lanes.cpp): fft_lanes.cl,
//               FFT_LANES transforms per work-item in vector lanes, one launch for smooth n (or a
//               Bluestein length M = 2^k) in [FFT_LANE_MIN, FFT_LANE_MAX], above it two launches
//               through a scratch buffer, n = n1 n2 (four for Bluestein)
//   single      n <= local limit, smooth: the whole batch in one launch
//   passes      smooth n = R_1 * ... * R_P: pass p is a batch of R_p-point FFTs over the
//               Stockham positions (input stride n / R_p, twiddle on load, output split by NS)
//   bluestein   otherwise: one kernel (chirp, FFT, spectrum, FFT, chirp) when M = 2^k >= 2n - 1
//               fits, else the passes of two M-point FFTs, M the smallest 7-smooth length
//               >= 2n - 1, with the chirps fused into the first load and the last store and the
//               spectrum into the store between them.
//   rader       a prime n with a smooth n - 1 where Bluestein would take passes (FFT_RADER;
//               fft_rader.cpp): a gather launch, the passes of two (n - 1)-point FFTs through
//               scratch with the spectrum fused into the store between them, a scatter launch.
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

  // Rader's algorithm for prime lengths whose n - 1 is smooth (fft_rader.cpp): its configuration
  // where it applies; FFT_RADER 0 never, 1 where Bluestein would take more than one launch, 2
  // wherever the multi-launch form can transform n - 1 points.
  const std::optional<Configuration> rader_cfg =
      detail::fft_rader_applies(n) ? std::optional<Configuration>(rader_setting(all)) : std::nullopt;
  const int rader_mode = rader_cfg ? rader_cfg->at("FFT_RADER") : 0;
  if (build_lanes(all, top, rader_cfg ? &*rader_cfg : nullptr, how_s)) return;

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
  const bool rader = !smooth && (rader_mode == 2 || (rader_mode == 1 && !single));
  if (single && smooth) {
    single->role = "single kernel";
    stages.push_back(std::move(*single));
    how_s << "one kernel";
  } else if (single && !rader) {
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
    if (!smooth) ntot = rader ? n - 1 : detail::fft_bluestein_length_smooth(n);
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
    const std::string conv = rader ? "Rader" : "Bluestein";
    how_s << (smooth ? "" : conv + " M=" + std::to_string(ntot) + ", 2 x ") << P << " passes of ";
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
        // Rader's passes read the gathered rows from A and leave the convolution in A for the
        // scatter (first and last here mean the caller's sides): the buffers alternate one later.
        const bool first = stage_index == 0 && !rader, last = stage_index == n_stages - 1 && !rader;
        const int alt = rader ? 1 : 0;
        const std::size_t in_mem_s = first ? li.stride : 1, out_mem_s = last ? lo.stride : 1;
        Stage s = make_stage(r, cfgs.at(key), (ntot / r) * in_mem_s, in_mem_s, ns * out_mem_s, out_mem_s);
        s.shape.split = true;
        s.shape.split_l = static_cast<int>(ntot / r);
        s.shape.split_ns = static_cast<int>(ns);
        s.in_buf = first ? Buf::User : stage_index == 0 ? Buf::A : (stage_index - 1 + alt) % 2 == 0 ? Buf::A : Buf::B;
        s.out_buf = last ? Buf::User : (stage_index + alt) % 2 == 0 ? Buf::A : Buf::B;
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
        s.cj_in = first ? Sign::Dir : Sign::Plus;
        s.cj_out = Sign::Plus;
        if (smooth) {
          if (p == P - 1) s.cj_out = Sign::Dir;
        } else if (rader) {
          // The gather conjugated the input for the inverse: forward FFT, spectrum, then
          // conj(F(conj(.))) for the inverse FFT, whose result the scatter conjugates back.
          if (p == P - 1) s.cj_out = Sign::Minus;
          if (ph == 0 && p == P - 1) s.shape.post = 1;
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
        s.role = std::string(phases == 2 ? conv + (ph == 0 ? " forward " : " inverse ") : "") + "pass " +
                 std::to_string(p + 1) + "/" + std::to_string(P) + " (" + std::to_string(r) + " points)";
        stages.push_back(std::move(s));
        ns *= r;
      }
    }
    if (rader) {  // the gather before the passes, the scatter after, the spectrum on phase 0's last store
      RaderEnds e = rader_ends(*rader_cfg, Buf::A, Buf::A);
      for (Stage& s : stages) s.aux_out = e.spectrum;
      stages.insert(stages.begin(), std::move(e.gather));
      stages.push_back(std::move(e.scatter));
      how_s << ", gathered and scattered";
    }
    lay_out_scratch(ntot, cfg_t, n_stages > 2 || rader, rader ? rader_groups + 1 : 0);
  }

  // Bluestein tables: chirp w_k = exp(-pi i k^2 / n), its conjugate, and the kernel spectrum.
  if (!smooth && !rader) {
    const BluesteinTables t = bluestein_tables(n, ntot, n);
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
  for (const Stage& s : stages) how_s << "\n  " << s.role << (s.rader ? "" : ": " + s.shape.summary());
  how = how_s.str();
}

void FftPlan::Impl::compile() {
  const detail::KernelSpec& spec = detail::kernel_spec(kRoutine);
  for (auto& s : stages) {
    if (s.rader) {  // routine constants: the length and the gather's groups per transform
      std::ostringstream o;
      o << "-DFFT_RADER_N=" << desc.n << " -DFFT_RADER_G=" << rader_groups;
      if (s.shape.long_index) o << " -DCLF_LONG_INDEX=1";
      s.program = detail::get_program(qc, detail::kernel_spec("fft_rader"), s.cfg, o.str());
      continue;
    }
    if (s.lanes) {  // routine constants: the length, the radices of its passes and the sides
      std::ostringstream o;
      o << "-DFFT_N=" << s.shape.n << " -DFFT_NP=" << s.shape.radices.size();
      for (std::size_t i = 0; i < s.shape.radices.size(); ++i) o << " -DFFT_R" << i + 1 << "=" << s.shape.radices[i];
      if (s.shape.long_index) o << " -DCLF_LONG_INDEX=1";
      if (s.lane_len > 0) o << " -DFFT_LANE_BLUE=1 -DFFT_LANE_LEN=" << s.lane_len;
      if (s.tw2() && s.lane_count > 0) o << " -DFFT_LANE_TW=1";
      if (s.lane_pre) o << " -DFFT_LANE_PRE=1";
      if (s.lane_post) o << " -DFFT_LANE_POST=1";
      if (s.lane_glen > 0) o << " -DFFT_LANE_GLEN=" << s.lane_glen;
      // Whole vectors where a side's lanes are adjacent transforms (shape.in_unit, out_unit: set
      // by fft_plan_lanes.cpp) or its transforms' elements are adjacent (transposed in
      // registers, FFT_LANE_EBLOCK).
      const bool in_lanes = s.shape.in_unit;
      const bool out_lanes = s.shape.out_unit;
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
