#include "node_context.h"

#include <algorithm>
#include <cstring>

#include "graph_importer.h"
#include "layout.h"
#include "tensor_proto.h"

namespace plaidml::onnx_import {

plaidml::Builder& NodeContext::builder() { return graph_.builder(); }

void NodeContext::require(plaidml_assert_op op, const plaidml::IndexExpr& lhs,
                          const plaidml::IndexExpr& rhs, const std::string& message,
                          const std::vector<plaidml::IndexExpr>& args) {
  builder().require(op, lhs, rhs, describe_node(node_, index_, opset_) + ": " + message, args);
}

Value& NodeContext::input(size_t i) {
  if (!has_input(i)) invalid("input {} is missing", i);
  return graph_.value(node_.input(static_cast<int>(i)));
}

plaidml::Tensor NodeContext::tensor(size_t i) {
  if (stored_rank_ != 0) return stored_input(i);
  return graph_.materialize(node_.input(static_cast<int>(i)), input(i));
}

size_t NodeContext::rank(size_t i) {
  Value& v = input(i);
  if (stored_rank_ != 0) return tensor(i).rank();
  if (v.host) return v.host->rank();
  if (v.sizes && !v.tensor) return v.is_sizes_scalar ? 0 : 1;
  if (v.channels_last && !v.tensor) return v.channels_last->rank();
  return tensor(i).rank();
}

int64_t NodeContext::size(size_t i, size_t axis) {
  Value& v = input(i);
  if (stored_rank_ != 0) return tensor(i).size(axis);
  if (v.host) return v.host->dims.at(axis);
  if (v.sizes && !v.tensor) return static_cast<int64_t>(v.sizes->size());
  if (v.channels_last && !v.tensor) {
    return v.channels_last->size(stored_axis(axis, v.channels_last->rank()));
  }
  return tensor(i).size(axis);
}

plaidml::IndexExpr NodeContext::dim(size_t i, size_t axis) {
  Value& v = input(i);
  if (stored_rank_ != 0) return tensor(i).dim(axis);
  if (v.host) return literal(v.host->dims.at(axis));
  if (v.channels_last && !v.tensor) {
    return v.channels_last->dim(stored_axis(axis, v.channels_last->rank()));
  }
  return tensor(i).dim(axis);
}

bool NodeContext::is_channels_last(size_t i) {
  Value& v = input(i);
  return v.channels_last.has_value() && !v.host;
}

bool NodeContext::channels_last_allowed() const { return graph_.options().channels_last; }

plaidml::Tensor NodeContext::channels_last(size_t i) {
  Value& v = input(i);
  if (v.channels_last) return *v.channels_last;
  size_t r = rank(i);
  if (r < kMinChannelsRank) invalid("input {} has rank {}; channels need rank 3 or more", i, r);
  if (v.host) return constant(transpose(*v.host, to_channels_last(r)));
  v.channels_last = transpose(tensor(i), to_channels_last(r));
  return *v.channels_last;
}

bool NodeContext::run_channels_last() {
  if (!channels_last_allowed() || !is_layout_transparent(op_type())) return false;
  size_t stored = 0, widest = 0;
  for (size_t i = 0; i < input_count(); ++i) {
    if (!has_input(i)) continue;
    size_t r = rank(i);
    widest = std::max(widest, r);
    if (!is_channels_last(i)) continue;
    if (stored != 0 && stored != r) return false;
    stored = r;
  }
  // A wider input would put the channels elsewhere in the broadcast result.
  if (stored == 0 || widest != stored) return false;
  stored_inputs_.assign(input_count(), std::nullopt);
  stored_rank_ = stored;
  return true;
}

// Input i in channels-last order at rank stored_rank_: a narrower input broadcasts as numpy
// would (leading 1s), then moves with the rest; a scalar needs nothing.
plaidml::Tensor NodeContext::stored_input(size_t i) {
  if (stored_inputs_.at(i)) return *stored_inputs_[i];
  Value& v = input(i);
  size_t r = stored_rank_;
  plaidml::Tensor t = [&]() -> plaidml::Tensor {
    if (is_channels_last(i)) return *v.channels_last;
    if (v.host) {
      if (v.host->rank() == 0) return graph_.materialize(node_.input(static_cast<int>(i)), v);
      HostTensor padded = *v.host;
      padded.dims.insert(padded.dims.begin(), r - padded.rank(), 1);
      return constant(transpose(padded, to_channels_last(r)));
    }
    plaidml::Tensor x = graph_.materialize(node_.input(static_cast<int>(i)), v);
    if (x.rank() == 0) return x;
    if (x.rank() < r) {
      std::vector<plaidml::IndexExpr> dims(r - x.rank(), literal(1));
      for (size_t a = 0; a < x.rank(); ++a) dims.push_back(x.dim(a));
      x = plaidml::reshape(x, dims);
    }
    return transpose(x, to_channels_last(r));
  }();
  stored_inputs_[i] = t;
  return t;
}

const HostTensor* NodeContext::host(size_t i) {
  Value& v = input(i);
  if (v.host) return &*v.host;
  asked_unknown_.push_back(i);
  return nullptr;
}

std::optional<std::vector<int64_t>> NodeContext::known_ints(size_t i) {
  Value& v = input(i);
  if (v.host) return v.host->to_ints();
  if (v.sizes) {
    std::vector<int64_t> out;
    for (const SymInt& s : *v.sizes) {
      if (!s.known()) return std::nullopt;
      out.push_back(*s.value);
    }
    return out;
  }
  asked_unknown_.push_back(i);
  return std::nullopt;
}

std::vector<int64_t> NodeContext::required_ints(size_t i, const char* what) {
  auto ints = known_ints(i);
  if (!ints) {
    unsupported("input '{}' ({}) must be known when the model is imported (a constant, or "
                "computed from constants and fixed sizes)", node_.input(static_cast<int>(i)), what);
  }
  return *ints;
}

std::optional<std::vector<SymInt>> NodeContext::sizes(size_t i) {
  Value& v = input(i);
  if (v.sizes) return v.sizes;
  if (v.host && v.host->rank() <= 1 && !dtype_is_float(v.host->dtype)) {
    std::vector<SymInt> out;
    for (int64_t x : v.host->to_ints()) out.push_back(SymInt{x, std::nullopt});
    return out;
  }
  if (!v.host) asked_unknown_.push_back(i);
  return std::nullopt;
}

namespace {

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

}  // namespace

bool NodeContext::has_attr(const std::string& name) const {
  return find_attr(node_, name) != nullptr;
}

int64_t NodeContext::attr_int(const std::string& name, int64_t fallback) const {
  const auto* a = find_attr(node_, name);
  if (a == nullptr) return fallback;
  if (a->type() != onnx::AttributeProto::INT) invalid("attribute '{}' must be an integer", name);
  return a->i();
}

double NodeContext::attr_float(const std::string& name, double fallback) const {
  const auto* a = find_attr(node_, name);
  if (a == nullptr) return fallback;
  if (a->type() == onnx::AttributeProto::INT) return static_cast<double>(a->i());
  if (a->type() != onnx::AttributeProto::FLOAT) invalid("attribute '{}' must be a float", name);
  return a->f();
}

std::string NodeContext::attr_string(const std::string& name, const std::string& fallback) const {
  const auto* a = find_attr(node_, name);
  if (a == nullptr) return fallback;
  if (a->type() != onnx::AttributeProto::STRING) invalid("attribute '{}' must be a string", name);
  return a->s();
}

std::vector<int64_t> NodeContext::attr_ints(const std::string& name,
                                            const std::vector<int64_t>& fallback) const {
  const auto* a = find_attr(node_, name);
  if (a == nullptr) return fallback;
  if (a->type() == onnx::AttributeProto::INT) return {a->i()};
  if (a->type() != onnx::AttributeProto::INTS) invalid("attribute '{}' must be integers", name);
  return {a->ints().begin(), a->ints().end()};
}

std::vector<double> NodeContext::attr_floats(const std::string& name) const {
  const auto* a = find_attr(node_, name);
  if (a == nullptr) return {};
  if (a->type() != onnx::AttributeProto::FLOATS) invalid("attribute '{}' must be floats", name);
  return {a->floats().begin(), a->floats().end()};
}

std::optional<HostTensor> NodeContext::attr_tensor(const std::string& name) const {
  const auto* a = find_attr(node_, name);
  if (a == nullptr) return std::nullopt;
  if (a->type() != onnx::AttributeProto::TENSOR) invalid("attribute '{}' must be a tensor", name);
  // The node (inside the parsed model) outlives the import; the program keeps a copy of what it
  // uses (constants made from attribute tensors are copied).
  HostTensor t = read_tensor(a->t(), nullptr, nullptr);
  if (t.owner == nullptr && t.data != nullptr) {
    HostTensor copy = HostTensor::uninitialized(t.dtype, t.dims);
    std::memcpy(copy.mutable_data(), t.data, t.byte_size());
    return copy;
  }
  return t;
}

void NodeContext::check_attrs(const std::vector<std::string>& known) const {
  for (const auto& a : node_.attribute()) {
    if (std::find(known.begin(), known.end(), a.name()) == known.end()) {
      unsupported("attribute '{}' is not supported", a.name());
    }
  }
}

void NodeContext::set_output(size_t i, Value value) {
  if (!wants_output(i)) return;
  graph_.define(node_.output(static_cast<int>(i)), std::move(value));
}

void NodeContext::set_output(size_t i, const plaidml::Tensor& tensor, plaidml_dtype dtype) {
  if (stored_rank_ != 0) return set_output_channels_last(i, tensor, dtype);
  Value v;
  v.dtype = dtype;
  v.tensor = tensor;
  set_output(i, std::move(v));
}

void NodeContext::set_output_channels_last(size_t i, const plaidml::Tensor& tensor,
                                           plaidml_dtype dtype) {
  Value v;
  v.dtype = dtype;
  v.channels_last = tensor;
  set_output(i, std::move(v));
}

void NodeContext::set_output(size_t i, HostTensor host) {
  Value v;
  v.dtype = host.dtype;
  v.host = std::move(host);
  set_output(i, std::move(v));
}

void NodeContext::set_sizes_output(size_t i, std::vector<SymInt> sizes, bool scalar) {
  bool all_known = std::all_of(sizes.begin(), sizes.end(), [](const SymInt& s) { return s.known(); });
  if (all_known) {
    std::vector<int64_t> values;
    for (const auto& s : sizes) values.push_back(*s.value);
    std::vector<int64_t> dims;
    if (!scalar) dims.push_back(static_cast<int64_t>(values.size()));
    return set_output(i, HostTensor::from_ints(PLAIDML_DTYPE_INT64, dims, values));
  }
  Value v;
  v.dtype = PLAIDML_DTYPE_INT64;
  v.sizes = std::move(sizes);
  v.is_sizes_scalar = scalar;
  set_output(i, std::move(v));
}

plaidml::Tensor NodeContext::constant(const HostTensor& host) {
  return builder().constant_tensor("", static_cast<plaidml::DType>(host.dtype), host.dims,
                                   host.data, host.byte_size(), host.owner);
}

plaidml::IndexExpr NodeContext::literal(int64_t v) { return builder().literal(v); }

size_t NodeContext::normalize_axis(int64_t axis, size_t rank, const char* what) const {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    invalid("{} {} is out of range for rank {}", what, axis, rank);
  }
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

void NodeContext::require_dtype(size_t i, const std::vector<plaidml_dtype>& allowed) {
  plaidml_dtype d = dtype(i);
  if (std::find(allowed.begin(), allowed.end(), d) == allowed.end()) {
    unsupported("input '{}' has type {}, which this operator does not support",
                node_.input(static_cast<int>(i)), dtype_text(d));
  }
}

plaidml::Tensor cast_tensor(const plaidml::Tensor& x, plaidml_dtype dtype) {
  int bits = static_cast<int>(dtype_bytes(dtype) * 8);
  if (dtype == PLAIDML_DTYPE_BOOL) return plaidml::as_bool(x);
  if (dtype == PLAIDML_DTYPE_BFLOAT16) {
    return plaidml::call("as_bfloat", {x}, {plaidml::detail::literal_of(x, 16)});
  }
  if (dtype_is_float(dtype)) return plaidml::as_float(x, bits);
  if (dtype_is_signed_int(dtype)) return plaidml::as_int(x, bits);
  return plaidml::as_uint(x, bits);
}

}  // namespace plaidml::onnx_import
