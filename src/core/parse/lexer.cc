#include "core/parse/lexer.h"

#include <cctype>
#include <utility>

namespace plaidml::parse {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

struct Punct {
  std::string_view text;
  TokenKind kind;
};

// Longest first, so "==" wins over "=" and "->" over "-".
constexpr Punct kPuncts[] = {
    {"==", TokenKind::kEq},      {"!=", TokenKind::kNe},     {"<=", TokenKind::kLe},
    {">=", TokenKind::kGe},      {"<<", TokenKind::kShl},    {">>", TokenKind::kShr},
    {"->", TokenKind::kArrow},   {"&&", TokenKind::kAndAnd}, {"||", TokenKind::kOrOr},
    {"(", TokenKind::kLParen},   {")", TokenKind::kRParen},  {"[", TokenKind::kLBracket},
    {"]", TokenKind::kRBracket}, {"{", TokenKind::kLBrace},  {"}", TokenKind::kRBrace},
    {",", TokenKind::kComma},    {";", TokenKind::kSemi},    {":", TokenKind::kColon},
    {"?", TokenKind::kQuestion}, {"+", TokenKind::kPlus},    {"-", TokenKind::kMinus},
    {"*", TokenKind::kStar},     {"/", TokenKind::kSlash},   {"%", TokenKind::kPercent},
    {"=", TokenKind::kAssign},   {"<", TokenKind::kLt},      {">", TokenKind::kGt},
    {"&", TokenKind::kAmp},      {"|", TokenKind::kPipe},    {"^", TokenKind::kCaret},
    {"~", TokenKind::kTilde},    {"!", TokenKind::kBang},
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Expected<std::vector<Token>> run() {
    std::vector<Token> tokens;
    for (skip_space(); pos_ < text_.size(); skip_space()) {
      PLAIDML_ASSIGN(Token token, next());
      tokens.push_back(std::move(token));
    }
    tokens.push_back(Token{TokenKind::kEnd, "", line_, column()});
    return tokens;
  }

 private:
  int column() const { return static_cast<int>(pos_ - line_start_) + 1; }
  char at(size_t i) const { return i < text_.size() ? text_[i] : '\0'; }

  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        line_start_ = pos_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '#' || (c == '/' && at(pos_ + 1) == '/')) {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  Token make(TokenKind kind, size_t start) const {
    return Token{kind, std::string(text_.substr(start, pos_ - start)), line_,
                 static_cast<int>(start - line_start_) + 1};
  }

  Expected<Token> next() {
    size_t start = pos_;
    char c = text_[pos_];
    if (is_ident_start(c)) {
      while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
      return make(TokenKind::kIdent, start);
    }
    if (is_digit(c) || (c == '.' && is_digit(at(pos_ + 1)))) return number();
    if (c == '"') return string();
    if (c == '`') return quoted_name();
    for (const auto& p : kPuncts) {
      if (text_.substr(pos_, p.text.size()) == p.text) {
        pos_ += p.text.size();
        return make(p.kind, start);
      }
    }
    std::string shown = std::isprint(static_cast<unsigned char>(c))
                            ? std::string(1, c)
                            : fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    return Status(StatusCode::kParseError,
                  fmt::format("{}:{}: unexpected character '{}'", line_, column(), shown));
  }

  // [digits] [. digits] [(e|E) [+-] digits]; a '.' or an exponent makes it a float.
  Expected<Token> number() {
    size_t start = pos_;
    bool is_float = false;
    while (is_digit(at(pos_))) ++pos_;
    if (at(pos_) == '.') {
      is_float = true;
      ++pos_;
      while (is_digit(at(pos_))) ++pos_;
    }
    if (at(pos_) == 'e' || at(pos_) == 'E') {
      is_float = true;
      ++pos_;
      if (at(pos_) == '+' || at(pos_) == '-') ++pos_;
      if (!is_digit(at(pos_))) return malformed(start);
      while (is_digit(at(pos_))) ++pos_;
    }
    if (is_ident_char(at(pos_))) return malformed(start);
    return make(is_float ? TokenKind::kFloat : TokenKind::kInt, start);
  }

  // "..." on one line; \" \\ and \n stand for a quote, a backslash and a line end (an
  // assertion's message may hold any of them).
  Expected<Token> string() {
    size_t start = pos_++;
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
      char c = text_[pos_++];
      if (c == '\\' && (at(pos_) == '"' || at(pos_) == '\\' || at(pos_) == 'n')) {
        c = text_[pos_++] == 'n' ? '\n' : text_[pos_ - 1];
      }
      value += c;
    }
    if (at(pos_) != '"') {
      return Status(StatusCode::kParseError,
                    fmt::format("{}:{}: unterminated string", line_, column_of(start)));
    }
    ++pos_;
    Token t = make(TokenKind::kString, start);
    t.text = std::move(value);
    return t;
  }

  // `...` on one line, a doubled backquote standing for one: a name of any characters.
  Expected<Token> quoted_name() {
    size_t start = pos_++;
    std::string name;
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        return Status(StatusCode::kParseError,
                      fmt::format("{}:{}: unterminated name", line_, column_of(start)));
      }
      if (text_[pos_] == '`' && at(pos_ + 1) != '`') break;
      if (text_[pos_] == '`') ++pos_;
      name += text_[pos_++];
    }
    ++pos_;
    if (name.empty()) {
      return Status(StatusCode::kParseError, fmt::format("{}:{}: empty name", line_, column_of(start)));
    }
    Token t = make(TokenKind::kIdent, start);
    t.text = std::move(name);
    t.quoted = true;
    return t;
  }

  int column_of(size_t start) const { return static_cast<int>(start - line_start_) + 1; }

  Status malformed(size_t start) {
    while (is_ident_char(at(pos_)) || at(pos_) == '.') ++pos_;
    return Status(StatusCode::kParseError, fmt::format("{}:{}: malformed number '{}'", line_,
                                                       static_cast<int>(start - line_start_) + 1,
                                                       text_.substr(start, pos_ - start)));
  }

  std::string_view text_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
};

}  // namespace

std::string describe(const Token& token) {
  if (token.kind == TokenKind::kEnd) return "end of input";
  return "'" + token.text + "'";
}

Expected<std::vector<Token>> lex(std::string_view text) { return Lexer(text).run(); }

}  // namespace plaidml::parse
