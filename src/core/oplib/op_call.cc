#include "core/oplib/op_call.h"

#include <cmath>

#include "core/ir/assertion.h"

namespace plaidml::oplib {
namespace {

std::string_view attr_type_name(const AttrValue& v) {
  switch (v.index()) {
    case 0:
      return "an integer";
    case 1:
      return "a list of integers";
    case 2:
      return "a float";
    default:
      return "a string";
  }
}

std::string join(const std::vector<std::string_view>& items) {
  std::string out;
  for (size_t k = 0; k < items.size(); ++k) {
    if (k > 0) out += k + 1 == items.size() ? " or " : ", ";
    out += items[k];
  }
  return out;
}

}  // namespace

OpCall::OpCall(ir::ProgramBuilder& b, std::string_view op,
               std::vector<std::string_view> operand_names, std::vector<ValueId> operands,
               const Attrs& attrs, ir::SourceLoc loc, bool variadic)
    : b_(b),
      op_(op),
      operand_names_(std::move(operand_names)),
      operands_(std::move(operands)),
      attrs_(attrs),
      loc_(std::move(loc)),
      variadic_(variadic) {}

std::string OpCall::operand_name(size_t k) const {
  if (variadic_ && !operand_names_.empty()) {
    return fmt::format("{}[{}]", operand_names_[0], k);
  }
  return std::string(k < operand_names_.size() ? operand_names_[k] : "operand");
}

Expected<SymbolicDims> OpCall::dims(size_t k) {
  auto d = b_.dims_of(operands_.at(k));
  if (d.has_value()) return d;
  return error(d.status().code(), "argument '{}': {}", operand_name(k), d.status().message());
}

Expected<SymbolicDims> OpCall::dims_of_rank(size_t k, size_t rank) {
  PLAIDML_ASSIGN(SymbolicDims d, dims(k));
  if (d.size() == rank) return d;
  return error(StatusCode::kTypeError, "argument '{}' must have rank {}, but it has rank {}",
               operand_name(k), rank, d.size());
}

Expected<SymbolicDims> OpCall::dims_of_value(ValueId v) {
  auto d = b_.dims_of(v);
  if (d.has_value()) return d;
  return error(d.status().code(), "{}", d.status().message());
}

const AttrValue* OpCall::find_attr(std::string_view name) {
  auto it = attrs_.find(name);
  if (it == attrs_.end()) return nullptr;
  used_.insert(it->first);
  return &it->second;
}

Expected<int64_t> OpCall::get_int(std::string_view name, std::optional<int64_t> fallback) {
  const AttrValue* v = find_attr(name);
  if (v == nullptr) {
    if (fallback) return *fallback;
    return error(StatusCode::kInvalidArgument, "attribute '{}' (an integer) is required", name);
  }
  if (const auto* i = std::get_if<int64_t>(v)) return *i;
  return error(StatusCode::kInvalidArgument, "attribute '{}' must be an integer, not {}", name,
               attr_type_name(*v));
}

Expected<double> OpCall::get_float(std::string_view name, std::optional<double> fallback) {
  const AttrValue* v = find_attr(name);
  if (v == nullptr) {
    if (fallback) return *fallback;
    return error(StatusCode::kInvalidArgument, "attribute '{}' (a number) is required", name);
  }
  if (const auto* f = std::get_if<double>(v)) return *f;
  if (const auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  return error(StatusCode::kInvalidArgument, "attribute '{}' must be a number, not {}", name,
               attr_type_name(*v));
}

Expected<bool> OpCall::get_bool(std::string_view name, bool fallback) {
  PLAIDML_ASSIGN(int64_t v, get_int(name, fallback ? 1 : 0));
  if (v == 0 || v == 1) return v == 1;
  return error(StatusCode::kInvalidArgument, "attribute '{}' must be 0 or 1, got {}", name, v);
}

Expected<std::vector<int64_t>> OpCall::get_ints(std::string_view name,
                                                std::optional<std::vector<int64_t>> fallback) {
  const AttrValue* v = find_attr(name);
  if (v == nullptr) {
    if (fallback) return *fallback;
    return error(StatusCode::kInvalidArgument, "attribute '{}' (a list of integers) is required",
                 name);
  }
  if (const auto* l = std::get_if<std::vector<int64_t>>(v)) return *l;
  if (const auto* i = std::get_if<int64_t>(v)) return std::vector<int64_t>{*i};
  return error(StatusCode::kInvalidArgument, "attribute '{}' must be a list of integers, not {}",
               name, attr_type_name(*v));
}

Expected<std::string> OpCall::get_string(std::string_view name, std::optional<std::string> fallback,
                                         const std::vector<std::string_view>& allowed) {
  const AttrValue* v = find_attr(name);
  if (v == nullptr) {
    if (fallback) return *fallback;
    return error(StatusCode::kInvalidArgument, "attribute '{}' ({}) is required", name,
                 join(allowed));
  }
  const auto* s = std::get_if<std::string>(v);
  if (s == nullptr) {
    return error(StatusCode::kInvalidArgument, "attribute '{}' must be a string ({}), not {}", name,
                 join(allowed), attr_type_name(*v));
  }
  for (auto a : allowed) {
    if (a == *s) return *s;
  }
  return error(StatusCode::kInvalidArgument, "attribute '{}' must be {}, got '{}'", name,
               join(allowed), *s);
}

Status OpCall::check_unused_attrs() const {
  for (const auto& [name, value] : attrs_) {
    if (!used_.count(name)) {
      return error(StatusCode::kInvalidArgument, "unknown attribute '{}'", name);
    }
  }
  return Status::ok();
}

Expected<int64_t> OpCall::normalize_axis(int64_t axis, size_t rank, std::string_view attr) const {
  auto r = static_cast<int64_t>(rank);
  if (axis >= -r && axis < r) return axis < 0 ? axis + r : axis;
  return error(StatusCode::kTypeError, "attribute '{}' is {}, out of range for rank {}", attr, axis,
               rank);
}

Status OpCall::require(ir::AssertOp op, IntExprPtr lhs, IntExprPtr rhs, std::string message,
                       std::vector<IntExprPtr> args) {
  ir::Assertion a{op, std::move(lhs), std::move(rhs), prefix() + message, std::move(args), loc_};
  std::optional<bool> known = ir::assertion_known(a.op, *a.lhs, *a.rhs);
  if (known == false) return Status(StatusCode::kTypeError, ir::assertion_message_now(a));
  if (known == true) return Status::ok();
  return b_.add_assertion(std::move(a));
}

std::string dims_placeholder(const SymbolicDims& dims, std::vector<IntExprPtr>* args) {
  std::string out = "[";
  for (size_t k = 0; k < dims.size(); ++k) {
    out += fmt::format("{}{{{}}}", k > 0 ? ", " : "", args->size());
    args->push_back(dims[k]);
  }
  return out + "]";
}

ValueId OpCall::call(std::string_view function, std::vector<ValueId> operands,
                     std::vector<IntExprPtr> int_args) {
  if (failure_) return -1;
  auto r = b_.add_call(std::string(function), std::move(operands), std::move(int_args), loc_);
  if (r.has_value()) return *r;
  failure_ = error(r.status().code(), "{}", r.status().message());
  return -1;
}

ValueId OpCall::literal(double v) { return b_.add_float_literal(v, loc_); }

ValueId OpCall::int_literal(int64_t v) { return b_.add_int_literal(v, loc_); }

ValueId OpCall::size_value(IntExprPtr size) {
  if (failure_) return -1;
  auto r = b_.add_dim_literal(std::move(size), loc_);
  if (r.has_value()) return *r;
  failure_ = error(r.status().code(), "{}", r.status().message());
  return -1;
}

ValueId OpCall::contract(ir::AggOp agg, ir::CombOp comb, std::vector<IntExprPtr> out_indices,
                         std::vector<IntExprPtr> out_sizes, std::vector<Access> inputs,
                         std::vector<Constraint> constraints,
                         std::optional<ValueId> default_value) {
  if (failure_) return -1;
  ir::Contraction c;
  c.agg = agg;
  c.comb = comb;
  c.out_indices = std::move(out_indices);
  c.out_sizes = std::move(out_sizes);
  for (auto& in : inputs) {
    ir::TensorAccess a;
    a.tensor = in.tensor;
    a.indices = std::move(in.indices);
    c.inputs.push_back(std::move(a));
  }
  for (auto& uc : constraints) c.constraints.push_back({uc.poly, uc.bound, {}});
  c.default_value = default_value;
  auto r = b_.add_contraction(std::move(c), loc_);
  if (r.has_value()) return *r;
  failure_ = error(r.status().code(), "{}", r.status().message());
  return -1;
}

IntExprPtr OpCall::index() { return ir::IntExpr::index("i" + std::to_string(next_index_++)); }

std::vector<IntExprPtr> OpCall::indices(size_t n) {
  std::vector<IntExprPtr> out;
  for (size_t k = 0; k < n; ++k) out.push_back(index());
  return out;
}

Expected<ValueId> OpCall::finish(ValueId result) const {
  if (failure_) return *failure_;
  return result;
}

}  // namespace plaidml::oplib
