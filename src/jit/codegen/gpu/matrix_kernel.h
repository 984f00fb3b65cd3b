// f16 contractions through cooperative matrices (tensor cores; Vulkan's VK_KHR_cooperative_matrix)
// as a scheduled GPU kernel (gpu_kernel.h), on targets that list matrix shapes:
//   - an output tile of BM x BN points per workgroup of SM x SN subgroups, each subgroup owning
//     FM x FN accumulator fragments of the device's shape (frag_m x frag_n f32, spread over its
//     work-items as the device likes: loop::MatrixOp);
//   - k walked in chunks of BK, the operands read in one of three ways, best first:
//     copied: where both are affine with unit stride along one axis and 16-byte aligned rows
//     and K is a chunk multiple, the workgroup copies each chunk 16 bytes at a time into
//     workgroup arrays (lines padded by 8 elements against bank conflicts), the next chunk's
//     copy read into registers while this one is multiplied; direct: where K is not a chunk
//     multiple but every extent is a fragment multiple, fragments load straight from the
//     buffers; staged: elsewhere, every work-item copies its share of the chunk's elements one
//     at a time, zero outside the extents. Then barrier, each subgroup multiplies its
//     fragments, barrier;
//   - the epilogue one fragment at a time: the subgroup stores it into its own f32 scratch
//     array, and its work-items run the lowered kernel's epilogue (the store, any fused
//     elementwise tail) at those points, each statement kept as written.
// Where the device also lists workgroup-scope matrices (VK_NV_cooperative_matrix2's flexible
// dimensions; the Vulkan plugin reports them unless told not to, vk_cooperative_matrix.h), a
// kernel whose operands can be read straight from their buffers, whose extents divide into
// such tiles and whose epilogue only stores the sum (as f32 or f16, rows contiguous) is one
// workgroup-scope fragment per workgroup instead (up to 128 x 256, workgroup_tiles in
// matrix_kernel.cc): loaded from the buffers, multiplied and stored straight into the output,
// with no workgroup arrays and no barriers of its own; the driver stages the loads through
// shared memory and picks the tensor-core instructions.
// Only kernels whose every term is the product of one m-side and one n-side f16 load (matmul,
// batched matmul, 1x1 convolution) summed from zero, with no guard on the reduction, qualify;
// the others keep the tiled or band schedule. The products are exact where the reference rounds
// each f16 product to f16 before the f32 sum: results move by at most half an f16 ulp per
// term, inside the f16 tolerance.
#pragma once

#include <cstdint>
#include <optional>

#include "jit/codegen/gpu/gpu_kernel.h"
#include "jit/codegen/gpu/gpu_target.h"

namespace plaidml::jit::gpu {

// How a matrix kernel is laid out.
struct MatrixTiles {
  MatrixShape frag;
  int sm = 2, sn = 4;  // subgroups along m and n
  int fm = 4, fn = 4;  // fragments per subgroup along m and n
  int bk = 32;         // k per chunk, a multiple of frag.k
  int64_t bm() const { return int64_t{sm} * fm * frag.m; }
  int64_t bn() const { return int64_t{sn} * fn * frag.n; }
  int subgroups() const { return sm * sn; }
};

// The matrix kernel of `kernel` when the target has a fitting matrix shape and the kernel
// qualifies (above); else nullopt.
std::optional<GpuKernel> schedule_matrix(const loop::Kernel& kernel, const GpuTarget& target,
                                         int64_t max_groups);

}  // namespace plaidml::jit::gpu
