// The state of an SgemmPlan: everything decided at construction (sgemm_plan.cpp) that the
// launches of each call (sgemm_launch.cpp) read.
//
// Internal layout: column-major. A row-major call C = op(A) op(B) is the column-major call
// C^T = op(B)^T op(A)^T on the same buffers, so it swaps m <-> n, A <-> B and trans_a <->
// trans_b; C's buffer and leading dimension stay as they are.
//
// A strided batch runs its products in the same launches: the batch is the kernels' third
// NDRange dimension, and each kernel adds its z group's matrix strides (a_z, b_z, c_z) to the
// offsets. Packed operands lie one matrix after the other in the workspace (one matrix when the
// caller's stride is 0); the tiled paths run a large batch in groups of zchunk products that
// reuse the workspace. A batch given by offsets (SgemmDesc's lists) has offsets and strides of 0
// here and a table on the device instead, row z the offsets of product z's internal A, B and C,
// which the kernels read in place of z times the strides (CLF_Z_OFFSET, cl/common/common.cl); on
// the tiled paths both operands are then packed, one matrix per product, so that only C is read
// through the table by the multiply.
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "clforge/opencl.hpp"
#include "clforge/sgemm.hpp"
#include "runtime/launch.hpp"
#include "sgemm/sgemm_internal.hpp"

namespace clforge {

struct SgemmPlan::Impl {
  SgemmDesc desc;                   // leading dimensions resolved
  std::array<std::size_t, 3> span;  // elements spanned by the caller's A, B and C (offsets form: one matrix each)
  cl::Context context;
  cl_device_id device = nullptr;
  std::vector<Configuration> cfgs;  // sgemm_route, then the kernels used
  detail::SgemmPath path = detail::SgemmPath::Nothing;

  // The internal (column-major) problem; `swap`: the internal A is the caller's B.
  bool swap = false;
  std::size_t m = 0, n = 0, k = 0;
  bool ta = false, tb = false;
  std::size_t a_off = 0, a_ld = 0, b_off = 0, b_ld = 0, c_off = 0, c_ld = 0;
  std::size_t batch = 1, a_z = 0, b_z = 0, c_z = 0;  // products and the internal strides (0 for batch 1)
  bool long_index = false;

  // The offsets form: the lists' checks (ends, C sorted), the table (clf_index entries), and a
  // number that divides every C offset (for whole-vector stores).
  bool table = false;
  detail::SgemmOffsets offsets;
  cl::Buffer zt;
  std::size_t c_align = 0;
  // Whether each product has a matrix of its own of the internal A (B): not one for all.
  bool a_each() const { return table || a_z != 0; }
  bool b_each() const { return table || b_z != 0; }

  // The multiply (direct, xgemm or stream) and the sgemm_pack program (packing, the split-k
  // sum and C = beta * C).
  cl::Program program, pack;
  const detail::KernelSignature* sig = nullptr;
  cl::NDRange global, local;
  cl::NDRange pack_local, sum_global;  // sum_global: C = beta * C or the split-k sum

  // Tiled paths.
  std::size_t mt = 0, nt = 0, kt = 0;  // C tile rows, columns, k-tile depth: packing multiples
  std::size_t va = 1, vb = 1;          // vector widths of the A and B reads
  std::size_t mp = 0, np = 0, kp = 0;  // padded sizes
  bool pack_a = false, pack_b = false;
  bool panel = false;                                 // operands packed in panels of mt (A) and nt (B) columns (PANEL)
  std::size_t a_elems = 0, b_elems = 0, w_elems = 0;  // workspace: a packed A, a packed B, k slices
  std::size_t a_mats = 0, b_mats = 0;                 // packed matrices of A and B in the workspace
  std::size_t zchunk = 1;                             // products per group of tiled launches (the batch: one group)
  std::size_t slices = 1, kt_split = 0;
  std::size_t kblock_tiles = 0, kblocks = 1;  // k tiles per multiply launch (KBLOCK), launches
  bool c_vec = false;                         // whole-vector stores into the multiply's output
  cl::NDRange pack_a_global, pack_b_global;
  // Edge strips (sgemm_route's SGEMM_EDGE): m and n above are the whole C tiles; the edge_m rows
  // below them and the edge_n columns right of them run on the direct kernel, each strip a
  // direct-path plan of its own on the same buffers (the columns' strip first, all rows tall).
  std::size_t edge_m = 0, edge_n = 0;
  std::vector<std::shared_ptr<const Impl>> strips;

  std::size_t workspace_elems() const { return a_mats * a_elems + b_mats * b_elems + w_elems; }
  // Enqueues the call without checks (the caller checked the buffers and the queue).
  void run(cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
           const EventList& wait, cl::Event* event, const cl::Buffer* packed_a = nullptr) const;
  /// Bytes of A as the multiply reads it when the plan packs A (0 when it does not): what
  /// pack_a() writes and run() takes as packed_a.
  std::size_t packed_a_bytes() const;
  /// Packs A (the caller's, column-major plans only) into `packed`, as run() would.
  void pack_a_into(cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& packed, const EventList& wait,
                   cl::Event* event) const;

 private:
  void run_tiled(cl::CommandQueue& queue, const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
                 const EventList& wait, cl::Event* event, const cl::Buffer* packed_a) const;
};

}  // namespace clforge
