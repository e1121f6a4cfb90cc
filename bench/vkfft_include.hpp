// VkFFT's single header with its OpenCL backend, included with the warnings it raises under
// our flags silenced (bench/ only: peer library code, not ours).
#pragma once
#if CLFORGE_HAVE_VKFFT
#define VKFFT_BACKEND 3
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#pragma GCC diagnostic ignored "-Wrestrict"
#include <vkFFT.h>
#pragma GCC diagnostic pop
#endif
