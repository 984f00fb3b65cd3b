// Buffers: allocation on the selected device, host copies with size checks, shape getters.
#include "capi/errors.h"
#include "capi/handles.h"

namespace plaidml::capi {

Expected<DType> to_dtype(const char* fn, plaidml_dtype dtype) {
  auto result = dtype_from_abi_value(dtype);
  if (!result) {
    return make_error(StatusCode::kInvalidArgument, "{}: {} is not a PLAIDML_DTYPE_* value", fn,
                      dtype);
  }
  return *result;
}

Expected<Shape> to_shape(const char* fn, plaidml_dtype dtype, size_t rank, const int64_t* dims) {
  PLAIDML_ASSIGN(DType type, to_dtype(fn, dtype));
  PLAIDML_TRY(check_rank(fn, rank));
  if (rank > 0 && dims == nullptr) return null_argument(fn, "dims");
  Shape shape(type, std::vector<int64_t>(dims, dims + rank));
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] < 0) {
      return make_error(StatusCode::kInvalidArgument, "{}: dimension {} has negative size {}", fn,
                        i, dims[i]);
    }
  }
  if (auto why = shape.size_error()) {
    return make_error(StatusCode::kInvalidArgument, "{}: the shape {} is too large: {}", fn,
                      shape.to_string(), *why);
  }
  return shape;
}

namespace {

Expected<std::shared_ptr<jit::Buffer>> allocate(const char* fn, plaidml_context& context,
                                                plaidml_dtype dtype, size_t rank,
                                                const int64_t* dims) {
  PLAIDML_ASSIGN(Shape shape, to_shape(fn, dtype, rank, dims));
  return with_fn(fn, context.runtime->allocate(context.device.load(), shape));
}

Status size_check(const char* fn, const jit::Buffer& buffer, size_t size) {
  auto expected = static_cast<size_t>(buffer.shape().byte_size());
  if (size != expected) {
    return make_error(StatusCode::kInvalidArgument,
                      "{}: size is {} bytes but the buffer {} holds {} bytes", fn, size,
                      buffer.shape().to_string(), expected);
  }
  return Status::ok();
}

}  // namespace
}  // namespace plaidml::capi

extern "C" {

plaidml_status plaidml_dtype_size(plaidml_dtype dtype, size_t* out_size) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(out_size);
    PLAIDML_ASSIGN(DType type, capi::to_dtype(fn, dtype));
    *out_size = static_cast<size_t>(plaidml::dtype_size(type));
    return Status::ok();
  });
}

plaidml_status plaidml_buffer_create(plaidml_context* context, plaidml_dtype dtype, size_t rank,
                                     const int64_t* dims, plaidml_buffer** out_buffer) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_buffer);
    PLAIDML_ASSIGN(auto buffer, capi::allocate(fn, *context, dtype, rank, dims));
    *out_buffer = new plaidml_buffer{context->runtime, std::move(buffer)};
    return Status::ok();
  });
}

plaidml_status plaidml_buffer_create_from_host(plaidml_context* context, plaidml_dtype dtype,
                                               size_t rank, const int64_t* dims, const void* data,
                                               size_t size, plaidml_buffer** out_buffer) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(out_buffer);
    if (size > 0) PLAIDML_CAPI_REQUIRE(data);
    PLAIDML_ASSIGN(Shape shape, capi::to_shape(fn, dtype, rank, dims));
    if (size != static_cast<size_t>(shape.byte_size())) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: size is {} bytes but a {} buffer holds {} bytes", fn, size,
                        shape.to_string(), shape.byte_size());
    }
    PLAIDML_ASSIGN(auto buffer,
                   capi::with_fn(fn, context->runtime->allocate(context->device.load(), shape)));
    PLAIDML_TRY(capi::with_fn(fn, context->runtime->write(*buffer, data, size)));
    *out_buffer = new plaidml_buffer{context->runtime, std::move(buffer)};
    return Status::ok();
  });
}

void plaidml_buffer_destroy(plaidml_buffer* buffer) { delete buffer; }

plaidml_status plaidml_buffer_write(plaidml_buffer* buffer, const void* data, size_t size) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(buffer);
    if (size > 0) PLAIDML_CAPI_REQUIRE(data);
    PLAIDML_TRY(capi::size_check(fn, *buffer->buffer, size));
    return capi::with_fn(fn, buffer->runtime->write(*buffer->buffer, data, size));
  });
}

plaidml_status plaidml_buffer_read(const plaidml_buffer* buffer, void* data, size_t size) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(buffer);
    if (size > 0) PLAIDML_CAPI_REQUIRE(data);
    PLAIDML_TRY(capi::size_check(fn, *buffer->buffer, size));
    return capi::with_fn(fn, buffer->runtime->read(*buffer->buffer, data, size));
  });
}

plaidml_status plaidml_buffer_dtype(const plaidml_buffer* buffer, plaidml_dtype* out_dtype) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(buffer);
    PLAIDML_CAPI_REQUIRE(out_dtype);
    *out_dtype = dtype_abi_value(buffer->buffer->shape().dtype);
    return Status::ok();
  });
}

plaidml_status plaidml_buffer_rank(const plaidml_buffer* buffer, size_t* out_rank) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(buffer);
    PLAIDML_CAPI_REQUIRE(out_rank);
    *out_rank = buffer->buffer->shape().rank();
    return Status::ok();
  });
}

plaidml_status plaidml_buffer_dim(const plaidml_buffer* buffer, size_t axis, int64_t* out_size) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(buffer);
    PLAIDML_CAPI_REQUIRE(out_size);
    const Shape& shape = buffer->buffer->shape();
    if (axis >= shape.rank()) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: axis {} is out of range for the buffer {} of rank {}", fn, axis,
                        shape.to_string(), shape.rank());
    }
    *out_size = shape.dims[axis];
    return Status::ok();
  });
}

plaidml_status plaidml_buffer_byte_size(const plaidml_buffer* buffer, size_t* out_size) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(buffer);
    PLAIDML_CAPI_REQUIRE(out_size);
    *out_size = static_cast<size_t>(buffer->buffer->shape().byte_size());
    return Status::ok();
  });
}

}  // extern "C"
