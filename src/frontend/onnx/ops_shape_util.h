// Helpers shared by the shape group's converters (ops_shape*.cc): sizes as SymInts, folding of
// data movement on known contents, typed constants and casts.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "converters.h"

namespace plaidml::onnx_import::shape {

// A data-movement op on a known input is folded (computed at import) when its result has at
// most this many elements; larger results become program values.
constexpr int64_t kFoldLimit = int64_t{1} << 20;

// The converter lists of the group's other files.
std::vector<ConverterEntry> slice_converters();  // ops_shape_slice.cc
std::vector<ConverterEntry> index_converters();  // ops_shape_index.cc
std::vector<ConverterEntry> gen_converters();    // ops_shape_gen.cc

// --- sizes ---
SymInt known(int64_t v);
SymInt symbolic(const plaidml::IndexExpr& e, bool nonneg = false);
// Input i's dims (known where the builder knows them).
std::vector<SymInt> input_dims(NodeContext& cx, size_t i);
plaidml::IndexExpr expr_of(NodeContext& cx, const SymInt& s);
std::vector<plaidml::IndexExpr> exprs_of(NodeContext& cx, const std::vector<SymInt>& dims);
SymInt sym_add(NodeContext& cx, const SymInt& a, const SymInt& b);
SymInt sym_sub(NodeContext& cx, const SymInt& a, const SymInt& b);
SymInt sym_mul(NodeContext& cx, const SymInt& a, const SymInt& b);
SymInt sym_div(NodeContext& cx, const SymInt& a, const SymInt& b);  // C division, b > 0
SymInt sym_product(NodeContext& cx, const std::vector<SymInt>& dims, size_t from, size_t to);
bool all_known(const std::vector<SymInt>& dims);
std::vector<int64_t> known_values(const std::vector<SymInt>& dims);  // all must be known

// --- known contents ---
// Input i's contents when known and small enough to fold an op on.
const HostTensor* foldable(NodeContext& cx, size_t i);
// Row-major strides of dims.
std::vector<int64_t> strides_of(const std::vector<int64_t>& dims);
// A new tensor of in's dtype and out_dims whose element at each index is in's element at flat
// position src(index), or `fill` (one element of in's dtype; nullptr: zero) where src gives -1.
HostTensor host_remap(const HostTensor& in, const std::vector<int64_t>& out_dims,
                      const std::function<int64_t(const std::vector<int64_t>&)>& src,
                      const void* fill = nullptr);
// The same contents with other dims (no copy).
HostTensor host_reshape(const HostTensor& in, const std::vector<int64_t>& dims);

// --- program values ---
// Sets output `out` to input `in` reshaped to dims: folded when the input is known, kept as
// sizes when it is a sizes value of at most one dim, else a reshape in the program.
void set_reshaped(NodeContext& cx, size_t in, size_t out, const std::vector<SymInt>& dims);
// A scalar constant of exactly dtype (ints through int64, floats through double).
plaidml::Tensor scalar_int(NodeContext& cx, plaidml_dtype dtype, int64_t v);
plaidml::Tensor scalar_float(NodeContext& cx, plaidml_dtype dtype, double v);
// Element k of a known tensor as a scalar constant of its dtype (exact bytes).
plaidml::Tensor scalar_element(NodeContext& cx, const HostTensor& h, int64_t k);
// t converted to dtype (Tile casts; bool as x != 0).
plaidml::Tensor cast_to(const plaidml::Tensor& t, plaidml_dtype dtype);
// A size expression as a scalar integer program value.
plaidml::Tensor dim_value(NodeContext& cx, const plaidml::IndexExpr& e);
// A bool tensor of dims, all true (a contraction broadcasting a scalar).
plaidml::Tensor true_of_dims(NodeContext& cx, const std::vector<plaidml::IndexExpr>& dims);
// A 1-D tensor of dtype holding the sizes (symbolic ones computed when the program runs).
plaidml::Tensor sizes_tensor(NodeContext& cx, const std::vector<SymInt>& sizes, plaidml_dtype dtype);
// Integer indices made non-negative: idx < 0 ? idx + size : idx (size broadcasts).
plaidml::Tensor wrap_negative(const plaidml::Tensor& idx, const plaidml::Tensor& size);

// The contraction O[..] = X[..] taking `size` elements of axis from `offset` (dims: x's).
plaidml::Tensor take_range(NodeContext& cx, const plaidml::Tensor& x, const std::vector<SymInt>& dims,
                           size_t axis, const SymInt& offset, const SymInt& size);
// Index variables i0..i{n-1} of a contraction.
std::vector<plaidml::IndexExpr> index_vars(NodeContext& cx, size_t n, const char* prefix = "i");

// ONNX dtype of a TensorProto.DataType attribute value (dtype attrs of EyeLike etc.).
plaidml_dtype dtype_of_attr(int64_t onnx_type, const char* what);

}  // namespace plaidml::onnx_import::shape
