#include "core/eval/contraction.h"

#include <algorithm>
#include <string>

namespace plaidml::eval {
namespace {

using ir::AggOp;
using ir::CombOp;

// Visiting more points than this would take the reference interpreter hours.
constexpr double kMaxPoints = 1e11;

// An affine expression over the index box in integer form: at a point its value is
// numerator / den, where numerator = constant + sum(coef[k] * index[k]).
struct IntAffine {
  std::vector<int64_t> coef;  // per index position
  int64_t constant = 0;
  int64_t den = 1;
};

Expected<IntAffine> compile(const poly::Affine& a, const std::vector<std::string>& indices) {
  IntAffine out;
  out.den = a.denominator();
  out.coef.assign(indices.size(), 0);
  out.constant = a.constant().num * (out.den / a.constant().den);
  for (const auto& [name, r] : a.terms()) {
    size_t k = 0;
    while (k < indices.size() && indices[k] != name) ++k;
    if (k == indices.size()) {
      return make_error(StatusCode::kInternal,
                        "interpreter: index '{}' of '{}' is not in the contraction's index list",
                        name, a.to_string());
    }
    out.coef[k] = r.num * (out.den / r.den);
  }
  return out;
}

// An access: a tensor dimension addressed by an affine; valid iff integral and in [0, size).
struct Access {
  size_t lin;
  int64_t size;
  int64_t stride;
};

// A condition lo <= expr <= hi, pre-multiplied by the expression's denominator.
struct Condition {
  size_t lin;
  int64_t lo;
  int64_t hi;
};

// The compiled contraction: all affines, their current numerators, and the tests of a point.
struct Plan {
  std::vector<IntAffine> lins;
  std::vector<Access> out_access;
  std::vector<std::vector<Access>> in_access;
  std::vector<Condition> conditions;
};

Status add_accesses(const std::vector<poly::Affine>& access, const std::vector<int64_t>& dims,
                    const std::vector<std::string>& indices, Plan& plan, std::vector<Access>& out) {
  if (access.size() != dims.size()) {
    return make_error(StatusCode::kInternal, "interpreter: {} index expressions for rank {}",
                      access.size(), dims.size());
  }
  int64_t stride = 1;
  out.resize(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    PLAIDML_ASSIGN(IntAffine lin, compile(access[k], indices));
    out[k] = Access{plan.lins.size(), dims[k], stride};
    plan.lins.push_back(std::move(lin));
    stride *= dims[k];
  }
  return Status::ok();
}

// True when `rc` is exactly the bounds check of some access (0 <= access < size), which the
// enumeration performs anyway; skipping it halves the work per point of a typical contraction.
bool implied_by_access(const poly::RangeConstraint& rc, const ContractionSpec& spec) {
  const ir::BoundContraction& c = *spec.contraction;
  auto match = [&](const std::vector<poly::Affine>& access, const std::vector<int64_t>& dims) {
    for (size_t k = 0; k < access.size() && k < dims.size(); ++k) {
      if (rc.lo <= 0 && rc.hi >= dims[k] - 1 && access[k] == rc.expr) return true;
    }
    return false;
  };
  if (match(c.out_access, spec.dims)) return true;
  for (size_t j = 0; j < c.in_access.size() && j < spec.inputs.size(); ++j) {
    if (match(c.in_access[j], spec.inputs[j]->dims)) return true;
  }
  return false;
}

Expected<Plan> make_plan(const ContractionSpec& spec) {
  const ir::BoundContraction& c = *spec.contraction;
  Plan plan;
  PLAIDML_TRY(add_accesses(c.out_access, spec.dims, c.indices, plan, plan.out_access));
  if (c.in_access.size() != spec.inputs.size()) {
    return make_error(StatusCode::kInternal, "interpreter: contraction input count mismatch");
  }
  plan.in_access.resize(spec.inputs.size());
  for (size_t j = 0; j < spec.inputs.size(); ++j) {
    PLAIDML_TRY(
        add_accesses(c.in_access[j], spec.inputs[j]->dims, c.indices, plan, plan.in_access[j]));
  }
  for (const poly::RangeConstraint& rc : c.conditions) {
    if (implied_by_access(rc, spec)) continue;
    PLAIDML_ASSIGN(IntAffine lin, compile(rc.expr, c.indices));
    plan.conditions.push_back(Condition{plan.lins.size(), rc.lo * lin.den, rc.hi * lin.den});
    plan.lins.push_back(std::move(lin));
  }
  return plan;
}

// Linear offset of an access at the current point, or -1 if the point is not valid for it.
int64_t offset_of(const std::vector<Access>& access, const std::vector<IntAffine>& lins,
                  const std::vector<int64_t>& num) {
  int64_t offset = 0;
  for (const Access& a : access) {
    int64_t v = num[a.lin];
    int64_t den = lins[a.lin].den;
    if (den != 1) {
      if (v % den != 0) return -1;
      v /= den;
    }
    if (v < 0 || v >= a.size) return -1;
    offset += v * a.stride;
  }
  return offset;
}

Value identity(AggOp agg, DType r) {
  switch (agg) {
    case AggOp::kSum:
    case AggOp::kAssign:
      return convert(from_int(0), DType::I64, r);
    case AggOp::kProd:
      return convert(from_int(1), DType::I64, r);
    case AggOp::kMax:
      return lowest_value(r);
    case AggOp::kMin:
      return highest_value(r);
  }
  return from_uint(0);
}

void aggregate(AggOp agg, Domain d, Value& acc, Value x) {
  switch (agg) {
    case AggOp::kSum:
      if (d == Domain::kFloat)
        acc.f += x.f;
      else
        acc.u += x.u;
      return;
    case AggOp::kProd:
      if (d == Domain::kFloat)
        acc.f *= x.f;
      else
        acc.u *= x.u;
      return;
    case AggOp::kMax:
      if (d == Domain::kFloat ? x.f > acc.f : (d == Domain::kSigned ? x.i > acc.i : x.u > acc.u)) {
        acc = x;
      }
      return;
    case AggOp::kMin:
      if (d == Domain::kFloat ? x.f < acc.f : (d == Domain::kSigned ? x.i < acc.i : x.u < acc.u)) {
        acc = x;
      }
      return;
    case AggOp::kAssign:
      acc = x;
      return;
  }
}

Value equal(DType t, Value a, Value b) {
  bool eq = domain_of(t) == Domain::kFloat ? a.f == b.f : a.u == b.u;
  return from_uint(eq ? 1 : 0);
}

Value multiply(DType t, Value a, Value b) {
  return domain_of(t) == Domain::kFloat ? from_double(a.f * b.f) : from_uint(a.u * b.u);
}

Value add(DType t, Value a, Value b) {
  return domain_of(t) == Domain::kFloat ? from_double(a.f + b.f) : from_uint(a.u + b.u);
}

}  // namespace

namespace {

Status check_arity(const ContractionSpec& spec) {
  size_t want = 0;
  switch (spec.contraction->comb) {
    case CombOp::kNone:
      want = 1;
      break;
    case CombOp::kMul:
    case CombOp::kAdd:
    case CombOp::kEq:
      want = 2;
      break;
    case CombOp::kCond:
      want = 3;
      break;
  }
  if (spec.inputs.size() != want || spec.contraction->inputs.size() != want) {
    return make_error(StatusCode::kInternal, "interpreter: contraction has {} inputs, needs {}",
                      spec.inputs.size(), want);
  }
  if (spec.contraction->ranges.size() != spec.contraction->indices.size()) {
    return make_error(StatusCode::kInternal,
                      "interpreter: contraction ranges do not match indices");
  }
  return Status::ok();
}

// Calls visit(out_offset, in_offsets) for every valid point of the index box.
template <typename Visit>
Status enumerate(const ir::BoundContraction& c, const Plan& plan, Visit visit) {
  size_t n = c.indices.size();
  for (const poly::IndexRange& r : c.ranges) {
    if (r.extent() <= 0) return Status::ok();
  }
  // Current numerator of every affine; moved incrementally as the odometer turns.
  std::vector<int64_t> num(plan.lins.size());
  std::vector<std::vector<std::pair<size_t, int64_t>>> by_index(n);  // nonzero coefficients
  for (size_t l = 0; l < plan.lins.size(); ++l) {
    num[l] = plan.lins[l].constant;
    for (size_t k = 0; k < n; ++k) {
      int64_t coef = plan.lins[l].coef[k];
      if (coef == 0) continue;
      num[l] += coef * c.ranges[k].lo;
      by_index[k].emplace_back(l, coef);
    }
  }
  std::vector<int64_t> pos(n);
  for (size_t k = 0; k < n; ++k) pos[k] = c.ranges[k].lo;
  std::vector<int64_t> in_offsets(plan.in_access.size());
  while (true) {
    bool valid = true;
    for (const Condition& cond : plan.conditions) {
      int64_t v = num[cond.lin];
      if (v < cond.lo || v > cond.hi) {
        valid = false;
        break;
      }
    }
    int64_t out_offset = valid ? offset_of(plan.out_access, plan.lins, num) : -1;
    valid = out_offset >= 0;
    for (size_t j = 0; valid && j < plan.in_access.size(); ++j) {
      in_offsets[j] = offset_of(plan.in_access[j], plan.lins, num);
      valid = in_offsets[j] >= 0;
    }
    if (valid) visit(out_offset, in_offsets);
    size_t k = n;
    for (; k-- > 0;) {
      if (pos[k] < c.ranges[k].hi) {
        ++pos[k];
        for (auto [l, coef] : by_index[k]) num[l] += coef;
        break;
      }
      int64_t span = c.ranges[k].hi - c.ranges[k].lo;
      for (auto [l, coef] : by_index[k]) num[l] -= coef * span;
      pos[k] = c.ranges[k].lo;
    }
    if (k == static_cast<size_t>(-1)) break;
  }
  return Status::ok();
}

Status check_size(const ir::BoundContraction& c) {
  double points = 1;
  for (const poly::IndexRange& r : c.ranges)
    points *= static_cast<double>(std::max<int64_t>(0, r.extent()));
  if (c.empty || points <= kMaxPoints) return Status::ok();
  return make_error(StatusCode::kUnsupported,
                    "the reference interpreter cannot enumerate {} index points", points);
}

}  // namespace

Expected<Tensor> eval_contraction(const ContractionSpec& spec) {
  PLAIDML_TRY(check_arity(spec));
  PLAIDML_TRY(check_size(*spec.contraction));
  const ir::BoundContraction& c = *spec.contraction;
  DType r = spec.result_dtype;
  DType cd = spec.compute_dtype;
  // `==` and `A == B ? C` compare A and B in the compute dtype; C is taken in the result dtype.
  std::vector<Tensor> in;
  for (size_t j = 0; j < spec.inputs.size(); ++j) {
    in.push_back(convert_tensor(*spec.inputs[j], j < 2 ? cd : r));
  }
  DType vdt = c.comb == CombOp::kEq ? DType::Bool : (c.comb == CombOp::kCond ? r : cd);
  Domain rd = domain_of(r);

  Tensor out =
      spec.default_value ? broadcast_to(*spec.default_value, spec.dims, r) : Tensor(r, spec.dims);
  if (!spec.default_value) out.data.assign(out.data.size(), identity(c.agg, r));
  PLAIDML_ASSIGN(Plan plan, make_plan(spec));
  auto visit = [&](int64_t o, const std::vector<int64_t>& ix) {
    Value v = in[0].data[ix[0]];
    switch (c.comb) {
      case CombOp::kNone:
        break;
      case CombOp::kMul:
        v = multiply(cd, v, in[1].data[ix[1]]);
        break;
      case CombOp::kAdd:
        v = add(cd, v, in[1].data[ix[1]]);
        break;
      case CombOp::kEq:
        v = equal(cd, v, in[1].data[ix[1]]);
        break;
      case CombOp::kCond:
        v = equal(cd, v, in[1].data[ix[1]]).u ? in[2].data[ix[2]]
                                              : convert(from_int(0), DType::I64, r);
        break;
    }
    // Floats accumulate unrounded (rounded once below); integers wrap per term, which is exact
    // modulo 2^bits.
    Value x = rd == Domain::kFloat ? from_double(to_double(v, vdt)) : convert(v, vdt, r);
    aggregate(c.agg, rd, out.data[o], x);
  };
  if (!c.empty) PLAIDML_TRY(enumerate(c, plan, visit));
  for (Value& v : out.data) v = narrow(v, r);
  return out;
}

}  // namespace plaidml::eval
