// One ONNX value (a tensor name of the graph) during import: what the importer knows of it.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
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
  // A symbolic value known to be >= 0: a dim, or built from dims by + * min max and division.
  // (A difference of sizes may be negative.) Lets Equal(size, -1) fold to false, as the
  // Where(Equal(shape, -1), 1, shape) of exported Expands needs.
  bool nonneg = false;

  bool known() const { return value.has_value(); }
  bool is_nonneg() const { return known() ? *value >= 0 : nonneg; }
};

struct Value {
  plaidml_dtype dtype = PLAIDML_DTYPE_INVALID;
  // The program value, once made (inputs and computed values; constants when first used).
  std::optional<plaidml::Tensor> tensor;
  // The same contents stored channels last (N, spatial..., C: layout.h), for a computed value
  // of rank 3 or more. A layout-aware converter may make only this; `tensor` is then made from
  // it on first use.
  std::optional<plaidml::Tensor> channels_last;
  // The contents, when known at import (initializers, Constant, folded results).
  std::optional<HostTensor> host;
  // The contents as sizes, for a rank-0 or rank-1 integer tensor computed from shapes.
  std::optional<std::vector<SymInt>> sizes;
  bool is_sizes_scalar = false;  // `sizes` holds one element of a rank-0 tensor
  // The graph inputs whose run-time contents this value is computed from (empty when `host`
  // or `sizes` is set: sizes depend on shapes only). When a converter needs a value known at
  // import and it is not, these are the inputs a caller can bind to values to import the model.
  std::set<std::string> input_deps;
};

}  // namespace plaidml::onnx_import
