// ONNX operators: the "sequence" group. LpNormalization, ReverseSequence, Det and the
// window functions (here); RNN/GRU/LSTM (ops_sequence_rnn.cc); DFT (ops_sequence_dft.cc);
// Col2Im, MaxUnpool, CenterCropPad (ops_sequence_image.cc).
//
// Not converted: Bernoulli, RandomUniform(Like) and RandomNormal(Like) are nondeterministic.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops_sequence_util.h"
#include "tensor_proto.h"

namespace plaidml::onnx_import {
namespace sequence {
namespace {

using plaidml::Tensor;

// --- LpNormalization -----------------------------------------------------------------------

// x / ||x||_p along axis (p 1 or 2); where the norm is 0 the result is 0 (onnx's reference).
void lp_normalization(NodeContext& cx) {
  cx.check_attrs({"axis", "p"});
  cx.require_dtype(0, float_types());
  int64_t p = cx.attr_int("p", 2);
  if (p != 1 && p != 2) invalid("attribute 'p' must be 1 or 2, it is {}", p);
  size_t rank = cx.rank(0);
  if (rank == 0) invalid("LpNormalization needs an input of rank >= 1");
  int64_t axis = static_cast<int64_t>(cx.normalize_axis(cx.attr_int("axis", -1), rank, "axis"));
  plaidml_dtype dtype = cx.dtype(0);
  Tensor x = widen(cx.tensor(0), dtype);
  Tensor m = p == 1 ? plaidml::abs(x) : x * x;
  plaidml::Attrs attrs;
  attrs.set("axes", std::vector<int64_t>{axis}).set("keepdims", int64_t{1});
  Tensor norm = plaidml::op("sum", {m}, attrs);
  if (p == 2) norm = plaidml::sqrt(norm);
  Tensor zero = scalar(cx, compute_dtype(dtype), 0.0);
  Tensor r = plaidml::select(plaidml::eq(norm, zero), zero, x / norm);
  cx.set_output(0, narrow(r, dtype), dtype);
}

// --- ReverseSequence -----------------------------------------------------------------------

// y[.., t, ..] = x[.., t' , ..] with t' = len - 1 - t for t < len (len of the entry's batch
// index), else t. t' is computed elementwise (sequence_lens may be known or not) and read with a
// contraction that matches it against every time position: O(T) per element, exact.
void reverse_sequence(NodeContext& cx) {
  cx.check_attrs({"batch_axis", "time_axis"});
  cx.require_dtype(0, all_types());
  cx.require_dtype(1, {PLAIDML_DTYPE_INT64});
  size_t rank = cx.rank(0);
  if (rank < 2) invalid("ReverseSequence needs an input of rank >= 2");
  int64_t batch_axis = cx.attr_int("batch_axis", 1), time_axis = cx.attr_int("time_axis", 0);
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0))) {
    invalid("batch_axis and time_axis must be 0 and 1 in some order");
  }
  if (cx.rank(1) != 1) invalid("input 'sequence_lens' must be 1-D");
  int64_t steps = cx.size(0, time_axis);
  if (auto lens = cx.known_ints(1); lens && steps >= 0) {
    for (int64_t v : *lens) {
      if (v < 0 || v > steps) invalid("sequence_lens value {} is out of [0, {}]", v, steps);
    }
  }
  plaidml_dtype dtype = cx.dtype(0);
  Tensor x = cx.tensor(0);
  if (dtype == PLAIDML_DTYPE_BOOL) x = plaidml::as_uint(x, 8);
  Tensor t = plaidml::index(x, static_cast<int>(time_axis));
  std::vector<plaidml::IndexExpr> lens_dims(rank, cx.literal(1));
  lens_dims[batch_axis] = x.dim(batch_axis);
  Tensor len = plaidml::as_int(plaidml::reshape(cx.tensor(1), lens_dims), 32);
  Tensor src = plaidml::select(t < len, len - 1 - t, t);
  auto out = indices(cx, "o", rank);
  plaidml::IndexExpr s = cx.builder().index("s");
  std::vector<plaidml::IndexExpr> at_s = out;
  at_s[time_axis] = s;
  plaidml::Contraction k = cx.builder().contraction(dims_of(x));
  plaidml::OutputAccess(&k, out) +=
      plaidml::cond(plaidml::Access(src, out) == plaidml::Access(t, at_s), plaidml::Access(x, at_s));
  Tensor r = k;
  if (dtype == PLAIDML_DTYPE_BOOL) r = plaidml::as_bool(r);
  cx.set_output(0, r, dtype);
}

// --- Det -----------------------------------------------------------------------------------

// The determinant of [..., n, n] by the Leibniz formula (n <= 4: at most 24 products), which
// needs no pivoting. The matrix size must be known at import.
void det(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, float_types());
  size_t rank = cx.rank(0);
  if (rank < 2) invalid("Det needs an input of rank >= 2");
  int64_t n = cx.size(0, rank - 1), n2 = cx.size(0, rank - 2);
  if (n < 0 || n2 < 0) unsupported("the matrix size must be known at import");
  if (n != n2) invalid("Det needs square matrices, they are {}x{}", n2, n);
  if (n > 4) unsupported("Det of matrices larger than 4x4 is not supported (they are {}x{})", n, n);
  plaidml_dtype dtype = cx.dtype(0);
  Tensor x = widen(cx.tensor(0), dtype);
  std::vector<plaidml::IndexExpr> batch;
  for (size_t i = 0; i + 2 < rank; ++i) batch.push_back(x.dim(i));
  auto element = [&](int64_t i, int64_t j) {
    auto ix = indices(cx, "b", rank - 2);
    std::vector<plaidml::IndexExpr> in = ix;
    in.push_back(cx.literal(i));
    in.push_back(cx.literal(j));
    plaidml::Contraction k = cx.builder().contraction(batch);
    plaidml::OutputAccess(&k, ix) = plaidml::Access(x, in);
    return Tensor(k);
  };
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::optional<Tensor> sum;
  std::vector<std::vector<std::optional<Tensor>>> cache(n, std::vector<std::optional<Tensor>>(n));
  do {
    int inversions = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) inversions += perm[i] > perm[j];
    }
    std::optional<Tensor> term;
    for (int64_t i = 0; i < n; ++i) {
      auto& e = cache[i][perm[i]];
      if (!e) e = element(i, perm[i]);
      term = term ? *term * *e : *e;
    }
    if (!term) break;  // n == 0
    sum = !sum ? (inversions % 2 ? -*term : *term) : (inversions % 2 ? *sum - *term : *sum + *term);
  } while (std::next_permutation(perm.begin(), perm.end()));
  if (!sum) {  // a 0x0 matrix has determinant 1
    Tensor one = scalar(cx, compute_dtype(dtype), 1.0);
    auto ix = indices(cx, "b", rank - 2);
    plaidml::Contraction k = cx.builder().contraction(batch);
    plaidml::OutputAccess(&k, ix) = plaidml::Access(one, {});
    sum = Tensor(k);
  }
  cx.set_output(0, narrow(*sum, dtype), dtype);
}

// --- Windows -------------------------------------------------------------------------------

// w[i] = a0 - a1 cos(2 pi i / D) + a2 cos(4 pi i / D), D = size (periodic) or size - 1; folded
// at import (the size decides the output's shape).
void window(NodeContext& cx, double a0, double a1, double a2) {
  cx.check_attrs({"output_datatype", "periodic"});
  cx.require_dtype(0, {PLAIDML_DTYPE_INT32, PLAIDML_DTYPE_INT64});
  if (cx.rank(0) != 0) invalid("input 'size' must be a scalar");
  int64_t size = cx.required_ints(0, "the window size")[0];
  if (size < 0) invalid("the window size {} is negative", size);
  int64_t elem = cx.attr_int("output_datatype", 1);
  auto dtype = dtype_of_onnx(static_cast<int>(elem));
  if (!dtype || (!dtype_is_float(*dtype) && !dtype_is_signed_int(*dtype) &&
                 !dtype_is_unsigned_int(*dtype))) {
    unsupported("output_datatype {} is not supported", elem);
  }
  bool periodic = cx.attr_int("periodic", 1) != 0;
  double d = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> w(size);
  for (int64_t i = 0; i < size; ++i) {
    double v = 2 * M_PI * static_cast<double>(i) / d;
    w[i] = a0 - a1 * std::cos(v) + a2 * std::cos(2 * v);
  }
  cx.set_output(0, HostTensor::from_doubles(*dtype, {size}, w));
}

void hann(NodeContext& cx) { window(cx, 0.5, 0.5, 0.0); }
void hamming(NodeContext& cx) { window(cx, 25.0 / 46.0, 21.0 / 46.0, 0.0); }
void blackman(NodeContext& cx) { window(cx, 0.42, 0.5, 0.08); }

}  // namespace
}  // namespace sequence

std::vector<ConverterEntry> sequence_converters() {
  using namespace sequence;  // NOLINT
  std::vector<ConverterEntry> list = {
      {"LpNormalization", {1, 22}, lp_normalization},
      {"ReverseSequence", {10, 28}, reverse_sequence},
      {"Det", {11, 22}, det},
      {"HannWindow", {17}, hann},
      {"HammingWindow", {17}, hamming},
      {"BlackmanWindow", {17}, blackman},
  };
  for (auto group : {rnn_converters, dft_converters, image_converters}) {
    for (auto& e : group()) list.push_back(std::move(e));
  }
  return list;
}

}  // namespace plaidml::onnx_import
