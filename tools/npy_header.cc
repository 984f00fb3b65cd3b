#include "npy_header.h"

#include <cctype>
#include <limits>
#include <set>

namespace plaidml_cli {

namespace {

class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  Result<NpyHeader> parse() {
    NpyHeader header;
    std::set<std::string> seen;
    if (!expect('{')) return fail("expected '{'");
    while (true) {
      skip_space();
      if (peek() == '}') break;
      auto key = parse_string();
      if (!key) return key.error();
      if (!expect(':')) return fail("expected ':' after '" + *key + "'");
      Result<Done> value = parse_value(*key, header);
      if (!value) return value.error();
      seen.insert(*key);
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') return fail("expected ',' or '}'");
    }
    for (const char* key : {"descr", "fortran_order", "shape"}) {
      if (!seen.count(key)) return fail(std::string("the header has no '") + key + "' entry");
    }
    return header;
  }

 private:
  Error fail(const std::string& what) const {
    return runtime_error(std::string(source_) + ": malformed .npy header: " + what + " at offset " +
                         std::to_string(pos_));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool expect(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  Result<std::string> parse_string() {
    skip_space();
    char quote = peek();
    if (quote != '\'' && quote != '"') return fail("expected a quoted string");
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return fail("unterminated string");
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return s;
  }

  Result<bool> parse_bool() {
    skip_space();
    for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      std::string_view w(word);
      if (text_.substr(pos_, w.size()) == w) {
        pos_ += w.size();
        return value;
      }
    }
    return fail("expected True or False");
  }

  Result<int64_t> parse_int() {
    skip_space();
    size_t start = pos_;
    int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      int digit = text_[pos_++] - '0';
      if (v > (std::numeric_limits<int64_t>::max() - digit) / 10)
        return fail("dimension too large");
      v = v * 10 + digit;
    }
    if (pos_ == start) return fail("expected a non-negative dimension");
    if (peek() == 'L') ++pos_;  // Python 2 longs, as old numpy wrote them
    return v;
  }

  Result<std::vector<int64_t>> parse_shape() {
    if (!expect('(')) return fail("expected '(' to start the shape");
    std::vector<int64_t> shape;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      auto dim = parse_int();
      if (!dim) return dim.error();
      shape.push_back(*dim);
      skip_space();
      if (peek() == ',')
        ++pos_;
      else if (peek() != ')')
        return fail("expected ',' or ')' in the shape");
    }
    ++pos_;
    return shape;
  }

  Result<Done> parse_value(const std::string& key, NpyHeader& header) {
    if (key == "descr") {
      skip_space();
      if (peek() == '[') {
        return fail("structured dtypes (record arrays) are not supported");
      }
      auto s = parse_string();
      if (!s) return s.error();
      header.descr = *s;
    } else if (key == "fortran_order") {
      auto b = parse_bool();
      if (!b) return b.error();
      header.fortran_order = *b;
    } else if (key == "shape") {
      auto s = parse_shape();
      if (!s) return s.error();
      header.shape = *s;
    } else {
      return fail("unexpected key '" + key + "'");
    }
    return Done{};
  }

  std::string_view text_;
  std::string_view source_;
  size_t pos_ = 0;
};

}  // namespace

Result<NpyHeader> parse_npy_header(std::string_view text, std::string_view source) {
  return HeaderParser(text, source).parse();
}

}  // namespace plaidml_cli
