// Builder entry points: inputs, constants, elementwise calls, outputs and building. Integer
// expressions and contractions are in builder_contraction.cc.
#include "capi/errors.h"
#include "capi/handles.h"

namespace plaidml::capi {

Status check_value(const char* fn, const plaidml_builder& builder, plaidml_value value) {
  auto count = builder.builder.program().nodes.size();
  if (value.id < 0 || static_cast<size_t>(value.id) >= count) {
    return make_error(StatusCode::kInvalidArgument,
                      "{}: tensor value {} was not made by this builder", fn, value.id);
  }
  return Status::ok();
}

namespace {

Expected<std::optional<std::vector<std::string>>> input_dims(const char* fn, size_t rank,
                                                             const char* const* dim_names) {
  if (rank == PLAIDML_RANK_UNKNOWN) {
    if (dim_names != nullptr) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: dim_names must be NULL when rank is PLAIDML_RANK_UNKNOWN", fn);
    }
    return std::optional<std::vector<std::string>>();
  }
  PLAIDML_TRY(check_rank(fn, rank));
  std::vector<std::string> dims(rank);
  for (size_t i = 0; dim_names != nullptr && i < rank; ++i) {
    if (dim_names[i] != nullptr) dims[i] = dim_names[i];
  }
  return std::optional<std::vector<std::string>>(std::move(dims));
}

}  // namespace
}  // namespace plaidml::capi

extern "C" {

plaidml_status plaidml_builder_create(const char* name, plaidml_builder** out_builder) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(out_builder);
    *out_builder = new plaidml_builder(name != nullptr ? name : "");
    return Status::ok();
  });
}

void plaidml_builder_destroy(plaidml_builder* builder) { delete builder; }

plaidml_status plaidml_builder_add_input(plaidml_builder* builder, const char* name, size_t rank,
                                         const char* const* dim_names, plaidml_dtype dtype,
                                         plaidml_value* out_value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(name);
    PLAIDML_CAPI_REQUIRE(out_value);
    std::optional<DType> input_dtype;
    if (dtype != PLAIDML_DTYPE_INVALID) {
      PLAIDML_ASSIGN(input_dtype, capi::to_dtype(fn, dtype));
    }
    PLAIDML_ASSIGN(auto dims, capi::input_dims(fn, rank, dim_names));
    PLAIDML_ASSIGN(ir::ValueId id, builder->builder.add_input(name, std::move(dims), input_dtype,
                                                              capi::loc_of(fn)));
    out_value->id = id;
    return Status::ok();
  });
}

plaidml_status plaidml_builder_int_constant(plaidml_builder* builder, int64_t value,
                                            plaidml_value* out_value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_value);
    out_value->id = builder->builder.add_int_literal(value, capi::loc_of(fn));
    return Status::ok();
  });
}

plaidml_status plaidml_builder_float_constant(plaidml_builder* builder, double value,
                                              plaidml_value* out_value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_value);
    out_value->id = builder->builder.add_float_literal(value, capi::loc_of(fn));
    return Status::ok();
  });
}

plaidml_status plaidml_builder_dim_constant(plaidml_builder* builder, plaidml_expr size_expr,
                                            plaidml_value* out_value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_value);
    PLAIDML_ASSIGN(ir::IntExprPtr expr, capi::to_expr(fn, *builder, size_expr));
    PLAIDML_ASSIGN(ir::ValueId id, builder->builder.add_dim_literal(expr, capi::loc_of(fn)));
    out_value->id = id;
    return Status::ok();
  });
}

plaidml_status plaidml_builder_call(plaidml_builder* builder, const char* function,
                                    size_t operand_count, const plaidml_value* operands,
                                    size_t int_arg_count, const plaidml_expr* int_args,
                                    plaidml_value* out_value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(function);
    PLAIDML_CAPI_REQUIRE(out_value);
    if (operand_count > 0) PLAIDML_CAPI_REQUIRE(operands);
    if (int_arg_count > 0) PLAIDML_CAPI_REQUIRE(int_args);
    std::vector<ir::ValueId> values;
    for (size_t i = 0; i < operand_count; ++i) {
      PLAIDML_TRY(capi::check_value(fn, *builder, operands[i]));
      values.push_back(operands[i].id);
    }
    std::vector<ir::IntExprPtr> args;
    for (size_t i = 0; i < int_arg_count; ++i) {
      PLAIDML_ASSIGN(ir::IntExprPtr arg, capi::to_expr(fn, *builder, int_args[i]));
      args.push_back(std::move(arg));
    }
    PLAIDML_ASSIGN(ir::ValueId id, builder->builder.add_call(function, std::move(values),
                                                             std::move(args), capi::loc_of(fn)));
    out_value->id = id;
    return Status::ok();
  });
}

plaidml_status plaidml_function_count(size_t* out_count) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(out_count);
    *out_count = static_cast<size_t>(ir::op_count());
    return Status::ok();
  });
}

plaidml_status plaidml_function_name(size_t index, const char** out_name) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(out_name);
    auto count = static_cast<size_t>(ir::op_count());
    if (index >= count) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: function index {} is out of range (there are {})", fn, index, count);
    }
    *out_name = ir::op_name(static_cast<ir::OpKind>(index)).data();
    return Status::ok();
  });
}

plaidml_status plaidml_builder_add_output(plaidml_builder* builder, const char* name,
                                          plaidml_value value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(name);
    PLAIDML_TRY(capi::check_value(fn, *builder, value));
    ir::SourceLoc loc = capi::loc_of(fn);
    // An input (or a value named earlier) may be output under its own name without renaming.
    auto existing = builder->builder.lookup(name, loc);
    if (!existing.has_value() || *existing != value.id) {
      PLAIDML_TRY(builder->builder.assign(name, value.id, loc));
    }
    return builder->builder.add_output(name, loc);
  });
}

plaidml_status plaidml_builder_build(plaidml_builder* builder, plaidml_program** out_program) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_program);
    PLAIDML_ASSIGN(auto program, builder->builder.finish());
    *out_program = new plaidml_program{std::move(program)};
    return Status::ok();
  });
}

}  // extern "C"
