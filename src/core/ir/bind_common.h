// Helpers shared by the bind_*.cc files (not part of the contract: include only from src/core/ir).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/ir/bind.h"
#include "core/ir/program.h"

namespace plaidml::ir::detail {

// Everything bind() knows while it walks the nodes in order.
struct BindState {
  const Program& program;
  BoundProgram& bound;
  std::map<std::string, std::string> dim_owner;  // dim name -> input tensor that bound it
};

// "3:14: " for Tile text, "plaidml_program_add_contraction: " for a builder call, "" if unknown:
// the prefix of every bind error, so the user can find the statement.
std::string where(const SourceLoc& loc);

// How the user wrote a value, for messages: its name, or for a generated temporary the
// expression that made it ("A + B", "exp(X)", "2"); nesting is cut off after a few levels.
std::string describe(const Program& program, ValueId id);

// The expression of an elementwise node itself, even when it has a user name: "A + B".
std::string describe_expr(const Program& program, ValueId id);

// How an op is written: "+", "~", "exp".
std::string op_display(OpKind op);

// "A" -> "'A' (f32[2, 3])".
std::string describe_with_shape(const BindState& s, ValueId id);

// numpy broadcasting of the node's operands; the error names the two clashing operands.
Expected<std::vector<int64_t>> broadcast_operands(const BindState& s, ValueId id);

Status bind_elementwise(BindState& s, ValueId id);
// reshape, index, shape, gather, scatter, prng_*: int_args already evaluated into the BoundNode.
Status bind_structural(BindState& s, ValueId id);
Status bind_contraction(BindState& s, ValueId id);

}  // namespace plaidml::ir::detail
