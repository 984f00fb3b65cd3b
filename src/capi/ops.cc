// Op library entry points: attribute maps, plaidml_builder_op, the op list, and the symbolic
// dims of builder values.
#include "capi/errors.h"
#include "capi/handles.h"
#include "core/oplib/oplib.h"

namespace plaidml::capi {
namespace {

// attrs and name are checked non-NULL by the caller (PLAIDML_CAPI_REQUIRE).
Status set_attr(const char* fn, plaidml_attrs* attrs, const char* name, oplib::AttrValue value) {
  if (*name == '\0') {
    return make_error(StatusCode::kInvalidArgument, "{}: the attribute name is empty", fn);
  }
  attrs->attrs.insert_or_assign(std::string(name), std::move(value));
  return Status::ok();
}

Expected<ir::SymbolicDims> value_dims(const char* fn, plaidml_builder* builder,
                                      plaidml_value value) {
  PLAIDML_TRY(check_value(fn, *builder, value));
  auto dims = builder->builder.dims_of(value.id);
  if (dims.has_value()) return dims;
  return make_error(dims.status().code(), "{}: {}", fn, dims.status().message());
}

}  // namespace
}  // namespace plaidml::capi

extern "C" {

plaidml_status plaidml_attrs_create(plaidml_attrs** out_attrs) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(out_attrs);
    *out_attrs = new plaidml_attrs();
    return Status::ok();
  });
}

void plaidml_attrs_destroy(plaidml_attrs* attrs) { delete attrs; }

plaidml_status plaidml_attrs_set_int(plaidml_attrs* attrs, const char* name, int64_t value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(attrs);
    PLAIDML_CAPI_REQUIRE(name);
    return capi::set_attr(fn, attrs, name, value);
  });
}

plaidml_status plaidml_attrs_set_ints(plaidml_attrs* attrs, const char* name, size_t count,
                                      const int64_t* values) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(attrs);
    PLAIDML_CAPI_REQUIRE(name);
    if (count > 0) PLAIDML_CAPI_REQUIRE(values);
    std::vector<int64_t> list(values, values + count);
    return capi::set_attr(fn, attrs, name, std::move(list));
  });
}

plaidml_status plaidml_attrs_set_float(plaidml_attrs* attrs, const char* name, double value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(attrs);
    PLAIDML_CAPI_REQUIRE(name);
    return capi::set_attr(fn, attrs, name, value);
  });
}

plaidml_status plaidml_attrs_set_string(plaidml_attrs* attrs, const char* name, const char* value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(attrs);
    PLAIDML_CAPI_REQUIRE(name);
    PLAIDML_CAPI_REQUIRE(value);
    return capi::set_attr(fn, attrs, name, std::string(value));
  });
}

plaidml_status plaidml_builder_op(plaidml_builder* builder, const char* op, size_t operand_count,
                                  const plaidml_value* operands, const plaidml_attrs* attrs,
                                  plaidml_value* out_value) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(op);
    PLAIDML_CAPI_REQUIRE(out_value);
    if (operand_count > 0) PLAIDML_CAPI_REQUIRE(operands);
    std::vector<ir::ValueId> values;
    for (size_t i = 0; i < operand_count; ++i) {
      PLAIDML_TRY(capi::check_value(fn, *builder, operands[i]));
      values.push_back(operands[i].id);
    }
    static const oplib::Attrs kNone;
    PLAIDML_ASSIGN(ir::ValueId id,
                   oplib::apply(builder->builder, op, values,
                                attrs != nullptr ? attrs->attrs : kNone, capi::loc_of(fn)));
    out_value->id = id;
    return Status::ok();
  });
}

plaidml_status plaidml_op_count(size_t* out_count) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(out_count);
    *out_count = oplib::op_names().size();
    return Status::ok();
  });
}

plaidml_status plaidml_op_name(size_t index, const char** out_name) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(out_name);
    const auto& names = oplib::op_names();
    if (index >= names.size()) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: op index {} is out of range (there "
                        "are {})",
                        fn, index, names.size());
    }
    *out_name = names[index].c_str();
    return Status::ok();
  });
}

plaidml_status plaidml_builder_set_origin(plaidml_builder* builder, const char* origin) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    builder->builder.set_origin(origin ? origin : "");
    return Status::ok();
  });
}

plaidml_status plaidml_builder_value_rank(plaidml_builder* builder, plaidml_value value,
                                          size_t* out_rank) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_rank);
    PLAIDML_ASSIGN(ir::SymbolicDims dims, capi::value_dims(fn, builder, value));
    *out_rank = dims.size();
    return Status::ok();
  });
}

plaidml_status plaidml_builder_value_dim(plaidml_builder* builder, plaidml_value value, size_t axis,
                                         plaidml_expr* out_expr) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_expr);
    PLAIDML_ASSIGN(ir::SymbolicDims dims, capi::value_dims(fn, builder, value));
    if (axis >= dims.size()) {
      return make_error(StatusCode::kInvalidArgument, "{}: axis {} is out of range for rank {}", fn,
                        axis, dims.size());
    }
    builder->exprs.push_back(dims[axis]);
    out_expr->id = static_cast<int32_t>(builder->exprs.size() - 1);
    return Status::ok();
  });
}

plaidml_status plaidml_builder_value_size(plaidml_builder* builder, plaidml_value value,
                                          size_t axis, int64_t* out_size) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_size);
    PLAIDML_ASSIGN(ir::SymbolicDims dims, capi::value_dims(fn, builder, value));
    if (axis >= dims.size()) {
      return make_error(StatusCode::kInvalidArgument, "{}: axis {} is out of range for rank {}", fn,
                        axis, dims.size());
    }
    *out_size = ir::size_expr::literal_value(*dims[axis]).value_or(-1);
    return Status::ok();
  });
}

}  // extern "C"
