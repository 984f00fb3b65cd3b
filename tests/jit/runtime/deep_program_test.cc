// Programs 100,000 ops deep, as a generator or a hostile file would write them: every stage that
// walks a program (parse, print, bind, the interpreter, autodiff, lowering, the loop passes and
// the CPU code generator) either handles the depth or refuses it with a status; none may
// overflow the stack. Each stage's result is checked against hand-computed sums.
#include <doctest/doctest.h>

#include <string>

#include "core/autodiff/gradient.h"
#include "core/ir/printer.h"
#include "runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

constexpr int kDeep = 100000;

// O = A + A + ... + A (n terms) in one statement: a left-deep tree of n - 1 adds.
std::string one_long_sum(int n) {
  std::string text = "function (A[N]) -> (O) {\n  O = A";
  for (int i = 1; i < n; ++i) text += " + A";
  return text + ";\n}\n";
}

// T0 = A; T1 = T0 + A; ...; O = T(n-1): n + 1 statements, each using the last.
std::string chained_statements(int n) {
  std::string text = "function (A[N]) -> (O) {\n  T0 = A;\n";
  for (int i = 1; i < n; ++i) {
    text += "  T" + std::to_string(i) + " = T" + std::to_string(i - 1) + " + A;\n";
  }
  return text + "  O = T" + std::to_string(n - 1) + ";\n}\n";
}

HostTensor small_input() {
  HostTensor a(Shape(DType::F32, {3}));
  a.data<float>()[0] = 1;
  a.data<float>()[1] = -2;
  a.data<float>()[2] = 3;
  return a;
}

// Each element of O is `terms` times A's (exact in f32 below 2^24).
void check_scaled(const HostTensor& out, const HostTensor& a, int terms) {
  REQUIRE(out.elements() == a.elements());
  for (int64_t i = 0; i < a.elements(); ++i) {
    CHECK(out.data<float>()[i] == static_cast<float>(terms) * a.data<float>()[i]);
  }
}

// Parse, print, reparse (the same text again), bind and interpret.
void check_front_end(const std::string& text, int terms) {
  auto program = parse_program(text);
  std::string printed = ir::print_tile(*program);
  auto reparsed = parse_program(printed);
  CHECK(ir::print_tile(*reparsed) == printed);
  HostTensor a = small_input();
  check_scaled(reference(reparsed, {a})[0], a, terms);
}

// d(sum(O))/dA is `terms` everywhere.
void check_gradient(const std::string& text, int terms) {
  std::string with_loss = text.substr(0, text.rfind('}'));
  with_loss.replace(with_loss.find("-> (O)"), 6, "-> (O, L)");
  with_loss += "  L[] = +(O[i]);\n}\n";
  auto program = parse_program(with_loss);
  auto grad = autodiff::gradient(*program, "L", {"A"}, {"dA"});
  INFO(grad.status().message());
  REQUIRE(grad.has_value());
  HostTensor a = small_input();
  std::vector<HostTensor> out = reference(*grad, {a});
  const HostTensor& d = out.back();
  REQUIRE(d.elements() == 3);
  for (int64_t i = 0; i < 3; ++i) CHECK(d.data<float>()[i] == static_cast<float>(terms));
}

void check_cpu_run(const std::string& text, int terms) {
  jit::RuntimeOptions options;
  options.num_threads = 1;
  options.device = "cpu:0";
  options.cache_dir = "";  // compiled here, not found on disk from an earlier run
  auto rt = jit::Runtime::create(options);
  INFO(rt.status().message());
  REQUIRE(rt.has_value());
  auto program = parse_program(text);
  HostTensor a = small_input();
  NamedBuffers out;
  Status s = jit::run_by_name(**rt, program, 0, {{"A", upload(**rt, a)}}, &out);
  INFO(s.message());
  REQUIRE(s.is_ok());
  check_scaled(download(**rt, *out[0].second), a, terms);
}

}  // namespace

TEST_CASE("deep programs: a 100,000-term sum in one statement") {
  std::string text = one_long_sum(kDeep);
  SUBCASE("parse, print, reparse, bind, interpret") { check_front_end(text, kDeep); }
  SUBCASE("autodiff") { check_gradient(text, kDeep); }
  SUBCASE("lower, the loop passes and the CPU code generator") { check_cpu_run(text, kDeep); }
}

TEST_CASE("deep programs: 100,000 chained statements") {
  std::string text = chained_statements(kDeep);
  SUBCASE("parse, print, reparse, bind, interpret") { check_front_end(text, kDeep); }
  SUBCASE("autodiff") { check_gradient(text, kDeep); }
  SUBCASE("lower, the loop passes and the CPU code generator") { check_cpu_run(text, kDeep); }
}

// The deepest index expression a program may hold (ir::kMaxIntExprDepth levels: i + 1 + ... + 1
// - 998, which is i) goes through every walk of integer trees: the builder's checks, printing,
// binding, polynomial forms, the interpreter and the CPU code generator.
TEST_CASE("deep programs: an index expression at the depth limit") {
  std::string index = "i";
  for (int t = 0; t < 998; ++t) index += " + 1";
  std::string text = "function (A[N]) -> (O) {\n  O[i : N] = +(A[" + index + " - 998]);\n}\n";
  check_front_end(text, 1);
  check_cpu_run(text, 1);
}

// Trees at the depth limit that print with a parenthesis or a prefix `-` per level (as the C API
// may build them: plaidml_expr_binary with the deep operand on the right) print text that parses
// back: i + (0 + (0 + ... 0)), and i + - - ... -(0), each 1,000 levels deep.
TEST_CASE("deep programs: right-nested index expressions at the depth limit print and reparse") {
  std::string right = "i";
  for (int t = 0; t < 998; ++t) right += " + (0";
  right += " + 0" + std::string(998, ')');
  std::string negations = "i + ";
  for (int t = 0; t < 997; ++t) negations += "- ";
  negations += "-(0)";  // 998 negations of the literal 0
  for (const std::string& index : {right, negations}) {
    std::string text = "function (A[N]) -> (O) {\n  O[i : N] = +(A[" + index + "]);\n}\n";
    check_front_end(text, 1);
  }
}
