// One ONNX value (a tensor name of the graph) during import: what the importer knows of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host_tensor.h"
#include "plaidml/plaidml.hpp"

namespace plaidml::onnx_import {

// An integer that is a size: known at import (value), or only as an expression over the
// program's symbolic dims (expr). Shape's output is a list of these, and the arithmetic on it
// that exporters emit (Gather, Concat, Mul, ...) keeps them, so that Reshape and Expand get
// their target sizes without running anything.
struct SymInt {
  std::optional<int64_t> value;
  std::optional<plaidml::IndexExpr> expr;  // set when value is not

  bool known() const { return value.has_value(); }
};

struct Value {
  plaidml_dtype dtype = PLAIDML_DTYPE_INVALID;
  // The program value, once made (inputs and computed values; constants when first used).
  std::optional<plaidml::Tensor> tensor;
  // The contents, when known at import (initializers, Constant, folded results).
  std::optional<HostTensor> host;
  // The contents as sizes, for a rank-0 or rank-1 integer tensor computed from shapes.
  std::optional<std::vector<SymInt>> sizes;
  bool is_sizes_scalar = false;  // `sizes` holds one element of a rank-0 tensor
};

}  // namespace plaidml::onnx_import
