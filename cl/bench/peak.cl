// Peak probes (as in the classic GPU tuning guides): device copy bandwidth, copy with a few
// extra flops per element (where a streaming kernel turns compute-bound), and FMA throughput
// from many independent chains per work-item.

#ifndef PEAK_EXTRA_FLOPS
#define PEAK_EXTRA_FLOPS 0  // extra flops per element in peak_copy (0, 3, 6, 24)
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

// 16 independent FMA chains (4 x float4) per work-item, PEAK_ITERS steps each:
// 2 * 16 * PEAK_ITERS flops per work-item. The sum is stored so nothing is optimised away.
#ifndef PEAK_ITERS
#define PEAK_ITERS 256
#endif
__kernel void peak_fma(__global float* out, const float a, const float b) {
  const float s = (float)get_global_id(0) * 1e-9f;
  float4 x0 = (float4)(s, s + 1, s + 2, s + 3), x1 = x0 + 4.0f, x2 = x0 + 8.0f, x3 = x0 + 12.0f;
#pragma unroll 16
  for (int i = 0; i < PEAK_ITERS; ++i) {
    x0 = fma(x0, (float4)(a), (float4)(b));
    x1 = fma(x1, (float4)(a), (float4)(b));
    x2 = fma(x2, (float4)(a), (float4)(b));
    x3 = fma(x3, (float4)(a), (float4)(b));
  }
  const float4 t = x0 + x1 + x2 + x3;
  out[get_global_id(0)] = t.x + t.y + t.z + t.w;
}
