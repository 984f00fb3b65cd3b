// Runs Tile text through parse -> bind -> evaluate for the interpreter's tests.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "support/tensors.h"

namespace plaidml::eval::test {

using plaidml::testing::make_tensor;
using plaidml::testing::to_doubles;

inline Expected<std::vector<HostTensor>> try_run(const std::string& text,
                                                 const std::vector<HostTensor>& inputs) {
  auto program = parse::parse_tile(text);
  if (!program) return program.status();
  std::vector<Shape> shapes;
  for (const HostTensor& t : inputs) shapes.push_back(t.shape);
  auto bound = ir::bind(*program, shapes);
  if (!bound) return bound.status();
  return evaluate(*bound, inputs);
}

// The outputs; fails the test (with the error) when anything fails.
inline std::vector<HostTensor> run(const std::string& text, const std::vector<HostTensor>& inputs) {
  auto out = try_run(text, inputs);
  INFO(text);
  INFO(out.status().message());
  REQUIRE(out.has_value());
  return *out;
}

// The single (first) output.
inline HostTensor run1(const std::string& text, const std::vector<HostTensor>& inputs) {
  return run(text, inputs).at(0);
}

// Asserts `actual` equals `expected` within the dtype's default tolerance.
inline void check_tensor(const HostTensor& actual, const HostTensor& expected) {
  std::string report = plaidml::testing::compare_tensors(actual, expected);
  CHECK_MESSAGE(report.empty(), report);
}

inline HostTensor f32(std::vector<int64_t> dims, std::vector<double> v) {
  return make_tensor(DType::F32, std::move(dims), std::move(v));
}

}  // namespace plaidml::eval::test
