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

// Multiply-adds are written as plain products and sums, which the compiler contracts into fused
// multiply-adds (FP_CONTRACT, on by default in OpenCL C, stated here for every kernel): PoCL
// compiles mad() as a separate multiply and add, half the FMA rate of a CPU.
#pragma OPENCL FP_CONTRACT ON
