// ProgramBuilder: the one way to make a Program. The Tile parser and the C API both drive it,
// so a program built by calls and the same program parsed from text are identical.
// It checks structure (names, SSA, arity, index-variable rules); shapes and dtypes are checked
// when the program is bound to input shapes (ir/bind.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/ir/program.h"
#include "core/ir/symbolic_shape.h"

namespace plaidml::ir {

class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string program_name = "");
  // Continues building an existing program (autodiff appends its gradient to a copy). Names of
  // the form _T<n> are taken as generated temporaries, every other node name as a user name.
  explicit ProgramBuilder(const Program& program);

  // Declares an input. dims: nullopt = unknown rank; {} = scalar; "" = an unnamed dim.
  // Errors: duplicate tensor name (kInvalidArgument, names both places).
  Expected<ValueId> add_input(const std::string& name, std::optional<std::vector<std::string>> dims,
                              std::optional<DType> dtype, const SourceLoc& loc);

  // A constant tensor (a weight) holding `data`. An empty name gets a generated one; a name
  // is a user name like an input's (unique, SSA). Errors: a duplicate name.
  Expected<ValueId> add_constant(const std::string& name, std::shared_ptr<const ConstantData> data,
                                 const SourceLoc& loc);

  ValueId add_int_literal(int64_t value, const SourceLoc& loc);
  ValueId add_float_literal(double value, const SourceLoc& loc);
  // A dimension size used as a value (`R = X / N`): a kLiteral node whose int_args[0] is `expr`
  // (dims and integers only), evaluated when the program is bound. Errors: an undeclared dim or
  // an index variable in expr.
  Expected<ValueId> add_dim_literal(IntExprPtr expr, const SourceLoc& loc);

  // Elementwise op or function. Errors: wrong operand count, unknown operand id.
  Expected<ValueId> add_elementwise(OpKind op, std::vector<ValueId> operands,
                                    std::vector<IntExprPtr> int_args, const SourceLoc& loc);
  // The same by Tile function name ("exp", "as_float", "relu"). Unknown name: kNotFound naming it.
  Expected<ValueId> add_call(const std::string& function, std::vector<ValueId> operands,
                             std::vector<IntExprPtr> int_args, const SourceLoc& loc);

  // Errors: an assign (`=`) contraction whose input indices use a variable absent from the
  // output ("index k is not in the output of an assign contraction"); sizes/indices count
  // mismatch; wrong input count for the combination op; a dim name no input declared.
  Expected<ValueId> add_contraction(Contraction contraction, const SourceLoc& loc);

  // A condition over sizes checked when the program is bound (Program::assertions). One that
  // holds whatever the sizes is dropped; one that fails whatever the sizes fails now, with its
  // message (kTypeError). Errors: an index variable or an undeclared dim in an expression.
  Status add_assertion(Assertion assertion);

  // `NAME = value`: binds a user name. Reassigning a name is an error (SSA) naming both places.
  Status assign(const std::string& name, ValueId value, const SourceLoc& loc);

  // Looks up a tensor by user name. Unknown: kNotFound "unknown tensor 'X'" with loc.
  Expected<ValueId> lookup(const std::string& name, const SourceLoc& loc) const;
  bool is_dim(const std::string& name) const;  // declared by some input
  // A well-formed size expression over declared dims and integers; `what` names where it is
  // for the error an index variable gets ("an output size").
  Status check_size_expr(const IntExprPtr& e, const SourceLoc& loc, std::string_view what) const;

  // Nodes made from now on carry this origin (Node::origin); "" stops.
  void set_origin(std::string origin) { origin_ = std::move(origin); }

  // Marks a bound name as an output. Unknown: kNotFound. Duplicate output: kInvalidArgument.
  Status add_output(const std::string& name, const SourceLoc& loc);

  // Finishes the program. Errors: no outputs.
  Expected<std::shared_ptr<const Program>> finish();

  const Program& program() const { return program_; }

  // The symbolic dims of a value (ir/symbolic_shape.h), computed once and cached. An unnamed
  // input dim the shape needs gets a fresh dimension name (`X_D1` for axis 1 of X), which
  // changes nothing at run time: an unnamed dim and a name used once both accept any size.
  // Errors (kTypeError): an input of unknown rank on the way, naming it.
  Expected<SymbolicDims> dims_of(ValueId id);

 private:
  ValueId push(Node node);
  // Gives a generated temporary that holds `name` another generated name (the user wants it).
  void rename_temp(const std::string& name);
  Status check_value(ValueId id, const SourceLoc& loc) const;
  Status check_dims(const IntExpr& e, const SourceLoc& loc) const;
  Status check_index_expr(const IntExprPtr& e, const SourceLoc& loc) const;
  Status check_int_args(OpKind op, const std::vector<IntExprPtr>& int_args,
                        const SourceLoc& loc) const;

  void name_unnamed_dims(Node& input);

  Program program_;
  std::vector<std::optional<SymbolicDims>> dims_cache_;  // by ValueId
  std::vector<std::optional<Status>> dims_failure_;      // by ValueId, where dims_cache_ is empty
  ValueId dims_swept_ = 0;                               // dims_of has computed nodes below it
  std::map<std::string, ValueId> names_;
  std::string origin_;
  std::map<std::string, SourceLoc> name_locs_;
  std::map<std::string, std::string> dim_owner_;  // dim name -> first input that declared it
  int temp_counter_ = 0;
};

}  // namespace plaidml::ir
