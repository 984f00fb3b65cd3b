// Tokens of Tile text (docs/tile.md). Keywords (`function`, `default`, `no_defract`) are
// identifiers that the parser recognises by position, so they stay usable as index names
// elsewhere.
#pragma once

#include <string>

namespace plaidml::parse {

enum class TokenKind {
  kIdent,
  kInt,
  kFloat,
  kLParen,    // (
  kRParen,    // )
  kLBracket,  // [
  kRBracket,  // ]
  kLBrace,    // {
  kRBrace,    // }
  kComma,
  kSemi,
  kColon,
  kQuestion,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kAssign,  // =
  kEq,      // ==
  kNe,      // !=
  kLt,
  kGt,
  kLe,
  kGe,
  kShl,  // <<
  kShr,  // >>
  kAmp,
  kPipe,
  kCaret,
  kTilde,
  kArrow,   // ->
  kAndAnd,  // && and || are not Tile: lexed only to say so clearly
  kOrOr,
  kBang,  // ! alone, likewise
  kString,  // "text" on one line (a constant's digest); the token's text is what is inside
  kEnd,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // as written
  int line = 1;      // 1-based
  int column = 1;    // 1-based, in bytes
  bool quoted = false;  // a kIdent written in backquotes (`gpu_0/data_0`): a name, never an
                        // index variable or a keyword; text is the name without them
};

// `nan` where a value may stand: the float literal NaN, which no number spells (the printer
// writes a NaN literal so; a quoted `nan` is a name).
inline bool is_nan_literal(const Token& token) {
  return token.kind == TokenKind::kIdent && !token.quoted && token.text == "nan";
}

// "'C'" for a token, "end of input" at the end: how error messages name what they found.
std::string describe(const Token& token);

}  // namespace plaidml::parse
