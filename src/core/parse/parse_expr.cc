// Expressions: integer expressions (index polynomials and sizes) and elementwise expressions.
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "core/parse/parser.h"

namespace plaidml::parse {
namespace {

bool is_lower(const Token& t) {
  return !t.quoted && std::islower(static_cast<unsigned char>(t.text[0])) != 0;
}

struct BinaryOp {
  TokenKind token;
  ir::OpKind op;
};

// C precedence, loosest first; `?:` sits below all of them (parse_expr).
const std::vector<std::vector<BinaryOp>>& binary_levels() {
  using K = TokenKind;
  using O = ir::OpKind;
  static const std::vector<std::vector<BinaryOp>> kLevels = {
      {{K::kPipe, O::BitOr}},
      {{K::kCaret, O::BitXor}},
      {{K::kAmp, O::BitAnd}},
      {{K::kEq, O::Eq}, {K::kNe, O::Ne}},
      {{K::kLt, O::Lt}, {K::kGt, O::Gt}, {K::kLe, O::Le}, {K::kGe, O::Ge}},
      {{K::kShl, O::Shl}, {K::kShr, O::Shr}},
      {{K::kPlus, O::Add}, {K::kMinus, O::Sub}},
      {{K::kStar, O::Mul}, {K::kSlash, O::Div}, {K::kPercent, O::Mod}},
  };
  return kLevels;
}

// Functions whose arguments after the first are integer expressions, not tensors.
bool takes_int_args(ir::OpKind op) {
  if (op == ir::OpKind::AsBool) return false;
  return ir::op_category(op) == ir::OpCategory::kCast || op == ir::OpKind::Index ||
         op == ir::OpKind::Reshape || op == ir::OpKind::PrngStep;
}

}  // namespace

// ---- integer expressions ------------------------------------------------------------------

Expected<ir::IntExprPtr> Parser::parse_int(IntContext ctx) {
  DepthGuard guard{&int_depth_};
  PLAIDML_TRY(enter_int(peek(), ctx));
  PLAIDML_ASSIGN(ir::IntExprPtr lhs, parse_int_term(ctx));
  while (peek().kind == TokenKind::kPlus || peek().kind == TokenKind::kMinus) {
    const Token& op = advance();
    PLAIDML_ASSIGN(ir::IntExprPtr rhs, parse_int_term(ctx));
    lhs = ir::IntExpr::binary(op.kind == TokenKind::kPlus ? ir::IntOp::kAdd : ir::IntOp::kSub, lhs,
                              rhs, loc(op));
    PLAIDML_TRY(check_int_depth(*lhs, op, ctx));
  }
  return lhs;
}

Expected<ir::IntExprPtr> Parser::parse_int_term(IntContext ctx) {
  PLAIDML_ASSIGN(ir::IntExprPtr lhs, parse_int_unary(ctx));
  while (peek().kind == TokenKind::kStar || peek().kind == TokenKind::kSlash) {
    const Token& op = advance();
    PLAIDML_ASSIGN(ir::IntExprPtr rhs, parse_int_unary(ctx));
    lhs = ir::IntExpr::binary(op.kind == TokenKind::kStar ? ir::IntOp::kMul : ir::IntOp::kDiv, lhs,
                              rhs, loc(op));
    PLAIDML_TRY(check_int_depth(*lhs, op, ctx));
  }
  return lhs;
}

Expected<ir::IntExprPtr> Parser::parse_int_unary(IntContext ctx) {
  if (peek().kind != TokenKind::kMinus) return parse_int_primary(ctx);
  DepthGuard guard{&int_depth_};
  PLAIDML_TRY(enter_int(peek(), ctx));
  const Token& op = advance();
  // `-3` is one literal, as in elementwise code: the printer writes a negative literal so, and
  // -9223372036854775808 exists only as one (its digits alone are out of range).
  if (peek().kind == TokenKind::kInt) return parse_int_literal(advance(), &op);
  PLAIDML_ASSIGN(ir::IntExprPtr arg, parse_int_unary(ctx));
  ir::IntExprPtr e = ir::IntExpr::neg(arg, loc(op));
  PLAIDML_TRY(check_int_depth(*e, op, ctx));
  return e;
}

// The integer token t, negated when `minus` (the `-` before it, where the literal starts) is set.
Expected<ir::IntExprPtr> Parser::parse_int_literal(const Token& t, const Token* minus) {
  const Token& start = minus ? *minus : t;
  uint64_t u = 0;
  auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), u);
  uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (minus ? 1 : 0);
  if (ec != std::errc() || u > limit) {
    return error(start, "integer '{}{}' is out of range for 64 bits", minus ? "-" : "", t.text);
  }
  return ir::IntExpr::literal(minus ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u),
                              loc(start));
}

Expected<ir::IntExprPtr> Parser::parse_int_primary(IntContext ctx) {
  const Token& t = peek();
  if (t.kind == TokenKind::kInt) return parse_int_literal(advance(), nullptr);
  if (t.kind == TokenKind::kIdent) {
    advance();
    return parse_int_name(t, ctx);
  }
  if (accept(TokenKind::kLParen)) {
    PLAIDML_ASSIGN(ir::IntExprPtr e, parse_int(ctx));
    PLAIDML_TRY(expect(TokenKind::kRParen, "')'"));
    return e;
  }
  if (t.kind == TokenKind::kFloat) {
    return error(t, "{} is not an integer: index and size expressions are integers", t.text);
  }
  return error(t, "expected {}, found {}",
               ctx == IntContext::kIndex ? "an index expression" : "a size expression",
               describe(t));
}

// Capitalised names are dims (the builder checks that some input declares them); lowercase
// names are index variables, or max/min in sizes.
Expected<ir::IntExprPtr> Parser::parse_int_name(const Token& t, IntContext ctx) {
  if (peek().kind != TokenKind::kLParen) {
    if (is_lower(t)) return ir::IntExpr::index(t.text, loc(t));
    if (auto named = sizes_.find(t.text); named != sizes_.end()) return named->second;
    return ir::IntExpr::dim(t.text, loc(t));
  }
  // In index expressions the builder checks that these functions see no index variable.
  static const std::map<std::string, ir::IntOp> kFunctions = {
      {"max", ir::IntOp::kMax}, {"min", ir::IntOp::kMin}, {"floordiv", ir::IntOp::kFloorDiv}};
  auto fn = kFunctions.find(t.text);
  if (fn == kFunctions.end()) {
    return error(t, "unknown {} function '{}' (allowed: max, min, floordiv)",
                 ctx == IntContext::kIndex ? "index" : "size", t.text);
  }
  advance();
  PLAIDML_ASSIGN(ir::IntExprPtr a, parse_int(ctx));
  PLAIDML_TRY(expect(TokenKind::kComma, fmt::format("',' between the arguments of {}", t.text)));
  PLAIDML_ASSIGN(ir::IntExprPtr b, parse_int(ctx));
  PLAIDML_TRY(expect(TokenKind::kRParen, fmt::format("')' to close {}(...)", t.text)));
  ir::IntExprPtr e = ir::IntExpr::binary(fn->second, a, b, loc(t));
  PLAIDML_TRY(check_int_depth(*e, t, ctx));
  return e;
}

// A left-assoc chain (i + 1 + 1 + ...) deepens the tree without nesting the parser, so its
// depth is checked as it grows: the tree never exceeds the bound that its later walks (and its
// destructor) rely on.
Status Parser::check_int_depth(const ir::IntExpr& e, const Token& at, IntContext ctx) const {
  std::string message =
      ir::int_depth_error(e, ctx == IntContext::kIndex ? "index expression" : "size expression");
  if (message.empty()) return Status::ok();
  return error(at, "{}", message);
}

// ---- elementwise expressions ---------------------------------------------------------------

Expected<ir::ValueId> Parser::parse_expr() {
  DepthGuard guard{&depth_};
  PLAIDML_TRY(enter(peek()));
  PLAIDML_ASSIGN(ir::ValueId cond, parse_binary(0));
  if (peek().kind != TokenKind::kQuestion) return cond;
  const Token& q = advance();
  PLAIDML_ASSIGN(ir::ValueId a, parse_expr());
  PLAIDML_TRY(expect(TokenKind::kColon, "':' in the conditional 'c ? a : b'"));
  PLAIDML_ASSIGN(ir::ValueId b, parse_expr());
  return builder_.add_elementwise(ir::OpKind::Select, {cond, a, b}, {}, loc(q));
}

Expected<ir::ValueId> Parser::parse_binary(int level) {
  const auto& levels = binary_levels();
  if (level == static_cast<int>(levels.size())) return parse_unary();
  PLAIDML_ASSIGN(ir::ValueId lhs, parse_binary(level + 1));
  for (;;) {
    const BinaryOp* found = nullptr;
    for (const auto& b : levels[level]) {
      if (b.token == peek().kind) found = &b;
    }
    if (!found) return lhs;
    const Token& op = advance();
    PLAIDML_ASSIGN(ir::ValueId rhs, parse_binary(level + 1));
    PLAIDML_ASSIGN(lhs, builder_.add_elementwise(found->op, {lhs, rhs}, {}, loc(op)));
  }
}

Expected<ir::ValueId> Parser::parse_unary() {
  const Token& t = peek();
  // A level is counted only for the prefix operators that recurse here; the guard must then
  // leave the level it entered, and no other (an unconditional guard left a level for every
  // operand, so `A + (A + (...))` never reached the limit and overflowed the stack).
  std::optional<DepthGuard> guard;
  if (t.kind == TokenKind::kMinus || t.kind == TokenKind::kTilde) {
    guard.emplace(&depth_);
    PLAIDML_TRY(enter(t));
  }
  if (t.kind == TokenKind::kMinus) {
    advance();
    // `-2` is one literal, so a printed negative literal reads back as the same node.
    if (peek().kind == TokenKind::kInt || peek().kind == TokenKind::kFloat) {
      return parse_number(advance(), true);
    }
    PLAIDML_ASSIGN(ir::ValueId arg, parse_unary());
    return builder_.add_elementwise(ir::OpKind::Neg, {arg}, {}, loc(t));
  }
  if (t.kind == TokenKind::kTilde) {
    advance();
    PLAIDML_ASSIGN(ir::ValueId arg, parse_unary());
    return builder_.add_elementwise(ir::OpKind::BitNot, {arg}, {}, loc(t));
  }
  if (t.kind == TokenKind::kBang) {
    return error(t, "'!' is not a Tile operator; write 'X == 0' for a logical not");
  }
  return parse_primary();
}

Expected<ir::ValueId> Parser::parse_primary() {
  const Token& t = peek();
  if (t.kind == TokenKind::kInt || t.kind == TokenKind::kFloat)
    return parse_number(advance(), false);
  if (t.kind == TokenKind::kLParen) {
    if (std::optional<ir::ValueId> v = parse_dim_value()) return *v;
    advance();
    PLAIDML_ASSIGN(ir::ValueId v, parse_expr());
    PLAIDML_TRY(expect(TokenKind::kRParen, "')'"));
    return v;
  }
  if (t.kind != TokenKind::kIdent) return error(t, "expected an expression, found {}", describe(t));
  advance();
  if (is_nan_literal(t) && peek().kind != TokenKind::kLParen) {
    return builder_.add_float_literal(std::numeric_limits<double>::quiet_NaN(), loc(t));
  }
  if (t.text == "constant" && !t.quoted && peek().kind == TokenKind::kLParen) {
    return parse_constant(t);
  }
  if (peek().kind == TokenKind::kLParen) return parse_call(t);
  if (is_lower(t)) {
    return error(t, "index variable '{}' can only be used inside a contraction", t.text);
  }
  if (auto named = sizes_.find(t.text); named != sizes_.end()) {
    return builder_.add_dim_literal(named->second, loc(t));
  }
  if (builder_.is_dim(t.text))
    return builder_.add_dim_literal(ir::IntExpr::dim(t.text, loc(t)), loc(t));
  return builder_.lookup(t.text, loc(t));
}

// `(` size expression `)` over dimensions and integer literals alone is one value, evaluated
// exactly when the program is bound (docs/tile.md section 3.1): how the printer writes a
// dimension expression used as a value, so that it reads back as the one value it was rather
// than as elementwise ops on its parts. Anything else is rewound, to be read as elementwise code
// (whose messages are the ones to give).
std::optional<ir::ValueId> Parser::parse_dim_value() {
  size_t start = pos_;
  const Token& open = advance();
  Expected<ir::IntExprPtr> e = parse_int(IntContext::kSize);
  if (e && accept(TokenKind::kRParen)) {
    Expected<ir::ValueId> v = builder_.add_dim_literal(*e, loc(open));
    if (v) return *v;  // refused: an index variable or a tensor's name in it
  }
  pos_ = start;
  return std::nullopt;
}

Expected<ir::ValueId> Parser::parse_number(const Token& t, bool negate) {
  const char* first = t.text.data();
  const char* last = first + t.text.size();
  if (t.kind == TokenKind::kFloat) {
    double v = 0;
    auto [end, ec] = std::from_chars(first, last, v);
    if (ec == std::errc::result_out_of_range) {
      // Too large reads as infinity (the printer writes inf as 1e999); too small as zero.
      bool big = t.text.find("e-") == std::string::npos && t.text.find("E-") == std::string::npos;
      v = big ? std::numeric_limits<double>::infinity() : 0.0;
    } else if (ec != std::errc()) {
      return error(t, "malformed number '{}'", t.text);
    }
    return builder_.add_float_literal(negate ? -v : v, loc(t));
  }
  uint64_t u = 0;
  auto [end, ec] = std::from_chars(first, last, u);
  uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (negate ? 1 : 0);
  if (ec != std::errc() || u > limit) {
    return error(t, "integer '{}{}' is out of range for 64 bits", negate ? "-" : "", t.text);
  }
  int64_t v = negate ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
  return builder_.add_int_literal(v, loc(t));
}

Expected<ir::ValueId> Parser::parse_call(const Token& name) {
  auto op = ir::op_from_name(name.text);
  if (!op) {
    return Status(StatusCode::kNotFound,
                  fmt::format("{}:{}: unknown function '{}'", name.line, name.column, name.text));
  }
  PLAIDML_TRY(expect(TokenKind::kLParen, "'('"));
  std::vector<ir::ValueId> operands;
  std::vector<ir::IntExprPtr> int_args;
  if (!accept(TokenKind::kRParen)) {
    PLAIDML_ASSIGN(ir::ValueId first, parse_expr());
    operands.push_back(first);
    while (accept(TokenKind::kComma)) {
      if (takes_int_args(*op)) {
        PLAIDML_ASSIGN(ir::IntExprPtr e, parse_int(IntContext::kSize));
        int_args.push_back(std::move(e));
      } else {
        PLAIDML_ASSIGN(ir::ValueId v, parse_expr());
        operands.push_back(v);
      }
    }
    if (!accept(TokenKind::kRParen)) {
      return error(peek(), "expected ',' or ')' in the arguments of '{}', found {}", name.text,
                   describe(peek()));
    }
  }
  return builder_.add_elementwise(*op, std::move(operands), std::move(int_args), loc(name));
}

}  // namespace plaidml::parse
