// Cooperative-matrix statements (loop::MatrixOp, jit/codegen/gpu/matrix_kernel.h) as
// SPV_KHR_cooperative_matrix instructions: an accumulator block is rows x cols Function
// variables of the accumulator type (the driver keeps them in registers), loads and stores go
// through pointers into the kernel's Workgroup arrays, row-major with the op's strides.
#include "jit/codegen/spirv/spv_cooperative_matrix.h"
#include "jit/codegen/spirv/spv_emitter.h"

namespace plaidml::jit::spirv {

using loop::ExprPtr;
using loop::MatrixOp;
using spv::Op;

namespace {

ExprPtr plus(ExprPtr a, int64_t b) { return loop::idx_add(std::move(a), loop::int_const(b)); }

}  // namespace

Id SpvEmitter::matrix_type(const MatrixOp& m, uint32_t use) {
  if (use == kMatrixUseAccumulator) {
    return b_.type_cooperative_matrix(b_.type_float(32), static_cast<uint32_t>(m.frag_m),
                                      static_cast<uint32_t>(m.frag_n), use);
  }
  const Id half = b_.type_float(16);  // the schedule only asks for f16 inputs
  const uint32_t rows = static_cast<uint32_t>(use == kMatrixUseA ? m.frag_m : m.frag_k);
  const uint32_t cols = static_cast<uint32_t>(use == kMatrixUseA ? m.frag_k : m.frag_n);
  return b_.type_cooperative_matrix(half, rows, cols, use);
}

Id SpvEmitter::matrix_pointer(int slot, const ExprPtr& at) {
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
  const Id row_major = b_.const_int(32, false, kMatrixRowMajor);
  const Id lda = b_.const_int(32, false, static_cast<uint64_t>(m.lda));
  const Id ldb = b_.const_int(32, false, static_cast<uint64_t>(m.ldb));
  for (int ks = 0; ks < m.k_steps; ++ks) {
    std::vector<Id> a(static_cast<size_t>(m.rows)), b(static_cast<size_t>(m.cols));
    for (int i = 0; i < m.rows; ++i) {
      ExprPtr at = loop::idx_add(loop::idx_mul(plus(m.a_row, int64_t{i} * m.frag_m), m.lda),
                                 loop::int_const(int64_t{ks} * m.frag_k));
      const Id ptr = matrix_pointer(m.a_slot, at);
      a[static_cast<size_t>(i)] = b_.op(kOpCooperativeMatrixLoad, a_type, {ptr, row_major, lda});
    }
    for (int j = 0; j < m.cols; ++j) {
      ExprPtr at = plus(plus(m.b_col, int64_t{j} * m.frag_n), int64_t{ks} * m.frag_k * m.ldb);
      const Id ptr = matrix_pointer(m.b_slot, at);
      b[static_cast<size_t>(j)] = b_.op(kOpCooperativeMatrixLoad, b_type, {ptr, row_major, ldb});
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

void SpvEmitter::matrix_store(const std::string& block, const MatrixOp& m) {
  auto it = matrix_blocks_.find(block);
  if (it == matrix_blocks_.end() || m.row >= m.rows || m.col >= m.cols) {
    fail(make_error(StatusCode::kInternal, "SPIR-V: matrix block {} has no fragment [{}, {}]",
                    block, m.row, m.col));
    return;
  }
  const Id acc_type = matrix_type(m, kMatrixUseAccumulator);
  const Id value =
      b_.op(Op::OpLoad, acc_type, {it->second[static_cast<size_t>(m.row * m.cols + m.col)]});
  const Id ptr = matrix_pointer(m.c_slot, m.c_at);
  b_.op_void(kOpCooperativeMatrixStore,
             {ptr, value, b_.const_int(32, false, kMatrixRowMajor),
              b_.const_int(32, false, static_cast<uint64_t>(m.ldc))});
}

}  // namespace plaidml::jit::spirv
