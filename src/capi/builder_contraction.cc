// Builder entry points for integer expressions and contractions.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "capi/errors.h"
#include "capi/handles.h"

namespace plaidml::capi {

Expected<ir::IntExprPtr> to_expr(const char* fn, const plaidml_builder& builder, plaidml_expr e) {
  if (e.id < 0 || static_cast<size_t>(e.id) >= builder.exprs.size()) {
    return make_error(StatusCode::kInvalidArgument,
                      "{}: integer expression {} was not made by this builder", fn, e.id);
  }
  return builder.exprs[e.id];
}

namespace {

plaidml_expr push_expr(plaidml_builder& builder, ir::IntExprPtr expr) {
  builder.exprs.push_back(std::move(expr));
  return plaidml_expr{static_cast<int32_t>(builder.exprs.size() - 1)};
}

Expected<ir::IntOp> to_int_op(const char* fn, plaidml_expr_op op) {
  switch (op) {
    case PLAIDML_EXPR_ADD:
      return ir::IntOp::kAdd;
    case PLAIDML_EXPR_SUB:
      return ir::IntOp::kSub;
    case PLAIDML_EXPR_MUL:
      return ir::IntOp::kMul;
    case PLAIDML_EXPR_DIV:
      return ir::IntOp::kDiv;
    case PLAIDML_EXPR_MAX:
      return ir::IntOp::kMax;
    case PLAIDML_EXPR_MIN:
      return ir::IntOp::kMin;
    case PLAIDML_EXPR_FLOOR_DIV:
      return ir::IntOp::kFloorDiv;
  }
  return make_error(StatusCode::kInvalidArgument, "{}: unknown expression operator {}", fn, op);
}

Expected<ir::AssertOp> to_assert_op(const char* fn, plaidml_assert_op op) {
  switch (op) {
    case PLAIDML_ASSERT_EQ:
      return ir::AssertOp::kEq;
    case PLAIDML_ASSERT_GE:
      return ir::AssertOp::kGe;
    case PLAIDML_ASSERT_BROADCAST:
      return ir::AssertOp::kBroadcast;
    case PLAIDML_ASSERT_MULTIPLE:
      return ir::AssertOp::kMultiple;
  }
  return make_error(StatusCode::kInvalidArgument, "{}: unknown assertion operator {}", fn, op);
}

Expected<ir::AggOp> to_agg(const char* fn, plaidml_agg_op agg) {
  switch (agg) {
    case PLAIDML_AGG_SUM:
      return ir::AggOp::kSum;
    case PLAIDML_AGG_PROD:
      return ir::AggOp::kProd;
    case PLAIDML_AGG_MAX:
      return ir::AggOp::kMax;
    case PLAIDML_AGG_MIN:
      return ir::AggOp::kMin;
    case PLAIDML_AGG_ASSIGN:
      return ir::AggOp::kAssign;
  }
  return make_error(StatusCode::kInvalidArgument, "{}: unknown aggregation {}", fn, agg);
}

Expected<ir::CombOp> to_comb(const char* fn, plaidml_comb_op comb) {
  switch (comb) {
    case PLAIDML_COMB_NONE:
      return ir::CombOp::kNone;
    case PLAIDML_COMB_MUL:
      return ir::CombOp::kMul;
    case PLAIDML_COMB_ADD:
      return ir::CombOp::kAdd;
    case PLAIDML_COMB_EQ:
      return ir::CombOp::kEq;
    case PLAIDML_COMB_COND:
      return ir::CombOp::kCond;
  }
  return make_error(StatusCode::kInvalidArgument, "{}: unknown combination {}", fn, comb);
}

Expected<std::vector<ir::IntExprPtr>> to_exprs(const char* fn, const plaidml_builder& builder,
                                               size_t count, const plaidml_expr* exprs) {
  std::vector<ir::IntExprPtr> result;
  for (size_t i = 0; i < count; ++i) {
    PLAIDML_ASSIGN(ir::IntExprPtr e, to_expr(fn, builder, exprs[i]));
    result.push_back(std::move(e));
  }
  return result;
}

Status require_name(const char* fn, const char* name) {
  if (name == nullptr) return null_argument(fn, "name");
  if (name[0] == '\0') {
    return make_error(StatusCode::kInvalidArgument, "{}: name must not be empty", fn);
  }
  return Status::ok();
}

// Index variables print bare, so their names are the ones Tile text reads as index variables:
// a capitalised or quoted name would read back as a dimension, other characters not at all.
Status require_index_name(const char* fn, const char* name) {
  PLAIDML_TRY(require_name(fn, name));
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  bool ok = std::islower(static_cast<unsigned char>(name[0])) &&
            std::all_of(name, name + std::strlen(name), word);
  if (ok) return Status::ok();
  return make_error(StatusCode::kInvalidArgument,
                    "{}: '{}' is not an index name: one starts with a lowercase letter and holds "
                    "only letters, digits and '_' (capitalised names are dimensions)",
                    fn, name);
}

}  // namespace
}  // namespace plaidml::capi

extern "C" {

plaidml_status plaidml_expr_index(plaidml_builder* builder, const char* name,
                                  plaidml_expr* out_expr) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_expr);
    PLAIDML_TRY(capi::require_index_name(fn, name));
    *out_expr = capi::push_expr(*builder, ir::IntExpr::index(name, capi::loc_of(fn)));
    return Status::ok();
  });
}

plaidml_status plaidml_expr_dim(plaidml_builder* builder, const char* name,
                                plaidml_expr* out_expr) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_expr);
    PLAIDML_TRY(capi::require_name(fn, name));
    *out_expr = capi::push_expr(*builder, ir::IntExpr::dim(name, capi::loc_of(fn)));
    return Status::ok();
  });
}

plaidml_status plaidml_expr_int(plaidml_builder* builder, int64_t value, plaidml_expr* out_expr) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_expr);
    *out_expr = capi::push_expr(*builder, ir::IntExpr::literal(value, capi::loc_of(fn)));
    return Status::ok();
  });
}

plaidml_status plaidml_expr_binary(plaidml_builder* builder, plaidml_expr_op op, plaidml_expr lhs,
                                   plaidml_expr rhs, plaidml_expr* out_expr) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_expr);
    PLAIDML_ASSIGN(ir::IntOp int_op, capi::to_int_op(fn, op));
    PLAIDML_ASSIGN(ir::IntExprPtr a, capi::to_expr(fn, *builder, lhs));
    PLAIDML_ASSIGN(ir::IntExprPtr b, capi::to_expr(fn, *builder, rhs));
    ir::IntExprPtr e = ir::exact_binary(int_op, a, b, capi::loc_of(fn));
    PLAIDML_TRY(ir::check_int_depth(e, "the expression"));
    *out_expr = capi::push_expr(*builder, std::move(e));
    return Status::ok();
  });
}

plaidml_status plaidml_expr_neg(plaidml_builder* builder, plaidml_expr operand,
                                plaidml_expr* out_expr) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_expr);
    PLAIDML_ASSIGN(ir::IntExprPtr a, capi::to_expr(fn, *builder, operand));
    ir::IntExprPtr e = ir::exact_binary(ir::IntOp::kNeg, a, nullptr, capi::loc_of(fn));
    PLAIDML_TRY(ir::check_int_depth(e, "the expression"));
    *out_expr = capi::push_expr(*builder, std::move(e));
    return Status::ok();
  });
}

plaidml_status plaidml_contraction_create(plaidml_builder* builder, plaidml_agg_op agg,
                                          plaidml_comb_op comb,
                                          plaidml_contraction** out_contraction) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_contraction);
    auto contraction = std::make_unique<plaidml_contraction>();
    contraction->owner = builder;
    PLAIDML_ASSIGN(contraction->contraction.agg, capi::to_agg(fn, agg));
    PLAIDML_ASSIGN(contraction->contraction.comb, capi::to_comb(fn, comb));
    *out_contraction = contraction.release();
    return Status::ok();
  });
}

void plaidml_contraction_destroy(plaidml_contraction* contraction) { delete contraction; }

plaidml_status plaidml_contraction_set_output(plaidml_contraction* contraction, size_t rank,
                                              const plaidml_expr* indices,
                                              const plaidml_expr* sizes) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(contraction);
    if (rank > 0) {
      PLAIDML_CAPI_REQUIRE(indices);
      PLAIDML_CAPI_REQUIRE(sizes);
    }
    const plaidml_builder& builder = *contraction->owner;
    PLAIDML_ASSIGN(auto out_indices, capi::to_exprs(fn, builder, rank, indices));
    PLAIDML_ASSIGN(auto out_sizes, capi::to_exprs(fn, builder, rank, sizes));
    contraction->contraction.out_indices = std::move(out_indices);
    contraction->contraction.out_sizes = std::move(out_sizes);
    return Status::ok();
  });
}

plaidml_status plaidml_contraction_add_input(plaidml_contraction* contraction, plaidml_value tensor,
                                             size_t rank, const plaidml_expr* indices) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(contraction);
    if (rank > 0) PLAIDML_CAPI_REQUIRE(indices);
    const plaidml_builder& builder = *contraction->owner;
    PLAIDML_TRY(capi::check_value(fn, builder, tensor));
    ir::TensorAccess access;
    access.tensor = tensor.id;
    PLAIDML_ASSIGN(access.indices, capi::to_exprs(fn, builder, rank, indices));
    access.loc = capi::loc_of(fn);
    contraction->contraction.inputs.push_back(std::move(access));
    return Status::ok();
  });
}

plaidml_status plaidml_contraction_add_constraint(plaidml_contraction* contraction,
                                                  plaidml_expr poly, plaidml_expr bound) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(contraction);
    const plaidml_builder& builder = *contraction->owner;
    ir::UserConstraint constraint;
    PLAIDML_ASSIGN(constraint.poly, capi::to_expr(fn, builder, poly));
    PLAIDML_ASSIGN(constraint.bound, capi::to_expr(fn, builder, bound));
    constraint.loc = capi::loc_of(fn);
    contraction->contraction.constraints.push_back(std::move(constraint));
    return Status::ok();
  });
}

plaidml_status plaidml_contraction_set_default(plaidml_contraction* contraction,
                                               plaidml_value value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(contraction);
    PLAIDML_TRY(capi::check_value(fn, *contraction->owner, value));
    contraction->contraction.default_value = value.id;
    return Status::ok();
  });
}

plaidml_status plaidml_builder_add_contraction(plaidml_builder* builder,
                                               const plaidml_contraction* contraction,
                                               plaidml_value* out_value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(contraction);
    PLAIDML_CAPI_REQUIRE(out_value);
    if (contraction->owner != builder) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: the contraction was created for another builder", fn);
    }
    PLAIDML_ASSIGN(ir::ValueId id,
                   builder->builder.add_contraction(contraction->contraction, capi::loc_of(fn)));
    out_value->id = id;
    return Status::ok();
  });
}

plaidml_status plaidml_builder_add_assertion(plaidml_builder* builder, plaidml_assert_op op,
                                             plaidml_expr lhs, plaidml_expr rhs,
                                             const char* message, size_t arg_count,
                                             const plaidml_expr* args) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(message);
    if (arg_count > 0) PLAIDML_CAPI_REQUIRE(args);
    ir::Assertion a;
    PLAIDML_ASSIGN(a.op, capi::to_assert_op(fn, op));
    PLAIDML_ASSIGN(a.lhs, capi::to_expr(fn, *builder, lhs));
    PLAIDML_ASSIGN(a.rhs, capi::to_expr(fn, *builder, rhs));
    PLAIDML_ASSIGN(a.args, capi::to_exprs(fn, *builder, arg_count, args));
    a.message = message;
    a.loc = capi::loc_of(fn);
    return builder->builder.add_assertion(std::move(a));
  });
}

}  // extern "C"
