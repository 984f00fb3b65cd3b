#include "core/ir/symbolic_shape.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

#include "core/poly/affine.h"

namespace plaidml::ir {
namespace size_expr {

IntExprPtr lit(int64_t v) { return IntExpr::literal(v); }

std::optional<int64_t> literal_value(const IntExpr& e) {
  if (e.op == IntOp::kLiteral) return e.value;
  return std::nullopt;
}

namespace {

// Pairs of distinct nodes found equal are remembered, so two equal DAGs are compared in time
// linear in their nodes, not in their trees; the first difference ends the comparison.
bool same_nodes(const IntExpr& a, const IntExpr& b,
                std::set<std::pair<const IntExpr*, const IntExpr*>>& equal) {
  if (&a == &b) return true;
  if (a.op != b.op || a.value != b.value || a.name != b.name || a.args.size() != b.args.size()) {
    return false;
  }
  if (equal.count({&a, &b})) return true;
  for (size_t k = 0; k < a.args.size(); ++k) {
    if (!same_nodes(*a.args[k], *b.args[k], equal)) return false;
  }
  equal.insert({&a, &b});
  return true;
}

}  // namespace

bool same(const IntExpr& a, const IntExpr& b) {
  std::set<std::pair<const IntExpr*, const IntExpr*>> equal;
  return same_nodes(a, b, equal);
}

namespace {

std::optional<int64_t> fold(IntOp op, int64_t x, int64_t y) {
  int64_t r = 0;
  switch (op) {
    case IntOp::kAdd:
      if (__builtin_add_overflow(x, y, &r)) return std::nullopt;
      return r;
    case IntOp::kSub:
      if (__builtin_sub_overflow(x, y, &r)) return std::nullopt;
      return r;
    case IntOp::kMul:
      if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
      return r;
    case IntOp::kMax:
      return std::max(x, y);
    case IntOp::kMin:
      return std::min(x, y);
    case IntOp::kDiv:
    case IntOp::kFloorDiv:  // left to bind time: it reports division by zero in the user's terms
    case IntOp::kLiteral:
    case IntOp::kIndex:
    case IntOp::kDim:
    case IntOp::kNeg:
      break;
  }
  return std::nullopt;
}

IntExprPtr binary(IntOp op, IntExprPtr a, IntExprPtr b) {
  auto x = literal_value(*a), y = literal_value(*b);
  if (x && y) {
    if (auto r = fold(op, *x, *y)) return lit(*r);
  }
  return IntExpr::binary(op, std::move(a), std::move(b));
}

}  // namespace

IntExprPtr add(IntExprPtr a, IntExprPtr b) {
  if (literal_value(*a) == 0) return b;
  if (literal_value(*b) == 0) return a;
  return binary(IntOp::kAdd, std::move(a), std::move(b));
}

IntExprPtr sub(IntExprPtr a, IntExprPtr b) {
  if (literal_value(*b) == 0) return a;
  if (same(*a, *b)) return lit(0);
  return binary(IntOp::kSub, std::move(a), std::move(b));
}

IntExprPtr mul(IntExprPtr a, IntExprPtr b) {
  if (literal_value(*a) == 1) return b;
  if (literal_value(*b) == 1) return a;
  if (literal_value(*a) == 0 || literal_value(*b) == 0) return lit(0);
  return binary(IntOp::kMul, std::move(a), std::move(b));
}

IntExprPtr div(IntExprPtr a, IntExprPtr b) {
  if (literal_value(*b) == 1) return a;
  return binary(IntOp::kDiv, std::move(a), std::move(b));
}

IntExprPtr floordiv(IntExprPtr a, IntExprPtr b) {
  if (literal_value(*b) == 1) return a;
  auto x = literal_value(*a), y = literal_value(*b);
  if (x && y && *y != 0) {
    return lit(poly::Rational(*x, *y).floor());
  }
  return binary(IntOp::kFloorDiv, std::move(a), std::move(b));
}

IntExprPtr max(IntExprPtr a, IntExprPtr b) {
  if (same(*a, *b)) return a;
  return binary(IntOp::kMax, std::move(a), std::move(b));
}

IntExprPtr min(IntExprPtr a, IntExprPtr b) {
  if (same(*a, *b)) return a;
  return binary(IntOp::kMin, std::move(a), std::move(b));
}

IntExprPtr broadcast(IntExprPtr a, IntExprPtr b) {
  if (literal_value(*a) == 1) return b;
  if (literal_value(*b) == 1) return a;
  if (same(*a, *b)) return a;
  return mul(max(a, b), min(lit(1), min(a, b)));
}

}  // namespace size_expr

namespace {

Expected<SymbolicDims> operand_dims(const Node& n, size_t k,
                                    const std::vector<std::optional<SymbolicDims>>& known) {
  ValueId v = n.operands.at(k);
  if (v < 0 || static_cast<size_t>(v) >= known.size() || !known[v]) {
    return Status(StatusCode::kInternal, "symbolic shape: operand dims not computed");
  }
  return *known[v];
}

SymbolicDims broadcast_all(const std::vector<SymbolicDims>& all) {
  size_t rank = 0;
  for (const auto& d : all) rank = std::max(rank, d.size());
  SymbolicDims out(rank, size_expr::lit(1));
  for (const auto& d : all) {
    size_t offset = rank - d.size();
    for (size_t k = 0; k < d.size(); ++k)
      out[offset + k] = size_expr::broadcast(out[offset + k], d[k]);
  }
  return out;
}

Expected<SymbolicDims> structural_dims(const Node& n,
                                       const std::vector<std::optional<SymbolicDims>>& known) {
  // Only the structural ops have their own shape rule; every other op broadcasts.
  OpKind op = n.op;
  if (op == OpKind::Reshape || op == OpKind::PrngStep) {
    return SymbolicDims(n.int_args.begin(), n.int_args.end());
  }
  if (op == OpKind::Index || op == OpKind::PrngValue) return operand_dims(n, 0, known);
  if (op == OpKind::ShapeOf) {
    PLAIDML_ASSIGN(SymbolicDims x, operand_dims(n, 0, known));
    return SymbolicDims{size_expr::lit(static_cast<int64_t>(x.size()))};
  }
  if (op == OpKind::Gather) {
    PLAIDML_ASSIGN(SymbolicDims v, operand_dims(n, 0, known));
    PLAIDML_ASSIGN(SymbolicDims idx, operand_dims(n, 1, known));
    if (!v.empty()) idx.insert(idx.end(), v.begin() + 1, v.end());
    return idx;
  }
  if (op == OpKind::Scatter) return operand_dims(n, 2, known);
  if (op == OpKind::PrngState) return SymbolicDims{size_expr::lit(3), size_expr::lit(2048)};
  std::vector<SymbolicDims> all;
  for (size_t k = 0; k < n.operands.size(); ++k) {
    PLAIDML_ASSIGN(SymbolicDims d, operand_dims(n, k, known));
    all.push_back(std::move(d));
  }
  return broadcast_all(all);
}

}  // namespace

namespace {

// |v| < 2^31, so that folding cannot overflow; not std::abs, which is undefined for INT64_MIN
// (a literal a caller may pass: plaidml_expr_int takes any int64).
bool fits_31_bits(int64_t v) { return v > -(int64_t{1} << 31) && v < (int64_t{1} << 31); }

}  // namespace

IntExprPtr exact_binary(IntOp op, IntExprPtr a, IntExprPtr b, SourceLoc loc) {
  auto x = size_expr::literal_value(*a);
  auto y = b ? size_expr::literal_value(*b) : std::optional<int64_t>(0);
  bool foldable = x && y && fits_31_bits(*x) && fits_31_bits(*y);
  if (foldable) {
    switch (op) {
      case IntOp::kAdd: return IntExpr::literal(*x + *y, loc);
      case IntOp::kSub: return IntExpr::literal(*x - *y, loc);
      case IntOp::kMul: return IntExpr::literal(*x * *y, loc);
      case IntOp::kMax: return IntExpr::literal(std::max(*x, *y), loc);
      case IntOp::kMin: return IntExpr::literal(std::min(*x, *y), loc);
      case IntOp::kNeg: return IntExpr::literal(-*x, loc);
      case IntOp::kDiv:
        if (*y != 0 && *x % *y == 0) return IntExpr::literal(*x / *y, loc);
        break;
      case IntOp::kFloorDiv:
        if (*y != 0) {
          int64_t q = *x / *y;
          if ((*x % *y != 0) && ((*x < 0) != (*y < 0))) --q;
          return IntExpr::literal(q, loc);
        }
        break;
      case IntOp::kLiteral:
      case IntOp::kIndex:
      case IntOp::kDim: break;
    }
  }
  if (op == IntOp::kNeg) return IntExpr::neg(std::move(a), std::move(loc));
  return IntExpr::binary(op, std::move(a), std::move(b), std::move(loc));
}

Expected<SymbolicDims> symbolic_dims(const Program& program, ValueId id,
                                     const std::vector<std::optional<SymbolicDims>>& known) {
  const Node& n = program.nodes.at(id);
  switch (n.kind) {
    case NodeKind::kInput: {
      if (!n.input_dims) {
        return make_error(StatusCode::kTypeError,
                          "input '{}' has an unknown rank; declare its dims to use it here",
                          n.name);
      }
      SymbolicDims dims;
      for (const auto& d : *n.input_dims) {
        if (d.empty()) return Status(StatusCode::kInternal, "symbolic shape: unnamed input dim");
        auto fixed = fixed_dim_size(d);
        dims.push_back(fixed ? IntExpr::literal(*fixed) : IntExpr::dim(d));
      }
      return dims;
    }
    case NodeKind::kConstant: {
      SymbolicDims dims;
      for (int64_t d : n.constant->shape.dims) dims.push_back(IntExpr::literal(d));
      return dims;
    }
    case NodeKind::kLiteral:
      return SymbolicDims{};
    case NodeKind::kContraction:
      return n.contraction.out_sizes;
    case NodeKind::kElementwise: {
      // Sizes grow with every op that changes them (N + N + ... along a chain of concats):
      // bounded here, where they are built, like every integer expression.
      PLAIDML_ASSIGN(SymbolicDims dims, structural_dims(n, known));
      for (const auto& d : dims) {
        PLAIDML_TRY(check_int_depth(d, fmt::format("the symbolic size of {}'s result",
                                                   op_name(n.op))));
      }
      return dims;
    }
  }
  return Status(StatusCode::kInternal, "symbolic shape: unknown node kind");
}

}  // namespace plaidml::ir
