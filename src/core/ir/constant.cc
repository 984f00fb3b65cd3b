#include "core/ir/constant.h"

#include <fmt/format.h>

#include <cstring>
#include <new>
#include <string_view>

#include "core/base/hash.h"
#include "core/types/half.h"

namespace plaidml::ir {
namespace {

uint64_t digest_of(const void* bytes, size_t size) {
  return murmur64(std::string_view(static_cast<const char*>(bytes), size));
}

template <typename T>
T load(const void* base, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

// Shortest text that reads back to the same value in the constant's own dtype.
std::string element_text(const ConstantData& c, int64_t i) {
  switch (c.shape.dtype) {
    case DType::Bool: return load<uint8_t>(c.data, i) ? "1" : "0";
    case DType::I8: return std::to_string(load<int8_t>(c.data, i));
    case DType::I16: return std::to_string(load<int16_t>(c.data, i));
    case DType::I32: return std::to_string(load<int32_t>(c.data, i));
    case DType::I64: return std::to_string(load<int64_t>(c.data, i));
    case DType::U8: return std::to_string(load<uint8_t>(c.data, i));
    case DType::U16: return std::to_string(load<uint16_t>(c.data, i));
    case DType::U32: return std::to_string(load<uint32_t>(c.data, i));
    case DType::U64: return std::to_string(load<uint64_t>(c.data, i));
    // Shortest text that reads back to the same value of the element's own precision.
    case DType::F16:
    case DType::BF16:
    case DType::F32: return fmt::format("{}", static_cast<float>(constant_element(c, i)));
    case DType::F64: return fmt::format("{}", constant_element(c, i));
  }
  return "?";
}

}  // namespace

Expected<std::shared_ptr<const ConstantData>> copy_constant(const Shape& shape, const void* bytes) {
  size_t size = static_cast<size_t>(shape.byte_size());
  // Aligned for vector loads: the CPU device reads constants in place only when they are.
  constexpr std::align_val_t kAlign{kConstantAlignment};
  std::shared_ptr<char> copy(static_cast<char*>(::operator new(size == 0 ? 1 : size, kAlign,
                                                              std::nothrow)),
                             [kAlign](char* p) { ::operator delete(p, kAlign); });
  if (!copy) {
    return make_error(StatusCode::kOutOfMemory, "cannot allocate {} bytes for constant {}", size,
                      shape.to_string());
  }
  if (size > 0) std::memcpy(copy.get(), bytes, size);
  auto c = std::make_shared<ConstantData>();
  c->shape = shape;
  c->data = copy.get();
  c->digest = digest_of(copy.get(), size);
  c->owner = std::shared_ptr<const void>(copy, copy.get());
  return std::shared_ptr<const ConstantData>(std::move(c));
}

std::shared_ptr<const ConstantData> adopt_constant(const Shape& shape, const void* bytes,
                                                   std::function<void()> release,
                                                   bool file_backed) {
  // The owner first: if making it fails, its deleter has already run the release.
  std::shared_ptr<const void> owner(bytes, [release = std::move(release)](const void*) {
    if (release) release();
  });
  auto c = std::make_shared<ConstantData>();
  c->shape = shape;
  c->data = bytes;
  c->digest = digest_of(bytes, static_cast<size_t>(shape.byte_size()));
  c->owner = std::move(owner);
  c->file_backed = file_backed;
  return c;
}

std::pair<uint64_t, std::string> constant_identity(const ConstantData& c) {
  return {c.digest, c.shape.to_string()};
}

double constant_element(const ConstantData& c, int64_t i) {
  switch (c.shape.dtype) {
    case DType::Bool: return load<uint8_t>(c.data, i) ? 1.0 : 0.0;
    case DType::I8: return load<int8_t>(c.data, i);
    case DType::I16: return load<int16_t>(c.data, i);
    case DType::I32: return load<int32_t>(c.data, i);
    case DType::I64: return static_cast<double>(load<int64_t>(c.data, i));
    case DType::U8: return load<uint8_t>(c.data, i);
    case DType::U16: return load<uint16_t>(c.data, i);
    case DType::U32: return load<uint32_t>(c.data, i);
    case DType::U64: return static_cast<double>(load<uint64_t>(c.data, i));
    case DType::F16: return f16_to_double(load<uint16_t>(c.data, i));
    case DType::BF16: return bf16_to_double(load<uint16_t>(c.data, i));
    case DType::F32: return load<float>(c.data, i);
    case DType::F64: return load<double>(c.data, i);
  }
  return 0.0;
}

std::string constant_text(const ConstantData& c) {
  int64_t n = c.shape.elements();
  if (n > kMaxPrintedConstantElements) {
    return fmt::format("constant({}, digest \"{:016x}\")", c.shape.to_string(), c.digest);
  }
  std::string values;
  for (int64_t i = 0; i < n; ++i) values += (i ? ", " : "") + element_text(c, i);
  return fmt::format("constant({}, [{}])", c.shape.to_string(), values);
}

}  // namespace plaidml::ir
