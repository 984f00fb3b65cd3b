// Tensors whose contents the importer knows: initializers, Constant nodes, and what is folded
// from them at import. Their bytes are borrowed from whatever holds them (the parsed model, a
// mapped external-data file, a buffer the importer made), kept alive by `owner`, so that a weight
// becomes a program constant without another copy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plaidml/plaidml.h"

namespace plaidml::onnx_import {

// Bytes per element of a plaidml dtype (bool: 1).
size_t dtype_bytes(plaidml_dtype dtype);
bool dtype_is_float(plaidml_dtype dtype);
bool dtype_is_signed_int(plaidml_dtype dtype);
bool dtype_is_unsigned_int(plaidml_dtype dtype);
std::string dtype_text(plaidml_dtype dtype);  // "f32", for messages

// The dtype sets converters accept (Converter input checks: NodeContext::require_dtype).
const std::vector<plaidml_dtype>& float_types();     // f16, bf16, f32, f64
const std::vector<plaidml_dtype>& signed_types();    // i8..i64
const std::vector<plaidml_dtype>& unsigned_types();  // u8..u64
const std::vector<plaidml_dtype>& int_types();       // signed and unsigned
const std::vector<plaidml_dtype>& numeric_types();   // floats and ints
const std::vector<plaidml_dtype>& all_types();       // numeric and bool
std::vector<plaidml_dtype> concat_types(std::vector<plaidml_dtype> a,
                                        const std::vector<plaidml_dtype>& b);

// Element count of dims; -1 when a dim is negative or the product overflows int64.
int64_t element_count(const std::vector<int64_t>& dims);

// Whether dims hold at most `limit` elements: false also where element_count is -1, which a
// bare `element_count(dims) <= limit` would let through (dims from a hostile model overflow).
inline bool at_most_elements(const std::vector<int64_t>& dims, int64_t limit) {
  int64_t n = element_count(dims);
  return n >= 0 && n <= limit;
}

struct HostTensor {
  plaidml_dtype dtype = PLAIDML_DTYPE_INVALID;
  std::vector<int64_t> dims;
  const void* data = nullptr;  // byte_size() bytes
  std::shared_ptr<const void> owner;

  int64_t elements() const { return element_count(dims); }
  size_t byte_size() const { return static_cast<size_t>(elements()) * dtype_bytes(dtype); }
  size_t rank() const { return dims.size(); }

  // Element i converted (floats truncate toward zero in as_int; bools are 0/1).
  double as_double(int64_t i) const;
  int64_t as_int(int64_t i) const;
  std::vector<int64_t> to_ints() const;
  std::vector<double> to_doubles() const;

  // A new tensor of dtype holding values (converted as a C cast would, bools as != 0).
  static HostTensor from_ints(plaidml_dtype dtype, std::vector<int64_t> dims,
                              const std::vector<int64_t>& values);
  static HostTensor from_doubles(plaidml_dtype dtype, std::vector<int64_t> dims,
                                 const std::vector<double>& values);
  // Fresh zero-filled storage of dtype and dims (writable through mutable_data()).
  static HostTensor zeros(plaidml_dtype dtype, std::vector<int64_t> dims);
  // Storage like zeros' whose bytes the caller writes in full before anything reads them.
  static HostTensor uninitialized(plaidml_dtype dtype, std::vector<int64_t> dims);
  void* mutable_data() const { return const_cast<void*>(data); }
};

}  // namespace plaidml::onnx_import
