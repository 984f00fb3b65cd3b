// jit/io_binding.h: every message of matching inputs and outputs to a program's slots, once.
// (tests/capi/test_execute.c checks that each reaches C callers after its function's name.)
#include "jit/io_binding.h"

#include <doctest/doctest.h>

#include "runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

constexpr const char* kBindingProgram = R"(
function (A[N], B[N]) -> (C, D) {
  C = A + B;
  D = A * B;
}
)";

// A value to bind: the binding never looks inside a buffer.
class FakeBuffer : public jit::Buffer {
 public:
  const Shape& shape() const override { return shape_; }
  int device() const override { return 0; }

 private:
  Shape shape_{DType::F32, {4}};
};

using Buffers = std::vector<std::shared_ptr<jit::Buffer>>;

const Shape kA{DType::F32, {4}};
const Shape kB{DType::F16, {4}};

jit::GivenNames names(std::vector<std::optional<std::string>> list) { return list; }

template <typename T>
void check_error(const Expected<T>& result, StatusCode code, const std::string& message) {
  REQUIRE_FALSE(result.has_value());
  CHECK(result.status().code() == code);
  CHECK(result.status().message() == message);
}

}  // namespace

TEST_CASE("io binding: inputs by name or by position come back in declaration order") {
  auto program = parse_program(kBindingProgram);
  auto by_name = jit::bind_input_shapes(*program, names({"B", "A"}), {kB, kA});
  REQUIRE(by_name.has_value());
  CHECK(*by_name == std::vector<Shape>{kA, kB});
  auto by_position = jit::bind_input_shapes(*program, std::nullopt, {kA, kB});
  REQUIRE(by_position.has_value());
  CHECK(*by_position == std::vector<Shape>{kA, kB});
}

TEST_CASE("io binding: a NULL input name") {
  auto program = parse_program(kBindingProgram);
  check_error(jit::bind_input_shapes(*program, names({"A", std::nullopt}), {kA, kB}),
              StatusCode::kInvalidArgument, "input_names[1] is NULL");
}

TEST_CASE("io binding: more inputs than the program has") {
  auto program = parse_program(kBindingProgram);
  check_error(jit::bind_input_shapes(*program, std::nullopt, {kA, kB, kA}),
              StatusCode::kInvalidArgument, "3 inputs given but the program has 2 ('A', 'B')");
}

TEST_CASE("io binding: an unknown input lists the program's inputs") {
  auto program = parse_program(kBindingProgram);
  check_error(jit::bind_input_shapes(*program, names({"A", "X"}), {kA, kB}),
              StatusCode::kNotFound, "the program has no input 'X' (inputs: 'A', 'B')");
  auto none = parse_program("function () -> (C) { C = 1; }");
  check_error(jit::bind_input_shapes(*none, names({"X"}), {kA}), StatusCode::kNotFound,
              "the program has no input 'X' (inputs: none)");
}

TEST_CASE("io binding: an input given twice") {
  auto program = parse_program(kBindingProgram);
  check_error(jit::bind_input_shapes(*program, names({"A", "A", "B"}), {kA, kA, kB}),
              StatusCode::kInvalidArgument, "input 'A' is given twice");
}

TEST_CASE("io binding: missing inputs are listed with the program's inputs") {
  auto program = parse_program(kBindingProgram);
  check_error(jit::bind_input_shapes(*program, names({"B"}), {kB}), StatusCode::kInvalidArgument,
              "missing input 'A'; the program's inputs are 'A', 'B'");
  check_error(jit::bind_input_shapes(*program, names({}), {}), StatusCode::kInvalidArgument,
              "missing inputs 'A', 'B'; the program's inputs are 'A', 'B'");
  check_error(jit::bind_input_shapes(*program, std::nullopt, {kA}), StatusCode::kInvalidArgument,
              "missing input 'B'; the program's inputs are 'A', 'B'");
}

TEST_CASE("io binding: a null input buffer") {
  auto program = parse_program(kBindingProgram);
  auto a = std::make_shared<FakeBuffer>();
  check_error(jit::bind_input_buffers(*program, names({"B", "A"}), {nullptr, a}),
              StatusCode::kInvalidArgument, "the buffer for input 'B' is NULL");
  auto ordered = jit::bind_input_buffers(*program, std::nullopt, {a, a});
  REQUIRE(ordered.has_value());
  CHECK(*ordered == Buffers{a, a});
}

TEST_CASE("io binding: outputs asked for by name or position, with or without buffers") {
  auto program = parse_program(kBindingProgram);
  auto d = std::make_shared<FakeBuffer>();
  auto by_name = jit::bind_outputs(*program, names({"D"}), {d});
  REQUIRE(by_name.has_value());
  CHECK(by_name->positions == std::vector<size_t>{1});
  CHECK(by_name->slots == Buffers{nullptr, d});
  auto by_position = jit::bind_outputs(*program, std::nullopt, {nullptr, d});
  REQUIRE(by_position.has_value());
  CHECK(by_position->positions == std::vector<size_t>{0, 1});
  auto none = jit::bind_outputs(*program, std::nullopt, {});
  REQUIRE(none.has_value());
  CHECK(none->positions.empty());
  CHECK(none->slots.size() == 2);
}

TEST_CASE("io binding: a NULL output name") {
  auto program = parse_program(kBindingProgram);
  check_error(jit::bind_outputs(*program, names({std::nullopt}), {nullptr}),
              StatusCode::kInvalidArgument, "output_names[0] is NULL");
}

TEST_CASE("io binding: more outputs than the program has") {
  auto program = parse_program(kBindingProgram);
  check_error(jit::bind_outputs(*program, std::nullopt, {nullptr, nullptr, nullptr}),
              StatusCode::kInvalidArgument, "3 outputs given but the program has 2 ('C', 'D')");
}

TEST_CASE("io binding: an unknown output lists the program's outputs") {
  auto program = parse_program(kBindingProgram);
  check_error(jit::bind_outputs(*program, names({"Z"}), {nullptr}), StatusCode::kNotFound,
              "the program has no output 'Z' (outputs: 'C', 'D')");
}

TEST_CASE("io binding: an output given twice") {
  auto program = parse_program(kBindingProgram);
  check_error(jit::bind_outputs(*program, names({"C", "C"}), {nullptr, nullptr}),
              StatusCode::kInvalidArgument, "output 'C' is given twice");
}
