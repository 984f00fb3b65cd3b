// Program constants (weights): adding one to a builder, and what a program reports of its inputs
// and constants.
#include "capi/errors.h"
#include "capi/handles.h"
#include "core/ir/constant.h"

namespace plaidml::capi {
namespace {

// Calls the caller's release exactly once, unless ownership passed to a constant.
class ReleaseOnce {
 public:
  ReleaseOnce(plaidml_release_fn fn, void* data) : fn_(fn), data_(data) {}
  ~ReleaseOnce() {
    if (fn_ != nullptr) fn_(data_);
  }
  ReleaseOnce(const ReleaseOnce&) = delete;
  ReleaseOnce& operator=(const ReleaseOnce&) = delete;
  // The release to run later, by whoever takes it; this object no longer calls it.
  std::function<void()> take() {
    auto fn = fn_;
    auto data = data_;
    fn_ = nullptr;
    return [fn, data] { fn(data); };
  }

 private:
  plaidml_release_fn fn_;
  void* data_;
};

Expected<std::shared_ptr<const ir::ConstantData>> make_constant(const char* fn, const Shape& shape,
                                                                const void* data, size_t bytes,
                                                                ReleaseOnce& release, bool adopt) {
  if (bytes != static_cast<size_t>(shape.byte_size())) {
    return make_error(StatusCode::kInvalidArgument,
                      "{}: byte_size is {}, but a constant of shape {} holds {} bytes", fn, bytes,
                      shape.to_string(), shape.byte_size());
  }
  if (data == nullptr && bytes > 0) return null_argument(fn, "data");
  if (!adopt) return ir::copy_constant(shape, data);
  return ir::adopt_constant(shape, data, release.take());
}

const ir::Node& input_node(const ir::Program& program, size_t index) {
  return program.nodes[program.inputs[index]];
}

Status input_index_check(const char* fn, const ir::Program& program, size_t index) {
  if (index >= program.inputs.size()) {
    return make_error(StatusCode::kInvalidArgument,
                      "{}: input index {} is out of range (the program has {})", fn, index,
                      program.inputs.size());
  }
  return Status::ok();
}

}  // namespace
}  // namespace plaidml::capi

extern "C" {

plaidml_status plaidml_builder_add_constant(plaidml_builder* builder, const char* name,
                                            plaidml_dtype dtype, size_t rank, const int64_t* dims,
                                            const void* data, size_t byte_size,
                                            plaidml_release_fn release, void* release_data,
                                            plaidml_value* out_value) {
  using namespace plaidml;
  capi::ReleaseOnce release_once(release, release_data);
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(builder);
    PLAIDML_CAPI_REQUIRE(out_value);
    if (rank > 0) PLAIDML_CAPI_REQUIRE(dims);
    PLAIDML_ASSIGN(Shape shape, capi::to_shape(fn, dtype, rank, dims));
    PLAIDML_ASSIGN(auto constant, capi::make_constant(fn, shape, data, byte_size, release_once,
                                                      release != nullptr));
    PLAIDML_ASSIGN(ir::ValueId id, builder->builder.add_constant(name != nullptr ? name : "",
                                                                 std::move(constant),
                                                                 capi::loc_of(fn)));
    out_value->id = id;
    return Status::ok();
  });
}

plaidml_status plaidml_program_input_type(const plaidml_program* program, size_t index,
                                          plaidml_dtype* out_dtype, size_t* out_rank) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(program);
    PLAIDML_CAPI_REQUIRE(out_dtype);
    PLAIDML_CAPI_REQUIRE(out_rank);
    PLAIDML_TRY(capi::input_index_check(fn, *program->program, index));
    const ir::Node& n = capi::input_node(*program->program, index);
    *out_dtype = n.input_dtype ? dtype_abi_value(*n.input_dtype) : PLAIDML_DTYPE_INVALID;
    *out_rank = n.input_dims ? n.input_dims->size() : PLAIDML_RANK_UNKNOWN;
    return Status::ok();
  });
}

plaidml_status plaidml_program_input_dim(const plaidml_program* program, size_t index,
                                         size_t axis, const char** out_dim) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(program);
    PLAIDML_CAPI_REQUIRE(out_dim);
    PLAIDML_TRY(capi::input_index_check(fn, *program->program, index));
    const ir::Node& n = capi::input_node(*program->program, index);
    if (!n.input_dims) {
      return make_error(StatusCode::kInvalidArgument, "{}: input '{}' has no declared rank", fn,
                        n.name);
    }
    if (axis >= n.input_dims->size()) {
      return make_error(StatusCode::kInvalidArgument, "{}: axis {} is out of range for input '{}' "
                        "of rank {}", fn, axis, n.name, n.input_dims->size());
    }
    *out_dim = (*n.input_dims)[axis].c_str();
    return Status::ok();
  });
}

plaidml_status plaidml_program_constants(const plaidml_program* program, size_t* out_count,
                                         uint64_t* out_bytes) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(program);
    PLAIDML_CAPI_REQUIRE(out_count);
    PLAIDML_CAPI_REQUIRE(out_bytes);
    size_t count = 0;
    uint64_t bytes = 0;
    for (const ir::Node& n : program->program->nodes) {
      if (n.kind != ir::NodeKind::kConstant) continue;
      ++count;
      bytes += n.constant->byte_size();
    }
    *out_count = count;
    *out_bytes = bytes;
    return Status::ok();
  });
}

}  // extern "C"
