// The elementwise op table: every function and operator of docs/tile.md section 3.
// A switch over OpKind has no default, so a new row makes the compiler list each place to update.
#pragma once

#include <optional>
#include <string_view>

namespace plaidml::ir {

enum class OpCategory {
  kArith,       // + - * / % neg: operands promoted, result in the promoted dtype
  kCompare,     // == != < > <= >=: operands promoted, result bool
  kBitwise,     // & | ^ ~ << >>: integer or bool operands only
  kMath,        // float functions: integer operands are computed in f32
  kNumeric,     // abs sign max min recip: keep the promoted dtype (recip of an int gives f32)
  kSelect,      // select(c, a, b) and c ? a : b: result promote(a, b)
  kPredicate,   // isnan isinf: one operand of any dtype, result bool (always false for integers)
  kCast,        // as_float(X, bits) etc.: int_args[0] = bits
  kBitcast,     // bitcast(X): the bits of a float as the signed integer of its width, or back
  kStructural,  // reshape, index, shape, gather, scatter, prng_*: special shape rules
};

// X(Enum, tile_name, arity (-1: variadic), category, infix)
// tile_name is the name a Tile function call or the C API uses; operators have a name too so
// the builder can make them by name ("add"). infix is the operator's Tile spelling ("+"), which
// the printer and the binder's messages use; "" for functions.
#define PLAIDML_OPS(X)                          \
  X(Add, "add", 2, kArith, "+")                 \
  X(Sub, "sub", 2, kArith, "-")                 \
  X(Mul, "mul", 2, kArith, "*")                 \
  X(Div, "div", 2, kArith, "/")                 \
  X(Mod, "mod", 2, kArith, "%")                 \
  X(Neg, "neg", 1, kArith, "")                  \
  X(Eq, "cmp_eq", 2, kCompare, "==")            \
  X(Ne, "cmp_ne", 2, kCompare, "!=")            \
  X(Lt, "cmp_lt", 2, kCompare, "<")             \
  X(Gt, "cmp_gt", 2, kCompare, ">")             \
  X(Le, "cmp_le", 2, kCompare, "<=")            \
  X(Ge, "cmp_ge", 2, kCompare, ">=")            \
  X(BitAnd, "bit_and", 2, kBitwise, "&")        \
  X(BitOr, "bit_or", 2, kBitwise, "|")          \
  X(BitXor, "bit_xor", 2, kBitwise, "^")        \
  X(BitNot, "bit_not", 1, kBitwise, "")         \
  X(Shl, "bit_left", 2, kBitwise, "<<")         \
  X(Shr, "bit_right", 2, kBitwise, ">>")        \
  X(Exp, "exp", 1, kMath, "")                   \
  X(Log, "log", 1, kMath, "")                   \
  X(Sqrt, "sqrt", 1, kMath, "")                 \
  X(Pow, "pow", 2, kMath, "")                   \
  X(Tanh, "tanh", 1, kMath, "")                 \
  X(Sin, "sin", 1, kMath, "")                   \
  X(Cos, "cos", 1, kMath, "")                   \
  X(Tan, "tan", 1, kMath, "")                   \
  X(Sinh, "sinh", 1, kMath, "")                 \
  X(Cosh, "cosh", 1, kMath, "")                 \
  X(Asin, "asin", 1, kMath, "")                 \
  X(Acos, "acos", 1, kMath, "")                 \
  X(Atan, "atan", 1, kMath, "")                 \
  X(Asinh, "asinh", 1, kMath, "")               \
  X(Acosh, "acosh", 1, kMath, "")               \
  X(Atanh, "atanh", 1, kMath, "")               \
  X(Erf, "erf", 1, kMath, "")                   \
  X(Floor, "floor", 1, kMath, "")               \
  X(Ceil, "ceil", 1, kMath, "")                 \
  X(Round, "round", 1, kMath, "")               \
  X(RoundEven, "round_even", 1, kMath, "")      \
  X(Sigmoid, "sigmoid", 1, kMath, "")           \
  X(Abs, "abs", 1, kNumeric, "")                \
  X(Sign, "sign", 1, kNumeric, "")              \
  X(Recip, "recip", 1, kNumeric, "")            \
  X(Max, "max", 2, kNumeric, "")                \
  X(Min, "min", 2, kNumeric, "")                \
  X(Relu, "relu", 1, kNumeric, "")              \
  X(Select, "select", 3, kSelect, "")           \
  X(IsNan, "isnan", 1, kPredicate, "")          \
  X(IsInf, "isinf", 1, kPredicate, "")          \
  X(AsFloat, "as_float", 1, kCast, "")          \
  X(AsBFloat, "as_bfloat", 1, kCast, "")        \
  X(AsInt, "as_int", 1, kCast, "")              \
  X(AsUInt, "as_uint", 1, kCast, "")            \
  X(AsBool, "as_bool", 1, kCast, "")            \
  X(Bitcast, "bitcast", 1, kBitcast, "")            \
  X(Reshape, "reshape", 1, kStructural, "")     \
  X(Index, "index", 1, kStructural, "")         \
  X(ShapeOf, "shape", 1, kStructural, "")       \
  X(Gather, "gather", 2, kStructural, "")       \
  X(Scatter, "scatter", 3, kStructural, "")     \
  X(PrngStep, "prng_step", 1, kStructural, "")  \
  X(PrngState, "prng_state", 1, kStructural, "")\
  X(PrngValue, "prng_value", 1, kStructural, "")

enum class OpKind {
#define PLAIDML_OP_ENUM(e, name, arity, category, infix) e,
  PLAIDML_OPS(PLAIDML_OP_ENUM)
#undef PLAIDML_OP_ENUM
};

// The number of rows of the op table: OpKind values are 0 .. op_count() - 1.
int op_count();
std::string_view op_name(OpKind op);  // a string literal: data() is NUL-terminated
int op_arity(OpKind op);  // tensor operands; -1 never used today
OpCategory op_category(OpKind op);
std::string_view op_infix(OpKind op);  // "+" for operators, "" for functions
std::optional<OpKind> op_from_name(std::string_view name);

// Integer arguments that are not tensors:
//   casts:      int_args = {bits}          (as_bool: {})
//   reshape:    int_args = new dims        (IntExprs over dims, evaluated when bound)
//   index:      int_args = {axis}
//   prng_step:  int_args = output dims of the random values
// See ir/program.h Node::int_args.

}  // namespace plaidml::ir
