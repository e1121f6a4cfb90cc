// Helpers prepended to every clforge kernel (by the loader, never through -I).
// CLF_INDEX is the integer type for element indices: int unless the launcher says the
// buffers need 64-bit indexing (-DCLF_LONG_INDEX=1).
#ifndef CLF_LONG_INDEX
#define CLF_LONG_INDEX 0
#endif
#if CLF_LONG_INDEX
typedef long clf_index;
#else
typedef int clf_index;
#endif

#define CLF_CEIL_DIV(a, b) (((a) + (b)-1) / (b))

// Where matrix z of a batch starts, in elements after the operand's offset: z * stride (a
// strided batch; 0 and one z group for a single product), or with zt_on the entry zt[zt_at +
// 3 z] of an offsets table, whose row z holds product z's offsets of A, B and C (the launcher
// adds the operand's column and the launch's first product to zt_at).
#define CLF_Z_OFFSET(zt, zt_on, zt_at, z, stride) \
  ((zt_on) ? (zt)[(zt_at) + (clf_index)3 * (z)] : (clf_index)(z) * (stride))

// CLF_MAD(a, b, c) = a * b + c for the hot loops. On CPU devices (the host defines CLF_CPU=1) a
// plain product and sum, which the compiler contracts into one FMA instruction (FP_CONTRACT, on
// by default in OpenCL C): PoCL compiles mad() as a separate multiply and add, half a CPU's FMA
// rate. Elsewhere mad(), which GPU compilers make one instruction (NVIDIA's ran the H100's
// SGEMM kernel 4 % slower with the plain form).
#pragma OPENCL FP_CONTRACT ON
#ifndef CLF_CPU
#define CLF_CPU 0
#endif
#if CLF_CPU
#define CLF_MAD(a, b, c) ((a) * (b) + (c))
#else
#define CLF_MAD(a, b, c) mad(a, b, c)
#endif

// On CPUs without AVX-512, clang warns (-Wpsabi) that a float16 passed to or returned from a
// helper "changes the ABI": it would across separately compiled code, never inside one program,
// and PoCL prints the warnings' count on the caller's stderr. Silenced where clang knows it.
#if CLF_CPU && defined(__clang__) && defined(__has_warning)
#if __has_warning("-Wpsabi")
#pragma clang diagnostic ignored "-Wpsabi"
#endif
#endif
