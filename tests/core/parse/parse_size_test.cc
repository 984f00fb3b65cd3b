// Named sizes (Tile `size NAME = expr;`, docs/tile.md section 2.1): parsed, shared by every use,
// printed once where several places share a big size, evaluated once per shared node.
#include <doctest/doctest.h>

#include <string>

#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/ir/printer.h"
#include "core/parse/parse.h"

namespace plaidml::parse {
namespace {

std::shared_ptr<const ir::Program> size_parsed(const std::string& text) {
  auto p = parse_tile(text);
  INFO(p.status().message());
  REQUIRE(p.has_value());
  return *p;
}

// S1 = N + 1, S2 = N + 2, ...: each size uses the previous one twice, so written out as a tree
// the last one has 2^kSteps leaves.
constexpr int kSteps = 60;
std::string doubling_program() {
  std::string text = "function (X[N]) -> (R) {\n  size S0 = N;\n";
  for (int k = 1; k <= kSteps; ++k) {
    text += "  size S" + std::to_string(k) + " = min(S" + std::to_string(k - 1) + " + 1, S" +
            std::to_string(k - 1) + " + 2);\n";
  }
  const std::string last = "S" + std::to_string(kSteps);
  // X[i + S60 - S60] is X[i]: the index checks and the affine forms walk the shared size too.
  text += "  C[i : " + last + " - " + std::to_string(kSteps) + "] = =(X[i + " + last + " - " +
          last + "]);\n";
  text += "  R = C + " + last + ";\n}\n";
  return text;
}

TEST_CASE("size: a size shared by every use, evaluated once per shared node") {
  auto p = size_parsed(doubling_program());
  auto bound = ir::bind(p, {Shape(DType::F32, {3})});
  INFO(bound.status().message());
  REQUIRE(bound.has_value());
  HostTensor x(Shape(DType::F32, {3}));
  for (int i = 0; i < 3; ++i) x.data<float>()[i] = static_cast<float>(i);
  auto out = eval::evaluate(*bound, {x});
  INFO(out.status().message());
  REQUIRE(out.has_value());
  REQUIRE((*out)[0].shape.elements() == 3);
  for (int i = 0; i < 3; ++i) CHECK((*out)[0].data<float>()[i] == i + 3 + kSteps);  // X + N + 60
}

TEST_CASE("size: shared big sizes print once each and parse back to the same program") {
  auto p = size_parsed(doubling_program());
  const std::string text = ir::print_tile(*p);
  // Written out, the last size would have 2^60 leaves; named, each step is one line.
  CHECK(text.size() < 8000);
  CHECK(text.find("  size _S0 = ") != std::string::npos);
  auto back = size_parsed(text);
  CHECK(ir::print_tile(*back) == text);
  CHECK(back->fingerprint() == p->fingerprint());
}

TEST_CASE("size: the printer's names skip names the program already uses") {
  std::string source = doubling_program();
  source.replace(source.find("  R = C"), 7, "  _S0 = C * 2;\n  R = _S0");
  const std::string text = ir::print_tile(*size_parsed(source));
  CHECK(text.find("size _S0 = ") == std::string::npos);
  CHECK(text.find("  size _S1 = ") != std::string::npos);
  CHECK(text.find("  _S0 = C * 2;") != std::string::npos);
  CHECK(ir::print_tile(*size_parsed(text)) == text);
}

TEST_CASE("size: small or unshared sizes stay written out where used") {
  const char* text = R"(function (X[N]) -> (R) {
  R[i : max(N - 2, 0) + 1] = =(X[i]);
}
)";
  auto p = size_parsed(
      "function (X[N]) -> (R) {\n  size M = max(N - 2, 0) + 1;\n"
      "  R[i : M] = =(X[i]);\n}\n");
  CHECK(ir::print_tile(*p) == text);
  CHECK(size_parsed(text)->fingerprint() == p->fingerprint());
}

TEST_CASE("size: errors in the statement and in its uses") {
  auto err = [](const std::string& body) {
    auto p = parse_tile("function (X[N]) -> (R) {\n  " + body + "\n  R = X;\n}\n");
    REQUIRE_FALSE(p.has_value());
    return p.status().message();
  };
  CHECK(err("size m = N;") ==
        "2:8: size name 'm' must start with a capital letter (lowercase names are index "
        "variables)");
  CHECK(err("size N = 2;") == "2:8: 'N' is already defined");
  CHECK(err("size X = 2;") == "2:8: 'X' is already defined");
  CHECK(err("size S = 2; size S = 3;") == "2:20: 'S' is already defined");
  CHECK(err("size S N;") == "2:10: expected '=' after 'size S', found 'N'");
  CHECK(err("size S = N N;") == "2:14: expected ';' after the size statement, found 'N'");
  CHECK(err("size S = i + 1;") == "2:12: index variable 'i' cannot appear in a size statement");
  CHECK(err("size S = M;") == "2:12: unknown dimension 'M'");
  CHECK(err("size S = N; S = X;") == "2:15: 'S' is a size (a `size` statement), not a tensor");
}

TEST_CASE("size: a tensor may still be called size, in backquotes as lowercase names are") {
  const char* text = "function (X[N]) -> (`size`) {\n  `size` = X;\n}\n";
  auto p = size_parsed(text);
  REQUIRE(p->outputs.size() == 1);
  CHECK(p->outputs[0].first == "size");
  CHECK(ir::print_tile(*p) == text);
}

}  // namespace
}  // namespace plaidml::parse
