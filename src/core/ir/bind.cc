// bind(): walks the nodes in order and gives each a concrete Shape. Inputs and literals are
// here; elementwise and structural ops in bind_elementwise.cc; contractions (index
// expressions, bounds inference) in bind_contraction.cc; dtype rules in type_rules.h.
//
// Choices where Tile defers to PlaidML v0 (also in docs/tile.md sections 3.1 and 3.3):
//   - literals are weak (type_rules.h): `2` is i32 (i64 if it does not fit), `0.5` is f32, and
//     both yield to the tensors they meet;
//   - a dim used as a value (`X / N`) is a weak integer literal evaluated here;
//   - gather(V, I), scatter(E, I, V) and prng_* shapes: see bind_elementwise.cc.
#include "core/ir/bind.h"

#include <fmt/format.h>

#include <limits>

#include "core/ir/assertion.h"
#include "core/ir/bind_common.h"
#include "core/ir/bind_int_expr.h"
#include "core/ir/printer.h"

namespace plaidml::ir {
namespace {

using detail::BindState;
using detail::where;

std::string dims_text(const std::vector<std::string>& names) {
  std::string s = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    s += (i ? ", " : "") + (names[i].empty() ? std::string("_") : names[i]);
  }
  return s + "]";
}

Status check_input_count(const Program& p, const std::vector<Shape>& shapes) {
  if (shapes.size() == p.inputs.size()) return Status::ok();
  std::vector<std::string> names;
  for (ValueId id : p.inputs) names.push_back(p.nodes[id].name);
  return make_error(StatusCode::kInvalidArgument,
                    "program '{}' takes {} input{} ({}) but {} shape{} given", p.name,
                    p.inputs.size(), p.inputs.size() == 1 ? "" : "s", fmt::join(names, ", "),
                    shapes.size(), shapes.size() == 1 ? " was" : "s were");
}

// Binds each named dim of an input; a name seen before must get the same size.
Status bind_input_dims(BindState& s, const Node& n, const Shape& shape) {
  const auto& decl = *n.input_dims;
  if (decl.size() != shape.rank()) {
    return make_error(StatusCode::kTypeError,
                      "{}input '{}' is declared with {} dimension{} {} but was given shape {}",
                      where(n.loc), n.name, decl.size(), decl.size() == 1 ? "" : "s",
                      dims_text(decl), shape.to_string());
  }
  for (size_t d = 0; d < decl.size(); ++d) {
    if (decl[d].empty()) continue;
    if (auto fixed = fixed_dim_size(decl[d])) {
      if (*fixed == shape.dims[d]) continue;
      return make_error(StatusCode::kTypeError,
                        "{}input '{}' has size {} at axis {}, but was given shape {}", where(n.loc),
                        n.name, *fixed, d, shape.to_string());
    }
    auto [it, inserted] = s.bound.dims.emplace(decl[d], shape.dims[d]);
    if (inserted) {
      s.dim_owner[decl[d]] = n.name;
    } else if (it->second != shape.dims[d]) {
      return make_error(StatusCode::kTypeError, "{}dimension '{}' is {} in '{}' but {} in '{}'",
                        where(n.loc), decl[d], it->second, s.dim_owner[decl[d]], shape.dims[d],
                        n.name);
    }
  }
  return Status::ok();
}

Status bind_input(BindState& s, ValueId id, const Shape& shape) {
  const Node& n = s.program.nodes[id];
  for (int64_t d : shape.dims) {
    if (d < 0) {
      return make_error(StatusCode::kInvalidArgument, "input '{}' was given a negative size: {}",
                        n.name, dims_to_string(shape.dims));
    }
  }
  if (n.input_dtype && *n.input_dtype != shape.dtype) {
    return make_error(StatusCode::kTypeError, "{}input '{}' is declared as {} but was given {}",
                      where(n.loc), n.name, dtype_name(*n.input_dtype), shape.to_string());
  }
  if (n.input_dims) PLAIDML_TRY(bind_input_dims(s, n, shape));
  BoundNode& b = s.bound.nodes[id];
  b.shape = shape;
  b.compute_dtype = shape.dtype;
  return Status::ok();
}

DType int_literal_dtype(int64_t v) {
  bool fits = v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
  return fits ? DType::I32 : DType::I64;
}

Status bind_literal(BindState& s, ValueId id) {
  const Node& n = s.program.nodes[id];
  BoundNode& b = s.bound.nodes[id];
  b.weak = true;
  DType dtype = DType::F32;
  if (!n.int_args.empty()) {
    auto v = detail::eval_size(*n.int_args[0], s.bound.dims);
    if (!v) return v.status().with_context(where(n.loc));
    b.int_args = {*v};
    dtype = int_literal_dtype(*v);
  } else if (!n.literal_is_float) {
    dtype = int_literal_dtype(n.literal_int);
  }
  b.shape = Shape(dtype, {});
  b.compute_dtype = dtype;
  return Status::ok();
}

Status bind_constant(BindState& s, ValueId id) {
  BoundNode& b = s.bound.nodes[id];
  b.shape = s.program.nodes[id].constant->shape;
  b.compute_dtype = b.shape.dtype;
  return Status::ok();
}

// Shapes from the inputs' dims and the program's sizes (`C[i, j : N * N, N]`) can multiply
// past 64 bits: that is the caller's error here, before a wrapped size reaches lowering or an
// allocation.
Status check_size(const BindState& s, ValueId id) {
  const Shape& shape = s.bound.nodes[id].shape;
  std::optional<std::string> why = shape.size_error();
  if (!why) return Status::ok();
  return make_error(StatusCode::kInvalidArgument,
                    "{}'{}' would have shape {}, which is too large: {}",
                    where(s.program.nodes[id].loc), detail::describe(s.program, id),
                    shape.to_string(), *why);
}

Status bind_node(BindState& s, ValueId id) {
  switch (s.program.nodes[id].kind) {
    case NodeKind::kInput:
      return Status::ok();  // bound up front, in declaration order
    case NodeKind::kConstant:
      return bind_constant(s, id);
    case NodeKind::kLiteral:
      return bind_literal(s, id);
    case NodeKind::kElementwise:
      return detail::bind_elementwise(s, id);
    case NodeKind::kContraction:
      return detail::bind_contraction(s, id);
  }
  return Status(StatusCode::kInternal, "bind: unknown node kind");
}

// Each assertion once the input dims are known, before any node: its message says what the op
// needed, where a node's error would only describe a symptom.
Status check_assertion(const Assertion& a, const detail::DimMap& dims) {
  auto lhs = detail::eval_size(*a.lhs, dims);
  if (!lhs) return lhs.status().with_context(where(a.loc));
  auto rhs = detail::eval_size(*a.rhs, dims);
  if (!rhs) return rhs.status().with_context(where(a.loc));
  if (assertion_holds(a.op, *lhs, *rhs)) return Status::ok();
  std::vector<std::string> values;
  for (const auto& e : a.args) {
    auto v = detail::eval_size(*e, dims);
    values.push_back(v ? std::to_string(*v) : print_int_expr(*e));
  }
  return Status(StatusCode::kTypeError, where(a.loc) + format_assertion(a.message, values));
}

// Operands must precede their users; a broken order is a builder bug, not a user error.
Status check_order(const Program& p) {
  for (ValueId id = 0; id < static_cast<ValueId>(p.nodes.size()); ++id) {
    const Node& n = p.nodes[id];
    std::vector<ValueId> uses = n.operands;
    for (const auto& a : n.contraction.inputs) uses.push_back(a.tensor);
    if (n.contraction.default_value) uses.push_back(*n.contraction.default_value);
    for (ValueId u : uses) {
      if (u < 0 || u >= id) {
        return make_error(StatusCode::kInternal, "bind: node '{}' uses value {} out of order",
                          n.name, u);
      }
    }
  }
  for (ValueId id : p.inputs) {
    if (id < 0 || id >= static_cast<ValueId>(p.nodes.size()) ||
        p.nodes[id].kind != NodeKind::kInput) {
      return Status(StatusCode::kInternal, "bind: program input list is malformed");
    }
  }
  return Status::ok();
}

}  // namespace

std::optional<std::vector<int64_t>> broadcast_dims(const std::vector<int64_t>& a,
                                                   const std::vector<int64_t>& b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Right-aligned: a missing leading dim counts as 1.
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Expected<BoundProgram> bind(std::shared_ptr<const Program> program,
                            const std::vector<Shape>& input_shapes) {
  if (!program) return Status(StatusCode::kInvalidArgument, "bind: no program");
  const Program& p = *program;
  PLAIDML_TRY(check_order(p));
  PLAIDML_TRY(check_input_count(p, input_shapes));
  BoundProgram bound;
  bound.program = program;
  bound.nodes.resize(p.nodes.size());
  bound.input_shapes = input_shapes;
  BindState s{p, bound, {}};
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    PLAIDML_TRY(bind_input(s, p.inputs[i], input_shapes[i]));
    PLAIDML_TRY(check_size(s, p.inputs[i]));
  }
  for (const Assertion& a : p.assertions) PLAIDML_TRY(check_assertion(a, bound.dims));
  for (ValueId id = 0; id < static_cast<ValueId>(p.nodes.size()); ++id) {
    PLAIDML_TRY(bind_node(s, id));
    PLAIDML_TRY(check_size(s, id));
  }
  for (const auto& [name, id] : p.outputs) {
    if (id < 0 || id >= static_cast<ValueId>(p.nodes.size())) {
      return make_error(StatusCode::kInternal, "bind: output '{}' has no value", name);
    }
    bound.output_shapes.push_back(bound.nodes[id].shape);
  }
  return bound;
}

}  // namespace plaidml::ir
