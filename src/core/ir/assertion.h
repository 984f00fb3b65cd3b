// Assertions (ir::Assertion, program.h): what their conditions mean on known sizes, what can be
// decided from the expressions alone while a program is built, and their messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/program.h"

namespace plaidml::ir {

// Whether the condition holds for the sizes lhs = a, rhs = b.
bool assertion_holds(AssertOp op, int64_t a, int64_t b);

// True or false when the expressions decide it whatever the sizes (both literals, the same
// expression, a literal 1 beside a broadcast); nullopt when only binding can tell.
std::optional<bool> assertion_known(AssertOp op, const IntExpr& lhs, const IntExpr& rhs);

// The message with each `{k}` replaced by values[k]; any other brace is kept as written.
std::string format_assertion(std::string_view message, const std::vector<std::string>& values);

// The message as building reports it: literal arguments by value, others by their text.
std::string assertion_message_now(const Assertion& a);

// The Tile spelling of the condition: "A == B", "A >= B", "broadcastable(A, B)",
// "multiple(A, B)" (docs/tile.md, assertions).
std::string print_assertion_condition(const Assertion& a, const SizeNames* names = nullptr);

}  // namespace plaidml::ir
