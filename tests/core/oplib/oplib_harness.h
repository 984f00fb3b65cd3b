// Test support for the op library: build a program that applies one op to declared inputs, run
// it on the reference interpreter, and check errors. Expected values come from an independent
// oracle in each test (hand-computed values or a naive loop in the test), never from the library.
#pragma once

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/ir/builder.h"
#include "core/ir/printer.h"
#include "core/oplib/oplib.h"
#include "core/parse/parse.h"
#include "support/tensors.h"

namespace plaidml::oplib::test {

using plaidml::testing::make_tensor;
using plaidml::testing::to_doubles;

// One declared input: its name, its dim names (one per axis; "" for unnamed) and the tensor.
struct Input {
  std::string name;
  HostTensor value;
  std::vector<std::string> dims;  // empty: generated names "<name>_<axis>"
};

struct OpRun {
  Status status = Status::ok();     // the first error: from apply, bind or evaluation
  std::vector<HostTensor> outputs;  // one: the op's result
  std::string tile;                 // the printed program (for messages)
};

inline std::vector<std::string> dim_names(const Input& in) {
  if (!in.dims.empty()) return in.dims;
  std::vector<std::string> names;
  for (size_t k = 0; k < in.value.shape.rank(); ++k) {
    names.push_back(in.name + "_" + std::to_string(k));
  }
  return names;
}

// Builds `R = op(inputs...)`, prints it, parses the print back (the printed Tile must parse to
// an equivalent program), binds it to the inputs' shapes and evaluates it.
inline OpRun run_op(const std::string& op, const std::vector<Input>& inputs,
                    const Attrs& attrs = {}) {
  OpRun r;
  ir::ProgramBuilder b("test_" + op);
  std::vector<ir::ValueId> operands;
  for (const Input& in : inputs) {
    auto id = b.add_input(in.name, dim_names(in), std::nullopt, {});
    if (!id) return {id.status(), {}, ""};
    operands.push_back(*id);
  }
  auto result = apply(b, op, operands, attrs);
  if (!result) return {result.status(), {}, ""};
  if (Status s = b.assign("R", *result, {}); !s.is_ok()) return {s, {}, ""};
  if (Status s = b.add_output("R", {}); !s.is_ok()) return {s, {}, ""};
  auto program = b.finish();
  if (!program) return {program.status(), {}, ""};
  r.tile = ir::print_tile(**program);
  auto reparsed = parse::parse_tile(r.tile);
  if (!reparsed) return {reparsed.status(), {}, r.tile};
  std::vector<Shape> shapes;
  std::vector<HostTensor> values;
  for (const Input& in : inputs) {
    shapes.push_back(in.value.shape);
    values.push_back(in.value);
  }
  auto bound = ir::bind(*reparsed, shapes);
  if (!bound) return {bound.status(), {}, r.tile};
  auto out = eval::evaluate(*bound, values);
  if (!out) return {out.status(), {}, r.tile};
  r.outputs = std::move(*out);
  return r;
}

// The op's result; fails the test with the error and the program when anything fails.
inline HostTensor run_ok(const std::string& op, const std::vector<Input>& inputs,
                         const Attrs& attrs = {}) {
  OpRun r = run_op(op, inputs, attrs);
  INFO(r.tile);
  INFO(r.status.message());
  REQUIRE(r.status.is_ok());
  return r.outputs.at(0);
}

// Asserts that the op fails with `code` and exactly `message`.
inline void check_op_error(const std::string& op, const std::vector<Input>& inputs,
                           const Attrs& attrs, StatusCode code, const std::string& message) {
  OpRun r = run_op(op, inputs, attrs);
  INFO(r.tile);
  CHECK(!r.status.is_ok());
  CHECK(r.status.code() == code);
  CHECK(r.status.message() == message);
}

// Asserts actual == expected (dims and values) within the dtype's default tolerance.
inline void check_tensor(const HostTensor& actual, const HostTensor& expected) {
  std::string report = plaidml::testing::compare_tensors(actual, expected);
  CHECK_MESSAGE(report.empty(), report);
}

inline HostTensor f32(std::vector<int64_t> dims, std::vector<double> v) {
  return make_tensor(DType::F32, std::move(dims), std::move(v));
}
inline HostTensor f64(std::vector<int64_t> dims, std::vector<double> v) {
  return make_tensor(DType::F64, std::move(dims), std::move(v));
}
inline HostTensor i32(std::vector<int64_t> dims, std::vector<double> v) {
  return make_tensor(DType::I32, std::move(dims), std::move(v));
}

}  // namespace plaidml::oplib::test
