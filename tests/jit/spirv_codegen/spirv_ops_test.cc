// Every op of the table on every dtype the loop IR gives it, every cast between dtypes, and the
// statement forms (loops, ifs, locals, guarded loads): each module passes spirv-val. Also the
// target checks (a dtype the device lacks is kUnsupported) and the launch dims.
#include <doctest/doctest.h>

#include "jit/codegen/spirv/spirv_codegen.h"
#include "spirv_val.h"

namespace plaidml::jit {
namespace {

using ir::OpKind;

constexpr DType kAllDTypes[] = {DType::Bool, DType::I8,  DType::I16,  DType::I32, DType::I64,
                                DType::U8,   DType::U16, DType::U32,  DType::U64, DType::F16,
                                DType::BF16, DType::F32, DType::F64};

SpirvTarget full_target() {
  SpirvTarget t;
  t.device_name = "test device";
  t.int8 = t.int16 = t.int64 = t.float16 = t.float64 = true;
  return t;
}

BufferSlot slot(BufferSlot::Role role, DType t, int64_t n = 4) {
  BufferSlot s;
  s.role = role;
  s.shape = Shape(t, {n});
  return s;
}

// parallel for i in [0, 4) { body(i) }
loop::Kernel kernel(const std::string& name, std::vector<int> reads, std::vector<int> writes,
                    std::vector<loop::StmtPtr> body) {
  loop::Kernel k;
  k.name = name;
  k.reads = std::move(reads);
  k.writes = std::move(writes);
  k.body = loop::block({loop::independent_loop("i", 0, 4, std::move(body), /*parallel=*/true)});
  return k;
}

bool op_applies(OpKind op, DType t) {
  switch (ir::op_category(op)) {
    case ir::OpCategory::kBitwise: return !dtype_is_float(t);
    case ir::OpCategory::kMath: return dtype_is_float(t);
    case ir::OpCategory::kArith:
    case ir::OpCategory::kCompare:
    case ir::OpCategory::kNumeric:
    case ir::OpCategory::kSelect: return true;
    default: return false;
  }
}

void check_valid(const LoweredProgram& p, const std::string& what) {
  CAPTURE(what);
  auto artifact = emit_spirv(p, full_target());
  REQUIRE_MESSAGE(artifact.has_value(), artifact.status().message());
  CHECK(artifact->format == kSpirvFormat);
  CHECK(artifact->kernels.size() == p.kernels.size());
  std::string errors = testing::spirv_val(artifact->bytes);
  CHECK_MESSAGE(errors.empty(), errors);
}

TEST_CASE("spirv ops: every op on every dtype gives a valid module") {
  for (DType t : kAllDTypes) {
    LoweredProgram p;
    p.slots = {slot(BufferSlot::Role::kInput, t), slot(BufferSlot::Role::kInput, t),
               slot(BufferSlot::Role::kInput, DType::Bool), slot(BufferSlot::Role::kOutput, t),
               slot(BufferSlot::Role::kOutput, DType::Bool)};
    auto x = loop::load(0, t, loop::var("i")), y = loop::load(1, t, loop::var("i"));
    auto c = loop::load(2, DType::Bool, loop::var("i"));
#define PLAIDML_SPIRV_OP_KERNEL(e, name, arity, category, infix)                              \
    if (op_applies(OpKind::e, t)) {                                                          \
      bool cmp = ir::OpCategory::category == ir::OpCategory::kCompare;                       \
      std::vector<loop::ExprPtr> args = {x, y};                                              \
      if (arity == 1) args = {x};                                                            \
      if (arity == 3) args = {c, x, y};                                                      \
      auto value = loop::op(OpKind::e, cmp ? DType::Bool : t, args);                         \
      p.kernels.push_back(kernel(std::string("k_") + name, {0, 1, 2}, {cmp ? 4 : 3},         \
                                 {loop::store(cmp ? 4 : 3, loop::var("i"), value)}));        \
    }
    PLAIDML_OPS(PLAIDML_SPIRV_OP_KERNEL)
#undef PLAIDML_SPIRV_OP_KERNEL
    check_valid(p, std::string(dtype_name(t)));
  }
}

TEST_CASE("spirv ops: every cast between dtypes gives a valid module") {
  LoweredProgram p;
  for (DType t : kAllDTypes) p.slots.push_back(slot(BufferSlot::Role::kInput, t));
  for (DType t : kAllDTypes) p.slots.push_back(slot(BufferSlot::Role::kOutput, t));
  int n = static_cast<int>(std::size(kAllDTypes));
  for (int from = 0; from < n; ++from) {
    for (int to = 0; to < n; ++to) {
      DType f = kAllDTypes[from], t = kAllDTypes[to];
      auto value = loop::cast(t, loop::load(from, f, loop::var("i")));
      p.kernels.push_back(kernel(fmt::format("cast_{}_{}", dtype_name(f), dtype_name(t)), {from},
                                 {n + to}, {loop::store(n + to, loop::var("i"), value)}));
    }
  }
  check_valid(p, "casts");
}

TEST_CASE("spirv ops: loops, ifs, locals, shadowing and guarded loads give a valid module") {
  LoweredProgram p;
  p.slots = {slot(BufferSlot::Role::kInput, DType::F16), slot(BufferSlot::Role::kOutput, DType::F32)};
  auto i = loop::var("i"), k = loop::var("k");
  auto acc = loop::var("acc", DType::F32);
  auto x = loop::load(0, DType::F16, i);
  auto guarded = loop::op(OpKind::Select, DType::F16,
                          {loop::op(OpKind::Lt, DType::Bool, {k, loop::int_const(2)}),
                           loop::load(0, DType::F16, k), loop::float_const(0, DType::F16)});
  std::vector<loop::StmtPtr> inner = {
      loop::declare("acc", loop::float_const(1, DType::F32)),  // shadows the outer acc
      loop::assign("acc", loop::op(OpKind::Add, DType::F32, {acc, loop::cast(DType::F32, guarded)})),
      loop::if_then(loop::op(OpKind::Gt, DType::Bool, {acc, loop::float_const(0, DType::F32)}),
                    {loop::store(1, i, acc)})};
  std::vector<loop::StmtPtr> body = {
      loop::declare("acc", loop::cast(DType::F32, x)),
      loop::for_loop("k", 0, 3, {loop::block(inner)}),
      loop::store(1, i, loop::op(OpKind::Mul, DType::F32, {acc, acc}))};
  p.kernels.push_back(kernel("statements", {0}, {1}, body));
  // A kernel without a parallel loop, and one whose band is three deep (dim 2 flattened).
  loop::Kernel scalar;
  scalar.name = "scalar";
  scalar.writes = {1};
  scalar.body = loop::block({loop::store(1, loop::int_const(0), loop::float_const(2, DType::F32))});
  p.kernels.push_back(scalar);
  loop::Kernel deep;
  deep.name = "deep";
  deep.writes = {1};
  auto index = loop::idx_add(loop::idx_mul(loop::var("a"), 2), loop::var("c"));
  deep.body = loop::block({loop::independent_loop(
      "a", 0, 2,
      {loop::independent_loop("b", 0, 1,
                              {loop::independent_loop("c", 0, 2,
                                                      {loop::store(1, index, loop::float_const(
                                                                                 3, DType::F32))})})},
      true)});
  p.kernels.push_back(deep);
  check_valid(p, "statements");
}

TEST_CASE("spirv codegen: a dtype the device lacks is unsupported, naming kernel and dtype") {
  LoweredProgram p;
  p.slots = {slot(BufferSlot::Role::kInput, DType::F64), slot(BufferSlot::Role::kOutput, DType::F64)};
  p.kernels.push_back(kernel("k_f64", {0}, {1},
                             {loop::store(1, loop::var("i"), loop::load(0, DType::F64, loop::var("i")))}));
  SpirvTarget target = full_target();
  target.float64 = false;
  auto artifact = emit_spirv(p, target);
  REQUIRE_FALSE(artifact.has_value());
  CHECK(artifact.status().code() == StatusCode::kUnsupported);
  CHECK(artifact.status().message().find("k_f64") != std::string::npos);
  CHECK(artifact.status().message().find("f64") != std::string::npos);
  target = full_target();
  target.int8 = false;
  p.slots[1] = slot(BufferSlot::Role::kOutput, DType::Bool);
  p.kernels[0] = kernel("k_bool", {0}, {1},
                        {loop::store(1, loop::var("i"),
                                     loop::cast(DType::Bool, loop::load(0, DType::F64, loop::var("i"))))});
  artifact = emit_spirv(p, target);
  REQUIRE_FALSE(artifact.has_value());
  CHECK(artifact.status().message().find("bool") != std::string::npos);
}

TEST_CASE("spirv codegen: launch dims cover the band within the workgroup limit") {
  LoweredProgram p;
  p.slots = {slot(BufferSlot::Role::kOutput, DType::F32, 65 * 3)};
  auto index = loop::idx_add(loop::idx_mul(loop::var("i"), 65), loop::var("j"));
  p.kernels.push_back(kernel("k", {}, {0}, {}));
  p.kernels[0].body = loop::block({loop::independent_loop(
      "i", 0, 3,
      {loop::independent_loop("j", 0, 65, {loop::store(0, index, loop::float_const(1, DType::F32))})},
      true)});
  SpirvTarget target = full_target();
  target.max_workgroup_size = 128;
  auto artifact = emit_spirv(p, target);
  REQUIRE_MESSAGE(artifact.has_value(), artifact.status().message());
  const KernelEntry& e = artifact->kernels.at(0);
  CHECK(e.symbol == "k");
  CHECK(e.parallel_extent == 3);
  CHECK(e.workgroup == std::array<uint32_t, 3>{128, 1, 1});  // j (65) on x, i on y
  CHECK(e.grid == std::array<uint32_t, 3>{1, 3, 1});
  std::string errors = testing::spirv_val(artifact->bytes);
  CHECK_MESSAGE(errors.empty(), errors);
}

}  // namespace
}  // namespace plaidml::jit
