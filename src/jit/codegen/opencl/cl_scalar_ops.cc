// The op table in OpenCL C (cl_scalar.h): the semantics of llvm_scalar.cc and the reference
// interpreter (eval/elementwise.cc). Integer arithmetic that may overflow runs in an unsigned
// type, since signed overflow is undefined in C and the loop IR wraps.
#include <fmt/format.h>

#include "core/ir/op_cases.h"
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

Status unsupported(OpKind op, DType t) {
  return make_error(StatusCode::kInternal, "OpenCL C: op {} on {} is not in the loop IR",
                    ir::op_name(op), dtype_name(t));
}

std::string binary(const std::vector<std::string>& v, const char* op) {
  return fmt::format("({} {} {})", v[0], op, v[1]);
}

std::string function(const char* name, const std::vector<std::string>& v) {
  return fmt::format("{}({})", name, fmt::join(v, ", "));
}

// Every switch over the op table here lists every op (no default): a new op makes the
// compiler name each place that must handle it.
Expected<std::string> float_op(OpKind op, DType t, const std::vector<std::string>& v,
                               ClHelpers& helpers) {
  std::string one = t == DType::F64 ? "1.0" : "1.0f";
  std::string sfx = t == DType::F64 ? "f64" : "f32";
  switch (op) {
    case OpKind::Add: return binary(v, "+");
    case OpKind::Sub: return binary(v, "-");
    case OpKind::Mul: return binary(v, "*");
    case OpKind::Div: return binary(v, "/");
    case OpKind::Mod: return function("fmod", v);
    case OpKind::Neg: return fmt::format("(-{})", v[0]);
    case OpKind::Eq: return binary(v, "==");
    case OpKind::Ne: return binary(v, "!=");
    case OpKind::Lt: return binary(v, "<");
    case OpKind::Gt: return binary(v, ">");
    case OpKind::Le: return binary(v, "<=");
    case OpKind::Ge: return binary(v, ">=");
    case OpKind::Exp: return function("exp", v);
    case OpKind::Log: return function("log", v);
    case OpKind::Sqrt: return function("sqrt", v);
    case OpKind::Pow: return function("pow", v);
    case OpKind::Tanh: return function("tanh", v);
    case OpKind::Sin: return function("sin", v);
    case OpKind::Cos: return function("cos", v);
    case OpKind::Tan: return function("tan", v);
    case OpKind::Sinh: return function("sinh", v);
    case OpKind::Cosh: return function("cosh", v);
    case OpKind::Asin: return function("asin", v);
    case OpKind::Acos: return function("acos", v);
    case OpKind::Atan: return function("atan", v);
    case OpKind::Asinh: return function("asinh", v);
    case OpKind::Acosh: return function("acosh", v);
    case OpKind::Atanh: return function("atanh", v);
    case OpKind::Erf: return function("erf", v);
    case OpKind::Floor: return function("floor", v);
    case OpKind::Ceil: return function("ceil", v);
    case OpKind::Round: return function("round", v);  // halfway away from zero, like llvm.round
    case OpKind::RoundEven: return function("rint", v);  // ties to even: the default rounding
    case OpKind::Abs: return function("fabs", v);
    case OpKind::Max: return function("fmax", v);  // NaN operands give the other, like maxnum
    case OpKind::Min: return function("fmin", v);
    // isnan/isinf of a scalar give 0 or 1 (an int); the loop IR wants a bool value.
    case OpKind::IsNan: return fmt::format("(isnan({}) != 0)", v[0]);
    case OpKind::IsInf: return fmt::format("(isinf({}) != 0)", v[0]);
    case OpKind::Sigmoid: return fmt::format("({0} / ({0} + exp(-{1})))", one, v[0]);
    case OpKind::Recip: return fmt::format("({} / {})", one, v[0]);
    case OpKind::Sign: return call_helper("plaidml_sign_" + sfx, kFloatSign, t, v, helpers);
    case OpKind::Relu: return call_helper("plaidml_relu_" + sfx, kFloatRelu, t, v, helpers);
    case OpKind::Bitcast:  // bind allows f32 and f64 only
      return function(t == DType::F64 ? "as_long" : "as_int", v);
    case OpKind::Select: return fmt::format("({} ? {} : {})", v[0], v[1], v[2]);
    case OpKind::BitAnd:
    case OpKind::BitOr:
    case OpKind::BitXor:
    case OpKind::BitNot:
    case OpKind::Shl:
    case OpKind::Shr:
    PLAIDML_OPS_NOT_IN_LOOP_IR:
      return unsupported(op, t);
  }
  return unsupported(op, t);
}

// Add, Sub and Mul in the wrapping unsigned type, back to t.
std::string wrapping(const std::vector<std::string>& v, const char* op, DType t) {
  std::string u = wide_unsigned(t);
  return fmt::format("(({})(({}){} {} ({}){}))", cl_value_type(t), u, v[0], op, u, v[1]);
}

std::string int_divide(OpKind op, DType t, const std::vector<std::string>& v,
                       ClHelpers& helpers) {
  bool s = dtype_is_signed(t);
  if (op == OpKind::Mod) {
    return call_helper("plaidml_mod_" + suffix(t), s ? kSignedMod : kUnsignedMod, t, v, helpers);
  }
  return call_helper("plaidml_div_" + suffix(t), s ? kSignedDiv : kUnsignedDiv, t, v, helpers);
}

Expected<std::string> int_op(OpKind op, DType t, const std::vector<std::string>& v,
                             ClHelpers& helpers) {
  std::string ct = cl_value_type(t);
  std::string u = wide_unsigned(t);
  bool s = dtype_is_signed(t);
  std::string sfx = suffix(t);
  switch (op) {
    case OpKind::Add: return wrapping(v, "+", t);
    case OpKind::Sub: return wrapping(v, "-", t);
    case OpKind::Mul: return wrapping(v, "*", t);
    case OpKind::Neg: return fmt::format("(({})(({})0 - ({}){}))", ct, u, u, v[0]);
    case OpKind::Div:
    case OpKind::Mod: return int_divide(op, t, v, helpers);
    case OpKind::Recip: return int_divide(OpKind::Div, t, {cl_int_literal(1, t), v[0]}, helpers);
    case OpKind::Eq: return binary(v, "==");
    case OpKind::Ne: return binary(v, "!=");
    case OpKind::Lt: return binary(v, "<");
    case OpKind::Gt: return binary(v, ">");
    case OpKind::Le: return binary(v, "<=");
    case OpKind::Ge: return binary(v, ">=");
    case OpKind::BitAnd: return fmt::format("(({}){})", ct, binary(v, "&"));
    case OpKind::BitOr: return fmt::format("(({}){})", ct, binary(v, "|"));
    case OpKind::BitXor: return fmt::format("(({}){})", ct, binary(v, "^"));
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
    case OpKind::Bitcast:  // bind allows 32 and 64 bits only
      return function(dtype_size(t) == 8 ? "as_double" : "as_float", v);
    case OpKind::Select: return fmt::format("(({})({} ? {} : {}))", ct, v[0], v[1], v[2]);
    case OpKind::IsNan:  // an integer is never NaN or infinite
    case OpKind::IsInf: return std::string("(0 != 0)");
    // Float functions: their operands were cast to a float type before code generation.
    PLAIDML_OPS_MATH  // the float functions (op_cases.h)
    PLAIDML_OPS_NOT_IN_LOOP_IR:
      return unsupported(op, t);
  }
  return unsupported(op, t);
}

// Arithmetic on bool operands follows the interpreter: computed on 0/1 as u64, then v != 0.
// Logic, shifts and comparisons stay on 0/1 values.
Expected<std::string> bool_arith(OpKind op, const std::vector<std::string>& v,
                                 ClHelpers& helpers) {
  std::vector<std::string> wide;
  for (const auto& a : v) wide.push_back(fmt::format("((ulong){})", a));
  PLAIDML_ASSIGN(std::string r, int_op(op, DType::U64, wide, helpers));
  return fmt::format("({} != 0)", r);
}

Expected<std::string> bool_op(OpKind op, const std::vector<std::string>& v, ClHelpers& helpers) {
  switch (op) {
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Mod:
    case OpKind::Neg:
    case OpKind::Abs:
    case OpKind::Sign:
    case OpKind::Recip:
    case OpKind::Max:
    case OpKind::Min:
    case OpKind::Relu: return bool_arith(op, v, helpers);
    case OpKind::Bitcast: return unsupported(op, DType::Bool);  // bind refuses bool
    case OpKind::BitAnd: return binary(v, "&");
    case OpKind::BitOr: return binary(v, "|");
    case OpKind::BitXor: return binary(v, "^");
    case OpKind::Eq: return binary(v, "==");
    case OpKind::Ne: return binary(v, "!=");
    case OpKind::Lt: return binary(v, "<");
    case OpKind::Gt: return binary(v, ">");
    case OpKind::Le: return binary(v, "<=");
    case OpKind::Ge: return binary(v, ">=");
    case OpKind::BitNot: return fmt::format("(!{})", v[0]);
    // A one-bit shift: by 0 keeps the value, by 1 (out of range) gives 0.
    case OpKind::Shl:
    case OpKind::Shr: return fmt::format("({} & !{})", v[0], v[1]);
    case OpKind::Select: return fmt::format("({} ? {} : {})", v[0], v[1], v[2]);
    case OpKind::IsNan:
    case OpKind::IsInf: return std::string("(0 != 0)");
    PLAIDML_OPS_MATH  // the float functions (op_cases.h)
    PLAIDML_OPS_NOT_IN_LOOP_IR:
      return unsupported(op, DType::Bool);
  }
  return unsupported(op, DType::Bool);
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
