// Contraction statements (docs/tile.md section 2):
//   O[p... : S...] = AGG(A[q...] COMB B[q...] [? C[q...]]) [, poly < N]... [default D]
//   [no_defract];
#include <limits>

#include "core/ir/printer.h"
#include "core/parse/parser.h"

namespace plaidml::parse {

Status Parser::parse_contraction(const Token& name) {
  ir::Contraction c;
  PLAIDML_TRY(parse_output_spec(name, &c));
  PLAIDML_TRY(expect(TokenKind::kAssign, "'=' after the output of a contraction"));
  const Token& agg = peek();
  switch (agg.kind) {
    case TokenKind::kPlus:
      c.agg = ir::AggOp::kSum;
      break;
    case TokenKind::kStar:
      c.agg = ir::AggOp::kProd;
      break;
    case TokenKind::kGt:
      c.agg = ir::AggOp::kMax;
      break;
    case TokenKind::kLt:
      c.agg = ir::AggOp::kMin;
      break;
    case TokenKind::kAssign:
      c.agg = ir::AggOp::kAssign;
      break;
    default:  // TokenKind is not an op table: any other token is simply a syntax error
      return error(agg, "expected an aggregation ('+', '*', '>', '<' or '=') for '{}', found {}",
                   name.text, describe(agg));
  }
  advance();
  PLAIDML_TRY(expect(TokenKind::kLParen, "'(' after the aggregation"));
  PLAIDML_TRY(parse_combination(&c));
  PLAIDML_TRY(parse_contraction_tail(&c));
  if (c.out_sizes.empty() && !c.out_indices.empty()) PLAIDML_TRY(infer_sizes(name, &c));
  PLAIDML_ASSIGN(ir::ValueId id, builder_.add_contraction(std::move(c), loc(name)));
  return builder_.assign(name.text, id, loc(name));
}

Status Parser::parse_output_spec(const Token& name, ir::Contraction* c) {
  PLAIDML_TRY(expect(TokenKind::kLBracket, "'['"));
  auto list_end = [&] {
    TokenKind k = peek().kind;
    return k == TokenKind::kRBracket || k == TokenKind::kColon;
  };
  if (!list_end()) {
    do {
      PLAIDML_ASSIGN(ir::IntExprPtr e, parse_int(IntContext::kIndex));
      c->out_indices.push_back(std::move(e));
    } while (accept(TokenKind::kComma));
  }
  if (accept(TokenKind::kColon)) {
    do {
      PLAIDML_ASSIGN(ir::IntExprPtr e, parse_int(IntContext::kSize));
      c->out_sizes.push_back(std::move(e));
    } while (accept(TokenKind::kComma));
    if (c->out_indices.size() != c->out_sizes.size()) {
      return Status(
          StatusCode::kInvalidArgument,
          fmt::format("{}:{}: '{}' has {} output indices but {} sizes", name.line, name.column,
                      name.text, c->out_indices.size(), c->out_sizes.size()));
    }
  }
  if (accept(TokenKind::kRBracket)) return Status::ok();
  return error(peek(), "expected ',', ':' or ']' in the output of '{}', found {}", name.text,
               describe(peek()));
}

Status Parser::parse_combination(ir::Contraction* c) {
  PLAIDML_ASSIGN(ir::TensorAccess first, parse_access());
  c->inputs.push_back(std::move(first));
  c->comb = ir::CombOp::kNone;
  if (accept(TokenKind::kStar)) {
    c->comb = ir::CombOp::kMul;
  } else if (accept(TokenKind::kPlus)) {
    c->comb = ir::CombOp::kAdd;
  } else if (accept(TokenKind::kEq)) {
    c->comb = ir::CombOp::kEq;
  }
  if (c->comb != ir::CombOp::kNone) {
    PLAIDML_ASSIGN(ir::TensorAccess second, parse_access());
    c->inputs.push_back(std::move(second));
  }
  if (c->comb == ir::CombOp::kEq && accept(TokenKind::kQuestion)) {
    c->comb = ir::CombOp::kCond;
    PLAIDML_ASSIGN(ir::TensorAccess third, parse_access());
    c->inputs.push_back(std::move(third));
  }
  if (accept(TokenKind::kRParen)) return Status::ok();
  if (c->comb == ir::CombOp::kNone) {
    return error(peek(), "expected ')' or a combination ('*', '+', '==') after the input, found {}",
                 describe(peek()));
  }
  return error(peek(), "expected ')' to close the contraction, found {}", describe(peek()));
}

Expected<ir::TensorAccess> Parser::parse_access() {
  const Token& t = peek();
  if (t.kind != TokenKind::kIdent) {
    return error(t, "expected a tensor access such as A[i, j], found {}", describe(t));
  }
  advance();
  ir::TensorAccess access;
  access.loc = loc(t);
  PLAIDML_ASSIGN(access.tensor, builder_.lookup(t.text, loc(t)));
  if (!accept(TokenKind::kLBracket)) {
    return error(peek(), "expected '[' after '{}': a contraction input needs its indices, found {}",
                 t.text, describe(peek()));
  }
  if (accept(TokenKind::kRBracket)) return access;
  do {
    PLAIDML_ASSIGN(ir::IntExprPtr e, parse_int(IntContext::kIndex));
    access.indices.push_back(std::move(e));
  } while (accept(TokenKind::kComma));
  if (accept(TokenKind::kRBracket)) return access;
  return error(peek(), "expected ',' or ']' in the indices of '{}', found {}", t.text,
               describe(peek()));
}

Status Parser::parse_contraction_tail(ir::Contraction* c) {
  while (accept(TokenKind::kComma)) {
    const Token& start = peek();
    PLAIDML_ASSIGN(ir::IntExprPtr poly, parse_int(IntContext::kIndex));
    PLAIDML_TRY(expect(TokenKind::kLt, "'<' in the constraint (poly < bound)"));
    PLAIDML_ASSIGN(ir::IntExprPtr bound, parse_int(IntContext::kSize));
    c->constraints.push_back(ir::UserConstraint{std::move(poly), std::move(bound), loc(start)});
  }
  if (peek().kind == TokenKind::kIdent && peek().text == "default") {
    advance();
    const Token& t = peek();
    bool negative = t.kind == TokenKind::kMinus;
    const Token& num = peek(negative ? 1 : 0);
    if (num.kind == TokenKind::kInt || num.kind == TokenKind::kFloat) {
      if (negative) advance();
      advance();
      PLAIDML_ASSIGN(ir::ValueId v, parse_number(num, negative));
      c->default_value = v;
    } else if (is_nan_literal(t)) {
      advance();
      double nan = std::numeric_limits<double>::quiet_NaN();
      c->default_value = builder_.add_float_literal(nan, loc(t));
    } else if (t.kind == TokenKind::kIdent) {
      advance();
      PLAIDML_ASSIGN(ir::ValueId v, builder_.lookup(t.text, loc(t)));
      c->default_value = v;
    } else {
      return error(t, "expected a tensor or a number after 'default', found {}", describe(t));
    }
  }
  if (peek().kind == TokenKind::kIdent && peek().text == "no_defract") {
    advance();
    c->no_defract = true;
  }
  return Status::ok();
}

// `M[i] = >(X[i, j])` has no sizes: each output index that is a bare variable takes the size of
// a dimension it indexes directly in an input whose size is known by name.
Status Parser::infer_sizes(const Token& name, ir::Contraction* c) const {
  const ir::Program& p = builder_.program();
  for (const auto& out : c->out_indices) {
    ir::IntExprPtr size;
    for (const auto& in : c->inputs) {
      const ir::Node& node = p.nodes[in.tensor];
      for (size_t k = 0; k < in.indices.size() && !size && out->op == ir::IntOp::kIndex; ++k) {
        const ir::IntExpr& e = *in.indices[k];
        if (e.op != ir::IntOp::kIndex || e.name != out->name) continue;
        if (node.kind == ir::NodeKind::kInput && node.input_dims && k < node.input_dims->size() &&
            !(*node.input_dims)[k].empty()) {
          size = ir::IntExpr::dim((*node.input_dims)[k], in.loc);
        } else if (node.kind == ir::NodeKind::kContraction &&
                   k < node.contraction.out_sizes.size()) {
          size = node.contraction.out_sizes[k];
        }
      }
    }
    if (!size) {
      return Status(
          StatusCode::kInvalidArgument,
          fmt::format("{}:{}: cannot infer the size of output index '{}' of '{}'; write "
                      "the sizes after ':' as in {}[i : N]",
                      name.line, name.column, ir::print_int_expr(*out), name.text, name.text));
    }
    c->out_sizes.push_back(std::move(size));
  }
  return Status::ok();
}

}  // namespace plaidml::parse
