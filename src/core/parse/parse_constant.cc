// Constants in Tile text: `constant(f32[2], [1.5, -2])` with their values, or
// `constant(f32[64, 3, 7, 7], digest "0123456789abcdef")` with their data kept elsewhere.
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/ir/constant.h"
#include "core/parse/parser.h"
#include "core/types/half.h"

namespace plaidml::parse {
namespace {

template <typename T>
void append(std::vector<uint8_t>& bytes, T v) {
  size_t at = bytes.size();
  bytes.resize(at + sizeof(T));
  std::memcpy(bytes.data() + at, &v, sizeof(T));
}

// Appends v in dtype; false when an integer dtype cannot hold it.
bool append_integer(DType dtype, __int128 v, std::vector<uint8_t>& bytes) {
  auto fits = [&](auto lo, auto hi) { return v >= lo && v <= hi; };
  switch (dtype) {
    case DType::Bool: return (v == 0 || v == 1) && (append<uint8_t>(bytes, v != 0), true);
    case DType::I8: return fits(-128, 127) && (append(bytes, static_cast<int8_t>(v)), true);
    case DType::I16: return fits(-32768, 32767) && (append(bytes, static_cast<int16_t>(v)), true);
    case DType::I32:
      return fits(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()) &&
             (append(bytes, static_cast<int32_t>(v)), true);
    case DType::I64:
      return fits(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()) &&
             (append(bytes, static_cast<int64_t>(v)), true);
    case DType::U8: return fits(0, 255) && (append(bytes, static_cast<uint8_t>(v)), true);
    case DType::U16: return fits(0, 65535) && (append(bytes, static_cast<uint16_t>(v)), true);
    case DType::U32:
      return fits(0, std::numeric_limits<uint32_t>::max()) &&
             (append(bytes, static_cast<uint32_t>(v)), true);
    case DType::U64:
      return fits(0, std::numeric_limits<uint64_t>::max()) &&
             (append(bytes, static_cast<uint64_t>(v)), true);
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64: return false;
  }
  return false;
}

void append_float(DType dtype, double v, std::vector<uint8_t>& bytes) {
  if (dtype == DType::F16) append(bytes, f16_from_double(v));
  if (dtype == DType::BF16) append(bytes, bf16_from_double(v));
  if (dtype == DType::F32) append(bytes, static_cast<float>(v));
  if (dtype == DType::F64) append(bytes, v);
}

}  // namespace

Expected<Shape> Parser::parse_constant_shape() {
  const Token& type = peek();
  std::optional<DType> dtype =
      type.kind == TokenKind::kIdent ? dtype_from_name(type.text) : std::nullopt;
  if (!dtype) return error(type, "expected a dtype (f32, i64, ...), found {}", describe(type));
  advance();
  PLAIDML_TRY(expect(TokenKind::kLBracket, "'[' before the constant's dims"));
  Shape shape(*dtype, {});
  while (!accept(TokenKind::kRBracket)) {
    if (!shape.dims.empty()) PLAIDML_TRY(expect(TokenKind::kComma, "',' or ']'"));
    const Token& d = peek();
    int64_t size = -1;
    auto [end, ec] = std::from_chars(d.text.data(), d.text.data() + d.text.size(), size);
    if (d.kind != TokenKind::kInt || ec != std::errc() || size < 0) {
      return error(d, "expected a dim size, found {}", describe(d));
    }
    advance();
    shape.dims.push_back(size);
    if (shape.dims.size() > 64) return error(d, "a constant has more than 64 dims");
  }
  return shape;
}

// One element of a value list, appended to bytes in dtype.
Status Parser::parse_constant_value(DType dtype, std::vector<uint8_t>& bytes) {
  bool negate = accept(TokenKind::kMinus);
  const Token& t = peek();
  bool is_float = dtype_is_float(dtype);
  if (t.kind == TokenKind::kIdent && is_float && (t.text == "inf" || t.text == "nan")) {
    double v = t.text == "inf" ? std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::quiet_NaN();
    append_float(dtype, negate ? -v : v, bytes);
    advance();
    return Status::ok();
  }
  if (t.kind == TokenKind::kFloat || (t.kind == TokenKind::kInt && is_float)) {
    if (!is_float) return error(t, "{} is not a value of {}", describe(t), dtype_name(dtype));
    double v = 0;
    auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec == std::errc::result_out_of_range) {
      v = t.text.find_first_of("eE") != std::string::npos && t.text.find('-') != std::string::npos
              ? 0.0
              : std::numeric_limits<double>::infinity();
    } else if (ec != std::errc()) {
      return error(t, "malformed number {}", describe(t));
    }
    append_float(dtype, negate ? -v : v, bytes);
    advance();
    return Status::ok();
  }
  if (t.kind != TokenKind::kInt) return error(t, "expected a value, found {}", describe(t));
  uint64_t u = 0;
  auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), u);
  __int128 v = negate ? -static_cast<__int128>(u) : static_cast<__int128>(u);
  if (ec != std::errc() || !append_integer(dtype, v, bytes)) {
    return error(t, "{}{} is not a value of {}", negate ? "-" : "", t.text, dtype_name(dtype));
  }
  advance();
  return Status::ok();
}

Expected<ir::ValueId> Parser::parse_constant(const Token& name) {
  PLAIDML_TRY(expect(TokenKind::kLParen, "'('"));
  PLAIDML_ASSIGN(Shape shape, parse_constant_shape());
  PLAIDML_TRY(expect(TokenKind::kComma, "',' after the constant's shape"));
  std::shared_ptr<const ir::ConstantData> data;
  if (peek().kind == TokenKind::kIdent && peek().text == "digest") {
    advance();
    const Token& d = peek();
    uint64_t digest = 0;
    auto [end, ec] = std::from_chars(d.text.data(), d.text.data() + d.text.size(), digest, 16);
    if (d.kind != TokenKind::kString || d.text.size() != 16 || ec != std::errc()) {
      return error(d, "expected the digest as 16 hex digits in quotes, found {}", describe(d));
    }
    if (!resolver_) {
      return error(name, "constant {} is given by its digest only: its data is not in the text",
                   shape.to_string());
    }
    auto resolved = resolver_(shape, digest);
    if (!resolved) return error(d, "{}", resolved.status().message());
    data = *resolved;
    advance();
  } else {
    PLAIDML_TRY(expect(TokenKind::kLBracket, "'[' before the constant's values, or 'digest'"));
    std::vector<uint8_t> bytes;
    int64_t count = 0;
    while (!accept(TokenKind::kRBracket)) {
      if (count > 0) PLAIDML_TRY(expect(TokenKind::kComma, "',' or ']'"));
      if (count == shape.elements()) {
        return error(peek(), "constant {} has {} elements; more values are given",
                     shape.to_string(), shape.elements());
      }
      PLAIDML_TRY(parse_constant_value(shape.dtype, bytes));
      ++count;
    }
    if (count != shape.elements()) {
      return error(name, "constant {} has {} elements; {} values are given", shape.to_string(),
                   shape.elements(), count);
    }
    PLAIDML_ASSIGN(data, ir::copy_constant(shape, bytes.data()));
  }
  PLAIDML_TRY(expect(TokenKind::kRParen, "')' after the constant"));
  return builder_.add_constant("", std::move(data), loc(name));
}

}  // namespace plaidml::parse
