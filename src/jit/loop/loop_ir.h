// The loop IR: how a kernel computes (loops, loads, stores), between the graph IR and target
// code (docs/design.md section 1). Small and typed:
//   - expressions: constants, variables (loop indices are i64; locals have their own dtype),
//     loads, ops from the graph op table (ir::OpKind), and casts;
//   - statements: blocks, counted loops, conditions, stores, mutable scalar locals.
// Index arithmetic is i64 (shapes can exceed 2^31 elements).
//
// Value conventions that every emitter follows:
//   - an op's operands share one dtype (its "operand dtype"), except Select (bool condition);
//     comparisons give Bool; everything else gives the operand dtype;
//   - F16/BF16 values are computed in f32; they are rounded when stored and by casts to F16/BF16;
//   - integer ops wrap in their dtype; integer / and % by 0 give 0 (never trap); shift amounts
//     outside [0, bit width) give 0; >> of a signed value is arithmetic;
//   - casts from float to integer saturate (NaN gives 0); casts to Bool test != 0.
// Kernels run iterations [begin, end) of their parallel loop (artifact.h): at most one loop is
// marked parallel, it is a statement of the kernel's top-level block and has constant bounds.
//
// Vectors (CPU only; the register-block pass makes them, GPU emitters never see them): an
// expression has `lanes` values of its dtype (1: a scalar). A load of L lanes reads the L
// consecutive elements from its (scalar) index; a store of an L-lane value writes L consecutive
// elements; ops work lane by lane on operands of one lane count; broadcast() splats a scalar.
// Vector float arithmetic may be contracted (a * b + c computed with one rounding, as an FMA).
// A masked vector load or store (`mask_lanes` > 0) touches only its first mask_lanes elements;
// the other lanes of a masked load are 0 (the columns past a row's last full vector).
// Vectors are limited to F32 and F64 values and Bool conditions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/ops.h"
#include "core/types/dtype.h"

namespace plaidml::jit::loop {

enum class ExprKind { kConst, kVar, kLoad, kOp, kCast };

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind = ExprKind::kConst;
  DType dtype = DType::I64;
  // kConst: integers and bool in int_value (u64 as its bit pattern), floats in float_value.
  int64_t int_value = 0;
  double float_value = 0.0;
  std::string name;  // kVar: a loop variable or a local
  int slot = -1;     // kLoad: the buffer slot
  ir::OpKind op = ir::OpKind::Add;  // kOp
  std::vector<ExprPtr> args;        // kLoad: {index}; kOp: operands; kCast: {value}
  int lanes = 1;                    // values per expression: 1 scalar, > 1 a vector (see above)
  int mask_lanes = 0;               // kLoad of a vector: 0 all lanes, else the first ones only

  bool is_const() const { return kind == ExprKind::kConst; }
  bool is_int_const(int64_t v) const {
    return kind == ExprKind::kConst && !dtype_is_float(dtype) && int_value == v;
  }
};

// Builders. Index helpers (idx_*) work on I64 and fold constants on the fly.
ExprPtr int_const(int64_t value, DType dtype = DType::I64);
ExprPtr float_const(double value, DType dtype);
ExprPtr var(const std::string& name, DType dtype = DType::I64, int lanes = 1);
ExprPtr load(int slot, DType dtype, ExprPtr index);
ExprPtr op(ir::OpKind kind, DType result, std::vector<ExprPtr> args);
ExprPtr cast(DType dtype, ExprPtr value);  // no-op when value already has dtype
// Vectors (see the header comment): `lanes` consecutive elements from `index`; a scalar splat
// (a kCast to the same dtype with more lanes). op() gives its result the lanes of its operands.
ExprPtr vload(int slot, DType dtype, ExprPtr index, int lanes);
ExprPtr broadcast(ExprPtr scalar, int lanes);
// i64 arithmetic folded as the kernels compute it: two's complement, wrapping (the reference
// interpreter's rule too), never C++'s undefined overflow.
inline int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrapping_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrapping_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
ExprPtr idx_add(ExprPtr a, ExprPtr b);
ExprPtr idx_mul(ExprPtr a, int64_t b);
ExprPtr idx_mul(ExprPtr a, ExprPtr b);
// The constant 0 of a dtype / the aggregation identities (lowest and highest values).
ExprPtr zero(DType dtype);
ExprPtr one(DType dtype);
ExprPtr lowest(DType dtype);   // -inf for floats
ExprPtr highest(DType dtype);  // +inf for floats

// Case labels of the op table's rows that the loop IR never holds: the casts (a cast is its
// own expression kind) and the structural ops, all lowered before code generation. The
// emitters' switches over OpKind list every op (no default); they name these through this
// macro, so a new op still makes the compiler name each switch until it is handled or added
// here.
#define PLAIDML_OPS_NOT_IN_LOOP_IR          \
  case ::plaidml::ir::OpKind::AsFloat:      \
  case ::plaidml::ir::OpKind::AsBFloat:     \
  case ::plaidml::ir::OpKind::AsInt:        \
  case ::plaidml::ir::OpKind::AsUInt:       \
  case ::plaidml::ir::OpKind::AsBool:       \
  case ::plaidml::ir::OpKind::Reshape:      \
  case ::plaidml::ir::OpKind::Index:        \
  case ::plaidml::ir::OpKind::ShapeOf:      \
  case ::plaidml::ir::OpKind::Gather:       \
  case ::plaidml::ir::OpKind::Scatter:      \
  case ::plaidml::ir::OpKind::PrngStep:     \
  case ::plaidml::ir::OpKind::PrngState:    \
  case ::plaidml::ir::OpKind::PrngValue

// kBarrier (GPU only, the scheduled kernels of jit/codegen/gpu/gpu_kernel.h): every work-item
// of the workgroup waits there, and their writes to workgroup arrays before it are seen by
// their reads after it. Only in workgroup-uniform control flow.
// kMatrix (GPU only, devices with cooperative matrices): one subgroup-wide matrix operation
// (MatrixOp below), in workgroup-uniform control flow.
enum class StmtKind { kBlock, kFor, kIf, kStore, kDeclare, kAssign, kPrefetch, kBarrier, kMatrix };

// An operand of a cooperative-matrix multiply-add: element (r, c) of the matrix sits at element
// base + r * row_stride + c * col_stride of `slot` (a workgroup array when negative, else a
// buffer), one of the strides being 1; the subgroup's fragments start at row row0, column col0.
// A fragment that would start at or past `rows` (`cols`) reads from row (column) 0 instead: its
// results are never stored (0: no such limit).
struct MatrixOperand {
  int slot = -1;
  ExprPtr base, row0, col0;
  int64_t row_stride = 0, col_stride = 1;
  int64_t rows = 0, cols = 0;
};

// A cooperative-matrix operation of a scheduled GPU kernel (jit/codegen/gpu/matrix_kernel.h):
// the subgroup's block of rows x cols accumulator fragments (frag_m x frag_n f32 each, spread
// over the subgroup's work-items as the device likes), named by Stmt::var.
struct MatrixOp {
  enum class Kind {
    kZero,    // declares the block, every element 0
    kMulAdd,  // block += A * B over k_steps fragments of frag_k along k
    kStore,   // fragment (row, col) of the block into workgroup array c_slot at c_at
    // A chunk tile copied 16 bytes at a time by the whole workgroup, through registers that
    // Stmt::var names: kFetch reads `a` (in memory order: row = line, column along the unit
    // stride) into them, kDeposit writes them to workgroup array c_slot, lines padded.
    kFetch,
    kDeposit,
  };
  Kind kind = Kind::kZero;
  int rows = 1, cols = 1;
  int frag_m = 16, frag_n = 16, frag_k = 16;
  // The fragments span the whole workgroup, not one subgroup (VK_NV_cooperative_matrix2's
  // workgroup scope: the driver stages their loads through shared memory).
  bool workgroup = false;
  DType input = DType::F16;  // A's and B's elements (held in their storage form)
  // kMulAdd: fragment (i, ks) of A starts at row a.row0 + i * frag_m, column a.col0 + ks *
  // frag_k; fragment (ks, j) of B at row b.row0 + ks * frag_k, column b.col0 + j * frag_n.
  MatrixOperand a, b;
  int k_steps = 1;
  // kFetch / kDeposit: `lines` lines of `width` elements, `threads` work-items, this one
  // `thread`; the deposit's lines are width + ldc elements apart (ldc: the padding).
  int64_t lines = 0, width = 0;
  int threads = 0;
  ExprPtr thread;
  // kStore: fragment (row, col) row-major into c_slot (a workgroup array, or a buffer) at
  // element c_at, rows ldc elements apart, its f32 sums converted to `stored` (f32 or f16)
  int row = 0, col = 0;
  int c_slot = -1;
  ExprPtr c_at;
  int64_t ldc = 0;
  DType stored = DType::F32;
};

struct Stmt;
using StmtPtr = std::shared_ptr<Stmt>;

struct Stmt {
  StmtKind kind = StmtKind::kBlock;
  std::vector<StmtPtr> body;  // kBlock: statements; kFor: loop body; kIf: then branch
  // kFor: var runs lo, lo+step, ... while < hi.
  std::string var;  // kFor: loop variable; kDeclare/kAssign: the local
  ExprPtr lo, hi;
  int64_t step = 1;
  bool parallel = false;
  // kFor: iterations write disjoint elements and read nothing another iteration writes, so
  // they may run in any order or at once. A parallel loop is independent; GPU code generation
  // maps the parallel loop and the independent constant-bound loops perfectly nested in it (the
  // kernel's "band") to work-items.
  bool independent = false;
  // kFor: unroll the loop this many times (a hint to LLVM on the CPU; 0: the compiler's own
  // choice). The GPU emitters print a non-zero hint as a request to unroll fully (OpenCL C's
  // `#pragma unroll`, SPIR-V's LoopControl Unroll): the GPU schedule sets it only on loops of
  // a few constant trips, and the CPU passes that set partial counts never run on GPU kernels.
  int unroll = 0;
  ExprPtr cond;   // kIf
  // kPrefetch (CPU only): a hint to bring the cache line of element `index` of `slot` closer;
  // it reads nothing the program sees, and an index past the slot's end is allowed.
  // kStore, kPrefetch; a negative slot (kStore, and kLoad's Expr::slot) names a workgroup
  // array of a scheduled GPU kernel (gpu_kernel.h), never a buffer.
  int slot = -1;
  ExprPtr index;  // kStore, kPrefetch
  ExprPtr value;  // kStore, kAssign; kDeclare: initial value (its dtype is the local's)
  int mask_lanes = 0;  // kStore of a vector: 0 all lanes, else the first ones only
  std::shared_ptr<const MatrixOp> matrix;  // kMatrix
};

StmtPtr block(std::vector<StmtPtr> body = {});
StmtPtr for_loop(const std::string& var, int64_t lo, int64_t hi, std::vector<StmtPtr> body,
                 bool parallel = false);
// An independent loop (see Stmt::independent); parallel when `parallel`.
StmtPtr independent_loop(const std::string& var, int64_t lo, int64_t hi,
                         std::vector<StmtPtr> body, bool parallel = false);
StmtPtr if_then(ExprPtr cond, std::vector<StmtPtr> then);
StmtPtr store(int slot, ExprPtr index, ExprPtr value);
StmtPtr prefetch(int slot, ExprPtr index);
StmtPtr declare(const std::string& name, ExprPtr init);
StmtPtr assign(const std::string& name, ExprPtr value);
StmtPtr barrier();
// A kMatrix statement on block `block`.
StmtPtr matrix(const std::string& block, MatrixOp op);

struct Kernel {
  std::string name;        // the entry symbol: a C identifier unique within its program
  std::vector<int> reads;   // slots loaded from
  std::vector<int> writes;  // slots stored to
  StmtPtr body;            // a kBlock
  double work = 0;         // estimated scalar operations (KernelEntry::work)
  // The origins (ir::Node::origin) of the graph nodes it computes, each once, for profiles;
  // not printed, so not part of any cache key.
  std::vector<std::string> origins;
};

// Iterations of a kFor with constant bounds (0 when empty).
int64_t trip_count(const Stmt& loop);
// Trip count of the kernel's parallel loop, 1 when it has none.
int64_t parallel_extent(const Kernel& kernel);
// The parallel loop statement, or nullptr.
const Stmt* find_parallel_loop(const Kernel& kernel);
// Whether any expression of the kernel is a vector (lanes > 1).
bool has_vectors(const Kernel& kernel);
// The slots a kernel takes as arguments (its parameters; never a workgroup array's negative
// slot), in the order its body first refers to
// them (a walk of statements in order, a store's index and value before its slot), then any
// other slot of reads and writes. Two kernels that differ only in their buffers list them in
// corresponding order, so one compiled kernel serves both (jit/kernel_table.h).
std::vector<int> parameters(const Kernel& kernel);
// The kernel's band: the parallel loop, then each independent loop with constant bounds that is
// the only statement of the previous one's body. Empty when there is no parallel loop.
std::vector<const Stmt*> find_band(const Kernel& kernel);

}  // namespace plaidml::jit::loop
