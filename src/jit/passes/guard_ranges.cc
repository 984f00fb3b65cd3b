#include "jit/passes/guard_ranges.h"

#include <algorithm>

#include "jit/loop/rewrite.h"

namespace plaidml::jit::passes {
namespace {

using ir::OpKind;

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t signed_ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

struct Bounds {
  int64_t lo, hi;  // x in [lo, hi)
};

// Narrows `b` to the x where e >= k for every value of the other variables; false when e reads
// a variable without a range.
bool require_at_least(const loop::AffineIndex& e, int64_t k, const std::string& x,
                      const VarRanges& ranges, Bounds& b) {
  int64_t least = e.constant;  // the smallest value of e less its x term
  for (const auto& [name, c] : e.coeffs) {
    if (name == x || c == 0) continue;
    auto it = ranges.find(name);
    if (it == ranges.end()) return false;
    least += c > 0 ? c * it->second.first : c * it->second.second;
  }
  int64_t cx = e.coeff(x);
  int64_t t = k - least;  // need cx * x >= t
  if (cx == 0) {
    if (t > 0) b.hi = b.lo;
  } else if (cx > 0) {
    b.lo = std::max(b.lo, signed_ceil_div(t, cx));
  } else {
    b.hi = std::min(b.hi, floor_div(t, cx) + 1);
  }
  return true;
}

bool narrow_by(const loop::Expr& cond, const std::string& x, const VarRanges& ranges, Bounds& b) {
  if (cond.kind != loop::ExprKind::kOp) return false;
  if (cond.op == OpKind::BitAnd && cond.dtype == DType::Bool) {
    return narrow_by(*cond.args[0], x, ranges, b) && narrow_by(*cond.args[1], x, ranges, b);
  }
  auto lhs = loop::affine_of(*cond.args[0]);
  auto rhs = cond.args.size() == 2 ? loop::affine_of(*cond.args[1]) : std::nullopt;
  if (!lhs || !rhs) return false;
  loop::AffineIndex diff = *lhs;  // lhs - rhs
  for (const auto& [name, c] : rhs->coeffs) diff.coeffs[name] -= c;
  diff.constant -= rhs->constant;
  loop::AffineIndex neg = diff;
  for (auto& [name, c] : neg.coeffs) c = -c;
  neg.constant = -neg.constant;
  switch (cond.op) {
    case OpKind::Ge:
      return require_at_least(diff, 0, x, ranges, b);
    case OpKind::Gt:
      return require_at_least(diff, 1, x, ranges, b);
    case OpKind::Le:
      return require_at_least(neg, 0, x, ranges, b);
    case OpKind::Lt:
      return require_at_least(neg, 1, x, ranges, b);
    default:
      return false;
  }
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> unguarded_range(const std::vector<loop::ExprPtr>& guards,
                                                           const std::string& x, int64_t lo,
                                                           int64_t hi, const VarRanges& ranges) {
  Bounds b{lo, hi};
  for (const auto& g : guards) {
    if (!narrow_by(*g, x, ranges, b)) return std::nullopt;
  }
  b.lo = std::min(std::max(b.lo, lo), hi);
  b.hi = std::max(std::min(b.hi, hi), b.lo);
  return std::make_pair(b.lo, b.hi);
}

}  // namespace plaidml::jit::passes
