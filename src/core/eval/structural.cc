#include "core/eval/structural.h"

#include <algorithm>
#include <cmath>

#include "core/ir/op_cases.h"

namespace plaidml::eval {
namespace {

using ir::OpKind;

Tensor reshape(const Tensor& x, const StructuralSpec& spec) {
  Tensor out(spec.result_dtype, spec.dims);
  for (int64_t i = 0; i < out.elements() && i < x.elements(); ++i) {
    out.data[i] = convert(x.data[i], x.dtype, spec.result_dtype);
  }
  return out;
}

Expected<Tensor> index_of(const StructuralSpec& spec) {
  if (spec.int_args.size() != 1 || spec.int_args[0] < 0 ||
      spec.int_args[0] >= static_cast<int64_t>(spec.dims.size())) {
    return make_error(StatusCode::kInternal, "interpreter: bad axis for index()");
  }
  size_t axis = static_cast<size_t>(spec.int_args[0]);
  int64_t inner =
      element_count({spec.dims.begin() + static_cast<int64_t>(axis) + 1, spec.dims.end()});
  Tensor out(spec.result_dtype, spec.dims);
  for (int64_t i = 0; i < out.elements(); ++i) {
    int64_t coord = (i / inner) % spec.dims[axis];
    out.data[i] = convert(from_int(coord), DType::I64, spec.result_dtype);
  }
  return out;
}

Tensor shape_of(const Tensor& x, const StructuralSpec& spec) {
  Tensor out(spec.result_dtype, spec.dims);
  for (int64_t i = 0; i < out.elements() && i < static_cast<int64_t>(x.dims.size()); ++i) {
    out.data[i] = convert(from_int(x.dims[i]), DType::I64, spec.result_dtype);
  }
  return out;
}

// The clamped row of an index tensor element.
int64_t clamped_row(const Tensor& idx, int64_t i, int64_t rows) {
  int64_t row = convert(idx.data[i], idx.dtype, DType::I64).i;
  return std::clamp<int64_t>(row, 0, rows - 1);
}

Expected<Tensor> gather(const Tensor& v, const Tensor& idx, const StructuralSpec& spec) {
  if (v.dims.empty() || v.dims[0] == 0) {
    return make_error(StatusCode::kInternal, "interpreter: gather from an empty or scalar tensor");
  }
  int64_t row_size = element_count({v.dims.begin() + 1, v.dims.end()});
  Tensor out(spec.result_dtype, spec.dims);
  if (out.elements() != idx.elements() * row_size) {
    return make_error(StatusCode::kInternal, "interpreter: gather result shape mismatch");
  }
  for (int64_t i = 0; i < idx.elements(); ++i) {
    int64_t row = clamped_row(idx, i, v.dims[0]);
    for (int64_t j = 0; j < row_size; ++j) {
      out.data[i * row_size + j] = convert(v.data[row * row_size + j], v.dtype, spec.result_dtype);
    }
  }
  return out;
}

Expected<Tensor> scatter(const Tensor& e, const Tensor& idx, const StructuralSpec& spec) {
  if (spec.dims.empty() || spec.dims[0] == 0) {
    return make_error(StatusCode::kInternal, "interpreter: scatter into an empty or scalar tensor");
  }
  int64_t row_size = element_count({spec.dims.begin() + 1, spec.dims.end()});
  if (e.elements() != idx.elements() * row_size) {
    return make_error(StatusCode::kInternal, "interpreter: scatter operand shape mismatch");
  }
  DType r = spec.result_dtype;
  bool is_float = domain_of(r) == Domain::kFloat;
  Tensor out(r, spec.dims);  // zeros in every domain
  for (int64_t i = 0; i < idx.elements(); ++i) {
    int64_t row = clamped_row(idx, i, spec.dims[0]);
    for (int64_t j = 0; j < row_size; ++j) {
      Value& acc = out.data[row * row_size + j];
      Value x = is_float ? from_double(to_double(e.data[i * row_size + j], e.dtype))
                         : convert(e.data[i * row_size + j], e.dtype, r);
      if (is_float)
        acc.f += x.f;
      else
        acc.u += x.u;
    }
  }
  for (Value& v : out.data) v = narrow(v, r);
  return out;
}

}  // namespace

Tensor prng_scale(const Tensor& draws) {
  Tensor out(DType::F32, draws.dims);
  for (int64_t i = 0; i < out.elements(); ++i) {
    out.data[i] = from_double(std::ldexp(static_cast<double>(draws.data[i].u >> 8), -24));
  }
  return out;
}

Expected<PrngResult> prng_run(const Tensor& state, const std::vector<int64_t>& dims) {
  if (state.elements() != 3 * kPrngGenerators) {
    return make_error(StatusCode::kInternal, "interpreter: prng state has {} elements, not {}",
                      state.elements(), 3 * kPrngGenerators);
  }
  PrngResult r{Tensor(DType::U32, {3, kPrngGenerators}), Tensor(DType::U32, dims)};
  int64_t n = r.draws.elements();
  for (int64_t g = 0; g < kPrngGenerators; ++g) {
    uint32_t s[3];
    for (int k = 0; k < 3; ++k) {
      s[k] = static_cast<uint32_t>(
          convert(state.data[k * kPrngGenerators + g], state.dtype, DType::U32).u);
    }
    for (int64_t i = g; i < n; i += kPrngGenerators) {
      s[0] = ((s[0] & 4294967294u) << 12) ^ (((s[0] << 13) ^ s[0]) >> 19);
      s[1] = ((s[1] & 4294967288u) << 4) ^ (((s[1] << 2) ^ s[1]) >> 25);
      s[2] = ((s[2] & 4294967280u) << 17) ^ (((s[2] << 3) ^ s[2]) >> 11);
      r.draws.data[i] = from_uint(s[0] ^ s[1] ^ s[2]);
    }
    for (int k = 0; k < 3; ++k) r.state.data[k * kPrngGenerators + g] = from_uint(s[k]);
  }
  return r;
}

Expected<Tensor> eval_structural(const StructuralSpec& spec,
                                 const std::vector<const Tensor*>& operands) {
  if (operands.empty()) return make_error(StatusCode::kInternal, "interpreter: no operands");
  const Tensor& x = *operands[0];
  auto need = [&](size_t n) -> Status {
    if (operands.size() == n) return Status::ok();
    return make_error(StatusCode::kInternal, "interpreter: '{}' got {} operands",
                      ir::op_name(spec.op), operands.size());
  };
  switch (spec.op) {
    case OpKind::Reshape:
      return reshape(x, spec);
    case OpKind::Index:
      return index_of(spec);
    case OpKind::ShapeOf:
      return shape_of(x, spec);
    case OpKind::Gather:
      PLAIDML_TRY(need(2));
      return gather(x, *operands[1], spec);
    case OpKind::Scatter:
      PLAIDML_TRY(need(3));
      return scatter(x, *operands[1], spec);
    case OpKind::PrngStep: {
      PLAIDML_ASSIGN(PrngResult r, prng_run(x, spec.int_args));
      return convert_tensor(r.draws, spec.result_dtype);
    }
    case OpKind::PrngValue: {
      PLAIDML_ASSIGN(PrngResult r, prng_run(x, spec.int_args));
      return convert_tensor(prng_scale(r.draws), spec.result_dtype);
    }
    case OpKind::PrngState: {
      PLAIDML_ASSIGN(PrngResult r, prng_run(x, spec.int_args));
      return convert_tensor(r.state, spec.result_dtype);
    }
    // Every other op (op_cases.h).
    PLAIDML_OPS_EXCEPT_STRUCTURAL
      break;
  }
  return make_error(StatusCode::kInternal, "interpreter: '{}' is not structural",
                    ir::op_name(spec.op));
}

}  // namespace plaidml::eval
