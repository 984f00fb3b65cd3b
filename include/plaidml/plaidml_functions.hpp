// plaidml_functions.hpp: the elementwise operators and functions of plaidml.hpp, one wrapper per
// function of the op table (plaidml_function_name lists them; the test "plaidml.hpp wraps every
// elementwise function the library lists" fails naming one that is missing here). Part of
// plaidml.hpp, which includes it inside namespace plaidml: include plaidml.hpp, not this file.
#ifndef PLAIDML_HPP_INCLUDING_FUNCTIONS
#error "include plaidml/plaidml.hpp, which includes plaidml_functions.hpp"
#endif
#define PLAIDML_HPP_TENSOR_OP(op, name)                                                      \
  inline Tensor operator op(const Tensor& a, const Tensor& b) { return call(name, {a, b}); } \
  template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                  \
  Tensor operator op(const Tensor& a, S b) {                                                 \
    return call(name, {a, a.scalar(b)});                                                     \
  }                                                                                          \
  template <typename S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0>                  \
  Tensor operator op(S a, const Tensor& b) {                                                 \
    return call(name, {b.scalar(a), b});                                                     \
  }
PLAIDML_HPP_TENSOR_OP(+, "add")
PLAIDML_HPP_TENSOR_OP(-, "sub")
PLAIDML_HPP_TENSOR_OP(*, "mul")
PLAIDML_HPP_TENSOR_OP(/, "div")
PLAIDML_HPP_TENSOR_OP(%, "mod")
PLAIDML_HPP_TENSOR_OP(<, "cmp_lt")
PLAIDML_HPP_TENSOR_OP(>, "cmp_gt")
PLAIDML_HPP_TENSOR_OP(<=, "cmp_le")
PLAIDML_HPP_TENSOR_OP(>=, "cmp_ge")
PLAIDML_HPP_TENSOR_OP(&, "bit_and")
PLAIDML_HPP_TENSOR_OP(|, "bit_or")
PLAIDML_HPP_TENSOR_OP(^, "bit_xor")
PLAIDML_HPP_TENSOR_OP(<<, "bit_left")
PLAIDML_HPP_TENSOR_OP(>>, "bit_right")
#undef PLAIDML_HPP_TENSOR_OP

inline Tensor operator-(const Tensor& a) { return call("neg", {a}); }
inline Tensor operator~(const Tensor& a) { return call("bit_not", {a}); }
// == and != are functions: on accesses, == means the contraction combination.
inline Tensor eq(const Tensor& a, const Tensor& b) { return call("cmp_eq", {a, b}); }
inline Tensor ne(const Tensor& a, const Tensor& b) { return call("cmp_ne", {a, b}); }

#define PLAIDML_HPP_UNARY(name) \
  inline Tensor name(const Tensor& x) { return call(#name, {x}); }
PLAIDML_HPP_UNARY(exp)
PLAIDML_HPP_UNARY(log)
PLAIDML_HPP_UNARY(sqrt)
PLAIDML_HPP_UNARY(tanh)
PLAIDML_HPP_UNARY(sin)
PLAIDML_HPP_UNARY(cos)
PLAIDML_HPP_UNARY(tan)
PLAIDML_HPP_UNARY(sinh)
PLAIDML_HPP_UNARY(cosh)
PLAIDML_HPP_UNARY(asin)
PLAIDML_HPP_UNARY(acos)
PLAIDML_HPP_UNARY(atan)
PLAIDML_HPP_UNARY(asinh)
PLAIDML_HPP_UNARY(acosh)
PLAIDML_HPP_UNARY(atanh)
PLAIDML_HPP_UNARY(erf)
PLAIDML_HPP_UNARY(floor)
PLAIDML_HPP_UNARY(ceil)
PLAIDML_HPP_UNARY(round)
PLAIDML_HPP_UNARY(round_even)
PLAIDML_HPP_UNARY(isnan)
PLAIDML_HPP_UNARY(isinf)
PLAIDML_HPP_UNARY(abs)
PLAIDML_HPP_UNARY(sign)
PLAIDML_HPP_UNARY(recip)
PLAIDML_HPP_UNARY(relu)
PLAIDML_HPP_UNARY(sigmoid)
PLAIDML_HPP_UNARY(as_bool)
PLAIDML_HPP_UNARY(bitcast)  // the bits as the other type: f32 <-> i32 / u32, f64 <-> i64 / u64
#undef PLAIDML_HPP_UNARY

inline Tensor pow(const Tensor& x, const Tensor& y) { return call("pow", {x, y}); }
inline Tensor max(const Tensor& a, const Tensor& b) { return call("max", {a, b}); }
inline Tensor min(const Tensor& a, const Tensor& b) { return call("min", {a, b}); }
inline Tensor select(const Tensor& c, const Tensor& a, const Tensor& b) {
  return call("select", {c, a, b});
}

namespace detail {
inline IndexExpr literal_of(const Tensor& t, int64_t value) {
  plaidml_expr e;
  check(plaidml_expr_int(t.builder(), value, &e));
  return IndexExpr(t.builder(), e);
}
}  // namespace detail

inline Tensor as_float(const Tensor& x, int bits) {
  return call("as_float", {x}, {detail::literal_of(x, bits)});
}
inline Tensor as_int(const Tensor& x, int bits) {
  return call("as_int", {x}, {detail::literal_of(x, bits)});
}
inline Tensor as_uint(const Tensor& x, int bits) {
  return call("as_uint", {x}, {detail::literal_of(x, bits)});
}
inline Tensor as_bfloat(const Tensor& x) {
  return call("as_bfloat", {x}, {detail::literal_of(x, 16)});
}
// The dims of x as a 1-D i32 tensor.
inline Tensor shape(const Tensor& x) { return call("shape", {x}); }
// v's rows (axis 0) at indices i (clamped into range).
inline Tensor gather(const Tensor& v, const Tensor& i) { return call("gather", {v, i}); }
// e's rows added at indices i into a tensor shaped like v.
inline Tensor scatter(const Tensor& e, const Tensor& i, const Tensor& v) {
  return call("scatter", {e, i, v});
}
inline Tensor reshape(const Tensor& x, const std::vector<IndexExpr>& dims) {
  return call("reshape", {x}, dims);
}
inline Tensor index(const Tensor& x, int axis) {
  return call("index", {x}, {detail::literal_of(x, axis)});
}
