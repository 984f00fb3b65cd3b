#include "core/ir/builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/ir/assertion.h"
#include "core/ir/printer.h"

namespace plaidml::ir {
namespace {

template <typename... Args>
Status error_at(StatusCode code, const SourceLoc& loc, fmt::format_string<Args...> f,
                Args&&... args) {
  std::string where = loc.to_string();
  std::string text = fmt::format(f, std::forward<Args>(args)...);
  return Status(code, where.empty() ? text : where + ": " + text);
}

// The location of an expression when it has one, else the statement's.
const SourceLoc& pick(const SourceLoc& inner, const SourceLoc& outer) {
  return inner.line > 0 || !inner.origin.empty() ? inner : outer;
}

std::string_view comb_name(CombOp comb) {
  switch (comb) {
    case CombOp::kNone:
      return "a single input";
    case CombOp::kMul:
      return "'*'";
    case CombOp::kAdd:
      return "'+'";
    case CombOp::kEq:
      return "'=='";
    case CombOp::kCond:
      return "'== ?'";
  }
  return "?";
}

size_t comb_inputs(CombOp comb) {
  switch (comb) {
    case CombOp::kNone:
      return 1;
    case CombOp::kMul:
    case CombOp::kAdd:
    case CombOp::kEq:
      return 2;
    case CombOp::kCond:
      return 3;
  }
  return 0;
}

// Operand shape of the tree itself: a C API caller can hand us anything. Expressions share
// subexpressions (a DAG): each node is checked once, so the cost stays linear in its size.
Status check_shape(const IntExprPtr& e, const SourceLoc& loc,
                   std::unordered_set<const IntExpr*>& seen) {
  if (!e) return error_at(StatusCode::kInvalidArgument, loc, "missing integer expression");
  if (!seen.insert(e.get()).second) return Status::ok();
  size_t want = 0;
  switch (e->op) {
    case IntOp::kLiteral:
    case IntOp::kIndex:
    case IntOp::kDim:
      want = 0;
      break;
    case IntOp::kNeg:
      want = 1;
      break;
    case IntOp::kAdd:
    case IntOp::kSub:
    case IntOp::kMul:
    case IntOp::kDiv:
    case IntOp::kMax:
    case IntOp::kMin:
    case IntOp::kFloorDiv:
      want = 2;
      break;
  }
  if (e->args.size() != want) {
    return error_at(StatusCode::kInvalidArgument, pick(e->loc, loc),
                    "malformed integer expression: operator takes {} operands, got {}", want,
                    e->args.size());
  }
  if ((e->op == IntOp::kIndex || e->op == IntOp::kDim) && e->name.empty()) {
    return error_at(StatusCode::kInvalidArgument, pick(e->loc, loc), "unnamed index or dim");
  }
  for (const auto& a : e->args) PLAIDML_TRY(check_shape(a, loc, seen));
  return Status::ok();
}

Status check_shape(const IntExprPtr& e, const SourceLoc& loc) {
  std::unordered_set<const IntExpr*> seen;
  return check_shape(e, loc, seen);
}

// Whether an expression holds an index variable, each shared subexpression looked at once:
// sizes over symbolic dims are DAGs whose trees are exponentially large (docs/onnx.md).
class IndexScan {
 public:
  bool has_index(const IntExpr& e) {
    if (e.op == IntOp::kIndex) return true;
    auto [it, added] = memo_.emplace(&e, false);
    if (!added) return it->second;
    bool found = false;
    for (const auto& a : e.args) found = found || has_index(*a);
    memo_[&e] = found;
    return found;
  }

 private:
  std::unordered_map<const IntExpr*, bool> memo_;
};

// The index variables of `e` in first-seen order, each shared subexpression walked once.
void collect_indices(const IntExpr& e, std::vector<const IntExpr*>* out,
                     std::unordered_set<const IntExpr*>& seen) {
  if (!seen.insert(&e).second) return;
  if (e.op == IntOp::kIndex) out->push_back(&e);
  for (const auto& a : e.args) collect_indices(*a, out, seen);
}

void collect_indices(const IntExpr& e, std::vector<const IntExpr*>* out) {
  std::unordered_set<const IntExpr*> seen;
  collect_indices(e, out, seen);
}

// Index expressions must be affine in the index variables (docs/tile.md section 2). Each node
// is checked once, and printed only for an error.
Status check_affine(const IntExpr& e, const SourceLoc& loc, IndexScan& scan,
                    std::unordered_set<const IntExpr*>& seen) {
  if (!seen.insert(&e).second) return Status::ok();
  const SourceLoc& at = pick(e.loc, loc);
  const char* why = nullptr;
  switch (e.op) {
    case IntOp::kMax:
    case IntOp::kMin:
    case IntOp::kFloorDiv:
      if (scan.has_index(e)) why = "max/min/floordiv of index variables";
      break;
    case IntOp::kMul:
      if (scan.has_index(*e.args[0]) && scan.has_index(*e.args[1])) {
        why = "it multiplies index variables";
      }
      break;
    case IntOp::kDiv:
      if (scan.has_index(*e.args[1])) why = "it divides by an index variable";
      break;
    case IntOp::kLiteral:
    case IntOp::kIndex:
    case IntOp::kDim:
    case IntOp::kNeg:
    case IntOp::kAdd:
    case IntOp::kSub:
      break;
  }
  if (why) {
    return error_at(StatusCode::kInvalidArgument, at, "index expression '{}' is not affine: {}",
                    print_int_expr(e), why);
  }
  for (const auto& a : e.args) PLAIDML_TRY(check_affine(*a, loc, scan, seen));
  return Status::ok();
}

Status check_affine(const IntExpr& e, const SourceLoc& loc) {
  IndexScan scan;
  std::unordered_set<const IntExpr*> seen;
  return check_affine(e, loc, scan, seen);
}

Status check_no_index(const IntExpr& e, const SourceLoc& loc, std::string_view what) {
  std::vector<const IntExpr*> found;
  collect_indices(e, &found);
  if (found.empty()) return Status::ok();
  return error_at(StatusCode::kInvalidArgument, pick(found[0]->loc, loc),
                  "index variable '{}' cannot appear in {}", found[0]->name, what);
}

// `=` writes each output element once per valid point, so every index must be in the output.
Status check_assign_indices(const Contraction& c, const SourceLoc& loc) {
  std::set<std::string> out;
  for (const auto& e : c.out_indices) {
    std::vector<const IntExpr*> found;
    collect_indices(*e, &found);
    for (const IntExpr* i : found) out.insert(i->name);
  }
  std::vector<const IntExpr*> used;
  for (const auto& in : c.inputs) {
    for (const auto& e : in.indices) collect_indices(*e, &used);
  }
  for (const auto& uc : c.constraints) collect_indices(*uc.poly, &used);
  for (const IntExpr* i : used) {
    if (!out.count(i->name)) {
      return error_at(StatusCode::kInvalidArgument, pick(i->loc, loc),
                      "index {} is not in the output of an assign contraction", i->name);
    }
  }
  return Status::ok();
}

// as_float(X, 16|32|64), as_bfloat(X, 16), as_int/as_uint(X, 8|16|32|64), as_bool(X).
Status check_cast_bits(OpKind op, const std::vector<IntExprPtr>& int_args, const SourceLoc& loc) {
  std::string_view name = op_name(op);
  std::vector<int64_t> allowed;
  std::string_view spelled;
  if (op == OpKind::AsFloat) allowed = {16, 32, 64}, spelled = "16, 32 or 64";
  if (op == OpKind::AsBFloat) allowed = {16}, spelled = "16";
  if (op == OpKind::AsInt || op == OpKind::AsUInt) {
    allowed = {8, 16, 32, 64}, spelled = "8, 16, 32 or 64";
  }
  if (allowed.empty()) {  // as_bool
    if (int_args.empty()) return Status::ok();
    return error_at(StatusCode::kInvalidArgument, loc, "{}(X) takes no bit width", name);
  }
  if (int_args.size() != 1) {
    return error_at(StatusCode::kInvalidArgument, loc,
                    "{} needs one bit width: {}(X, bits) with bits {}", name, name, spelled);
  }
  PLAIDML_TRY(check_shape(int_args[0], loc));
  const IntExpr& bits = *int_args[0];
  bool ok = bits.op == IntOp::kLiteral &&
            std::find(allowed.begin(), allowed.end(), bits.value) != allowed.end();
  if (ok) return Status::ok();
  return error_at(StatusCode::kInvalidArgument, pick(bits.loc, loc),
                  "{} bit width must be {}, got '{}'", name, spelled, print_int_expr(bits));
}

}  // namespace

ProgramBuilder::ProgramBuilder(std::string program_name) {
  program_.name = std::move(program_name);
}

ValueId ProgramBuilder::push(Node node) {
  auto id = static_cast<ValueId>(program_.nodes.size());
  if (node.origin.empty()) node.origin = origin_;
  if (node.name.empty()) {
    // Generated names skip every taken name, so "_T3" written by a user never collides.
    do {
      node.name = "_T" + std::to_string(temp_counter_++);
    } while (names_.count(node.name) || dim_owner_.count(node.name));
    names_[node.name] = id;  // no name_locs_ entry: marks the name as generated
  }
  program_.nodes.push_back(std::move(node));
  return id;
}

bool ProgramBuilder::is_dim(const std::string& name) const { return dim_owner_.count(name) > 0; }

Expected<ValueId> ProgramBuilder::add_input(const std::string& name,
                                            std::optional<std::vector<std::string>> dims,
                                            std::optional<DType> dtype, const SourceLoc& loc) {
  if (name.empty()) return error_at(StatusCode::kInvalidArgument, loc, "an input needs a name");
  if (auto it = name_locs_.find(name); it != name_locs_.end()) {
    return error_at(StatusCode::kInvalidArgument, loc,
                    "duplicate input '{}' (first declared at {})", name, it->second.to_string());
  }
  if (is_dim(name)) {
    return error_at(StatusCode::kInvalidArgument, loc,
                    "input '{}' has the name of a dimension of '{}'", name, dim_owner_.at(name));
  }
  if (dims) {
    for (const auto& d : *dims) {
      if (d.empty() || fixed_dim_size(d)) continue;
      if (d == name || name_locs_.count(d)) {
        return error_at(StatusCode::kInvalidArgument, loc,
                        "dimension '{}' of input '{}' has the name of a tensor", d, name);
      }
    }
  }
  if (names_.count(name)) rename_temp(name);
  Node node;
  node.kind = NodeKind::kInput;
  node.name = name;
  node.loc = loc;
  node.input_dims = std::move(dims);
  node.input_dtype = dtype;
  if (node.input_dims) {
    for (const auto& d : *node.input_dims) {
      if (!d.empty() && !fixed_dim_size(d)) dim_owner_.emplace(d, name);
    }
  }
  ValueId id = push(std::move(node));
  names_[name] = id;
  name_locs_[name] = loc;
  program_.inputs.push_back(id);
  return id;
}

Expected<ValueId> ProgramBuilder::add_constant(const std::string& name,
                                               std::shared_ptr<const ConstantData> data,
                                               const SourceLoc& loc) {
  if (!data) return Status(StatusCode::kInternal, "add_constant: no data");
  Node node;
  node.kind = NodeKind::kConstant;
  node.loc = loc;
  node.constant = std::move(data);
  if (name.empty()) return push(std::move(node));
  if (auto it = name_locs_.find(name); it != name_locs_.end()) {
    return error_at(StatusCode::kInvalidArgument, loc,
                    "duplicate name '{}' for a constant (first used at {})", name,
                    it->second.to_string());
  }
  if (is_dim(name)) {
    return error_at(StatusCode::kInvalidArgument, loc,
                    "constant '{}' has the name of a dimension of '{}'", name,
                    dim_owner_.at(name));
  }
  if (names_.count(name)) rename_temp(name);
  node.name = name;
  ValueId id = push(std::move(node));
  names_[name] = id;
  name_locs_[name] = loc;
  return id;
}

ValueId ProgramBuilder::add_int_literal(int64_t value, const SourceLoc& loc) {
  Node node;
  node.kind = NodeKind::kLiteral;
  node.literal_int = value;
  node.loc = loc;
  return push(std::move(node));
}

ValueId ProgramBuilder::add_float_literal(double value, const SourceLoc& loc) {
  Node node;
  node.kind = NodeKind::kLiteral;
  node.literal_is_float = true;
  node.literal_float = value;
  node.loc = loc;
  return push(std::move(node));
}

Expected<ValueId> ProgramBuilder::add_dim_literal(IntExprPtr expr, const SourceLoc& loc) {
  PLAIDML_TRY(check_size_expr(expr, loc, "a value expression"));
  Node node;
  node.kind = NodeKind::kLiteral;
  node.int_args.push_back(std::move(expr));
  node.loc = loc;
  return push(std::move(node));
}

Status ProgramBuilder::add_assertion(Assertion a) {
  if (!a.lhs || !a.rhs) return error_at(StatusCode::kInvalidArgument, a.loc, "assert: no operand");
  PLAIDML_TRY(check_size_expr(a.lhs, a.loc, "an assertion"));
  PLAIDML_TRY(check_size_expr(a.rhs, a.loc, "an assertion"));
  for (const auto& e : a.args) {
    if (!e) return error_at(StatusCode::kInvalidArgument, a.loc, "assert: no argument");
    PLAIDML_TRY(check_size_expr(e, a.loc, "an assertion's message"));
  }
  std::optional<bool> known = assertion_known(a.op, *a.lhs, *a.rhs);
  if (known == true) return Status::ok();
  if (known == false) {
    return error_at(StatusCode::kTypeError, a.loc, "{}", assertion_message_now(a));
  }
  program_.assertions.push_back(std::move(a));
  return Status::ok();
}

// Left to right, each shared subexpression once (a size over symbolic dims is a DAG).
Status ProgramBuilder::check_dims(const IntExpr& e, const SourceLoc& loc) const {
  std::unordered_set<const IntExpr*> seen;
  std::vector<const IntExpr*> pending = {&e};
  while (!pending.empty()) {
    const IntExpr& x = *pending.back();
    pending.pop_back();
    if (!seen.insert(&x).second) continue;
    if (x.op == IntOp::kDim && !is_dim(x.name)) {
      if (name_locs_.count(x.name)) {
        return error_at(StatusCode::kInvalidArgument, pick(x.loc, loc),
                        "'{}' is a tensor, not a dimension", x.name);
      }
      return error_at(StatusCode::kNotFound, pick(x.loc, loc), "unknown dimension '{}'", x.name);
    }
    for (auto a = x.args.rbegin(); a != x.args.rend(); ++a) pending.push_back(a->get());
  }
  return Status::ok();
}

Status ProgramBuilder::check_size_expr(const IntExprPtr& e, const SourceLoc& loc,
                                       std::string_view what) const {
  PLAIDML_TRY(check_shape(e, loc));
  PLAIDML_TRY(check_no_index(*e, loc, what));
  return check_dims(*e, loc);
}

Status ProgramBuilder::check_index_expr(const IntExprPtr& e, const SourceLoc& loc) const {
  PLAIDML_TRY(check_shape(e, loc));
  PLAIDML_TRY(check_affine(*e, loc));
  return check_dims(*e, loc);
}

Status ProgramBuilder::check_value(ValueId id, const SourceLoc& loc) const {
  if (id < 0 || id >= static_cast<ValueId>(program_.nodes.size())) {
    return error_at(StatusCode::kInvalidArgument, loc, "unknown value id {}", id);
  }
  return Status::ok();
}

void ProgramBuilder::rename_temp(const std::string& name) {
  auto it = names_.find(name);
  if (it == names_.end() || name_locs_.count(name)) return;
  ValueId id = it->second;
  names_.erase(it);
  Node& node = program_.nodes[id];
  node.name.clear();
  std::string fresh;
  do {
    fresh = "_T" + std::to_string(temp_counter_++);
  } while (names_.count(fresh) || dim_owner_.count(fresh) || fresh == name);
  node.name = fresh;
  names_[fresh] = id;
}

Status ProgramBuilder::assign(const std::string& name, ValueId value, const SourceLoc& loc) {
  PLAIDML_TRY(check_value(value, loc));
  if (name.empty()) return error_at(StatusCode::kInvalidArgument, loc, "empty tensor name");
  if (is_dim(name)) {
    return error_at(StatusCode::kInvalidArgument, loc,
                    "'{}' is a dimension of input '{}' and cannot be assigned", name,
                    dim_owner_.at(name));
  }
  if (auto it = name_locs_.find(name); it != name_locs_.end()) {
    const Node& old = program_.nodes[names_.at(name)];
    if (old.kind == NodeKind::kInput && old.name == name) {
      return error_at(StatusCode::kInvalidArgument, loc,
                      "'{}' is an input (declared at {}) and cannot be assigned", name,
                      it->second.to_string());
    }
    return error_at(StatusCode::kInvalidArgument, loc, "'{}' is assigned twice (first at {})", name,
                    it->second.to_string());
  }
  Node& node = program_.nodes[value];
  if (node.name == name) {
    names_.erase(name);  // the value's own generated name: it simply becomes a user name
  } else {
    rename_temp(name);
    if (!name_locs_.count(node.name)) {  // generated: the node takes the user's name
      names_.erase(node.name);
      node.name = name;
    }
  }
  names_[name] = value;
  name_locs_[name] = loc;
  return Status::ok();
}

Expected<ValueId> ProgramBuilder::lookup(const std::string& name, const SourceLoc& loc) const {
  auto it = names_.find(name);
  if (it != names_.end() && name_locs_.count(name)) return it->second;
  if (is_dim(name)) {
    return error_at(StatusCode::kNotFound, loc, "'{}' is a dimension of input '{}', not a tensor",
                    name, dim_owner_.at(name));
  }
  return error_at(StatusCode::kNotFound, loc, "unknown tensor '{}'", name);
}

Status ProgramBuilder::add_output(const std::string& name, const SourceLoc& loc) {
  auto it = names_.find(name);
  if (it == names_.end() || !name_locs_.count(name)) {
    return error_at(StatusCode::kNotFound, loc, "output '{}' is never assigned", name);
  }
  if (program_.find_output(name)) {
    return error_at(StatusCode::kInvalidArgument, loc, "output '{}' is listed twice", name);
  }
  program_.outputs.emplace_back(name, it->second);
  return Status::ok();
}

Expected<std::shared_ptr<const Program>> ProgramBuilder::finish() {
  if (program_.outputs.empty()) {
    return Status(StatusCode::kInvalidArgument, "the program has no outputs");
  }
  auto program = std::make_shared<Program>(program_);
  program->cached_fingerprint = 0;
  program->cached_fingerprint = program->fingerprint();
  return std::shared_ptr<const Program>(std::move(program));
}

Status ProgramBuilder::check_int_args(OpKind op, const std::vector<IntExprPtr>& int_args,
                                      const SourceLoc& loc) const {
  std::string_view name = op_name(op);
  if (op_category(op) == OpCategory::kCast) return check_cast_bits(op, int_args, loc);
  if (op == OpKind::Index) {
    if (int_args.size() != 1) {
      return error_at(StatusCode::kInvalidArgument, loc, "index needs one axis: index(X, axis)");
    }
    PLAIDML_TRY(check_shape(int_args[0], loc));
    if (int_args[0]->op != IntOp::kLiteral || int_args[0]->value < 0) {
      return error_at(StatusCode::kInvalidArgument, pick(int_args[0]->loc, loc),
                      "index axis must be a non-negative integer literal, got '{}'",
                      print_int_expr(*int_args[0]));
    }
    return Status::ok();
  }
  if (op == OpKind::Reshape || op == OpKind::PrngStep) {
    std::string what = fmt::format("a dimension of {}", name);
    for (const auto& a : int_args) PLAIDML_TRY(check_size_expr(a, loc, what));
    return Status::ok();
  }
  if (!int_args.empty()) {
    return error_at(StatusCode::kInvalidArgument, loc, "'{}' takes no integer arguments", name);
  }
  return Status::ok();
}

Expected<ValueId> ProgramBuilder::add_elementwise(OpKind op, std::vector<ValueId> operands,
                                                  std::vector<IntExprPtr> int_args,
                                                  const SourceLoc& loc) {
  int arity = op_arity(op);
  if (arity >= 0 && operands.size() != static_cast<size_t>(arity)) {
    return error_at(StatusCode::kInvalidArgument, loc, "'{}' takes {} tensor argument{}, got {}",
                    op_name(op), arity, arity == 1 ? "" : "s", operands.size());
  }
  for (ValueId v : operands) PLAIDML_TRY(check_value(v, loc));
  PLAIDML_TRY(check_int_args(op, int_args, loc));
  Node node;
  node.kind = NodeKind::kElementwise;
  node.op = op;
  node.operands = std::move(operands);
  node.int_args = std::move(int_args);
  node.loc = loc;
  return push(std::move(node));
}

Expected<ValueId> ProgramBuilder::add_call(const std::string& function,
                                           std::vector<ValueId> operands,
                                           std::vector<IntExprPtr> int_args, const SourceLoc& loc) {
  auto op = op_from_name(function);
  if (!op) return error_at(StatusCode::kNotFound, loc, "unknown function '{}'", function);
  return add_elementwise(*op, std::move(operands), std::move(int_args), loc);
}

Expected<ValueId> ProgramBuilder::add_contraction(Contraction c, const SourceLoc& loc) {
  if (c.out_indices.size() != c.out_sizes.size()) {
    return error_at(StatusCode::kInvalidArgument, loc,
                    "the output has {} indices but {} sizes; every output dim needs a size",
                    c.out_indices.size(), c.out_sizes.size());
  }
  if (c.inputs.size() != comb_inputs(c.comb)) {
    return error_at(StatusCode::kInvalidArgument, loc,
                    "a contraction with {} takes {} input tensor{}, got {}", comb_name(c.comb),
                    comb_inputs(c.comb), comb_inputs(c.comb) == 1 ? "" : "s", c.inputs.size());
  }
  for (const auto& e : c.out_indices) PLAIDML_TRY(check_index_expr(e, loc));
  for (const auto& e : c.out_sizes) PLAIDML_TRY(check_size_expr(e, loc, "an output size"));
  for (const auto& in : c.inputs) {
    PLAIDML_TRY(check_value(in.tensor, pick(in.loc, loc)));
    for (const auto& e : in.indices) PLAIDML_TRY(check_index_expr(e, pick(in.loc, loc)));
  }
  for (const auto& uc : c.constraints) {
    PLAIDML_TRY(check_index_expr(uc.poly, pick(uc.loc, loc)));
    PLAIDML_TRY(check_size_expr(uc.bound, pick(uc.loc, loc), "a constraint bound"));
  }
  if (c.default_value) PLAIDML_TRY(check_value(*c.default_value, loc));
  if (c.agg == AggOp::kAssign) PLAIDML_TRY(check_assign_indices(c, loc));
  Node node;
  node.kind = NodeKind::kContraction;
  node.contraction = std::move(c);
  node.loc = loc;
  return push(std::move(node));
}

}  // namespace plaidml::ir

namespace plaidml::ir {

ProgramBuilder::ProgramBuilder(const Program& program) : program_(program) {
  for (ValueId id = 0; id < static_cast<ValueId>(program_.nodes.size()); ++id) {
    const Node& n = program_.nodes[id];
    if (n.name.empty()) continue;
    names_[n.name] = id;
    if (is_generated_name(n.name)) {
      int number = 0;
      for (char c : n.name.substr(2)) number = c >= '0' && c <= '9' ? number * 10 + (c - '0') : 0;
      temp_counter_ = std::max(temp_counter_, number + 1);
    } else {
      name_locs_[n.name] = n.loc;
    }
    if (n.kind != NodeKind::kInput || !n.input_dims) continue;
    for (const auto& d : *n.input_dims) {
      if (!d.empty() && !fixed_dim_size(d)) dim_owner_.emplace(d, n.name);
    }
  }
}

void ProgramBuilder::name_unnamed_dims(Node& input) {
  if (!input.input_dims) return;
  for (size_t axis = 0; axis < input.input_dims->size(); ++axis) {
    std::string& d = (*input.input_dims)[axis];
    if (!d.empty()) continue;
    std::string base = input.name + "_D" + std::to_string(axis);
    std::string fresh = base;
    for (int k = 2; is_dim(fresh) || names_.count(fresh); ++k)
      fresh = base + "_" + std::to_string(k);
    d = fresh;
    dim_owner_.emplace(fresh, input.name);
  }
}

Expected<SymbolicDims> ProgramBuilder::dims_of(ValueId id) {
  PLAIDML_TRY(check_value(id, SourceLoc{}));
  if (dims_cache_.size() < program_.nodes.size()) {
    dims_cache_.resize(program_.nodes.size());
    dims_failure_.resize(program_.nodes.size());
  }
  // Operands precede their users, so one forward sweep fills what id needs. Nodes are only
  // appended, so each is computed once and the sweep resumes where the last call stopped: a
  // builder asking for every new node's dims (autodiff over 100,000 nodes) stays linear.
  for (; dims_swept_ <= id; ++dims_swept_) {
    ValueId k = dims_swept_;
    Node& n = program_.nodes[k];
    if (n.kind == NodeKind::kInput) name_unnamed_dims(n);
    auto dims = symbolic_dims(program_, k, dims_cache_);
    if (dims.has_value()) {
      dims_cache_[k] = std::move(dims).value();
    } else {
      dims_failure_[k] = dims.status();
    }
  }
  if (dims_cache_[id]) return *dims_cache_[id];
  // A node id does not depend on may stay unknown (an input of unknown rank); if id does
  // depend on it (its own failure is then internal), the first such failure is the reason.
  const Status& own = *dims_failure_[id];
  if (own.code() == StatusCode::kInternal) {
    for (ValueId k = 0; k < id; ++k) {
      if (dims_failure_[k]) return *dims_failure_[k];
    }
  }
  return own;
}

}  // namespace plaidml::ir
