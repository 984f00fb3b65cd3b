// A tensor in host memory: a Shape and its bytes (row-major). f16/bf16 are stored as their
// 16-bit patterns, bool as one byte 0/1. Used by the interpreter, the CLI and tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/types/shape.h"

namespace plaidml {

struct HostTensor {
  Shape shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  explicit HostTensor(Shape s) : shape(std::move(s)), bytes(static_cast<size_t>(shape.byte_size())) {}

  template <typename T>
  T* data() { return reinterpret_cast<T*>(bytes.data()); }
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }
  int64_t elements() const { return shape.elements(); }
};

}  // namespace plaidml
