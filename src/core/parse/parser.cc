#include "core/parse/parser.h"

#include <cctype>

#include "core/parse/lexer.h"
#include "core/parse/parse.h"

namespace plaidml::parse {

Parser::Parser(std::vector<Token> tokens, std::string program_name,
               const ConstantResolver& resolver, bool locations)
    : tokens_(std::move(tokens)),
      builder_(std::move(program_name)),
      resolver_(resolver),
      locations_(locations) {}

const Token& Parser::peek(size_t ahead) const {
  size_t i = pos_ + ahead;
  return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

const Token& Parser::advance() {
  const Token& t = peek();
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool Parser::accept(TokenKind kind) {
  if (peek().kind != kind) return false;
  advance();
  return true;
}

Status Parser::expect(TokenKind kind, std::string_view what) {
  if (accept(kind)) return Status::ok();
  return error(peek(), "expected {}, found {}", what, describe(peek()));
}

Status Parser::enter(const Token& at) {
  if (++depth_ <= kMaxDepth) return Status::ok();
  return error(at, "expression nested too deeply (more than {} levels)", kMaxDepth);
}

Status Parser::enter_int(const Token& at, IntContext ctx) {
  if (++int_depth_ <= kMaxIntNesting) return Status::ok();
  return error(at, "{} nested too deeply (more than {} levels)",
               ctx == IntContext::kIndex ? "index expression" : "size expression", kMaxIntNesting);
}

Expected<std::shared_ptr<const ir::Program>> Parser::parse_program() {
  if (peek().kind == TokenKind::kEnd) {
    return error(peek(), "empty program: expected 'function (inputs) -> (outputs) {{ ... }}'");
  }
  PLAIDML_TRY(parse_header());
  PLAIDML_TRY(expect(TokenKind::kLBrace, "'{' to open the function body"));
  while (peek().kind != TokenKind::kRBrace) {
    if (peek().kind == TokenKind::kEnd) {
      return error(peek(), "expected '}}' to close the function body, found end of input");
    }
    PLAIDML_TRY(parse_statement());
  }
  advance();
  if (peek().kind != TokenKind::kEnd) {
    return error(peek(), "expected end of input after the function body, found {}",
                 describe(peek()));
  }
  for (const Token& out : outputs_) PLAIDML_TRY(builder_.add_output(out.text, loc(out)));
  return builder_.finish();
}

Status Parser::parse_header() {
  const Token& kw = peek();
  if (kw.kind != TokenKind::kIdent || kw.text != "function") {
    return error(kw, "expected 'function', found {}", describe(kw));
  }
  advance();
  PLAIDML_TRY(expect(TokenKind::kLParen, "'(' to open the input list"));
  if (!accept(TokenKind::kRParen)) {
    do {
      PLAIDML_TRY(parse_input());
      if (accept(TokenKind::kRParen)) break;
      if (!accept(TokenKind::kComma)) {
        return error(peek(), "expected ',' or ')' in the input list, found {}", describe(peek()));
      }
    } while (true);
  }
  PLAIDML_TRY(expect(TokenKind::kArrow, "'->' after the input list"));
  PLAIDML_TRY(expect(TokenKind::kLParen, "'(' to open the output list"));
  if (peek().kind == TokenKind::kRParen) {
    return Status(StatusCode::kInvalidArgument,
                  fmt::format("{}:{}: the program has no outputs", peek().line, peek().column));
  }
  do {
    const Token& name = peek();
    if (name.kind != TokenKind::kIdent) {
      return error(name, "expected an output name, found {}", describe(name));
    }
    PLAIDML_TRY(check_tensor_name(name, "output"));
    outputs_.push_back(advance());
    if (accept(TokenKind::kRParen)) break;
    if (!accept(TokenKind::kComma)) {
      return error(peek(), "expected ',' or ')' in the output list, found {}", describe(peek()));
    }
  } while (true);
  return Status::ok();
}

Status Parser::check_tensor_name(const Token& name, std::string_view role) const {
  if (!name.quoted && std::islower(static_cast<unsigned char>(name.text[0]))) {
    return error(name,
                 "{} name '{}' must start with a capital letter (lowercase names are index "
                 "variables)",
                 role, name.text);
  }
  return Status::ok();
}

Status Parser::parse_input() {
  const Token& name = peek();
  if (name.kind != TokenKind::kIdent) {
    return error(name, "expected an input name, found {}", describe(name));
  }
  PLAIDML_TRY(check_tensor_name(name, "input"));
  advance();
  std::optional<DType> dtype;
  if (accept(TokenKind::kColon)) {
    const Token& t = peek();
    dtype = t.kind == TokenKind::kIdent ? dtype_from_name(t.text) : std::nullopt;
    if (!dtype)
      return error(t, "expected a dtype (f32, i8, ...) for '{}', found {}", name.text, describe(t));
    advance();
  }
  std::optional<std::vector<std::string>> dims;
  if (accept(TokenKind::kLBracket)) {
    dims.emplace();
    while (!accept(TokenKind::kRBracket)) {
      if (!dims->empty() && !accept(TokenKind::kComma)) {
        return error(peek(), "expected ',' or ']' in the dims of '{}', found {}", name.text,
                     describe(peek()));
      }
      const Token& d = peek();
      if (d.kind == TokenKind::kInt) {  // a fixed size: the buffer must have exactly it
        dims->push_back(d.text);
        advance();
        continue;
      }
      if (d.kind != TokenKind::kIdent) {
        return error(d, "expected a dimension name or size in the dims of '{}', found {}",
                     name.text, describe(d));
      }
      PLAIDML_TRY(check_tensor_name(d, "dimension"));
      dims->push_back(d.text == "_" && !d.quoted ? "" : d.text);
      advance();
    }
  }
  return builder_.add_input(name.text, std::move(dims), dtype, loc(name)).status();
}

Status Parser::parse_statement() {
  const Token& name = peek();
  if (name.kind != TokenKind::kIdent) {
    return error(name, "expected a statement (a tensor name), found {}", describe(name));
  }
  if (name.text == "assert" && !name.quoted) return parse_assert(advance());
  if (name.text == "size" && !name.quoted && peek(1).kind == TokenKind::kIdent) {
    return parse_size(advance());
  }
  PLAIDML_TRY(check_tensor_name(name, "tensor"));
  if (sizes_.count(name.text)) {
    return error(name, "'{}' is a size (a `size` statement), not a tensor", name.text);
  }
  advance();
  if (peek().kind == TokenKind::kLBracket) {
    PLAIDML_TRY(parse_contraction(name));
  } else if (accept(TokenKind::kAssign)) {
    PLAIDML_ASSIGN(ir::ValueId value, parse_expr());
    PLAIDML_TRY(builder_.assign(name.text, value, loc(name)));
  } else {
    return error(peek(), "expected '=' or '[' after '{}', found {}", name.text, describe(peek()));
  }
  if (peek().kind == TokenKind::kAndAnd || peek().kind == TokenKind::kOrOr) {
    return error(peek(), "{} is not a Tile operator; use '{}' on booleans", describe(peek()),
                 peek().kind == TokenKind::kAndAnd ? "&" : "|");
  }
  return expect(TokenKind::kSemi, "';' after statement");
}

// `size NAME = expr;` (docs/tile.md, named sizes): NAME stands for that one size expression from
// here on, in sizes, index expressions and elementwise code alike.
Status Parser::parse_size(const Token& kw) {
  const Token& name = advance();  // an identifier: parse_statement looked
  PLAIDML_TRY(check_tensor_name(name, "size"));
  if (sizes_.count(name.text) || builder_.is_dim(name.text) ||
      builder_.lookup(name.text, loc(name)).has_value()) {
    return error(name, "'{}' is already defined", name.text);
  }
  PLAIDML_TRY(expect(TokenKind::kAssign, fmt::format("'=' after 'size {}'", name.text)));
  PLAIDML_ASSIGN(ir::IntExprPtr e, parse_int(IntContext::kSize));
  PLAIDML_TRY(builder_.check_size_expr(e, loc(kw), "a size statement"));
  sizes_.emplace(name.text, std::move(e));
  return expect(TokenKind::kSemi, "';' after the size statement");
}

// `assert cond, "message", args...;` (docs/tile.md, assertions).
Status Parser::parse_assert(const Token& kw) {
  ir::Assertion a;
  a.loc = loc(kw);
  PLAIDML_TRY(parse_assert_condition(&a));
  PLAIDML_TRY(expect(TokenKind::kComma, "',' before the assertion's message"));
  const Token& message = peek();
  if (message.kind != TokenKind::kString) {
    return error(message, "expected the assertion's message in quotes, found {}",
                 describe(message));
  }
  a.message = advance().text;
  while (accept(TokenKind::kComma)) {
    PLAIDML_ASSIGN(ir::IntExprPtr arg, parse_int(IntContext::kSize));
    a.args.push_back(std::move(arg));
  }
  PLAIDML_TRY(expect(TokenKind::kSemi, "';' after the assertion"));
  return builder_.add_assertion(std::move(a));
}

// `A == B`, `A >= B`, `broadcastable(A, B)` or `multiple(A, B)`.
Status Parser::parse_assert_condition(ir::Assertion* a) {
  const Token& t = peek();
  bool call = t.kind == TokenKind::kIdent && !t.quoted && peek(1).kind == TokenKind::kLParen;
  if (call && (t.text == "broadcastable" || t.text == "multiple")) {
    a->op = t.text == "multiple" ? ir::AssertOp::kMultiple : ir::AssertOp::kBroadcast;
    advance();
    advance();
    PLAIDML_ASSIGN(a->lhs, parse_int(IntContext::kSize));
    PLAIDML_TRY(expect(TokenKind::kComma, fmt::format("',' between the arguments of {}", t.text)));
    PLAIDML_ASSIGN(a->rhs, parse_int(IntContext::kSize));
    return expect(TokenKind::kRParen, fmt::format("')' to close {}(...)", t.text));
  }
  PLAIDML_ASSIGN(a->lhs, parse_int(IntContext::kSize));
  const Token& op = peek();
  if (op.kind != TokenKind::kEq && op.kind != TokenKind::kGe) {
    return error(op, "expected '==' or '>=' in the assertion, found {}", describe(op));
  }
  a->op = op.kind == TokenKind::kEq ? ir::AssertOp::kEq : ir::AssertOp::kGe;
  advance();
  PLAIDML_ASSIGN(a->rhs, parse_int(IntContext::kSize));
  return Status::ok();
}

Expected<std::shared_ptr<const ir::Program>> parse_tile(std::string_view text,
                                                        std::string program_name,
                                                        const ConstantResolver& resolver,
                                                        bool source_locations) {
  PLAIDML_ASSIGN(std::vector<Token> tokens, lex(text));
  return Parser(std::move(tokens), std::move(program_name), resolver, source_locations)
      .parse_program();
}

}  // namespace plaidml::parse
