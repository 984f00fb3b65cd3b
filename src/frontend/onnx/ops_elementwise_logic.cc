// Comparisons, logic, bitwise ops, Where, Cast/CastLike, IsNaN/IsInf, Identity, Dropout.
#include <cmath>

#include "ops_elementwise_util.h"
#include "tensor_proto.h"

namespace plaidml::onnx_import::elementwise {
namespace {

// Equal, Less, LessOrEqual, Greater, GreaterOrEqual: one dtype T, bool out.
template <const char* kFunction, FoldOp kFold>
void compare(NodeContext& cx) {
  cx.check_attrs({});
  require_same_dtype(cx, 0, 1);
  cx.require_dtype(0, kFold == FoldOp::kEqual ? all_types() : numeric_types());
  if (try_fold(cx, kFold)) return;
  cx.set_output(0, plaidml::call(kFunction, {cx.tensor(0), cx.tensor(1)}), PLAIDML_DTYPE_BOOL);
}

// And, Or, Xor on bools.
template <const char* kFunction, FoldOp kFold>
void logic(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, {PLAIDML_DTYPE_BOOL});
  cx.require_dtype(1, {PLAIDML_DTYPE_BOOL});
  if (try_fold(cx, kFold)) return;
  cx.set_output(0, plaidml::call(kFunction, {cx.tensor(0), cx.tensor(1)}), PLAIDML_DTYPE_BOOL);
}

void convert_not(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, {PLAIDML_DTYPE_BOOL});
  if (try_fold(cx, FoldOp::kNot)) return;
  cx.set_output(0, logical_not(cx.tensor(0)), PLAIDML_DTYPE_BOOL);
}

// BitwiseAnd, BitwiseOr, BitwiseXor: one integer dtype.
template <const char* kFunction>
void bitwise(NodeContext& cx) {
  cx.check_attrs({});
  require_same_dtype(cx, 0, 1);
  cx.require_dtype(0, int_types());
  cx.set_output(0, plaidml::call(kFunction, {cx.tensor(0), cx.tensor(1)}), cx.dtype(0));
}

void convert_bitwise_not(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, int_types());
  cx.set_output(0, ~cx.tensor(0), cx.dtype(0));
}

// BitShift: Tile gives 0 for an amount that is negative or >= the width, which is BitShift-28's
// rule except for a right shift of a negative value (-1): that case shifts by width - 1.
void convert_bit_shift(NodeContext& cx) {
  cx.check_attrs({"direction"});
  require_same_dtype(cx, 0, 1);
  cx.require_dtype(0, int_types());
  plaidml_dtype d = cx.dtype(0);
  std::string direction = cx.attr_string("direction", "");
  plaidml::Tensor x = cx.tensor(0), y = cx.tensor(1);
  if (direction == "LEFT") return cx.set_output(0, x << y, d);
  if (direction != "RIGHT") invalid("attribute 'direction' must be LEFT or RIGHT, not '{}'", direction);
  if (dtype_is_unsigned_int(d)) return cx.set_output(0, x >> y, d);
  int64_t width = static_cast<int64_t>(dtype_bytes(d) * 8);
  plaidml::Tensor out_of_range =
      logical_or(y < cst_int(cx, d, 0), y >= cst_int(cx, d, width));
  plaidml::Tensor amount = plaidml::select(out_of_range, cst_int(cx, d, width - 1), y);
  cx.set_output(0, x >> amount, d);
}

void convert_where(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, {PLAIDML_DTYPE_BOOL});
  require_same_dtype(cx, 1, 2);
  cx.require_dtype(1, all_types());
  if (try_fold(cx, FoldOp::kWhere)) return;
  cx.set_output(0, plaidml::select(cx.tensor(0), cx.tensor(1), cx.tensor(2)), cx.dtype(1));
}

// Converts input 0 to dtype `to` (the same dtype still makes a new value).
void cast_input(NodeContext& cx, plaidml_dtype to) {
  cx.require_dtype(0, all_types());
  if (try_fold(cx, FoldOp::kCast, to)) return;
  cx.set_output(0, cast_to(cx.tensor(0), to), to);
}

// Cast: `saturate` and `round_mode` only concern float8 types, which plaidml does not have.
void convert_cast(NodeContext& cx) {
  cx.check_attrs({"to", "saturate", "round_mode"});
  if (!cx.has_attr("to")) invalid("attribute 'to' is missing");
  int64_t to = cx.attr_int("to", 0);
  auto dtype = dtype_of_onnx(static_cast<int>(to));
  if (!dtype) unsupported("Cast to {} is not supported", elem_type_name(static_cast<int>(to)));
  cast_input(cx, *dtype);
}

// The bits of a float as the integer of its width or back, in plaidml's bitcast (f32 <-> i32,
// f64 <-> i64); an unsigned target is then a cast, which keeps the bits.
plaidml::Tensor float_int_bitcast(const plaidml::Tensor& x, plaidml_dtype from, plaidml_dtype to) {
  if (dtype_bytes(from) < 4) {
    unsupported("BitCast between {} and {} is not supported (16-bit floats)", dtype_text(from),
                dtype_text(to));
  }
  plaidml::Tensor bits = plaidml::bitcast(x);
  return dtype_is_float(to) ? bits : cast_to(bits, to);
}

// BitCast: each element's bits as another type of the same width. Between integers (and from
// bool) that is a cast, which wraps modulo 2^bits and so keeps the bits.
void convert_bitcast(NodeContext& cx) {
  cx.check_attrs({"to"});
  if (!cx.has_attr("to")) invalid("attribute 'to' is missing");
  int to_code = static_cast<int>(cx.attr_int("to", 0));
  auto to = dtype_of_onnx(to_code);
  if (!to) unsupported("BitCast to {} is not supported", elem_type_name(to_code));
  cx.require_dtype(0, all_types());
  plaidml_dtype from = cx.dtype(0);
  if (dtype_bytes(from) != dtype_bytes(*to)) {
    invalid("BitCast needs types of one width, but {} has {} bits and {} has {}",
            dtype_text(from), dtype_bytes(from) * 8, dtype_text(*to), dtype_bytes(*to) * 8);
  }
  if (*to == PLAIDML_DTYPE_BOOL && from != PLAIDML_DTYPE_BOOL) {
    unsupported("BitCast to bool is not supported (bytes other than 0 and 1 are no bool)");
  }
  plaidml::Tensor x = cx.tensor(0);
  if (from == *to) return cx.set_output(0, x, from);
  if (dtype_is_float(from) && dtype_is_float(*to)) {
    unsupported("BitCast between {} and {} is not supported", dtype_text(from), dtype_text(*to));
  }
  if (!dtype_is_float(from) && !dtype_is_float(*to)) return cx.set_output(0, cast_to(x, *to), *to);
  cx.set_output(0, float_int_bitcast(x, from, *to), *to);
}

void convert_cast_like(NodeContext& cx) {
  cx.check_attrs({"saturate", "round_mode"});
  cast_input(cx, cx.dtype(1));
}

void convert_is_nan(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, float_types());
  cx.set_output(0, is_nan(cx.tensor(0)), PLAIDML_DTYPE_BOOL);
}

void convert_is_inf(NodeContext& cx) {
  cx.check_attrs({"detect_negative", "detect_positive"});
  cx.require_dtype(0, float_types());
  plaidml_dtype d = cx.dtype(0);
  bool negative = cx.attr_int("detect_negative", 1) != 0;
  bool positive = cx.attr_int("detect_positive", 1) != 0;
  plaidml::Tensor x = cx.tensor(0);
  plaidml::Tensor r = negative && positive ? plaidml::isinf(x)
                      : positive            ? plaidml::eq(x, cst(cx, d, INFINITY))
                      : negative            ? plaidml::eq(x, cst(cx, d, -INFINITY))
                                            : logical_and(is_nan(x), logical_not(is_nan(x)));
  cx.set_output(0, r, PLAIDML_DTYPE_BOOL);
}

void convert_identity(NodeContext& cx) {
  cx.check_attrs({});
  cx.set_output(0, cx.input(0));
}

// Dropout imports for inference: the output is the input and the mask all true. Training mode
// (random) is refused unless the ratio is known to be 0.
void convert_dropout(NodeContext& cx) {
  cx.check_attrs(cx.version() >= 12 ? std::vector<std::string>{"seed"}
                                    : std::vector<std::string>{"ratio"});
  cx.require_dtype(0, float_types());
  if (cx.version() >= 12 && cx.has_input(2)) {
    auto training = cx.known_ints(2);
    if (!training) {
      unsupported("input 'training_mode' must be known when the model is imported (a constant "
                  "false: Dropout imports for inference; training mode drops at random)");
    }
    if (!training->empty() && (*training)[0] != 0) {
      const HostTensor* ratio = cx.has_input(1) ? cx.host(1) : nullptr;
      bool zero = ratio != nullptr && ratio->elements() == 1 && ratio->as_double(0) == 0.0;
      if (!zero) unsupported("Dropout in training mode (random dropping) is not supported");
    }
  }
  if (cx.wants_output(1)) {
    // In inference every element is kept: the mask is all true (bool from version 10; before,
    // of the input's type T, so all ones).
    plaidml::Tensor x = cx.tensor(0);
    plaidml::Tensor keep = logical_or(plaidml::eq(x, x), plaidml::ne(x, x));
    if (cx.version() < 10) {
      cx.set_output(1, cast_to(keep, cx.dtype(0)), cx.dtype(0));
    } else {
      cx.set_output(1, keep, PLAIDML_DTYPE_BOOL);
    }
  }
  cx.set_output(0, cx.input(0));
}

constexpr char kEq[] = "cmp_eq";
constexpr char kLt[] = "cmp_lt";
constexpr char kLe[] = "cmp_le";
constexpr char kGt[] = "cmp_gt";
constexpr char kGe[] = "cmp_ge";
constexpr char kAnd[] = "bit_and";
constexpr char kOr[] = "bit_or";
constexpr char kXor[] = "bit_xor";

}  // namespace

std::vector<ConverterEntry> logic_converters() {
  return {
      {"Equal", {7, 11, 13, 19}, compare<kEq, FoldOp::kEqual>},
      {"Less", {7, 9, 13}, compare<kLt, FoldOp::kLess>},
      {"LessOrEqual", {12, 16}, compare<kLe, FoldOp::kLessEqual>},
      {"Greater", {7, 9, 13}, compare<kGt, FoldOp::kGreater>},
      {"GreaterOrEqual", {12, 16}, compare<kGe, FoldOp::kGreaterEqual>},
      {"And", {7}, logic<kAnd, FoldOp::kAnd>},
      {"Or", {7}, logic<kOr, FoldOp::kOr>},
      {"Xor", {7}, logic<kXor, FoldOp::kXor>},
      {"Not", {1}, convert_not},
      {"BitwiseAnd", {18}, bitwise<kAnd>},
      {"BitwiseOr", {18}, bitwise<kOr>},
      {"BitwiseXor", {18}, bitwise<kXor>},
      {"BitwiseNot", {18}, convert_bitwise_not},
      {"BitShift", {11, 28}, convert_bit_shift},
      {"Where", {9, 16}, convert_where},
      {"Cast", {6, 9, 13, 19, 21, 23, 24, 25, 28}, convert_cast},
      {"CastLike", {15, 19, 21, 23, 24, 25}, convert_cast_like},
      {"BitCast", {26}, convert_bitcast},
      {"IsNaN", {9, 13, 20}, convert_is_nan},
      {"IsInf", {10, 20}, convert_is_inf},
      {"Identity", {1, 13, 14, 16, 19, 21, 23, 24, 25}, convert_identity},
      {"Dropout", {7, 10, 12, 13, 22}, convert_dropout},
  };
}

}  // namespace plaidml::onnx_import::elementwise
