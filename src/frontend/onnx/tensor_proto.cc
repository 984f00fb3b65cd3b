#include "tensor_proto.h"

#include <fmt/ranges.h>

#include <cstring>

#include "import_error.h"

namespace plaidml::onnx_import {
namespace {

using TP = onnx::TensorProto;

std::string tensor_label(const TP& proto) {
  return proto.name().empty() ? std::string("(unnamed tensor)") : "'" + proto.name() + "'";
}

// Copies typed-field values (count must equal the element count) into new storage.
template <typename Field>
HostTensor from_field(const TP& proto, plaidml_dtype dtype, std::vector<int64_t> dims,
                      const Field& field, int64_t elements) {
  if (static_cast<int64_t>(field.size()) != elements) {
    invalid("tensor {} has dims of {} elements but holds {} values", tensor_label(proto), elements,
            field.size());
  }
  HostTensor t = HostTensor::zeros(dtype, std::move(dims));
  char* out = static_cast<char*>(t.mutable_data());
  size_t width = dtype_bytes(dtype);
  for (int64_t i = 0; i < elements; ++i) {
    // int32_data carries every type narrower than 32 bits, as its bit pattern (f16/bf16) or value.
    auto v = field.Get(static_cast<int>(i));
    switch (dtype) {
      case PLAIDML_DTYPE_BOOL: out[i] = v != 0 ? 1 : 0; break;
      case PLAIDML_DTYPE_INT8: { int8_t x = static_cast<int8_t>(v); std::memcpy(out + i, &x, 1); break; }
      case PLAIDML_DTYPE_UINT8: { uint8_t x = static_cast<uint8_t>(v); std::memcpy(out + i, &x, 1); break; }
      case PLAIDML_DTYPE_INT16: { int16_t x = static_cast<int16_t>(v); std::memcpy(out + 2 * i, &x, 2); break; }
      case PLAIDML_DTYPE_UINT16:
      case PLAIDML_DTYPE_FLOAT16:
      case PLAIDML_DTYPE_BFLOAT16: { uint16_t x = static_cast<uint16_t>(v); std::memcpy(out + 2 * i, &x, 2); break; }
      case PLAIDML_DTYPE_INT32: { int32_t x = static_cast<int32_t>(v); std::memcpy(out + 4 * i, &x, 4); break; }
      case PLAIDML_DTYPE_UINT32: { uint32_t x = static_cast<uint32_t>(v); std::memcpy(out + 4 * i, &x, 4); break; }
      case PLAIDML_DTYPE_FLOAT32: { float x = static_cast<float>(v); std::memcpy(out + 4 * i, &x, 4); break; }
      case PLAIDML_DTYPE_INT64: { int64_t x = static_cast<int64_t>(v); std::memcpy(out + 8 * i, &x, 8); break; }
      case PLAIDML_DTYPE_UINT64: { uint64_t x = static_cast<uint64_t>(v); std::memcpy(out + 8 * i, &x, 8); break; }
      case PLAIDML_DTYPE_FLOAT64: { double x = static_cast<double>(v); std::memcpy(out + 8 * i, &x, 8); break; }
      default: break;
    }
    (void)width;
  }
  return t;
}

HostTensor from_typed_fields(const TP& proto, plaidml_dtype dtype, std::vector<int64_t> dims,
                             int64_t elements) {
  switch (proto.data_type()) {
    case TP::FLOAT: return from_field(proto, dtype, std::move(dims), proto.float_data(), elements);
    case TP::DOUBLE: return from_field(proto, dtype, std::move(dims), proto.double_data(), elements);
    case TP::INT64: return from_field(proto, dtype, std::move(dims), proto.int64_data(), elements);
    case TP::UINT32:
    case TP::UINT64: return from_field(proto, dtype, std::move(dims), proto.uint64_data(), elements);
    default: return from_field(proto, dtype, std::move(dims), proto.int32_data(), elements);
  }
}

const std::string* external_field(const TP& proto, const char* key) {
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == key) return &entry.value();
  }
  return nullptr;
}

int64_t parse_count(const TP& proto, const std::string* text, const char* key) {
  if (text == nullptr) return -1;
  char* end = nullptr;
  long long v = std::strtoll(text->c_str(), &end, 10);
  if (text->empty() || *end != '\0' || v < 0) {
    invalid("tensor {}: external data {} '{}' is not a non-negative integer", tensor_label(proto),
            key, *text);
  }
  return v;
}

}  // namespace

std::optional<plaidml_dtype> dtype_of_onnx(int elem_type) {
  switch (elem_type) {
    case TP::FLOAT: return PLAIDML_DTYPE_FLOAT32;
    case TP::UINT8: return PLAIDML_DTYPE_UINT8;
    case TP::INT8: return PLAIDML_DTYPE_INT8;
    case TP::UINT16: return PLAIDML_DTYPE_UINT16;
    case TP::INT16: return PLAIDML_DTYPE_INT16;
    case TP::INT32: return PLAIDML_DTYPE_INT32;
    case TP::INT64: return PLAIDML_DTYPE_INT64;
    case TP::BOOL: return PLAIDML_DTYPE_BOOL;
    case TP::FLOAT16: return PLAIDML_DTYPE_FLOAT16;
    case TP::DOUBLE: return PLAIDML_DTYPE_FLOAT64;
    case TP::UINT32: return PLAIDML_DTYPE_UINT32;
    case TP::UINT64: return PLAIDML_DTYPE_UINT64;
    case TP::BFLOAT16: return PLAIDML_DTYPE_BFLOAT16;
    default: return std::nullopt;
  }
}

int onnx_of_dtype(plaidml_dtype dtype) {
  for (int t = 1; t <= 16; ++t) {
    if (dtype_of_onnx(t) == dtype) return t;
  }
  return 0;
}

std::string elem_type_name(int elem_type) {
  // Names as the ONNX specification writes them; types newer than onnx 1.12 by number.
  switch (elem_type) {
    case 0: return "undefined";
    case 8: return "string";
    case 14: return "complex64";
    case 15: return "complex128";
    case 17: return "float8e4m3fn";
    case 18: return "float8e4m3fnuz";
    case 19: return "float8e5m2";
    case 20: return "float8e5m2fnuz";
    case 21: return "uint4";
    case 22: return "int4";
    case 23: return "float4e2m1";
    case 24: return "float8e8m0";
    case 25: return "uint2";
    case 26: return "int2";
    default: break;
  }
  if (auto d = dtype_of_onnx(elem_type)) return dtype_text(*d);
  return "element type " + std::to_string(elem_type);
}

HostTensor read_tensor(const TP& proto, const std::shared_ptr<const void>& model_owner,
                       ExternalData* external) {
  auto dtype = dtype_of_onnx(proto.data_type());
  if (!dtype) {
    unsupported("tensor {} has type {}, which plaidml does not support", tensor_label(proto),
                elem_type_name(proto.data_type()));
  }
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  int64_t elements = element_count(dims);
  if (elements < 0) {
    invalid("tensor {} has dims whose product is negative or overflows", tensor_label(proto));
  }
  if (static_cast<uint64_t>(elements) > (uint64_t{1} << 62) / dtype_bytes(*dtype)) {
    invalid("tensor {} claims {} elements, more than any file can hold", tensor_label(proto),
            elements);
  }
  uint64_t expected = static_cast<uint64_t>(elements) * dtype_bytes(*dtype);
  HostTensor t;
  t.dtype = *dtype;
  t.dims = dims;
  if (proto.data_location() == TP::EXTERNAL) {
    if (external == nullptr) {
      invalid("tensor {} is stored as external data, which is not allowed here", tensor_label(proto));
    }
    const std::string* location = external_field(proto, "location");
    if (location == nullptr) invalid("tensor {}: external data without a location", tensor_label(proto));
    int64_t offset = parse_count(proto, external_field(proto, "offset"), "offset");
    int64_t length = parse_count(proto, external_field(proto, "length"), "length");
    auto bytes = external->read(proto.name(), *location, offset < 0 ? 0 : offset, length, expected);
    t.data = bytes.data;
    t.owner = bytes.owner;
    return t;
  }
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != expected) {
      invalid("tensor {} has dims {} of {} elements ({} bytes as {}), but its raw data holds {} "
              "bytes", tensor_label(proto), fmt::format("[{}]", fmt::join(dims, ", ")), elements,
              expected, dtype_text(*dtype), proto.raw_data().size());
    }
    t.data = proto.raw_data().data();
    t.owner = model_owner;
    return t;
  }
  return from_typed_fields(proto, *dtype, std::move(dims), elements);
}

}  // namespace plaidml::onnx_import
