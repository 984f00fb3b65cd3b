// Loop IR: printer, verifier (internal-error messages) and the simplify pass.
#include <doctest/doctest.h>

#include "jit/loop/loop_ir.h"
#include "jit/loop/printer.h"
#include "jit/loop/verifier.h"
#include "jit/passes/simplify.h"

namespace plaidml::jit::loop {
namespace {

Kernel make_kernel(std::vector<StmtPtr> body) {
  Kernel k;
  k.name = "k0_test";
  k.writes = {0};
  k.body = block(std::move(body));
  return k;
}

TEST_CASE("printer and verifier on a small kernel") {
  Kernel k = make_kernel({for_loop(
      "i", 0, 8,
      {store(0, var("i"), op(ir::OpKind::Exp, DType::F32, {cast(DType::F32, var("i"))}))}, true)});
  CHECK(to_string(k) ==
        "kernel k0_test(reads: ; writes: s0) {\n"
        "  parallel for i in [0, 8) {\n"
        "    s0[i] = exp(f32(i))\n"
        "  }\n"
        "}\n");
  CHECK(verify(k, {DType::F32}).is_ok());
  CHECK(parallel_extent(k) == 8);
}

TEST_CASE("verifier reports unknown variables, dtype mismatches and nested parallel loops") {
  Status s = verify(make_kernel({store(0, var("j"), float_const(1, DType::F32))}), {DType::F32});
  CHECK(s.code() == StatusCode::kInternal);
  CHECK(s.message() == "loop IR of kernel 'k0_test' is malformed: unknown variable j");
  s = verify(make_kernel({store(0, int_const(0), float_const(1, DType::F64))}), {DType::F32});
  CHECK(s.message() ==
        "loop IR of kernel 'k0_test' is malformed: store to s0 uses slot s0 as f64 but it holds f32");
  s = verify(make_kernel({for_loop("i", 0, 2, {for_loop("j", 0, 2, {}, true)})}), {DType::F32});
  CHECK(s.message() == "loop IR of kernel 'k0_test' is malformed: nested parallel loop j");
}

TEST_CASE("vectors: printed with their lanes, the verifier rejects mixed lanes and bad vectors") {
  ExprPtr row = vload(0, DType::F32, int_const(16), 16);
  ExprPtr sum = op(ir::OpKind::Add, DType::F32, {row, broadcast(float_const(2, DType::F32), 16)});
  Kernel ok = make_kernel({store(0, int_const(0), sum)});
  CHECK(to_string(ok).find("s0[0] = (s0[16]:f32x16 + splat16(2:f32))") != std::string::npos);
  CHECK(verify(ok, {DType::F32}).is_ok());
  CHECK(has_vectors(ok));
  CHECK(!has_vectors(make_kernel({store(0, int_const(0), float_const(1, DType::F32))})));
  auto mixed = std::make_shared<Expr>(*op(ir::OpKind::Add, DType::F32, {row, row}));
  mixed->args[1] = float_const(1, DType::F32);
  Status s = verify(make_kernel({store(0, int_const(0), mixed)}), {DType::F32});
  CHECK(s.message().find("operands of different lanes") != std::string::npos);
  auto i64_vector = std::make_shared<Expr>(*int_const(3));
  i64_vector->lanes = 4;
  s = verify(make_kernel({store(0, i64_vector, float_const(1, DType::F32))}), {DType::F32});
  CHECK(s.message().find("vector of 3") != std::string::npos);
  ExprPtr f32_row = vload(1, DType::F32, int_const(0), 16);
  s = verify(make_kernel({store(0, int_const(0), cast(DType::F64, f32_row))}),
             {DType::F64, DType::F32});
  CHECK(s.message().find("vector conversion") != std::string::npos);
}

TEST_CASE("masked vectors and prefetches are printed, and the verifier rejects bad masks and slots") {
  auto masked = std::make_shared<Expr>(*vload(0, DType::F32, int_const(32), 16));
  masked->mask_lanes = 5;
  auto store_masked = store(0, int_const(32), masked);
  store_masked->mask_lanes = 5;
  Kernel ok = make_kernel({store_masked, prefetch(0, int_const(1 << 20))});
  CHECK(to_string(ok).find("s0[32]/5 = s0[32]:f32x16/5\n") != std::string::npos);
  CHECK(to_string(ok).find("prefetch s0[1048576]\n") != std::string::npos);  // past the end
  CHECK(verify(ok, {DType::F32}).is_ok());
  auto all_lanes = std::make_shared<Stmt>(*store_masked);
  all_lanes->mask_lanes = 16;  // a mask keeps some lanes, not all
  Status s = verify(make_kernel({all_lanes}), {DType::F32});
  CHECK(s.message() == "loop IR of kernel 'k0_test' is malformed: bad mask: store");
  auto scalar = store(0, int_const(0), float_const(1, DType::F32));
  scalar->mask_lanes = 1;
  CHECK(verify(make_kernel({scalar}), {DType::F32}).message().find("bad mask") !=
        std::string::npos);
  s = verify(make_kernel({prefetch(3, int_const(0))}), {DType::F32});
  CHECK(s.message() ==
        "loop IR of kernel 'k0_test' is malformed: slot s3 does not exist in a prefetch");
}

TEST_CASE("simplify inlines one-trip loops, drops empty ones and folds index arithmetic") {
  Kernel k = make_kernel({
      for_loop("i", 3, 4, {store(0, idx_add(idx_mul(var("i"), 2), int_const(1)),
                                 float_const(1, DType::F32))}),
      for_loop("j", 5, 5, {store(0, var("j"), float_const(2, DType::F32))}),
      if_then(op(ir::OpKind::Lt, DType::Bool, {int_const(1), int_const(2)}),
              {store(0, int_const(0), float_const(3, DType::F32))}),
  });
  Kernel s = passes::simplify(k);
  CHECK(to_string(s) ==
        "kernel k0_test(reads: ; writes: s0) {\n"
        "  s0[7] = 1:f32\n"
        "  s0[0] = 3:f32\n"
        "}\n");
  CHECK(verify(s, {DType::F32}).is_ok());
}

}  // namespace
}  // namespace plaidml::jit::loop
