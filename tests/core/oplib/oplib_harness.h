// Test support for the op library: build a program that applies one op to declared inputs, run
// it on the reference interpreter, and check errors. Expected values come from an independent
// oracle in each test (hand-computed values or a naive loop in the test), never from the library.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <numeric>
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

// Row-major arrays for the naive reference loops.
using Dims = std::vector<int64_t>;

inline int64_t count(const Dims& d) {
  return std::accumulate(d.begin(), d.end(), int64_t{1}, std::multiplies<>());
}

// The multi-index of row-major position `flat`.
inline Dims unflatten(int64_t flat, const Dims& dims) {
  Dims idx(dims.size());
  for (size_t a = dims.size(); a-- > 0;) {
    idx[a] = flat % dims[a];
    flat /= dims[a];
  }
  return idx;
}

// Row-major transpose: result axis j is source axis perm[j].
inline std::vector<double> permute(const std::vector<double>& v, const Dims& dims,
                                   const Dims& perm, Dims* out_dims) {
  Dims od;
  for (int64_t p : perm) od.push_back(dims[p]);
  std::vector<double> out(v.size());
  for (int64_t flat = 0; flat < count(od); ++flat) {
    Dims idx = unflatten(flat, od);
    int64_t src = 0;
    for (size_t a = 0; a < dims.size(); ++a) {
      size_t j = std::find(perm.begin(), perm.end(), static_cast<int64_t>(a)) - perm.begin();
      src = src * dims[a] + idx[j];
    }
    out[flat] = v[src];
  }
  *out_dims = od;
  return out;
}

// The permutation from (N, spatial..., C) to (N, C, spatial...), and from the kernel layout
// (spatial..., I, O) to (O, I, spatial...).
inline Dims to_channels_first(size_t rank) {
  Dims p{0, static_cast<int64_t>(rank - 1)};
  for (size_t a = 1; a + 1 < rank; ++a) p.push_back(a);
  return p;
}
inline Dims to_oihw(size_t rank) {
  Dims p{static_cast<int64_t>(rank - 1), static_cast<int64_t>(rank - 2)};
  for (size_t a = 0; a + 2 < rank; ++a) p.push_back(a);
  return p;
}

// Deterministic values without long runs of equal ones: offset + scale * ((k * 5) % 13).
inline std::vector<double> seq(size_t n, double scale, double offset) {
  std::vector<double> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = offset + scale * static_cast<double>((k * 5) % 13);
  return v;
}

// A chain of ops, each on the inputs and the results before it (shape_test.cc defines these).
struct Step {
  std::string op;
  std::vector<int> operands;
  Attrs attrs;
};
OpRun run_chain(const std::vector<Input>& inputs, const std::vector<Step>& steps);
std::vector<double> iota(int64_t n, double from = 0);
void check_run_error(const OpRun& r, StatusCode code, const std::string& part);

}  // namespace plaidml::oplib::test
