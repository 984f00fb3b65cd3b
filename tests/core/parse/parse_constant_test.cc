// Constants in Tile text: values parse back to the same bytes in every dtype (the printer's
// output reads back to the same program), digests resolve through the caller, and malformed
// constants get messages that name the problem.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/eval/interpreter.h"
#include "core/ir/builder.h"
#include "core/ir/constant.h"
#include "core/ir/printer.h"
#include "core/parse/parse.h"
#include "core/types/half.h"

namespace plaidml::parse {
namespace {

// A program whose output is constant `data` (plus zero, so that it is computed).
std::shared_ptr<const ir::Program> returning(std::shared_ptr<const ir::ConstantData> data) {
  ir::ProgramBuilder b("c");
  auto w = b.add_constant("W", std::move(data), {});
  REQUIRE(w.has_value());
  REQUIRE(b.assign("O", *w, {}).is_ok());
  REQUIRE(b.add_output("O", {}).is_ok());
  auto p = b.finish();
  REQUIRE(p.has_value());
  return *p;
}

std::string error_of(std::string_view text, const ConstantResolver& resolver = {}) {
  auto p = parse_tile(text, "", resolver);
  REQUIRE_FALSE(p.has_value());
  return p.status().message();
}

template <typename T>
std::shared_ptr<const ir::ConstantData> constant_of(DType dtype, std::vector<T> values) {
  auto c = ir::copy_constant(Shape(dtype, {static_cast<int64_t>(values.size())}), values.data());
  REQUIRE(c.has_value());
  return *c;
}

}  // namespace

TEST_CASE("constant: printed values parse back to the same bytes, in every dtype") {
  const double inf = std::numeric_limits<double>::infinity();
  const float inf_f = std::numeric_limits<float>::infinity();
  std::vector<std::shared_ptr<const ir::ConstantData>> cases = {
      constant_of<float>(DType::F32, {1.5f, -0.0f, 3.4028235e38f, 1e-45f, -inf_f, 0.1f}),
      constant_of<double>(DType::F64, {0.1, -1e300, inf, 5e-324}),
      constant_of<uint16_t>(DType::F16, {f16_from_double(0.1), f16_from_double(-65504), 0x7c00}),
      constant_of<uint16_t>(DType::BF16, {bf16_from_double(3.14159), bf16_from_double(-1e38)}),
      constant_of<int8_t>(DType::I8, {-128, 127, 0}),
      constant_of<int64_t>(DType::I64, {std::numeric_limits<int64_t>::min(), 42}),
      constant_of<uint64_t>(DType::U64, {std::numeric_limits<uint64_t>::max(), 0}),
      constant_of<uint8_t>(DType::Bool, {1, 0, 1}),
  };
  for (const auto& c : cases) {
    auto program = returning(c);
    std::string text = ir::print_tile(*program);
    CAPTURE(text);
    auto back = parse_tile(text);
    INFO(back.status().message());
    REQUIRE(back.has_value());
    CHECK(ir::print_tile(**back) == text);
    CHECK((*back)->fingerprint() == program->fingerprint());
    const ir::Node* node = nullptr;
    for (const auto& n : (*back)->nodes) {
      if (n.kind == ir::NodeKind::kConstant) node = &n;
    }
    REQUIRE(node != nullptr);
    CHECK(node->constant->shape == c->shape);
    CHECK(node->constant->digest == c->digest);
    CHECK(std::memcmp(node->constant->data, c->data, c->byte_size()) == 0);
  }
}

TEST_CASE("constant: nan and inf parse in floats, the value computes") {
  auto p = parse_tile(
      "function (X[N]) -> (O) { W = constant(f32[2], [nan, -inf]); O = X + W; }");
  INFO(p.status().message());
  REQUIRE(p.has_value());
  auto bound = ir::bind(*p, {Shape(DType::F32, {2})});
  REQUIRE(bound.has_value());
  HostTensor x(Shape(DType::F32, {2}));
  x.data<float>()[0] = 1;
  x.data<float>()[1] = 2;
  auto out = eval::evaluate(*bound, {x});
  REQUIRE(out.has_value());
  CHECK(std::isnan((*out)[0].data<float>()[0]));
  CHECK((*out)[0].data<float>()[1] == -std::numeric_limits<float>::infinity());
}

TEST_CASE("constant: a digest resolves through the caller, who sees the shape and digest") {
  std::vector<float> values(20, 0.25f);
  auto data = ir::copy_constant(Shape(DType::F32, {4, 5}), values.data());
  REQUIRE(data.has_value());
  std::string text = ir::print_tile(*returning(*data));
  CHECK(text.find("digest \"") != std::string::npos);
  Shape seen;
  uint64_t seen_digest = 0;
  auto back = parse_tile(text, "", [&](const Shape& s, uint64_t d)
                                        -> Expected<std::shared_ptr<const ir::ConstantData>> {
    seen = s;
    seen_digest = d;
    return *data;
  });
  INFO(back.status().message());
  REQUIRE(back.has_value());
  CHECK(seen == Shape(DType::F32, {4, 5}));
  CHECK(seen_digest == (*data)->digest);
  CHECK(ir::print_tile(**back) == text);
  // Without a resolver, or when it fails, the parse fails saying so.
  CHECK(error_of(text) ==
        "2:7: constant f32[4, 5] is given by its digest only: its data is not in the text");
  CHECK(error_of(text, [](const Shape&, uint64_t) -> Expected<std::shared_ptr<const ir::ConstantData>> {
          return Status(StatusCode::kNotFound, "no such constant");
        }).find(": no such constant") != std::string::npos);
}

TEST_CASE("constant: malformed constants name the problem") {
  auto in_body = [](const std::string& c) {
    return error_of("function () -> (O) { O = " + c + "; }");
  };
  CHECK(in_body("constant(q8[2], [1, 2])") ==
        "1:35: expected a dtype (f32, i64, ...), found 'q8'");
  CHECK(in_body("constant(f32[2], [1])") == "1:26: constant f32[2] has 2 elements; 1 values are given");
  CHECK(in_body("constant(f32[1], [1, 2])") ==
        "1:47: constant f32[1] has 1 elements; more values are given");
  CHECK(in_body("constant(i8[1], [128])") == "1:43: 128 is not a value of i8");
  CHECK(in_body("constant(u8[1], [-1])") == "1:44: -1 is not a value of u8");
  CHECK(in_body("constant(i32[1], [1.5])") == "1:44: '1.5' is not a value of i32");
  CHECK(in_body("constant(bool[1], [2])") == "1:45: 2 is not a value of bool");
  CHECK(in_body("constant(f32[1], digest \"12\")") ==
        "1:50: expected the digest as 16 hex digits in quotes, found '12'");
  CHECK(in_body("constant(f32[1], digest \"0123") == "1:50: unterminated string");
  CHECK(in_body("constant(f32[-1], [])") == "1:39: expected a dim size, found '-'");
}

}  // namespace plaidml::parse
