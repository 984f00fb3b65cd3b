#include "core/ir/type_rules.h"

namespace plaidml::ir::detail {
namespace {

int kind(DType t) {
  if (dtype_is_float(t)) return 2;
  return t == DType::Bool ? 0 : 1;
}

std::optional<DType> promote_all(const std::vector<TypedOperand>& ops, bool weak) {
  std::optional<DType> out;
  for (const auto& o : ops) {
    if (o.weak != weak) continue;
    out = out ? promote(*out, o.dtype) : o.dtype;
  }
  return out;
}

DType to_float(DType t) { return dtype_is_float(t) ? t : DType::F32; }

}  // namespace

TypedOperand unify(const std::vector<TypedOperand>& operands) {
  std::optional<DType> strong = promote_all(operands, false);
  std::optional<DType> weak = promote_all(operands, true);
  if (!strong) return TypedOperand{weak.value_or(DType::I32), true};
  if (!weak || kind(*weak) <= kind(*strong)) return TypedOperand{*strong, false};
  // A weak literal of a higher kind: its own default dtype (i32 or f32), not a wider one.
  return TypedOperand{kind(*weak) == 2 ? DType::F32 : DType::I32, false};
}

Expected<OpTypes> elementwise_types(OpKind op, const std::vector<TypedOperand>& operands,
                                    size_t* bad_operand) {
  OpCategory cat = op_category(op);
  std::vector<TypedOperand> values = operands;
  // select's condition only chooses; it takes no part in the result type.
  if (cat == OpCategory::kSelect && !values.empty()) values.erase(values.begin());
  TypedOperand u = unify(values);
  OpTypes t{u.dtype, u.dtype, u.weak};
  switch (cat) {
    case OpCategory::kArith:
    case OpCategory::kSelect:
      return t;
    case OpCategory::kCompare:
    case OpCategory::kPredicate:
      t.result = DType::Bool;
      return t;
    case OpCategory::kBitwise:
      for (size_t i = 0; i < operands.size(); ++i) {
        if (dtype_is_float(operands[i].dtype)) {
          *bad_operand = i;
          return Status(StatusCode::kTypeError, "bitwise operator on a float");
        }
      }
      return t;
    case OpCategory::kMath:
      t.compute = t.result = to_float(u.dtype);
      return t;
    case OpCategory::kNumeric:
      if (op == OpKind::Recip) t.compute = t.result = to_float(u.dtype);
      return t;
    case OpCategory::kCast:
    case OpCategory::kBitcast:
    case OpCategory::kStructural:
      break;
  }
  return Status(StatusCode::kInternal, "bind: elementwise_types called for a cast or structure");
}

std::optional<DType> cast_target(OpKind op, int64_t bits, std::string* expected) {
  // Not a switch: only the five cast rows matter here, and every other op has no target.
  if (op == OpKind::AsBool) return DType::Bool;
  if (op == OpKind::AsBFloat) {
    *expected = "16";
    return bits == 16 ? std::optional<DType>(DType::BF16) : std::nullopt;
  }
  if (op == OpKind::AsFloat) {
    *expected = "16, 32 or 64";
    if (bits == 16) return DType::F16;
    if (bits == 32) return DType::F32;
    if (bits == 64) return DType::F64;
    return std::nullopt;
  }
  if (op != OpKind::AsInt && op != OpKind::AsUInt) return std::nullopt;
  *expected = "8, 16, 32 or 64";
  bool s = op == OpKind::AsInt;
  if (bits == 8) return s ? DType::I8 : DType::U8;
  if (bits == 16) return s ? DType::I16 : DType::U16;
  if (bits == 32) return s ? DType::I32 : DType::U32;
  if (bits == 64) return s ? DType::I64 : DType::U64;
  return std::nullopt;
}

std::optional<DType> bitcast_target(DType from) {
  switch (from) {
    case DType::F32: return DType::I32;
    case DType::F64: return DType::I64;
    case DType::I32:
    case DType::U32: return DType::F32;
    case DType::I64:
    case DType::U64: return DType::F64;
    case DType::Bool:
    case DType::I8:
    case DType::U8:
    case DType::I16:
    case DType::U16:
    case DType::F16:
    case DType::BF16: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace plaidml::ir::detail
