#include "core/eval/interpreter.h"

#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/eval/contraction.h"
#include "core/eval/elementwise.h"
#include "core/eval/structural.h"
#include "core/eval/values.h"

namespace plaidml::eval {
namespace {

using ir::NodeKind;
using ir::OpKind;
using ir::ValueId;

// Values take 8 bytes per element here: 2^33 elements is 64 GiB, more than any test needs.
constexpr int64_t kMaxElements = int64_t{1} << 33;

class Evaluator {
 public:
  explicit Evaluator(const ir::BoundProgram& bound) : bound_(bound), p_(*bound.program) {}

  Status run(const std::vector<HostTensor>& inputs);
  Expected<std::vector<HostTensor>> outputs() const;

 private:
  Status check_inputs(const std::vector<HostTensor>& inputs) const;
  std::vector<bool> live_nodes() const;
  Expected<Tensor> eval_node(ValueId id);
  Expected<Tensor> eval_node_guarded(ValueId id);
  Expected<Tensor> eval_elementwise_node(ValueId id);
  Expected<Tensor> eval_contraction_node(ValueId id);
  Expected<const Tensor*> value(ValueId id) const;

  // Weak values (untyped literals and ops on literals only) are kept in the widest dtype of
  // their domain, so a literal is exact until a typed consumer converts it.
  DType storage_dtype(ValueId id) const {
    const ir::BoundNode& bn = bound_.nodes[id];
    return bn.weak ? widest_of_domain(bn.shape.dtype) : bn.shape.dtype;
  }
  DType compute_dtype(ValueId id) const {
    const ir::BoundNode& bn = bound_.nodes[id];
    return bn.weak ? widest_of_domain(bn.compute_dtype) : bn.compute_dtype;
  }

  const ir::BoundProgram& bound_;
  const ir::Program& p_;
  std::vector<std::optional<Tensor>> values_;
};

Status Evaluator::check_inputs(const std::vector<HostTensor>& inputs) const {
  if (inputs.size() != p_.inputs.size()) {
    return make_error(StatusCode::kInvalidArgument, "expected {} input tensors, got {}",
                      p_.inputs.size(), inputs.size());
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string& name = p_.nodes[p_.inputs[k]].name;
    const Shape& want = bound_.input_shapes[k];
    if (inputs[k].shape != want) {
      return make_error(StatusCode::kInvalidArgument,
                        "input '{}' has shape {}, but the program was bound to {}", name,
                        inputs[k].shape.to_string(), want.to_string());
    }
    if (static_cast<int64_t>(inputs[k].bytes.size()) != want.byte_size()) {
      return make_error(StatusCode::kInvalidArgument,
                        "input '{}' holds {} bytes, but shape {} needs {}", name,
                        inputs[k].bytes.size(), want.to_string(), want.byte_size());
    }
  }
  return Status::ok();
}

// Nodes some output depends on; the rest are never evaluated.
std::vector<bool> Evaluator::live_nodes() const {
  std::vector<bool> live(p_.nodes.size(), false);
  for (const auto& out : p_.outputs) live[out.second] = true;
  for (size_t id = p_.nodes.size(); id-- > 0;) {
    if (!live[id]) continue;
    const ir::Node& n = p_.nodes[id];
    for (ValueId op : n.operands) live[op] = true;
    if (bound_.nodes[id].contraction) {
      for (ValueId in : bound_.nodes[id].contraction->inputs) live[in] = true;
      if (bound_.nodes[id].contraction->default_value) {
        live[*bound_.nodes[id].contraction->default_value] = true;
      }
    }
  }
  return live;
}

Expected<const Tensor*> Evaluator::value(ValueId id) const {
  if (id < 0 || static_cast<size_t>(id) >= values_.size() || !values_[id]) {
    return make_error(StatusCode::kInternal, "interpreter: value {} used before it is computed",
                      id);
  }
  return &*values_[id];
}

Expected<Tensor> Evaluator::eval_elementwise_node(ValueId id) {
  const ir::Node& n = p_.nodes[id];
  const ir::BoundNode& bn = bound_.nodes[id];
  std::vector<const Tensor*> operands;
  for (ValueId op : n.operands) {
    PLAIDML_ASSIGN(const Tensor* t, value(op));
    operands.push_back(t);
  }
  if (ir::op_category(n.op) != ir::OpCategory::kStructural) {
    return eval_elementwise(
        ElementwiseSpec{n.op, storage_dtype(id), compute_dtype(id), bn.shape.dims}, operands);
  }
  StructuralSpec spec{n.op, storage_dtype(id), bn.shape.dims, bn.int_args};
  if (n.op == OpKind::PrngState || n.op == OpKind::PrngValue) {
    // Look through the prng_step: rerun it from its state operand.
    ValueId step = n.operands.empty() ? -1 : n.operands[0];
    if (step < 0 || p_.nodes[step].op != OpKind::PrngStep || p_.nodes[step].operands.empty()) {
      return make_error(StatusCode::kInternal, "interpreter: {} of something not a prng_step",
                        ir::op_name(n.op));
    }
    PLAIDML_ASSIGN(const Tensor* state, value(p_.nodes[step].operands[0]));
    operands = {state};
    spec.int_args = bound_.nodes[step].int_args;
  }
  return eval_structural(spec, operands);
}

Expected<Tensor> Evaluator::eval_contraction_node(ValueId id) {
  const ir::BoundNode& bn = bound_.nodes[id];
  const ir::BoundContraction& c = *bn.contraction;
  ContractionSpec spec{&c, storage_dtype(id), compute_dtype(id), bn.shape.dims, {}, nullptr};
  for (ValueId in : c.inputs) {
    PLAIDML_ASSIGN(const Tensor* t, value(in));
    spec.inputs.push_back(t);
  }
  if (c.default_value) {
    PLAIDML_ASSIGN(const Tensor* t, value(*c.default_value));
    spec.default_value = t;
  }
  return eval_contraction(spec);
}

Expected<Tensor> Evaluator::eval_node(ValueId id) {
  const ir::Node& n = p_.nodes[id];
  switch (n.kind) {
    case NodeKind::kInput:
      return make_error(StatusCode::kInternal, "interpreter: input '{}' was not bound", n.name);
    case NodeKind::kLiteral: {
      Tensor t(n.literal_is_float ? DType::F64 : DType::I64, {});
      t.data[0] = n.literal_is_float ? from_double(n.literal_float)
                                     : from_int(ir::bound_literal_int(bound_, id));
      return t;
    }
    case NodeKind::kConstant: {
      const ir::ConstantData& c = *n.constant;
      HostTensor host(c.shape);
      std::memcpy(host.bytes.data(), c.data, c.byte_size());
      return from_host(host);
    }
    case NodeKind::kElementwise:
      return eval_elementwise_node(id);
    case NodeKind::kContraction:
      if (!bound_.nodes[id].contraction) {
        return make_error(StatusCode::kInternal, "interpreter: contraction '{}' is not bound",
                          n.name);
      }
      return eval_contraction_node(id);
  }
  return make_error(StatusCode::kInternal, "interpreter: unknown node kind");
}

// The interpreter holds every value in memory (8 bytes per element): a huge tensor is an
// out-of-memory status, never an exception escaping to the caller.
Expected<Tensor> Evaluator::eval_node_guarded(ValueId id) {
  int64_t elements = element_count(bound_.nodes[id].shape.dims);
  if (elements > kMaxElements) {
    return make_error(StatusCode::kOutOfMemory,
                      "the reference interpreter cannot hold {} elements (limit {})", elements,
                      kMaxElements);
  }
  try {
    return eval_node(id);
  } catch (const std::bad_alloc&) {
    return make_error(StatusCode::kOutOfMemory,
                      "the reference interpreter ran out of memory for {} elements",
                      element_count(bound_.nodes[id].shape.dims));
  } catch (const std::length_error&) {
    return make_error(StatusCode::kOutOfMemory,
                      "the reference interpreter ran out of memory for {} elements",
                      element_count(bound_.nodes[id].shape.dims));
  }
}

Status Evaluator::run(const std::vector<HostTensor>& inputs) {
  if (bound_.nodes.size() != p_.nodes.size() || bound_.input_shapes.size() != p_.inputs.size() ||
      bound_.output_shapes.size() != p_.outputs.size()) {
    return make_error(StatusCode::kInternal, "interpreter: bound program does not match program");
  }
  PLAIDML_TRY(check_inputs(inputs));
  values_.assign(p_.nodes.size(), std::nullopt);
  for (size_t k = 0; k < inputs.size(); ++k) values_[p_.inputs[k]] = from_host(inputs[k]);
  std::vector<bool> live = live_nodes();
  for (size_t id = 0; id < p_.nodes.size(); ++id) {
    if (!live[id] || values_[id]) continue;
    Expected<Tensor> t = eval_node_guarded(static_cast<ValueId>(id));
    if (!t) {
      const ir::Node& n = p_.nodes[id];
      std::string where = n.loc.to_string();
      return t.status().with_context(
          fmt::format("while evaluating '{}'{}: ", n.name, where.empty() ? "" : " at " + where));
    }
    values_[id] = std::move(t).value();
  }
  return Status::ok();
}

Expected<std::vector<HostTensor>> Evaluator::outputs() const {
  std::vector<HostTensor> out;
  for (size_t k = 0; k < p_.outputs.size(); ++k) {
    PLAIDML_ASSIGN(const Tensor* t, value(p_.outputs[k].second));
    const Shape& shape = bound_.output_shapes[k];
    out.push_back(to_host(broadcast_to(*t, shape.dims, shape.dtype)));
  }
  return out;
}

}  // namespace

Expected<std::vector<HostTensor>> evaluate(const ir::BoundProgram& bound,
                                           const std::vector<HostTensor>& inputs) {
  if (!bound.program) return make_error(StatusCode::kInvalidArgument, "no program to evaluate");
  Evaluator evaluator(bound);
  PLAIDML_TRY(evaluator.run(inputs));
  return evaluator.outputs();
}

}  // namespace plaidml::eval
