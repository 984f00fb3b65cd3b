#include "core/ir/program.h"

#include <algorithm>
#include <string_view>

#include "core/base/hash.h"
#include "core/ir/printer.h"

namespace plaidml::ir {
namespace {

IntExprPtr make(IntOp op, int64_t value, std::string name, std::vector<IntExprPtr> args,
                SourceLoc loc) {
  auto e = std::make_shared<IntExpr>();
  e->op = op;
  e->value = value;
  e->name = std::move(name);
  e->args = std::move(args);
  e->loc = std::move(loc);
  for (const auto& a : e->args) {
    if (a) e->depth = std::max(e->depth, a->depth + 1);
  }
  return e;
}

}  // namespace

std::string SourceLoc::to_string() const {
  if (line > 0) return std::to_string(line) + ":" + std::to_string(column);
  return origin;
}

IntExprPtr IntExpr::literal(int64_t v, SourceLoc loc) {
  return make(IntOp::kLiteral, v, "", {}, std::move(loc));
}

IntExprPtr IntExpr::index(std::string name, SourceLoc loc) {
  return make(IntOp::kIndex, 0, std::move(name), {}, std::move(loc));
}

IntExprPtr IntExpr::dim(std::string name, SourceLoc loc) {
  return make(IntOp::kDim, 0, std::move(name), {}, std::move(loc));
}

IntExprPtr IntExpr::binary(IntOp op, IntExprPtr a, IntExprPtr b, SourceLoc loc) {
  return make(op, 0, "", {std::move(a), std::move(b)}, std::move(loc));
}

IntExprPtr IntExpr::neg(IntExprPtr a, SourceLoc loc) {
  return make(IntOp::kNeg, 0, "", {std::move(a)}, std::move(loc));
}

std::string int_depth_error(const IntExpr& e, std::string_view what) {
  if (e.depth <= kMaxIntExprDepth) return "";
  return fmt::format("{} is nested too deeply ({} levels; at most {})", what, e.depth,
                     kMaxIntExprDepth);
}

Status check_int_depth(const IntExprPtr& e, std::string_view what) {
  std::string message = e ? int_depth_error(*e, what) : "";
  if (message.empty()) return Status::ok();
  return Status(StatusCode::kInvalidArgument, std::move(message));
}

std::optional<int64_t> fixed_dim_size(const std::string& dim) {
  if (dim.empty() || dim.size() > 18) return std::nullopt;
  int64_t size = 0;
  for (char c : dim) {
    if (c < '0' || c > '9') return std::nullopt;
    size = size * 10 + (c - '0');
  }
  return size;
}

uint64_t Program::fingerprint() const {
  return cached_fingerprint != 0 ? cached_fingerprint : fnv1a64(print_tile(*this));
}

std::optional<ValueId> Program::find_input(const std::string& input_name) const {
  for (ValueId id : inputs) {
    if (nodes[id].name == input_name) return id;
  }
  return std::nullopt;
}

std::optional<size_t> Program::find_output(const std::string& output_name) const {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].first == output_name) return i;
  }
  return std::nullopt;
}

}  // namespace plaidml::ir
