// Cooperative-matrix statements (loop::MatrixOp, jit/codegen/gpu/matrix_kernel.h) as
// SPV_KHR_cooperative_matrix instructions: an accumulator block is rows x cols Function
// variables of the accumulator type (the driver keeps them in registers), loads and stores go
// through pointers into the kernel's Workgroup arrays or straight into its buffers, row- or
// column-major as the operand's strides say.
#include "jit/codegen/spirv/spv_cooperative_matrix.h"
#include "jit/codegen/spirv/spv_emitter.h"

namespace plaidml::jit::spirv {

using loop::ExprPtr;
using loop::MatrixOp;
using spv::Op;

namespace {

ExprPtr plus(ExprPtr a, int64_t b) { return loop::idx_add(std::move(a), loop::int_const(b)); }

// `at`, or 0 where it is at or past `limit` (a positive limit; 0: none): the row or column an
// operand reads for a fragment or segment whose results are never stored.
ExprPtr limited(ExprPtr at, int64_t limit) {
  if (limit <= 0) return at;
  ExprPtr inside = loop::op(ir::OpKind::Lt, DType::Bool, {at, loop::int_const(limit)});
  return loop::op(ir::OpKind::Select, DType::I64, {inside, at, loop::int_const(0)});
}

}  // namespace

Id SpvEmitter::matrix_type(const MatrixOp& m, uint32_t use, int accumulator_bits) {
  if (use == kMatrixUseAccumulator) {
    return b_.type_cooperative_matrix(b_.type_float(accumulator_bits),
                                      static_cast<uint32_t>(m.frag_m),
                                      static_cast<uint32_t>(m.frag_n), use, m.workgroup);
  }
  const Id half = b_.type_float(16);  // the schedule only asks for f16 inputs
  const uint32_t rows = static_cast<uint32_t>(use == kMatrixUseA ? m.frag_m : m.frag_k);
  const uint32_t cols = static_cast<uint32_t>(use == kMatrixUseA ? m.frag_k : m.frag_n);
  return b_.type_cooperative_matrix(half, rows, cols, use, m.workgroup);
}

Id SpvEmitter::matrix_pointer(int slot, const ExprPtr& at) {
  if (!gpu::is_workgroup_slot(slot)) return element_pointer(slot, *at);
  const WorkgroupVar* array = nullptr;
  return workgroup_pointer(slot, *at, &array);
}

void SpvEmitter::matrix(const loop::Stmt& s) {
  const MatrixOp& m = *s.matrix;
  if (m.input != DType::F16) {
    fail(make_error(StatusCode::kInternal, "SPIR-V: cooperative matrices of {}",
                    dtype_name(m.input)));
    return;
  }
  switch (m.kind) {
    case MatrixOp::Kind::kZero: return matrix_zero(s.var, m);
    case MatrixOp::Kind::kMulAdd: return matrix_mul_add(s.var, m);
    case MatrixOp::Kind::kStore: return matrix_store(s.var, m);
    case MatrixOp::Kind::kFetch: return matrix_fetch(s.var, m);
    case MatrixOp::Kind::kDeposit: return matrix_deposit(s.var, m);
  }
}

void SpvEmitter::matrix_zero(const std::string& block, const MatrixOp& m) {
  const Id type = matrix_type(m, kMatrixUseAccumulator);
  const Id zero = b_.const_composite(type, {b_.const_float(32, 0.0)});
  std::vector<Id>& vars = matrix_blocks_[block];
  vars.clear();
  for (int i = 0; i < m.rows * m.cols; ++i) {
    vars.push_back(b_.local_variable(type));
    b_.op_void(Op::OpStore, {vars.back(), zero});
  }
}

void SpvEmitter::matrix_mul_add(const std::string& block, const MatrixOp& m) {
  auto it = matrix_blocks_.find(block);
  if (it == matrix_blocks_.end()) {
    fail(make_error(StatusCode::kInternal, "SPIR-V: matrix block {} is not declared", block));
    return;
  }
  const Id a_type = matrix_type(m, kMatrixUseA);
  const Id b_type = matrix_type(m, kMatrixUseB);
  const Id acc_type = matrix_type(m, kMatrixUseAccumulator);
  for (int ks = 0; ks < m.k_steps; ++ks) {
    std::vector<Id> a(static_cast<size_t>(m.rows)), b(static_cast<size_t>(m.cols));
    const int64_t k = int64_t{ks} * m.frag_k;
    for (int i = 0; i < m.rows; ++i) {
      a[static_cast<size_t>(i)] = matrix_load(m.a, int64_t{i} * m.frag_m, k, a_type);
    }
    for (int j = 0; j < m.cols; ++j) {
      b[static_cast<size_t>(j)] = matrix_load(m.b, k, int64_t{j} * m.frag_n, b_type);
    }
    for (int i = 0; i < m.rows; ++i) {
      for (int j = 0; j < m.cols; ++j) {
        const Id var = it->second[static_cast<size_t>(i * m.cols + j)];
        const Id c = b_.op(Op::OpLoad, acc_type, {var});
        const Id d = b_.op(kOpCooperativeMatrixMulAdd, acc_type,
                           {a[static_cast<size_t>(i)], b[static_cast<size_t>(j)], c});
        b_.op_void(Op::OpStore, {var, d});
      }
    }
  }
}

// The fragment of `o` at (row0 + row, col0 + col), a row or column past the operand's limit
// moved to 0 (a whole fragment: its results are never stored).
Id SpvEmitter::matrix_load(const loop::MatrixOperand& o, int64_t row, int64_t col, Id type) {
  const ExprPtr r = limited(plus(o.row0, row), o.rows);
  const ExprPtr c = limited(plus(o.col0, col), o.cols);
  ExprPtr at = loop::idx_add(o.base, loop::idx_add(loop::idx_mul(r, o.row_stride),
                                                   loop::idx_mul(c, o.col_stride)));
  // Offsets and strides count the pointer's elements: 16-byte vectors of eight f16 in a
  // vector array (the schedule keeps both multiples of eight).
  int64_t per = 1;
  const size_t array = gpu::workgroup_array_index(o.slot);
  if (gpu::is_workgroup_slot(o.slot) && array < workgroup_vars_.size() &&
      workgroup_vars_[array].vectors()) {
    per = 16 / SpvScalar::storage_bytes(workgroup_vars_[array].dtype);
    at = loop::op(ir::OpKind::Div, DType::I64, {at, loop::int_const(per)});
  }
  const bool row_major = o.col_stride == 1;
  const Id layout = b_.const_int(32, false, row_major ? kMatrixRowMajor : kMatrixColumnMajor);
  const Id stride = b_.const_int(
      32, false, static_cast<uint64_t>((row_major ? o.row_stride : o.col_stride) / per));
  const Id ptr = matrix_pointer(o.slot, at);
  return b_.op(kOpCooperativeMatrixLoad, type, {ptr, layout, stride});
}

void SpvEmitter::matrix_store(const std::string& block, const MatrixOp& m) {
  auto it = matrix_blocks_.find(block);
  if (it == matrix_blocks_.end() || m.row >= m.rows || m.col >= m.cols) {
    fail(make_error(StatusCode::kInternal, "SPIR-V: matrix block {} has no fragment [{}, {}]",
                    block, m.row, m.col));
    return;
  }
  const Id acc_type = matrix_type(m, kMatrixUseAccumulator);
  Id value = b_.op(Op::OpLoad, acc_type, {it->second[static_cast<size_t>(m.row * m.cols + m.col)]});
  if (m.stored == DType::F16) {
    // SPV_KHR_cooperative_matrix converts whole matrices of one shape and use.
    value = b_.op(Op::OpFConvert, matrix_type(m, kMatrixUseAccumulator, 16), {value});
  } else if (m.stored != DType::F32) {
    fail(make_error(StatusCode::kInternal, "SPIR-V: a matrix stored as {}", dtype_name(m.stored)));
    return;
  }
  const Id ptr = matrix_pointer(m.c_slot, m.c_at);
  b_.op_void(kOpCooperativeMatrixStore,
             {ptr, value, b_.const_int(32, false, kMatrixRowMajor),
              b_.const_int(32, false, static_cast<uint64_t>(m.ldc))});
}

// Register r holds element e = thread + r * threads of the tile's 16-byte segments: line
// e / (width / 8), segment e % (width / 8).
std::pair<ExprPtr, ExprPtr> SpvEmitter::copy_position(const MatrixOp& m, int64_t r) {
  const int64_t segments = m.width / 8;
  const ExprPtr e = plus(m.thread, r * m.threads);
  return {loop::op(ir::OpKind::Div, DType::I64, {e, loop::int_const(segments)}),
          loop::op(ir::OpKind::Mod, DType::I64, {e, loop::int_const(segments)})};
}

std::vector<Id>& SpvEmitter::copy_registers(const std::string& block, const MatrixOp& m) {
  std::vector<Id>& regs = copy_registers_[block];
  const Id uvec4 = b_.type_uvec4();
  const size_t count = static_cast<size_t>(m.lines * m.width / 8 / m.threads);
  while (regs.size() < count) regs.push_back(b_.local_variable(uvec4));
  return regs;
}

// Line l and column w of the source (w along its unit stride) at element base + l * row_stride
// + w, as a 16-byte vector index; a line or column past the operand's limit reads line or
// column 0 (such rows and columns only reach outputs that are never stored).
void SpvEmitter::matrix_fetch(const std::string& block, const MatrixOp& m) {
  if (!vector_view_ || gpu::is_workgroup_slot(m.a.slot)) {
    fail(make_error(StatusCode::kInternal, "SPIR-V: a tile fetch from a non-buffer"));
    return;
  }
  const Id view = vector_view_(m.a.slot);
  const Id uvec4 = b_.type_uvec4();
  const Id pointer = b_.type_pointer(spv::StorageClass::StorageBuffer, uvec4);
  std::vector<Id>& regs = copy_registers(block, m);
  for (size_t r = 0; r < regs.size(); ++r) {
    auto [line, segment] = copy_position(m, static_cast<int64_t>(r));
    const ExprPtr l = limited(loop::idx_add(m.a.row0, line), m.a.rows);
    const ExprPtr w = limited(loop::idx_add(m.a.col0, loop::idx_mul(segment, 8)), m.a.cols);
    const ExprPtr at = loop::idx_add(m.a.base, loop::idx_add(loop::idx_mul(l, m.a.row_stride), w));
    const Id index = this->index(*loop::op(ir::OpKind::Div, DType::I64, {at, loop::int_const(8)}));
    const Id ptr = b_.op(Op::OpAccessChain, pointer, {view, b_.const_int(32, true, 0), index});
    b_.op_void(Op::OpStore, {regs[r], b_.op(Op::OpLoad, uvec4, {ptr})});
  }
}

void SpvEmitter::matrix_deposit(const std::string& block, const MatrixOp& m) {
  const Id uvec4 = b_.type_uvec4();
  std::vector<Id>& regs = copy_registers(block, m);
  const int64_t row = (m.width + m.ldc) / 8;  // the padded line, in vectors
  for (size_t r = 0; r < regs.size(); ++r) {
    auto [line, segment] = copy_position(m, static_cast<int64_t>(r));
    const WorkgroupVar* array = nullptr;
    const Id ptr = workgroup_pointer(m.c_slot, *loop::idx_add(loop::idx_mul(line, row), segment),
                                     &array);
    if (ptr == 0) return;
    b_.op_void(Op::OpStore, {ptr, b_.op(Op::OpLoad, uvec4, {regs[r]})});
  }
}

}  // namespace plaidml::jit::spirv
