// The recursive-descent Tile parser (internal; use parse.h). Statements live in parser.cc,
// expressions (elementwise and integer) in parse_expr.cc.
#pragma once

#include <fmt/format.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/ir/builder.h"
#include "core/parse/parse.h"
#include "core/parse/token.h"

namespace plaidml::parse {

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string program_name, const ConstantResolver& resolver,
         bool locations);
  Expected<std::shared_ptr<const ir::Program>> parse_program();

 private:
  // Where integer expressions appear: index polynomials (affine, index variables allowed) or
  // sizes (dims and integers, max/min allowed, no index variables).
  enum class IntContext { kIndex, kSize };

  const Token& peek(size_t ahead = 0) const;
  const Token& advance();
  bool accept(TokenKind kind);
  Status expect(TokenKind kind, std::string_view what);
  ir::SourceLoc loc(const Token& t) const {
    return locations_ ? ir::SourceLoc{t.line, t.column, ""} : ir::SourceLoc{};
  }

  template <typename... Args>
  static Status error(const Token& at, fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kParseError, fmt::format("{}:{}: ", at.line, at.column) +
                                               fmt::format(f, std::forward<Args>(args)...));
  }

  // parser.cc: program structure and statements.
  Status parse_header();
  Status parse_input();
  Status parse_statement();
  Status parse_assert(const Token& kw);
  Status parse_size(const Token& kw);
  Status parse_assert_condition(ir::Assertion* a);
  Status check_tensor_name(const Token& name, std::string_view role) const;
  Status parse_contraction(const Token& name);
  Status parse_output_spec(const Token& name, ir::Contraction* c);
  Status parse_combination(ir::Contraction* c);
  Expected<ir::TensorAccess> parse_access();
  Status parse_contraction_tail(ir::Contraction* c);
  Status infer_sizes(const Token& name, ir::Contraction* c) const;

  // parse_expr.cc: integer expressions.
  Expected<ir::IntExprPtr> parse_int(IntContext ctx);
  Status check_int_depth(const ir::IntExpr& e, const Token& at, IntContext ctx) const;
  Expected<ir::IntExprPtr> parse_int_term(IntContext ctx);
  Expected<ir::IntExprPtr> parse_int_unary(IntContext ctx);
  Expected<ir::IntExprPtr> parse_int_primary(IntContext ctx);
  Expected<ir::IntExprPtr> parse_int_literal(const Token& t, const Token* minus);
  Expected<ir::IntExprPtr> parse_int_name(const Token& t, IntContext ctx);

  // parse_expr.cc: elementwise expressions, C precedence, `?:` lowest.
  Expected<ir::ValueId> parse_expr();
  Expected<ir::ValueId> parse_binary(int level);
  Expected<ir::ValueId> parse_unary();
  Expected<ir::ValueId> parse_primary();
  std::optional<ir::ValueId> parse_dim_value();
  Expected<ir::ValueId> parse_number(const Token& t, bool negate);
  Expected<ir::ValueId> parse_call(const Token& name);

  // parse_constant.cc: `constant(dtype[dims], [values])` or `constant(dtype[dims], digest "hex")`.
  Expected<ir::ValueId> parse_constant(const Token& name);
  Expected<Shape> parse_constant_shape();
  Status parse_constant_value(DType dtype, std::vector<uint8_t>& bytes);

  // Nesting guard: deeply nested text must give an error, not overflow the stack.
  static constexpr int kMaxDepth = 200;
  Status enter(const Token& at);
  // Integer expressions nest as deep as their trees may be (ir::kMaxIntExprDepth, which the C
  // API allows too): the printer writes a tree of depth d within d + 1 levels (a parenthesis or
  // a prefix `-` per level, and `-(5)` at most once on a path), so every program that can be
  // built prints text that parses back.
  static constexpr int kMaxIntNesting = ir::kMaxIntExprDepth + 1;
  Status enter_int(const Token& at, IntContext ctx);
  struct DepthGuard {
    explicit DepthGuard(int* d) : depth(d) {}
    DepthGuard(const DepthGuard&) = delete;  // a copy would leave the level twice
    DepthGuard& operator=(const DepthGuard&) = delete;
    ~DepthGuard() { --*depth; }
    int* depth;
  };

  int depth_ = 0;
  int int_depth_ = 0;  // kept apart from depth_: an integer level's frames are smaller
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  ir::ProgramBuilder builder_;
  std::vector<Token> outputs_;  // the header's output names, checked after the body
  // `size NAME = expr;` statements: each use of NAME is that one expression (shared).
  std::map<std::string, ir::IntExprPtr> sizes_;
  const ConstantResolver& resolver_;
  bool locations_ = true;  // record where nodes are in the text (parse_tile's source_locations)
};

}  // namespace plaidml::parse
