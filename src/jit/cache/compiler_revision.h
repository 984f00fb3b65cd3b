// The compiler revision: part of every artifact-cache key (jit/cache/artifact_key.h), so that a
// newer plaidml never loads kernels that an older one generated into the disk cache.
#pragma once

namespace plaidml::jit {

// Bump this in the same change as any change to lowering (jit/lower), the loop passes
// (jit/passes) or code generation (jit/codegen/*). The printed loop-IR kernels are in the key
// too, but an emitter fix or a new LLVM option changes the code without changing them: without
// a bump, users would keep running the old code from their caches. A needless bump costs one
// cold compile per kernel; a missed one runs stale code, so when in doubt, bump.
// 2: O2 without vectorizers for register-blocked modules; 3: SPIR-V tanh by its series near 0;
// 4: SPIR-V pow and fmod with C's results for negative bases and infinite divisors, SPIR-V
// division corrected to half an ulp; OpenCL f32 division and sqrt correctly rounded where the
// device can; 5: LLVM machine code at CodeGenOptLevel::Less; 6: kernels take their parameters
// (loop::parameters), not every slot of the program; 7: libm calls are pure (the vectorizer may
// call libmvec's variants), edge tiles split their reduction over accumulator sets; 8: large
// constant weights are read from panels (jit/passes/weight_packing.h); 9: coalesce-rows, packed
// reduction blocks by where the row operand lives, a contraction's work counted as its FLOPs,
// scalar float sums reassociated; 10: row-fusion, f32 exp as inline arithmetic, depthwise convs
// in the row form; 11: the columns past the last full vector are a masked vector tile (also
// packed), accumulator sets chosen per row tile, not per column piece; reduction blocks of 8
// steps where 16 do not fit, each step prefetching the next block's; column tiles fewer than
// four a thread split their rows into groups; packed blocks in L1 where a column tile's outputs
// are few; 12: GotoBLAS cache tiles with column blocks and taller register tiles for matmuls
// whose weights leave L2, the next weight block prefetched a line a step, a run of blocks a
// thread; reshapes are views of their operand's buffer; 13: full register tiles' innermost
// reduction loops unrolled four times (loop metadata for LLVM); 14: cache tiles where the panel
// times the threads leaves half of L2, an epilogue's residual prefetched before the reduction;
// 15: a packed reduction block's next-block prefetch one line a step, turning with the row tile;
// 16: packed panels outermost with one tile a thread where the parallel loop is image rows;
// 17: cache tiles where the panel times the threads leaves a quarter of L2; 18: loop counters
// step without `nuw` (loops that start below zero ran forever), bitcast; 19: SPIR-V Workgroup
// arrays shared by a module's kernels, GPU tiled kernels with operand registers and unguarded
// points, FMA contraction on GPUs, keepdims reductions in the register form; 20: one SPIR-V
// module per kernel; 21: a SPIR-V tile is its own Workgroup variable again (no shared arena);
// 22: GPU tiled kernels written out once as loop IR (gpu/tiled_kernel.h) and printed by both
// generators, staging loops of constant trips, unroll hints in OpenCL C, the next chunk
// prefetched into registers, the m group of an implicit GEMM, hoisted point guards, the
// staged-elements limit of the tile search, cooperative reductions, SPIR-V Restrict and
// NonWritable buffers; 23: f16 contractions through cooperative matrices on Vulkan devices
// that have them (gpu/matrix_kernel.h), SPIR-V workgroup stores in statement order; 24: GPU
// index arithmetic folded where decoded dims rebuild their flat position (gpu/index_fold.h), GPU
// tiles measured at first compile (tile_measure.h); 25: GPU tiled kernels whose points touch only
// the tiles check their point guards without the extents (TiledPlan::extent_free_points), split-K
// from 512 terms and up to 4096 points per compute unit in 2, 3, 4, 6 or 8 parts; 26: padding
// guards of a GPU sum of products zero-filled (TiledPlan::zero_fill), with a workgroup's exact
// recompute where it staged a non-finite factor; 27: short GPU reduction loops merged into one
// staged k (gpu/reduction_merge.h), an m-side tile's staging guards on hoisted 32-bit locals;
// 28: GPU register blocks in groups of consecutive points (gpu::register_group), tile rows
// padded by a group, 16-byte aligned OpenCL __local arrays, the reordered measured tile shapes;
// 29: f16 contractions through workgroup-scope matrices by default where the Vulkan device has
// them (VK_NV_cooperative_matrix2), two 64-deep steps a chunk; 30: CPU kernels compiled in parts
// on the context's threads, register-blocked and scalar kernels in modules apart (the first at
// O2 without LLVM's vectorizers even beside scalar kernels), several parts an ar archive; 31: a
// CPU kernel's parallel loop runs to the launch's end alone (its own bound is not compiled in).
inline constexpr int kCompilerRevision = 31;

}  // namespace plaidml::jit
