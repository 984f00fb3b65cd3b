// ClPrinter on hand-built loop IR: the C it prints for the ops whose C form is not the obvious
// one (wrapping, division by zero, shifts, saturating casts, f16/bf16 memory), exact float
// literals, identifiers and the choice of the index type.
#include <doctest/doctest.h>

#include <limits>

#include "jit/codegen/opencl/cl_printer.h"
#include "jit/codegen/opencl/cl_scalar.h"
#include "support/text.h"

using namespace plaidml;
using namespace plaidml::jit;
using namespace plaidml::jit::opencl;
using ir::OpKind;

namespace {

using plaidml::testing::contains;

LoweredProgram program_with(std::vector<Shape> shapes, std::vector<loop::Kernel> kernels = {}) {
  LoweredProgram p;
  for (auto& s : shapes) p.slots.push_back({BufferSlot::Role::kTemp, 0, std::move(s)});
  p.kernels = std::move(kernels);
  return p;
}

loop::Kernel kernel_of(std::vector<loop::StmtPtr> body) {
  loop::Kernel k;
  k.name = "k";
  k.body = loop::block(std::move(body));
  return k;
}

}  // namespace

TEST_CASE("opencl printer: float literals are exact hex floats, infinities and NaN by name") {
  CHECK(cl_float_literal(3.0, DType::F32) == "0x1.8p+1f");
  CHECK(cl_float_literal(0.1, DType::F32) == "0x1.99999ap-4f");  // 0.1 rounded to float
  CHECK(cl_float_literal(0.1, DType::F64) == "0x1.999999999999ap-4");
  CHECK(cl_float_literal(-2.5, DType::F32) == "(-0x1.4p+1f)");
  CHECK(cl_float_literal(-0.0, DType::F32) == "(-0x0p+0f)");
  CHECK(cl_float_literal(0.1, DType::F16) == "0x1.998p-4f");  // rounded to f16 first
  CHECK(cl_float_literal(0.1, DType::BF16) == "0x1.9ap-4f");  // and to bf16
  CHECK(cl_float_literal(1e-45, DType::F32) == "0x1p-149f");  // the smallest denormal
  double inf = std::numeric_limits<double>::infinity();
  CHECK(cl_float_literal(inf, DType::F32) == "INFINITY");
  CHECK(cl_float_literal(-inf, DType::F32) == "(-INFINITY)");
  CHECK(cl_float_literal(std::nan(""), DType::F32) == "NAN");
  CHECK(cl_float_literal(1e300, DType::F32) == "INFINITY");  // out of float range
}

TEST_CASE("opencl printer: integer literals keep their dtype, minima without overflow") {
  CHECK(cl_int_literal(std::numeric_limits<int32_t>::min(), DType::I32) == "(-2147483647-1)");
  CHECK(cl_int_literal(std::numeric_limits<int64_t>::min(), DType::I64) ==
        "(-9223372036854775807L-1L)");
  CHECK(cl_int_literal(-1, DType::U64) == "18446744073709551615UL");
  CHECK(cl_int_literal(-5, DType::I8) == "((char)-5)");
  CHECK(cl_int_literal(-5, DType::I32) == "(-5)");
}

TEST_CASE("opencl printer: identifiers are C names, distinct for distinct loop-IR names") {
  CHECK(ClPrinter::identifier("$acc") == "v__24acc");
  CHECK(ClPrinter::identifier("j$blk") == "v_j_24blk");
  CHECK(ClPrinter::identifier("a_24") == "v_a__24");  // not the same as "a$"
  CHECK(ClPrinter::identifier("a$") == "v_a_24");
}

TEST_CASE("opencl printer: storage and value types per dtype") {
  CHECK(ClPrinter::storage_type(DType::F16) == "half");
  CHECK(ClPrinter::storage_type(DType::BF16) == "ushort");
  CHECK(ClPrinter::storage_type(DType::Bool) == "uchar");
  CHECK(ClPrinter::value_type(DType::F16) == "float");
  CHECK(ClPrinter::value_type(DType::BF16) == "float");
  CHECK(ClPrinter::value_type(DType::U64) == "ulong");
}

TEST_CASE("opencl printer: integer division and remainder by 0 and MIN / -1 use safe helpers") {
  auto p = program_with({Shape(DType::I32, {4}), Shape(DType::I32, {4})});
  ClPrinter printer(p, true);
  auto a = loop::load(0, DType::I32, loop::int_const(0));
  auto b = loop::load(1, DType::I32, loop::int_const(0));
  CHECK(printer.expr(*loop::op(OpKind::Div, DType::I32, {a, b})) ==
        "plaidml_div_i32(s0[0], s1[0])");
  CHECK(printer.expr(*loop::op(OpKind::Mod, DType::I32, {a, b})) ==
        "plaidml_mod_i32(s0[0], s1[0])");
  std::string pre = printer.preamble(GpuTarget{});
  CHECK(contains(pre, "if (b == 0) return 0;"));
  CHECK(contains(pre, "if (b == (int)-1) return (int)((uint)0 - (uint)a);"));
  CHECK(contains(pre, "(b == 0 || b == (int)-1) ? (int)0 : (int)(a % b)"));
  CHECK(contains(pre, "#pragma OPENCL FP_CONTRACT ON"));  // FMA on GPUs: docs/devices.md
  CHECK_FALSE(contains(pre, "cl_khr_fp64"));
}

TEST_CASE("opencl printer: signed arithmetic wraps through unsigned, narrow types are recast") {
  auto p = program_with({Shape(DType::I8, {4}), Shape(DType::I64, {4})});
  ClPrinter printer(p, true);
  auto a = loop::load(0, DType::I8, loop::int_const(1));
  CHECK(printer.expr(*loop::op(OpKind::Add, DType::I8, {a, a})) ==
        "((char)((uint)s0[1] + (uint)s0[1]))");
  auto l = loop::load(1, DType::I64, loop::int_const(1));
  CHECK(printer.expr(*loop::op(OpKind::Mul, DType::I64, {l, l})) ==
        "((long)((ulong)s1[1] * (ulong)s1[1]))");
  CHECK(printer.expr(*loop::op(OpKind::Neg, DType::I64, {l})) ==
        "((long)((ulong)0 - (ulong)s1[1]))");
}

TEST_CASE("opencl printer: shifts out of range give 0, compared unsigned in the operand width") {
  auto p = program_with({Shape(DType::I16, {4})});
  ClPrinter printer(p, true);
  auto a = loop::load(0, DType::I16, loop::int_const(0));
  CHECK(printer.expr(*loop::op(OpKind::Shl, DType::I16, {a, a})) == "plaidml_shl_i16(s0[0], s0[0])");
  CHECK(printer.expr(*loop::op(OpKind::Shr, DType::I16, {a, a})) == "plaidml_shr_i16(s0[0], s0[0])");
  std::string pre = printer.preamble(GpuTarget{});
  CHECK(contains(pre, "(ushort)s >= (ushort)16 ? (short)0 : (short)((uint)a << (ushort)s)"));
  CHECK(contains(pre, "(ushort)s >= (ushort)16 ? (short)0 : (short)(a >> (ushort)s)"));
}

TEST_CASE("opencl printer: float to integer casts saturate and send NaN to 0") {
  auto p = program_with({Shape(DType::F32, {4}), Shape(DType::F64, {4})});
  ClPrinter printer(p, true);
  auto f = loop::load(0, DType::F32, loop::int_const(0));
  CHECK(printer.expr(*loop::cast(DType::U8, f)) == "plaidml_u8_from_float(s0[0])");
  auto d = loop::load(1, DType::F64, loop::int_const(0));
  CHECK(printer.expr(*loop::cast(DType::I64, d)) == "plaidml_i64_from_double(s1[0])");
  CHECK(printer.expr(*loop::cast(DType::Bool, f)) == "(s0[0] != 0)");  // NaN is true
  std::string pre = printer.preamble(GpuTarget{});
  CHECK(contains(pre, "return isnan(x) ? (uchar)0 : convert_uchar_sat_rtz(x);"));
  CHECK(contains(pre, "return isnan(x) ? (long)0 : convert_long_sat_rtz(x);"));
  CHECK(contains(pre, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"));
  CHECK(printer.uses_f64());
}

TEST_CASE("opencl printer: f16 and bf16 load as float and round when stored or cast") {
  auto p = program_with({Shape(DType::F16, {4}), Shape(DType::BF16, {4}), Shape(DType::Bool, {4})});
  ClPrinter printer(p, true);
  auto h = loop::load(0, DType::F16, loop::int_const(2));
  auto b = loop::load(1, DType::BF16, loop::int_const(2));
  CHECK(printer.expr(*h) == "vload_half(2, s0)");
  CHECK(printer.expr(*b) == "as_float((uint)s1[2] << 16)");
  CHECK(printer.expr(*loop::load(2, DType::Bool, loop::int_const(2))) == "(s2[2] != 0)");
  CHECK(printer.expr(*loop::cast(DType::F16, b)) == "plaidml_round_f16(as_float((uint)s1[2] << 16))");
  std::string out;
  printer.stmt(*loop::store(0, loop::int_const(3), h), 0, out);
  printer.stmt(*loop::store(1, loop::int_const(3), b), 0, out);
  CHECK(out == "vstore_half_rte(vload_half(2, s0), 3, s0);\n"
               "s1[3] = plaidml_bf16_bits(as_float((uint)s1[2] << 16));\n");
  std::string pre = printer.preamble(GpuTarget{});
  CHECK(contains(pre, "(b + 0x7FFFu + ((b >> 16) & 1u)) >> 16"));  // round to nearest even
  CHECK(contains(pre, "vstore_half_rte(x, 0, (half*)&h);"));
  // A kernel takes its parameters in the order its body first refers to them.
  loop::Kernel k = kernel_of({loop::store(1, loop::int_const(0), loop::load(2, DType::Bool,
                                                                             loop::int_const(0)))});
  k.reads = {0, 2};
  k.writes = {1};
  CHECK(printer.signature(k) ==
        "__kernel void k(__global uchar* restrict s2, __global ushort* restrict s1, "
        "__global half* restrict s0)");
}

TEST_CASE("opencl printer: index arithmetic in int when the loop ranges prove it fits") {
  // for i in [0, 100): for j in [0, 50): out[i * 50 + j] = in[i * 50 + j]
  auto idx = loop::op(OpKind::Add, DType::I64,
                      {loop::op(OpKind::Mul, DType::I64, {loop::var("i"), loop::int_const(50)}),
                       loop::var("j")});
  auto body = loop::for_loop(
      "i", 0, 100,
      {loop::for_loop("j", 0, 50, {loop::store(0, idx, loop::load(1, DType::F32, idx))})});
  auto p = program_with({Shape(DType::F32, {5000}), Shape(DType::F32, {5000})},
                        {kernel_of({body})});
  REQUIRE(ClPrinter::fits_index32(p));
  ClPrinter printer(p, true);
  CHECK(printer.index_type() == "int");
  CHECK(printer.index(*idx) == "((v_i * 50) + v_j)");
  // As an i64 value the same expression is widened once, after the int arithmetic.
  CHECK(printer.expr(*idx) == "((long)((v_i * 50) + v_j))");
  // A product that could pass 2^31 stays in long, wrapping like the loop IR.
  auto big = loop::op(OpKind::Mul, DType::I64, {loop::var("i"), loop::int_const(1LL << 30)});
  CHECK(printer.index(*big) == "((long)((ulong)((long)v_i) * (ulong)1073741824L))");
  std::string out;
  printer.stmt(*body, 0, out);
  CHECK(out == "for (int v_i = 0; v_i < 100; v_i += 1) {\n"
               "  for (int v_j = 0; v_j < 50; v_j += 1) {\n"
               "    s0[((v_i * 50) + v_j)] = s1[((v_i * 50) + v_j)];\n"
               "  }\n"
               "}\n");
}

TEST_CASE("opencl printer: a buffer of 2^31 elements or more makes the index type long") {
  auto p = program_with({Shape(DType::U8, {int64_t{3} << 30})});
  CHECK_FALSE(ClPrinter::fits_index32(p));
  ClPrinter printer(p, false);
  CHECK(printer.index_type() == "long");
  CHECK(printer.expr(*loop::var("i")) == "v_i");
  auto loop_big = loop::for_loop("i", 0, int64_t{1} << 32, {});
  CHECK_FALSE(ClPrinter::fits_index32(program_with({}, {kernel_of({loop_big})})));
}

TEST_CASE("opencl printer: bool arithmetic is computed on 0/1 and narrowed, logic stays 0/1") {
  auto p = program_with({Shape(DType::Bool, {4})});
  ClPrinter printer(p, true);
  auto a = loop::load(0, DType::Bool, loop::int_const(0));
  CHECK(printer.expr(*loop::op(OpKind::Add, DType::Bool, {a, a})) ==
        "(((ulong)((ulong)((ulong)(s0[0] != 0)) + (ulong)((ulong)(s0[0] != 0)))) != 0)");
  CHECK(printer.expr(*loop::op(OpKind::BitNot, DType::Bool, {a})) == "(!(s0[0] != 0))");
  CHECK(printer.expr(*loop::op(OpKind::Shl, DType::Bool, {a, a})) ==
        "((s0[0] != 0) & !(s0[0] != 0))");
}

TEST_CASE("opencl printer: locals, bound variables and workgroup arrays") {
  auto p = program_with({Shape(DType::F32, {8})});
  ClPrinter printer(p, true);
  printer.bind("i", "(gx + 1)");
  // No loop gives i a range: the bound expression is used in long.
  CHECK(printer.index(*loop::var("i")) == "((long)(gx + 1))");
  const std::vector<gpu::WorkgroupArray> arrays = {{"tile", DType::F32, 4}};
  printer.set_workgroup_arrays(&arrays);
  CHECK(printer.expr(*loop::load(gpu::workgroup_slot(0), DType::F32, loop::int_const(3))) ==
        "tile[3]");
  std::string out;
  printer.stmt(*loop::declare("$acc", loop::float_const(0.5, DType::F32)), 1, out);
  printer.stmt(*loop::assign("$acc", loop::op(OpKind::Max, DType::F32,
                                              {loop::var("$acc", DType::F32),
                                               loop::load(gpu::workgroup_slot(0), DType::F32,
                                                          loop::int_const(1))})),
               1, out);
  printer.stmt(*loop::store(gpu::workgroup_slot(0), loop::int_const(2), loop::var("$acc",
                                                                                   DType::F32)),
               1, out);
  printer.stmt(*loop::barrier(), 1, out);
  CHECK(out ==
        "  float v__24acc = 0x1p-1f;\n  v__24acc = fmax(v__24acc, tile[1]);\n"
        "  tile[2] = v__24acc;\n  barrier(CLK_LOCAL_MEM_FENCE);\n");
  CHECK(printer.status().is_ok());
  // A workgroup slot of an array the kernel does not declare is an internal error.
  printer.set_workgroup_arrays(nullptr);
  printer.expr(*loop::load(gpu::workgroup_slot(0), DType::F32, loop::int_const(0)));
  CHECK(contains(printer.status().message(), "workgroup array 0 is not declared"));
}

TEST_CASE("opencl printer: unroll hints, and min and select of int indices") {
  // j runs over [0, 8): min(j, 3) and select(c, j, 0) stay int index arithmetic.
  auto j = loop::var("j");
  auto lt = loop::op(OpKind::Lt, DType::Bool, {j, loop::int_const(5)});
  auto mn = loop::op(OpKind::Min, DType::I64, {j, loop::int_const(3)});
  auto sel = loop::op(OpKind::Select, DType::I64, {lt, j, loop::int_const(0)});
  auto body = loop::store(0, loop::idx_add(mn, sel), loop::float_const(1, DType::F32));
  auto unrolled = loop::for_loop("j", 0, 8, {body});
  unrolled->unroll = 8;
  auto p = program_with({Shape(DType::F32, {16})}, {kernel_of({unrolled})});
  REQUIRE(ClPrinter::fits_index32(p));
  ClPrinter printer(p, true);
  std::string out;
  printer.stmt(*unrolled, 0, out);
  CHECK(out ==
        "#pragma unroll\n"
        "for (int v_j = 0; v_j < 8; v_j += 1) {\n"
        "  s0[(min(v_j, 3) + ((v_j < 5) ? v_j : 0))] = 0x1p+0f;\n"
        "}\n");
}

TEST_CASE("opencl printer: a cooperative-matrix statement is an internal error, not C") {
  // The GPU schedule gives OpenCL targets no matrix kernels; a statement that reached the
  // printer anyway fails the program instead of printing something that is not the kernel.
  auto p = program_with({Shape(DType::F32, {4})});
  ClPrinter printer(p, true);
  std::string out;
  printer.stmt(*loop::matrix("frags", loop::MatrixOp{}), 0, out);
  CHECK(out.empty());
  CHECK(printer.status().code() == StatusCode::kInternal);
  CHECK(printer.status().message() == "OpenCL: a cooperative-matrix operation");
}
