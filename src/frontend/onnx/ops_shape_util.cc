// Helpers of the shape group (ops_shape_util.h).
#include "ops_shape_util.h"

#include <cstring>

#include "tensor_proto.h"

namespace plaidml::onnx_import::shape {

SymInt known(int64_t v) { return SymInt{v, std::nullopt}; }
SymInt symbolic(const plaidml::IndexExpr& e, bool nonneg) { return SymInt{std::nullopt, e, nonneg}; }

std::vector<SymInt> input_dims(NodeContext& cx, size_t i) {
  std::vector<SymInt> out;
  size_t r = cx.rank(i);
  for (size_t a = 0; a < r; ++a) {
    int64_t s = cx.size(i, a);
    out.push_back(s >= 0 ? known(s) : symbolic(cx.dim(i, a), /*nonneg=*/true));
  }
  return out;
}

plaidml::IndexExpr expr_of(NodeContext& cx, const SymInt& s) {
  return s.known() ? cx.literal(*s.value) : *s.expr;
}

std::vector<plaidml::IndexExpr> exprs_of(NodeContext& cx, const std::vector<SymInt>& dims) {
  std::vector<plaidml::IndexExpr> out;
  for (const auto& d : dims) out.push_back(expr_of(cx, d));
  return out;
}

namespace {

// Sizes the model states are the user's numbers: a product of them (a Reshape's element count)
// can overflow, which is their error, not undefined behaviour of ours.
int64_t checked_size(int64_t a, char op, int64_t b) {
  int64_t r = 0;
  bool overflow = op == '+'   ? __builtin_add_overflow(a, b, &r)
                  : op == '-' ? __builtin_sub_overflow(a, b, &r)
                              : __builtin_mul_overflow(a, b, &r);
  if (overflow) invalid("the size {} {} {} overflows 64 bits", a, op, b);
  return r;
}

}  // namespace

SymInt sym_add(NodeContext& cx, const SymInt& a, const SymInt& b) {
  if (a.known() && b.known()) return known(checked_size(*a.value, '+', *b.value));
  if (a.known() && *a.value == 0) return b;
  if (b.known() && *b.value == 0) return a;
  return symbolic(expr_of(cx, a) + expr_of(cx, b), a.is_nonneg() && b.is_nonneg());
}

SymInt sym_sub(NodeContext& cx, const SymInt& a, const SymInt& b) {
  if (a.known() && b.known()) return known(checked_size(*a.value, '-', *b.value));
  if (b.known() && *b.value == 0) return a;
  return symbolic(expr_of(cx, a) - expr_of(cx, b));
}

SymInt sym_mul(NodeContext& cx, const SymInt& a, const SymInt& b) {
  if (a.known() && b.known()) return known(checked_size(*a.value, '*', *b.value));
  if (a.known() && *a.value == 1) return b;
  if (b.known() && *b.value == 1) return a;
  return symbolic(expr_of(cx, a) * expr_of(cx, b), a.is_nonneg() && b.is_nonneg());
}

SymInt sym_div(NodeContext& cx, const SymInt& a, const SymInt& b) {
  if (a.known() && b.known()) {
    if (*b.value == 0) invalid("a size is divided by zero");
    return known(*a.value / *b.value);
  }
  if (b.known() && *b.value == 1) return a;
  // floordiv: the same as C division on sizes, and an integer also inside index expressions
  // (where `/` is rational).
  return symbolic(plaidml::floordiv(expr_of(cx, a), expr_of(cx, b)),
                  a.is_nonneg() && b.is_nonneg());
}

SymInt sym_product(NodeContext& cx, const std::vector<SymInt>& dims, size_t from, size_t to) {
  SymInt p = known(1);
  for (size_t k = from; k < to && k < dims.size(); ++k) p = sym_mul(cx, p, dims[k]);
  return p;
}

bool all_known(const std::vector<SymInt>& dims) {
  for (const auto& d : dims) {
    if (!d.known()) return false;
  }
  return true;
}

std::vector<int64_t> known_values(const std::vector<SymInt>& dims) {
  std::vector<int64_t> out;
  for (const auto& d : dims) out.push_back(*d.value);
  return out;
}

const HostTensor* foldable(NodeContext& cx, size_t i) {
  const HostTensor* h = cx.host(i);
  if (h == nullptr || h->elements() < 0 || h->elements() > kFoldLimit) return nullptr;
  return h;
}

std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k];
  return s;
}

HostTensor host_remap(const HostTensor& in, const std::vector<int64_t>& out_dims,
                      const std::function<int64_t(const std::vector<int64_t>&)>& src,
                      const void* fill) {
  HostTensor out = HostTensor::zeros(in.dtype, out_dims);
  size_t eb = dtype_bytes(in.dtype);
  int64_t n = out.elements();
  std::vector<int64_t> idx(out_dims.size(), 0);
  auto* dst = static_cast<char*>(out.mutable_data());
  const auto* from = static_cast<const char*>(in.data);
  for (int64_t o = 0; o < n; ++o) {
    int64_t s = src(idx);
    if (s >= 0) {
      std::memcpy(dst + o * eb, from + s * eb, eb);
    } else if (fill != nullptr) {
      std::memcpy(dst + o * eb, fill, eb);
    }
    for (size_t a = idx.size(); a-- > 0;) {
      if (++idx[a] < out_dims[a]) break;
      idx[a] = 0;
    }
  }
  return out;
}

HostTensor host_reshape(const HostTensor& in, const std::vector<int64_t>& dims) {
  if (element_count(dims) != in.elements()) {
    invalid("cannot reshape {} elements to a shape of {} elements", in.elements(),
            element_count(dims));
  }
  HostTensor out = in;
  out.dims = dims;
  return out;
}

void set_reshaped(NodeContext& cx, size_t in, size_t out, const std::vector<SymInt>& dims) {
  Value& v = cx.input(in);
  if (v.host && all_known(dims)) {
    return cx.set_output(out, host_reshape(*v.host, known_values(dims)));
  }
  if (v.sizes && !v.host && dims.size() <= 1) {
    int64_t n = static_cast<int64_t>(v.sizes->size());
    int64_t want = dims.empty() ? 1 : dims[0].value.value_or(-1);
    if (n == want) return cx.set_sizes_output(out, *v.sizes, dims.empty());
  }
  cx.set_output(out, plaidml::reshape(cx.tensor(in), exprs_of(cx, dims)), v.dtype);
}

plaidml::Tensor scalar_int(NodeContext& cx, plaidml_dtype dtype, int64_t v) {
  return cx.constant(HostTensor::from_ints(dtype, {}, {v}));
}

plaidml::Tensor scalar_float(NodeContext& cx, plaidml_dtype dtype, double v) {
  return cx.constant(HostTensor::from_doubles(dtype, {}, {v}));
}

plaidml::Tensor scalar_element(NodeContext& cx, const HostTensor& h, int64_t k) {
  HostTensor one = HostTensor::zeros(h.dtype, {});
  size_t eb = dtype_bytes(h.dtype);
  std::memcpy(one.mutable_data(), static_cast<const char*>(h.data) + k * eb, eb);
  return cx.constant(one);
}

plaidml::Tensor cast_to(const plaidml::Tensor& t, plaidml_dtype dtype) {
  return cast_tensor(t, dtype);
}

plaidml::Tensor dim_value(NodeContext& cx, const plaidml::IndexExpr& e) {
  plaidml_value v;
  plaidml::detail::check(plaidml_builder_dim_constant(cx.builder().get(), e.get(), &v));
  return plaidml::Tensor(cx.builder().get(), v);
}

plaidml::Tensor true_of_dims(NodeContext& cx, const std::vector<plaidml::IndexExpr>& dims) {
  plaidml::Tensor one = scalar_int(cx, PLAIDML_DTYPE_BOOL, 1);
  if (dims.empty()) return one;
  std::vector<plaidml::IndexExpr> idx = index_vars(cx, dims.size());
  plaidml::Contraction c = cx.builder().contraction(dims);
  plaidml::OutputAccess(&c, idx) = plaidml::Combination(plaidml::Access(one, {}));
  return c;
}

plaidml::Tensor sizes_tensor(NodeContext& cx, const std::vector<SymInt>& sizes,
                             plaidml_dtype dtype) {
  std::vector<int64_t> base(sizes.size(), 0);
  for (size_t k = 0; k < sizes.size(); ++k) base[k] = sizes[k].value.value_or(0);
  std::vector<int64_t> dims = {static_cast<int64_t>(sizes.size())};
  plaidml::Tensor result = cx.constant(HostTensor::from_ints(dtype, dims, base));
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k].known()) continue;
    std::vector<int64_t> hot(sizes.size(), 0);
    hot[k] = 1;
    plaidml::Tensor onehot = cx.constant(HostTensor::from_ints(dtype, dims, hot));
    result = result + onehot * dim_value(cx, *sizes[k].expr);
  }
  return result;
}

plaidml::Tensor wrap_negative(const plaidml::Tensor& idx, const plaidml::Tensor& size) {
  return plaidml::select(idx < 0, idx + size, idx);
}

std::vector<plaidml::IndexExpr> index_vars(NodeContext& cx, size_t n, const char* prefix) {
  std::vector<plaidml::IndexExpr> idx;
  for (size_t k = 0; k < n; ++k) idx.push_back(cx.builder().index(prefix + std::to_string(k)));
  return idx;
}

plaidml::Tensor take_range(NodeContext& cx, const plaidml::Tensor& x, const std::vector<SymInt>& dims,
                           size_t axis, const SymInt& offset, const SymInt& size) {
  std::vector<plaidml::IndexExpr> out_dims = exprs_of(cx, dims);
  out_dims[axis] = expr_of(cx, size);
  std::vector<plaidml::IndexExpr> idx = index_vars(cx, dims.size());
  std::vector<plaidml::IndexExpr> in = idx;
  in[axis] = idx[axis] + expr_of(cx, offset);
  plaidml::Contraction c = cx.builder().contraction(out_dims);
  plaidml::OutputAccess(&c, idx) = plaidml::Combination(plaidml::Access(x, in));
  return c;
}

plaidml_dtype dtype_of_attr(int64_t onnx_type, const char* what) {
  auto d = dtype_of_onnx(static_cast<int>(onnx_type));
  if (!d) unsupported("{} {} ({}) is not supported", what, onnx_type,
                      elem_type_name(static_cast<int>(onnx_type)));
  return *d;
}

}  // namespace plaidml::onnx_import::shape
