#include "core/ir/bind_int_expr.h"

#include <algorithm>
#include <unordered_map>

#include "core/ir/printer.h"

namespace plaidml::ir::detail {
namespace {

Status size_error(const IntExpr& e, const std::string& cause) {
  return make_error(StatusCode::kTypeError, "size expression '{}' {}", print_int_expr(e), cause);
}

Expected<int64_t> lookup_dim(const IntExpr& e, const DimMap& dims) {
  auto it = dims.find(e.name);
  if (it == dims.end()) {
    return make_error(StatusCode::kTypeError,
                      "unknown dimension '{}': no input declares a dimension of that name", e.name);
  }
  return it->second;
}

Expected<int64_t> size_binary(const IntExpr& e, int64_t a, int64_t b) {
  int64_t r = 0;
  bool overflow = false;
  switch (e.op) {
    case IntOp::kAdd:
      overflow = __builtin_add_overflow(a, b, &r);
      break;
    case IntOp::kSub:
      overflow = __builtin_sub_overflow(a, b, &r);
      break;
    case IntOp::kMul:
      overflow = __builtin_mul_overflow(a, b, &r);
      break;
    case IntOp::kDiv:
      if (b == 0) return size_error(e, "divides by zero");
      overflow = (a == INT64_MIN && b == -1);
      r = overflow ? 0 : a / b;
      break;
    case IntOp::kMax:
      r = std::max(a, b);
      break;
    case IntOp::kMin:
      r = std::min(a, b);
      break;
    case IntOp::kFloorDiv:
      if (b == 0) return size_error(e, "divides by zero");
      overflow = (a == INT64_MIN && b == -1);
      r = overflow ? 0 : a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
      break;
    case IntOp::kLiteral:
    case IntOp::kIndex:
    case IntOp::kDim:
    case IntOp::kNeg:
      break;
  }
  if (overflow) return size_error(e, "overflows 64-bit integers");
  return r;
}

Status not_affine(const IntExpr& e) {
  return make_error(StatusCode::kTypeError,
                    "index expression '{}' is not affine: a product, max or min needs a "
                    "constant operand",
                    print_int_expr(e));
}

// floordiv in an index expression: both operands are integers once dims are known.
Expected<poly::Affine> floor_div_constants(const IntExpr& e, const poly::Affine& a,
                                           const poly::Affine& b) {
  if (!a.is_constant() || !b.is_constant()) return not_affine(e);
  poly::Rational x = a.constant(), y = b.constant();
  if (x.den != 1 || y.den != 1) {
    return make_error(StatusCode::kTypeError,
                      "index expression '{}': floordiv needs integer operands", print_int_expr(e));
  }
  if (y.num == 0) {
    return make_error(StatusCode::kTypeError, "index expression '{}' divides by zero",
                      print_int_expr(e));
  }
  return poly::Affine(poly::Rational(poly::Rational(x.num, y.num).floor()));
}

Expected<poly::Affine> affine_binary(const IntExpr& e, const poly::Affine& a,
                                     const poly::Affine& b) {
  switch (e.op) {
    case IntOp::kAdd:
      return a + b;
    case IntOp::kSub:
      return a - b;
    case IntOp::kMul:
      if (a.is_constant()) return b * a.constant();
      if (b.is_constant()) return a * b.constant();
      return not_affine(e);
    case IntOp::kDiv:
      if (!b.is_constant()) {
        return make_error(StatusCode::kTypeError,
                          "index expression '{}' is not affine: it divides by a non-constant",
                          print_int_expr(e));
      }
      if (b.constant().num == 0) {
        return make_error(StatusCode::kTypeError, "index expression '{}' divides by zero",
                          print_int_expr(e));
      }
      return a / b.constant();
    case IntOp::kFloorDiv:
      return floor_div_constants(e, a, b);
    case IntOp::kMax:
    case IntOp::kMin:
      if (!a.is_constant() || !b.is_constant()) return not_affine(e);
      if (e.op == IntOp::kMax) return b.constant() < a.constant() ? a : b;
      return a.constant() < b.constant() ? a : b;
    case IntOp::kLiteral:
    case IntOp::kIndex:
    case IntOp::kDim:
    case IntOp::kNeg:
      break;
  }
  return Status(StatusCode::kInternal, "bind: malformed index expression");
}

// Values of the subexpressions already met: a size over symbolic dims is a DAG whose tree is
// exponentially large (docs/onnx.md), so each shared node is computed once.
using AffineMemo = std::unordered_map<const IntExpr*, poly::Affine>;
using SizeMemo = std::unordered_map<const IntExpr*, int64_t>;

// compute() for an operator node the first time it is met, its remembered value after; leaves
// are cheaper to compute than to look up.
template <typename T, typename Compute>
Expected<T> memoized(const IntExpr& e, std::unordered_map<const IntExpr*, T>& memo,
                     Compute compute) {
  if (e.args.empty()) return compute();
  if (auto it = memo.find(&e); it != memo.end()) return it->second;
  PLAIDML_ASSIGN(T value, compute());
  memo.emplace(&e, value);
  return value;
}

Expected<poly::Affine> affine_rec(const IntExpr& e, const DimMap& dims, AffineMemo& memo);

Expected<poly::Affine> affine_node(const IntExpr& e, const DimMap& dims, AffineMemo& memo) {
  switch (e.op) {
    case IntOp::kLiteral:
      return poly::Affine(poly::Rational(e.value));
    case IntOp::kIndex:
      return poly::Affine::var(e.name);
    case IntOp::kDim: {
      PLAIDML_ASSIGN(int64_t v, lookup_dim(e, dims));
      return poly::Affine(poly::Rational(v));
    }
    case IntOp::kNeg: {
      if (e.args.size() != 1) break;
      PLAIDML_ASSIGN(poly::Affine a, affine_rec(*e.args[0], dims, memo));
      return -a;
    }
    case IntOp::kAdd:
    case IntOp::kSub:
    case IntOp::kMul:
    case IntOp::kDiv:
    case IntOp::kMax:
    case IntOp::kMin:
    case IntOp::kFloorDiv: {
      if (e.args.size() != 2) break;
      PLAIDML_ASSIGN(poly::Affine a, affine_rec(*e.args[0], dims, memo));
      PLAIDML_ASSIGN(poly::Affine b, affine_rec(*e.args[1], dims, memo));
      return affine_binary(e, a, b);
    }
  }
  return Status(StatusCode::kInternal, "bind: malformed index expression");
}

Expected<poly::Affine> affine_rec(const IntExpr& e, const DimMap& dims, AffineMemo& memo) {
  return memoized(e, memo, [&] { return affine_node(e, dims, memo); });
}

Expected<int64_t> size_node(const IntExpr& e, const DimMap& dims, SizeMemo& memo);

Expected<int64_t> size_rec(const IntExpr& e, const DimMap& dims, SizeMemo& memo) {
  return memoized(e, memo, [&] { return size_node(e, dims, memo); });
}

Expected<int64_t> size_node(const IntExpr& e, const DimMap& dims, SizeMemo& memo) {
  switch (e.op) {
    case IntOp::kLiteral:
      return e.value;
    case IntOp::kDim:
      return lookup_dim(e, dims);
    case IntOp::kIndex:
      return size_error(e, "uses the index variable '" + e.name +
                               "': sizes may use only dimensions and integers");
    case IntOp::kNeg: {
      if (e.args.size() != 1) break;
      PLAIDML_ASSIGN(int64_t a, size_rec(*e.args[0], dims, memo));
      if (a == INT64_MIN) return size_error(e, "overflows 64-bit integers");
      return -a;
    }
    case IntOp::kAdd:
    case IntOp::kSub:
    case IntOp::kMul:
    case IntOp::kDiv:
    case IntOp::kMax:
    case IntOp::kMin:
    case IntOp::kFloorDiv: {
      if (e.args.size() != 2) break;
      PLAIDML_ASSIGN(int64_t a, size_rec(*e.args[0], dims, memo));
      PLAIDML_ASSIGN(int64_t b, size_rec(*e.args[1], dims, memo));
      return size_binary(e, a, b);
    }
  }
  return Status(StatusCode::kInternal, "bind: malformed size expression");
}

}  // namespace

Expected<int64_t> eval_size(const IntExpr& e, const DimMap& dims) {
  SizeMemo memo;
  return size_rec(e, dims, memo);
}

Expected<poly::Affine> to_affine(const IntExpr& e, const DimMap& dims) {
  poly::clear_arithmetic_error();
  AffineMemo memo;
  auto result = affine_rec(e, dims, memo);
  if (result.has_value() && poly::arithmetic_error()) {
    poly::clear_arithmetic_error();
    return make_error(StatusCode::kTypeError, "index expression '{}' overflows 64-bit integers",
                      print_int_expr(e));
  }
  return result;
}

}  // namespace plaidml::ir::detail
