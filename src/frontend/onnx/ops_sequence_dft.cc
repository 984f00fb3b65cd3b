// DFT as one contraction with a constant matrix of cosines and sines: for the transform length n
// (dft_length, or the axis size) known at import,
//   y[.., k, .., c] = sum_{j, d} x[.., j, .., d] * M[j, d, k, c]
// where d and c index the (real, imaginary) parts of the input and the output. This covers real
// and complex inputs, forward and inverse, onesided (forward: the first n/2 + 1 frequencies;
// inverse: numpy's irfft, a real output from the first n/2 + 1 frequencies of a Hermitian
// spectrum), zero padding (a shorter input) and truncation (a longer one). The angle of j*k is
// reduced modulo n in integers before the cosine, so large n keep their precision.
#include <cmath>

#include "ops_sequence_util.h"

namespace plaidml::onnx_import::sequence {
namespace {

using plaidml::Tensor;

struct DftSpec {
  int64_t n = 0;        // transform length
  int64_t in_len = 0;   // input size along the axis
  int64_t out_len = 0;  // output size along the axis
  int64_t in_parts = 1, out_parts = 2;
  bool inverse = false, onesided = false;
};

// The [J, in_parts, out_len, out_parts] matrix, J = the input positions that take part.
HostTensor dft_matrix(const DftSpec& s, plaidml_dtype dtype) {
  bool irfft = s.inverse && s.onesided;
  int64_t used = std::min(s.in_len, irfft ? s.n / 2 + 1 : s.n);
  std::vector<double> m(static_cast<size_t>(used * s.in_parts * s.out_len * s.out_parts), 0.0);
  double scale = s.inverse ? 1.0 / static_cast<double>(s.n) : 1.0;
  for (int64_t j = 0; j < used; ++j) {
    // irfft: the conjugate half is implied, so every frequency but 0 and n/2 counts twice.
    double weight = irfft && j != 0 && !(s.n % 2 == 0 && j == s.n / 2) ? 2.0 : 1.0;
    for (int64_t k = 0; k < s.out_len; ++k) {
      int64_t r = static_cast<int64_t>((static_cast<__int128>(j) * k) % s.n);
      double angle = 2 * M_PI * static_cast<double>(r) / static_cast<double>(s.n);
      double co = std::cos(angle) * scale * weight, si = std::sin(angle) * scale * weight;
      if (!s.inverse) si = -si;  // forward: e^{-i angle}
      // (a + ib)(co + i si) = (a co - b si) + i (a si + b co)
      double coef[2][2] = {{co, si}, {-si, co}};  // [d][c]
      for (int64_t d = 0; d < s.in_parts; ++d) {
        for (int64_t c = 0; c < s.out_parts; ++c) {
          size_t at = static_cast<size_t>(((j * s.in_parts + d) * s.out_len + k) * s.out_parts + c);
          m[at] = coef[d][c];
        }
      }
    }
  }
  return HostTensor::from_doubles(dtype, {used, s.in_parts, s.out_len, s.out_parts}, m);
}

// The spec of a DFT along axis, or nullopt with *why set when it cannot be converted.
std::optional<DftSpec> spec_for(NodeContext& cx, size_t axis, std::string* why) {
  DftSpec s;
  size_t rank = cx.rank(0);
  s.inverse = cx.attr_int("inverse", 0) != 0;
  s.onesided = cx.attr_int("onesided", 0) != 0;
  s.in_parts = cx.size(0, rank - 1);
  if (s.in_parts != 1 && s.in_parts != 2) {
    invalid("the input's last dim must be 1 (real) or 2 (complex), it is {}", s.in_parts);
  }
  s.in_len = cx.size(0, axis);
  if (cx.has_input(1)) {
    auto len = cx.known_ints(1);
    if (!len) {
      *why = "input 'dft_length' must be known when the model is imported";
      return std::nullopt;
    }
    if (len->size() != 1) invalid("input 'dft_length' must be a scalar");
    s.n = (*len)[0];
  } else if (s.in_len >= 0) {
    s.n = s.inverse && s.onesided ? 2 * (s.in_len - 1) : s.in_len;
  }
  if (s.in_len < 0) {
    *why = "the size of the transformed axis must be known when the model is imported";
    return std::nullopt;
  }
  if (s.n <= 0) {
    *why = fmt::format("the DFT length must be positive, it is {}", s.n);
    return std::nullopt;
  }
  s.out_len = s.onesided && !s.inverse ? s.n / 2 + 1 : s.n;
  s.out_parts = s.inverse && s.onesided ? 1 : 2;
  return s;
}

Tensor dft_along(NodeContext& cx, const Tensor& x, size_t axis, const DftSpec& s,
                 plaidml_dtype dtype) {
  size_t rank = x.rank();
  Tensor m = cx.constant(dft_matrix(s, dtype));
  auto out = indices(cx, "o", rank);
  plaidml::IndexExpr j = cx.builder().index("j"), d = cx.builder().index("d");
  std::vector<plaidml::IndexExpr> in = out;
  in[axis] = j;
  in[rank - 1] = d;
  std::vector<plaidml::IndexExpr> sizes = dims_of(x);
  sizes[axis] = cx.literal(s.out_len);
  sizes[rank - 1] = cx.literal(s.out_parts);
  plaidml::Contraction k = cx.builder().contraction(sizes);
  plaidml::OutputAccess(&k, out) +=
      plaidml::Access(x, in) * plaidml::Access(m, {j, d, out[axis], out[rank - 1]});
  return k;
}

// The output dims of a DFT along axis (for comparing candidate axes).
std::vector<int64_t> out_dims(NodeContext& cx, size_t axis, const DftSpec& s) {
  std::vector<int64_t> dims;
  for (size_t i = 0; i < cx.rank(0); ++i) dims.push_back(cx.size(0, i));
  dims[axis] = s.out_len;
  dims.back() = s.out_parts;
  return dims;
}

Tensor to_dtype(const Tensor& y, plaidml_dtype dtype) {
  if (dtype == PLAIDML_DTYPE_FLOAT32) return plaidml::as_float(y, 32);
  return dtype == PLAIDML_DTYPE_FLOAT64 ? y : narrow(y, dtype);
}

size_t check_axis(NodeContext& cx, int64_t axis) {
  int64_t r = static_cast<int64_t>(cx.rank(0));
  if (!((axis >= -r && axis <= -2) || (axis >= 0 && axis <= r - 2))) {
    invalid("axis {} is out of [-{}, -2] and [0, {}]", axis, r, r - 2);
  }
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

void dft(NodeContext& cx) {
  cx.check_attrs(cx.version() >= 20 ? std::vector<std::string>{"inverse", "onesided"}
                                    : std::vector<std::string>{"axis", "inverse", "onesided"});
  cx.require_dtype(0, float_types());
  if (cx.rank(0) < 2) invalid("DFT needs an input of rank >= 2");
  plaidml_dtype dtype = cx.dtype(0);
  // f64 throughout: the rounding of f32 cosines alone is of the order of the f32 results'
  // own rounding, which would double the error.
  plaidml_dtype cdt = PLAIDML_DTYPE_FLOAT64;
  Tensor x = plaidml::as_float(cx.tensor(0), 64);
  std::string why;
  std::optional<int64_t> axis;
  if (cx.version() < 20) {
    axis = cx.attr_int("axis", 1);
  } else if (!cx.has_input(2)) {
    axis = -2;
  } else if (auto a = cx.known_ints(2)) {
    if (a->size() != 1) invalid("input 'axis' must be a scalar");
    axis = (*a)[0];
  }
  if (axis) {
    size_t a = check_axis(cx, *axis);
    auto s = spec_for(cx, a, &why);
    if (!s && why.find("positive") != std::string::npos) invalid("{}", why);
    if (!s) unsupported("{}", why);
    return cx.set_output(0, to_dtype(dft_along(cx, x, a, *s, cdt), dtype), dtype);
  }
  // An axis known only at run time: the transforms along every possible axis, selected by the
  // axis value, when they all have one output shape (else the shape depends on the value).
  size_t rank = cx.rank(0);
  Tensor av = cx.tensor(2);
  std::optional<Tensor> r;
  std::optional<std::vector<int64_t>> shape;
  for (size_t a = 0; a + 1 < rank; ++a) {
    auto s = spec_for(cx, a, &why);
    if (!s) unsupported("{} (for every axis the run-time axis input may name)", why);
    auto dims = out_dims(cx, a, *s);
    if (shape && dims != *shape) {
      unsupported("input 'axis' must be known when the model is imported: the output shape "
                  "depends on it");
    }
    shape = dims;
    Tensor y = dft_along(cx, x, a, *s, cdt);
    int64_t neg = static_cast<int64_t>(a) - static_cast<int64_t>(rank);
    Tensor hit = plaidml::eq(av, av.constant(static_cast<int64_t>(a))) |
                 plaidml::eq(av, av.constant(neg));
    r = r ? plaidml::select(hit, y, *r) : y;
  }
  cx.set_output(0, to_dtype(*r, dtype), dtype);
}

}  // namespace

std::vector<ConverterEntry> dft_converters() { return {{"DFT", {17, 20}, dft}}; }

}  // namespace plaidml::onnx_import::sequence
