// What an op's implementation sees: its operands, its attributes (each read marks it used, so an
// attribute no op reads is reported as unknown), the builder, and helpers that make the
// contractions and elementwise calls an op is made of.
//
// Building is error-latching: the helpers return a value id and remember the first builder
// error, so op code reads like Tile; `finish(result)` returns that error if there was one. An
// argument error found by the op itself is returned at once through `error(...)`.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/ir/builder.h"
#include "core/ir/symbolic_shape.h"
#include "core/oplib/oplib.h"

namespace plaidml::oplib {

using ir::IntExprPtr;
using ir::SymbolicDims;
using ir::ValueId;

// One input access of a contraction: tensor[indices...].
struct Access {
  ValueId tensor = -1;
  std::vector<IntExprPtr> indices;
};

// `0 <= poly < bound`.
struct Constraint {
  IntExprPtr poly;
  IntExprPtr bound;
};

class OpCall {
 public:
  OpCall(ir::ProgramBuilder& b, std::string_view op, std::vector<std::string_view> operand_names,
         std::vector<ValueId> operands, const Attrs& attrs, ir::SourceLoc loc,
         bool variadic = false);

  std::string_view op() const { return op_; }
  ir::ProgramBuilder& builder() { return b_; }

  // --- operands ---
  size_t operand_count() const { return operands_.size(); }
  ValueId operand(size_t k) const { return operands_.at(k); }
  bool has_operand(size_t k) const { return k < operands_.size(); }
  std::string operand_name(size_t k) const;
  // Symbolic dims of operand k; errors name the argument ("conv: argument 'input': ...").
  Expected<SymbolicDims> dims(size_t k);
  // Dims of operand k, which must have rank `rank` (else kTypeError naming the argument).
  Expected<SymbolicDims> dims_of_rank(size_t k, size_t rank);
  Expected<SymbolicDims> dims_of_value(ValueId v);  // dims of an intermediate value

  // --- attributes (each returns the default when absent) ---
  Expected<int64_t> get_int(std::string_view name, std::optional<int64_t> fallback);
  Expected<double> get_float(std::string_view name, std::optional<double> fallback);  // int ok
  Expected<bool> get_bool(std::string_view name, bool fallback);                      // 0 or 1
  // A list of integers; a single integer is accepted as a list of one.
  Expected<std::vector<int64_t>> get_ints(std::string_view name,
                                          std::optional<std::vector<int64_t>> fallback);
  // A string from `allowed` (the error lists them).
  Expected<std::string> get_string(std::string_view name, std::optional<std::string> fallback,
                                   const std::vector<std::string_view>& allowed);
  bool has_attr(std::string_view name) const { return attrs_.count(name) != 0; }
  // kInvalidArgument for the first attribute no getter asked for (called by apply()).
  Status check_unused_attrs() const;

  // An axis attribute value normalised into [0, rank) (negative counts from the end), or an
  // error "softmax: attribute 'axis' is 3, out of range for rank 2".
  Expected<int64_t> normalize_axis(int64_t axis, size_t rank, std::string_view attr) const;

  // --- errors ---
  template <typename... Args>
  Status error(StatusCode code, fmt::format_string<Args...> f, Args&&... args) const {
    return Status(code, prefix() + fmt::format(f, std::forward<Args>(args)...));
  }

  // --- size agreements ---
  // Requires `lhs op rhs` of sizes (ir::Assertion): kTypeError with the message now when the
  // sizes decide it already, else an assertion the program checks when it is bound. The message
  // is in the op's words (the op's name is prefixed); `{k}` stands for args[k]'s value.
  Status require(ir::AssertOp op, IntExprPtr lhs, IntExprPtr rhs, std::string message,
                 std::vector<IntExprPtr> args = {});

  // --- building (error-latching, see above) ---
  ValueId call(std::string_view function, std::vector<ValueId> operands,
               std::vector<IntExprPtr> int_args = {});
  ValueId literal(double v);            // a float literal (takes the float dtype it meets)
  ValueId int_literal(int64_t v);       // an integer literal
  ValueId size_value(IntExprPtr size);  // a dim expression as an integer scalar tensor
  ValueId contract(ir::AggOp agg, ir::CombOp comb, std::vector<IntExprPtr> out_indices,
                   std::vector<IntExprPtr> out_sizes, std::vector<Access> inputs,
                   std::vector<Constraint> constraints = {},
                   std::optional<ValueId> default_value = std::nullopt);
  // Shorthands for the common elementwise calls.
  ValueId add(ValueId a, ValueId b) { return call("add", {a, b}); }
  ValueId sub(ValueId a, ValueId b) { return call("sub", {a, b}); }
  ValueId mul(ValueId a, ValueId b) { return call("mul", {a, b}); }
  ValueId div(ValueId a, ValueId b) { return call("div", {a, b}); }
  // A fresh index variable, unique within this call ("i0", "i1", ...); `n` of them.
  IntExprPtr index();
  std::vector<IntExprPtr> indices(size_t n);
  // The first builder error, or the result.
  Expected<ValueId> finish(ValueId result) const;

 private:
  std::string prefix() const { return std::string(op_) + ": "; }
  const AttrValue* find_attr(std::string_view name);

  ir::ProgramBuilder& b_;
  std::string_view op_;
  std::vector<std::string_view> operand_names_;
  std::vector<ValueId> operands_;
  const Attrs& attrs_;
  std::set<std::string, std::less<>> used_;
  ir::SourceLoc loc_;
  std::optional<Status> failure_;
  int next_index_ = 0;
  bool variadic_ = false;
};

// "[{k}, {k+1}, ...]" for a message of OpCall::require, with the dims appended to `args`: the
// dims print as the sizes they are bound to.
std::string dims_placeholder(const SymbolicDims& dims, std::vector<IntExprPtr>* args);

// An op of the library. operand_names lists every operand; the first `required` must be given,
// the rest are optional (e.g. conv's bias). A variadic op (concatenate) has one operand name and
// takes `required` or more operands, named "inputs[0]", "inputs[1]", ... in errors.
struct OpDef {
  std::string_view name;
  std::vector<std::string_view> operand_names;
  size_t required = 0;
  Expected<ValueId> (*fn)(OpCall& call) = nullptr;
  bool variadic = false;
};

// The groups of ops, one file each, listed by registry.cc.
std::vector<OpDef> linalg_ops();      // linalg.cc: matmul, dot, batched matmul, gemm
std::vector<OpDef> conv_ops();        // conv.cc, conv_transpose.cc
std::vector<OpDef> pool_ops();        // pool.cc: max/avg/global pooling
std::vector<OpDef> reduce_ops();      // reduce.cc: sum mean max min prod variance argmax ...
std::vector<OpDef> activation_ops();  // activation.cc: relu sigmoid tanh elu gelu ... softmax
std::vector<OpDef> norm_ops();        // norm.cc: batch norm, layer norm
std::vector<OpDef> loss_ops();        // loss.cc: cross-entropies
std::vector<OpDef> scan_ops();        // scan.cc: cumsum, cumprod
std::vector<OpDef> shape_ops();       // shape.cc: reshape transpose squeeze unsqueeze flatten
std::vector<OpDef> layout_ops();      // layout.cc: concatenate slice pad tile repeat
std::vector<OpDef> index_ops();       // index.cc: gather, one-hot

}  // namespace plaidml::oplib
