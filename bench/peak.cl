// Peak probes (as in the classic GPU tuning guides and clpeak): device copy bandwidth, copy with
// a few extra flops per element (where a streaming kernel turns compute-bound), FMA throughput
// from independent vector chains per work-item, and an empty kernel for the launch latency.
// The host (bench/peak_fma.cpp) searches PEAK_VW x PEAK_CHAINS and the launch shape.

#ifndef PEAK_EXTRA_FLOPS
#define PEAK_EXTRA_FLOPS 0  // extra flops per element in peak_copy (0, 3, 6, 24)
#endif
#ifndef PEAK_VW
#define PEAK_VW 4  // vector width of each FMA chain in peak_fma (1, 2, 4, 8, 16)
#endif
#ifndef PEAK_CHAINS
#define PEAK_CHAINS 8  // independent FMA chains per work-item (4, 8, 16)
#endif
#ifndef PEAK_ITERS
#define PEAK_ITERS 256  // steps of each chain
#endif

#if PEAK_VW != 1 && PEAK_VW != 2 && PEAK_VW != 4 && PEAK_VW != 8 && PEAK_VW != 16
#error "PEAK_VW must be 1, 2, 4, 8 or 16"
#endif
#if PEAK_CHAINS != 4 && PEAK_CHAINS != 8 && PEAK_CHAINS != 16
#error "PEAK_CHAINS must be 4, 8 or 16"
#endif

// out[i] = f(in[i]) for float4 elements; f does PEAK_EXTRA_FLOPS flops per float.
__kernel void peak_copy(const __global float4* restrict in, __global float4* restrict out, const float a,
                        const float b) {
  const size_t i = get_global_id(0);
  float4 x = in[i];
#if PEAK_EXTRA_FLOPS > 0
#pragma unroll
  for (int k = 0; k < PEAK_EXTRA_FLOPS / 2; ++k) x = fma(x, (float4)(a), (float4)(b));
#if PEAK_EXTRA_FLOPS % 2
  x = x + (float4)(b);
#endif
#endif
  out[i] = x;
}

// Clang (PoCL) warns that a float16 argument of fma changes the ABI on a CPU without AVX-512
// (-Wpsabi) and PoCL prints the count on stderr: the builtin is inlined, so no ABI is involved.
// Asked only where the compiler knows the warning (NVIDIA's would warn of an unknown group).
#if defined(__has_warning)
#if __has_warning("-Wpsabi")
#pragma clang diagnostic ignored "-Wpsabi"
#endif
#endif

// The chains' type: floatN, plain float for width 1 (derived).
#define PEAK_CAT2(a, b) a##b
#define PEAK_CAT(a, b) PEAK_CAT2(a, b)
#if PEAK_VW == 1
#define PEAK_T float
#else
#define PEAK_T PEAK_CAT(float, PEAK_VW)
#endif

// One step of four chains: x = x * a + b, each its own dependency chain.
#define PEAK_FMA4(x0, x1, x2, x3) \
  x0 = fma(x0, va, vb);           \
  x1 = fma(x1, va, vb);           \
  x2 = fma(x2, va, vb);           \
  x3 = fma(x3, va, vb)

// PEAK_CHAINS independent chains of PEAK_T per work-item, PEAK_ITERS steps each:
// 2 * PEAK_VW * PEAK_CHAINS * PEAK_ITERS flops per work-item. The sum of every lane is stored,
// so nothing is optimised away; a and b come from the host, so nothing folds at compile time.
__kernel void peak_fma(__global float* out, const float a, const float b) {
  const PEAK_T va = (PEAK_T)(a), vb = (PEAK_T)(b);
  const PEAK_T s = (PEAK_T)((float)get_global_id(0) * 1e-9f);
  PEAK_T c0 = s, c1 = s + 1.0f, c2 = s + 2.0f, c3 = s + 3.0f;
#if PEAK_CHAINS >= 8
  PEAK_T c4 = s + 4.0f, c5 = s + 5.0f, c6 = s + 6.0f, c7 = s + 7.0f;
#endif
#if PEAK_CHAINS >= 16
  PEAK_T c8 = s + 8.0f, c9 = s + 9.0f, c10 = s + 10.0f, c11 = s + 11.0f;
  PEAK_T c12 = s + 12.0f, c13 = s + 13.0f, c14 = s + 14.0f, c15 = s + 15.0f;
#endif
#pragma unroll 8
  for (int i = 0; i < PEAK_ITERS; ++i) {
    PEAK_FMA4(c0, c1, c2, c3);
#if PEAK_CHAINS >= 8
    PEAK_FMA4(c4, c5, c6, c7);
#endif
#if PEAK_CHAINS >= 16
    PEAK_FMA4(c8, c9, c10, c11);
    PEAK_FMA4(c12, c13, c14, c15);
#endif
  }
  PEAK_T t = (c0 + c1) + (c2 + c3);
#if PEAK_CHAINS >= 8
  t += (c4 + c5) + (c6 + c7);
#endif
#if PEAK_CHAINS >= 16
  t += (c8 + c9) + (c10 + c11) + (c12 + c13) + (c14 + c15);
#endif
  // Lanes summed by halving: 16 -> 8 -> 4 -> 2 -> 1.
#if PEAK_VW == 16
  const float8 t8 = t.lo + t.hi;
#elif PEAK_VW == 8
  const float8 t8 = t;
#endif
#if PEAK_VW >= 8
  const float4 t4 = t8.lo + t8.hi;
#elif PEAK_VW == 4
  const float4 t4 = t;
#endif
#if PEAK_VW >= 4
  const float2 t2 = t4.lo + t4.hi;
#elif PEAK_VW == 2
  const float2 t2 = t;
#endif
#if PEAK_VW >= 2
  out[get_global_id(0)] = t2.x + t2.y;
#else
  out[get_global_id(0)] = t;
#endif
}

// Nothing: the launch-latency probe times enqueueing and running it.
__kernel void peak_empty(void) {}
