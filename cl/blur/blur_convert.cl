// 8-bit RGBA <-> float4 conversions around the float blur of RGBA8 images.
//
//   blur_u8_to_f32:  out(x, y) = convert_float4(in(x, y))                 (values 0 .. 255)
//   blur_f32_to_u8:  out(x, y) = convert_uchar4_sat_rte(in(x, y))         (round to nearest even,
//                                                                          saturate to 0 .. 255)
// Images row-major, offsets and pitches in pixels (uchar4 or float4). One work-item per pixel,
// work-groups of BLUR_CV_WG x 1 along rows (coalesced).

// ---- tuning parameters ----
#ifndef BLUR_CV_WG
#define BLUR_CV_WG 64  // work-group width (32, 64, 128, 256)
#endif

__kernel __attribute__((reqd_work_group_size(BLUR_CV_WG, 1, 1))) void blur_u8_to_f32(
    const int width, const int height, const __global uchar4* restrict in, const clf_index in_off,
    const clf_index in_pitch, __global float4* restrict out, const clf_index out_off, const clf_index out_pitch) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  out[out_off + (clf_index)y * out_pitch + x] = convert_float4(in[in_off + (clf_index)y * in_pitch + x]);
}

__kernel __attribute__((reqd_work_group_size(BLUR_CV_WG, 1, 1))) void blur_f32_to_u8(
    const int width, const int height, const __global float4* restrict in, const clf_index in_off,
    const clf_index in_pitch, __global uchar4* restrict out, const clf_index out_off, const clf_index out_pitch) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  out[out_off + (clf_index)y * out_pitch + x] = convert_uchar4_sat_rte(in[in_off + (clf_index)y * in_pitch + x]);
}
