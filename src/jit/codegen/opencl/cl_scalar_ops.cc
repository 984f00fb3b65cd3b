// The op table in OpenCL C (cl_scalar.h): the semantics of llvm_scalar.cc and the reference
// interpreter (eval/elementwise.cc). Integer arithmetic that may overflow runs in an unsigned
// type, since signed overflow is undefined in C and the loop IR wraps.
#include <fmt/format.h>

#include "jit/codegen/opencl/cl_scalar.h"

namespace plaidml::jit::opencl {

using ir::OpKind;

namespace {

// The unsigned type integer arithmetic of t wraps in (C promotes narrower types to int).
std::string wide_unsigned(DType t) { return dtype_bits(t) > 32 ? "ulong" : "uint"; }
// The unsigned type of t's own width (the shift-range test is an unsigned compare in t).
std::string same_width_unsigned(DType t) {
  switch (dtype_bits(t)) {
    case 8: return "uchar";
    case 16: return "ushort";
    case 32: return "uint";
    default: return "ulong";
  }
}

std::string suffix(DType t) { return std::string(dtype_name(t)); }

// Registers helper `name` (defined by `def` with {0}: the name, {1}: T, {2}: the wrapping
// unsigned type, {3}: the same-width unsigned type, {4}: bit width) and calls it on `args`.
std::string call_helper(const std::string& name, const char* def, DType t,
                        const std::vector<std::string>& args, ClHelpers& helpers) {
  if (!helpers.count(name)) {
    helpers[name] = fmt::format(fmt::runtime(def), name, cl_value_type(t), wide_unsigned(t),
                                same_width_unsigned(t), dtype_bits(t));
  }
  return fmt::format("{}({})", name, fmt::join(args, ", "));
}

constexpr const char* kSignedDiv =
    "inline {1} {0}({1} a, {1} b) {{\n"
    "  if (b == 0) return 0;\n"
    "  if (b == ({1})-1) return ({1})(({2})0 - ({2})a);  /* MIN / -1 wraps */\n"
    "  return ({1})(a / b);\n"
    "}}\n";
constexpr const char* kSignedMod =
    "inline {1} {0}({1} a, {1} b) {{ return (b == 0 || b == ({1})-1) ? ({1})0 : ({1})(a % b); }}\n";
constexpr const char* kUnsignedDiv =
    "inline {1} {0}({1} a, {1} b) {{ return b == 0 ? ({1})0 : ({1})(a / b); }}\n";
constexpr const char* kUnsignedMod =
    "inline {1} {0}({1} a, {1} b) {{ return b == 0 ? ({1})0 : ({1})(a % b); }}\n";
constexpr const char* kShl =
    "inline {1} {0}({1} a, {1} s) {{\n"
    "  return ({3})s >= ({3}){4} ? ({1})0 : ({1})(({2})a << ({3})s);\n"
    "}}\n";
// >> of a signed value is arithmetic in OpenCL C.
constexpr const char* kShr =
    "inline {1} {0}({1} a, {1} s) {{ return ({3})s >= ({3}){4} ? ({1})0 : ({1})(a >> ({3})s); }}\n";
constexpr const char* kSignedSign =
    "inline {1} {0}({1} a) {{ return a < 0 ? ({1})-1 : (a > 0 ? ({1})1 : ({1})0); }}\n";
constexpr const char* kFloatSign =
    "inline {1} {0}({1} x) {{ return isnan(x) ? x : (x > 0 ? ({1})1 : (x < 0 ? ({1})-1 : ({1})0)); "
    "}}\n";
// NaN is not negative: it passes through, as does -0.
constexpr const char* kFloatRelu = "inline {1} {0}({1} x) {{ return x < 0 ? ({1})0 : x; }}\n";

const char* float_function(OpKind op) {
  switch (op) {
    case OpKind::Exp: return "exp";
    case OpKind::Log: return "log";
    case OpKind::Sqrt: return "sqrt";
    case OpKind::Pow: return "pow";
    case OpKind::Tanh: return "tanh";
    case OpKind::Sin: return "sin";
    case OpKind::Cos: return "cos";
    case OpKind::Tan: return "tan";
    case OpKind::Sinh: return "sinh";
    case OpKind::Cosh: return "cosh";
    case OpKind::Asin: return "asin";
    case OpKind::Acos: return "acos";
    case OpKind::Atan: return "atan";
    case OpKind::Asinh: return "asinh";
    case OpKind::Acosh: return "acosh";
    case OpKind::Atanh: return "atanh";
    case OpKind::Erf: return "erf";
    case OpKind::Floor: return "floor";
    case OpKind::Ceil: return "ceil";
    case OpKind::Round: return "round";  // halfway cases away from zero, like llvm.round
    case OpKind::RoundEven: return "rint";  // to nearest, ties to even: the default rounding mode
    case OpKind::Abs: return "fabs";
    case OpKind::Mod: return "fmod";
    case OpKind::Max: return "fmax";  // NaN operands give the other one, like maxnum
    case OpKind::Min: return "fmin";
    default: return nullptr;
  }
}

const char* c_operator(OpKind op) {
  switch (op) {
    case OpKind::Add: return "+";
    case OpKind::Sub: return "-";
    case OpKind::Mul: return "*";
    case OpKind::Div: return "/";
    case OpKind::Eq: return "==";
    case OpKind::Ne: return "!=";
    case OpKind::Lt: return "<";
    case OpKind::Gt: return ">";
    case OpKind::Le: return "<=";
    case OpKind::Ge: return ">=";
    case OpKind::BitAnd: return "&";
    case OpKind::BitOr: return "|";
    case OpKind::BitXor: return "^";
    default: return nullptr;
  }
}

bool is_compare(OpKind op) { return ir::op_category(op) == ir::OpCategory::kCompare; }

Status unsupported(OpKind op, DType t) {
  return make_error(StatusCode::kInternal, "OpenCL C: op {} on {} is not in the loop IR",
                    ir::op_name(op), dtype_name(t));
}

Expected<std::string> float_op(OpKind op, DType t, const std::vector<std::string>& v,
                               ClHelpers& helpers) {
  std::string ft = cl_value_type(t);
  std::string one = t == DType::F64 ? "1.0" : "1.0f";
  std::string name_sfx = t == DType::F64 ? "f64" : "f32";
  if (op == OpKind::Add || op == OpKind::Sub || op == OpKind::Mul || op == OpKind::Div ||
      is_compare(op)) {
    return fmt::format("({} {} {})", v[0], c_operator(op), v[1]);
  }
  if (const char* fn = float_function(op)) return fmt::format("{}({})", fn, fmt::join(v, ", "));
  switch (op) {
    // isnan/isinf of a scalar give 0 or 1 (an int); the loop IR wants a bool value.
    case OpKind::IsNan: return fmt::format("(isnan({}) != 0)", v[0]);
    case OpKind::IsInf: return fmt::format("(isinf({}) != 0)", v[0]);
    case OpKind::Neg: return fmt::format("(-{})", v[0]);
    case OpKind::Sigmoid: return fmt::format("({0} / ({0} + exp(-{1})))", one, v[0]);
    case OpKind::Recip: return fmt::format("({} / {})", one, v[0]);
    case OpKind::Sign: return call_helper("plaidml_sign_" + name_sfx, kFloatSign, t, v, helpers);
    case OpKind::Relu: return call_helper("plaidml_relu_" + name_sfx, kFloatRelu, t, v, helpers);
    case OpKind::Select: return fmt::format("({} ? {} : {})", v[0], v[1], v[2]);
    default: return unsupported(op, t);
  }
}

Expected<std::string> int_op(OpKind op, DType t, const std::vector<std::string>& v,
                             ClHelpers& helpers) {
  std::string ct = cl_value_type(t);
  std::string u = wide_unsigned(t);
  bool s = dtype_is_signed(t);
  std::string sfx = suffix(t);
  switch (op) {
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
      return fmt::format("(({})(({}){} {} ({}){}))", ct, u, v[0], c_operator(op), u, v[1]);
    case OpKind::Neg: return fmt::format("(({})(({})0 - ({}){}))", ct, u, u, v[0]);
    case OpKind::Div:
      return call_helper("plaidml_div_" + sfx, s ? kSignedDiv : kUnsignedDiv, t, v, helpers);
    case OpKind::Mod:
      return call_helper("plaidml_mod_" + sfx, s ? kSignedMod : kUnsignedMod, t, v, helpers);
    case OpKind::Recip:
      return call_helper("plaidml_div_" + sfx, s ? kSignedDiv : kUnsignedDiv, t,
                         {cl_int_literal(1, t), v[0]}, helpers);
    case OpKind::Eq:
    case OpKind::Ne:
    case OpKind::Lt:
    case OpKind::Gt:
    case OpKind::Le:
    case OpKind::Ge: return fmt::format("({} {} {})", v[0], c_operator(op), v[1]);
    case OpKind::BitAnd:
    case OpKind::BitOr:
    case OpKind::BitXor:
      return fmt::format("(({})({} {} {}))", ct, v[0], c_operator(op), v[1]);
    case OpKind::BitNot: return fmt::format("(({})~{})", ct, v[0]);
    case OpKind::Shl: return call_helper("plaidml_shl_" + sfx, kShl, t, v, helpers);
    case OpKind::Shr: return call_helper("plaidml_shr_" + sfx, kShr, t, v, helpers);
    case OpKind::Abs: return s ? fmt::format("(({})abs({}))", ct, v[0]) : v[0];
    case OpKind::Sign:
      if (!s) return fmt::format("(({})({} != 0))", ct, v[0]);
      return call_helper("plaidml_sign_" + sfx, kSignedSign, t, v, helpers);
    case OpKind::Max: return fmt::format("max(({0}){1}, ({0}){2})", ct, v[0], v[1]);
    case OpKind::Min: return fmt::format("min(({0}){1}, ({0}){2})", ct, v[0], v[1]);
    case OpKind::Relu: return s ? fmt::format("max({}, ({})0)", v[0], ct) : v[0];
    case OpKind::Select: return fmt::format("(({})({} ? {} : {}))", ct, v[0], v[1], v[2]);
    case OpKind::IsNan:  // an integer is never NaN or infinite
    case OpKind::IsInf: return std::string("(0 != 0)");
    default: return unsupported(op, t);
  }
}

// Arithmetic on bool operands follows the interpreter: computed on 0/1 as u64, then v != 0.
// Logic, shifts and comparisons stay on 0/1 values.
Expected<std::string> bool_op(OpKind op, const std::vector<std::string>& v, ClHelpers& helpers) {
  ir::OpCategory cat = ir::op_category(op);
  if (cat == ir::OpCategory::kArith || cat == ir::OpCategory::kNumeric) {
    std::vector<std::string> wide;
    for (const auto& a : v) wide.push_back(fmt::format("((ulong){})", a));
    PLAIDML_ASSIGN(std::string r, int_op(op, DType::U64, wide, helpers));
    return fmt::format("({} != 0)", r);
  }
  switch (op) {
    case OpKind::BitAnd:
    case OpKind::BitOr:
    case OpKind::BitXor:
    case OpKind::Eq:
    case OpKind::Ne:
    case OpKind::Lt:
    case OpKind::Gt:
    case OpKind::Le:
    case OpKind::Ge: return fmt::format("({} {} {})", v[0], c_operator(op), v[1]);
    case OpKind::BitNot: return fmt::format("(!{})", v[0]);
    // A one-bit shift: by 0 keeps the value, by 1 (out of range) gives 0.
    case OpKind::Shl:
    case OpKind::Shr: return fmt::format("({} & !{})", v[0], v[1]);
    case OpKind::Select: return fmt::format("({} ? {} : {})", v[0], v[1], v[2]);
    case OpKind::IsNan:
    case OpKind::IsInf: return std::string("(0 != 0)");
    default: return unsupported(op, DType::Bool);
  }
}

}  // namespace

Expected<std::string> cl_op(OpKind op, DType operand, const std::vector<std::string>& args,
                            ClHelpers& helpers) {
  int arity = ir::op_arity(op);
  if (arity >= 0 && static_cast<size_t>(arity) != args.size()) {
    return make_error(StatusCode::kInternal, "OpenCL C: op {} has {} operands, expected {}",
                      ir::op_name(op), args.size(), arity);
  }
  if (operand == DType::Bool) return bool_op(op, args, helpers);
  if (dtype_is_float(operand)) return float_op(op, operand, args, helpers);
  return int_op(op, operand, args, helpers);
}

}  // namespace plaidml::jit::opencl
