#include "core/ir/assertion.h"

#include <fmt/format.h>

#include "core/ir/printer.h"
#include "core/ir/symbolic_shape.h"

namespace plaidml::ir {

bool assertion_holds(AssertOp op, int64_t a, int64_t b) {
  switch (op) {
    case AssertOp::kEq:
      return a == b;
    case AssertOp::kGe:
      return a >= b;
    case AssertOp::kBroadcast:
      return a == b || a == 1 || b == 1;
    case AssertOp::kMultiple:
      return b > 0 && a % b == 0;
  }
  return false;
}

std::optional<bool> assertion_known(AssertOp op, const IntExpr& lhs, const IntExpr& rhs) {
  auto a = size_expr::literal_value(lhs), b = size_expr::literal_value(rhs);
  if (a && b) return assertion_holds(op, *a, *b);
  // A size is never negative, so it is at least itself and a multiple of itself only when it
  // is positive: there `same` decides kMultiple for nothing.
  if (op != AssertOp::kMultiple && size_expr::same(lhs, rhs)) return true;
  switch (op) {
    case AssertOp::kBroadcast:
      if ((a && *a == 1) || (b && *b == 1)) return true;
      break;
    case AssertOp::kMultiple:
      if ((b && *b == 1) || (a && *a == 0 && b && *b > 0)) return true;
      break;
    case AssertOp::kEq:
    case AssertOp::kGe:
      break;
  }
  return std::nullopt;
}

std::string format_assertion(std::string_view message, const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < message.size(); ++i) {
    size_t close = message.find('}', i);
    if (message[i] == '{' && close != std::string_view::npos && close > i + 1 && close - i < 8) {
      std::string_view digits = message.substr(i + 1, close - i - 1);
      size_t k = 0;
      bool number = true;
      for (char c : digits) {
        number = number && c >= '0' && c <= '9';
        k = k * 10 + static_cast<size_t>(c - '0');
      }
      if (number && k < values.size()) {
        out += values[k];
        i = close;
        continue;
      }
    }
    out += message[i];
  }
  return out;
}

std::string assertion_message_now(const Assertion& a) {
  std::vector<std::string> values;
  for (const auto& e : a.args) values.push_back(print_int_expr(*e));
  return format_assertion(a.message, values);
}

std::string print_assertion_condition(const Assertion& a, const SizeNames* names) {
  std::string l = print_int_expr(*a.lhs, names), r = print_int_expr(*a.rhs, names);
  switch (a.op) {
    case AssertOp::kEq:
      return l + " == " + r;
    case AssertOp::kGe:
      return l + " >= " + r;
    case AssertOp::kBroadcast:
      return fmt::format("broadcastable({}, {})", l, r);
    case AssertOp::kMultiple:
      return fmt::format("multiple({}, {})", l, r);
  }
  return "?";
}

}  // namespace plaidml::ir
