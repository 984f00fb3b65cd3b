// reshape, transpose, squeeze, unsqueeze, flatten: expected values are the input's elements in
// row-major order (reshapes) or from a naive loop (transpose).
#include "oplib_harness.h"

namespace plaidml::oplib::test {

// Builds a chain of ops: step k applies to `operands` (indices into inputs..., then earlier
// step results) and the last step is R. Like run_op, it prints, reparses, binds and evaluates.
// Used where an op must see literal dims (made by an earlier reshape) or a chained layout.
OpRun run_chain(const std::vector<Input>& inputs, const std::vector<Step>& steps) {
  ir::ProgramBuilder b("chain");
  std::vector<ir::ValueId> values;
  for (const Input& in : inputs) {
    auto id = b.add_input(in.name, dim_names(in), std::nullopt, {});
    if (!id) return {id.status(), {}, ""};
    values.push_back(*id);
  }
  for (const Step& s : steps) {
    std::vector<ir::ValueId> ops;
    for (int k : s.operands) ops.push_back(values.at(k));
    auto r = apply(b, s.op, ops, s.attrs);
    if (!r) return {r.status(), {}, ""};
    values.push_back(*r);
  }
  if (Status s = b.assign("R", values.back(), {}); !s.is_ok()) return {s, {}, ""};
  if (Status s = b.add_output("R", {}); !s.is_ok()) return {s, {}, ""};
  auto program = b.finish();
  if (!program) return {program.status(), {}, ""};
  OpRun r;
  r.tile = ir::print_tile(**program);
  auto reparsed = parse::parse_tile(r.tile);
  if (!reparsed) return {reparsed.status(), {}, r.tile};
  std::vector<Shape> shapes;
  std::vector<HostTensor> values_in;
  for (const Input& in : inputs) {
    shapes.push_back(in.value.shape);
    values_in.push_back(in.value);
  }
  auto bound = ir::bind(*reparsed, shapes);
  if (!bound) return {bound.status(), {}, r.tile};
  auto out = eval::evaluate(*bound, values_in);
  if (!out) return {out.status(), {}, r.tile};
  r.outputs = std::move(*out);
  return r;
}

std::vector<double> iota(int64_t n, double from) {
  std::vector<double> v;
  for (int64_t k = 0; k < n; ++k) v.push_back(from + static_cast<double>(k));
  return v;
}

// A bind-time (run-time) failure: the code and a piece of the message.
void check_run_error(const OpRun& r, StatusCode code, const std::string& part) {
  INFO(r.tile);
  INFO(r.status.message());
  CHECK(!r.status.is_ok());
  CHECK(r.status.code() == code);
  CHECK(r.status.message().find(part) != std::string::npos);
}

namespace {

TEST_CASE("reshape: literal shapes, -1 inference, size 0") {
  check_tensor(
      run_ok("reshape", {{"X", f32({2, 3}, iota(6))}}, {{"shape", std::vector<int64_t>{3, 2}}}),
      f32({3, 2}, iota(6)));
  check_tensor(run_ok("reshape", {{"X", f32({2, 3, 4}, iota(24))}},
                      {{"shape", std::vector<int64_t>{4, -1}}}),
               f32({4, 6}, iota(24)));
  check_tensor(
      run_ok("reshape", {{"X", f32({5}, iota(5))}}, {{"shape", std::vector<int64_t>{-1, 1}}}),
      f32({5, 1}, iota(5)));
  check_tensor(run_ok("reshape", {{"X", f32({0, 3}, {})}}, {{"shape", std::vector<int64_t>{-1}}}),
               f32({0}, {}));
  check_tensor(run_ok("reshape", {{"X", f32({0, 3}, {})}}, {{"shape", std::vector<int64_t>{2, 0}}}),
               f32({2, 0}, {}));
  check_tensor(run_ok("reshape", {{"X", f32({1}, {7})}}, {{"shape", std::vector<int64_t>{}}}),
               f32({}, {7}));
}

TEST_CASE("reshape: errors") {
  auto x = Input{"X", f32({2, 3}, iota(6))};
  check_op_error("reshape", {x}, {}, StatusCode::kInvalidArgument,
                 "reshape: attribute 'shape' (a list of integers) is required");
  check_op_error("reshape", {x}, {{"shape", std::vector<int64_t>{-1, -1}}},
                 StatusCode::kInvalidArgument,
                 "reshape: attribute 'shape' has more than one -1 (inferred) entry");
  check_op_error("reshape", {x}, {{"shape", std::vector<int64_t>{2, -3}}},
                 StatusCode::kInvalidArgument,
                 "reshape: attribute 'shape' has -3 at position 1; sizes must be >= 0 or -1");
  check_op_error("reshape", {x}, {{"shape", std::vector<int64_t>{0, -1}}},
                 StatusCode::kInvalidArgument,
                 "reshape: attribute 'shape' cannot infer the -1 entry beside a size 0");
  // Counts that do not match are found when the program is bound to the input's shape.
  check_run_error(run_op("reshape", {x}, {{"shape", std::vector<int64_t>{4}}}),
                  StatusCode::kTypeError, "changes the element count from 6 to 4");
  check_run_error(run_op("reshape", {x}, {{"shape", std::vector<int64_t>{4, -1}}}),
                  StatusCode::kTypeError, "changes the element count from 6 to 4");
}

// Naive transpose: out[j...] = x[i...] with j[k] = i[perm[k]].
HostTensor naive_transpose(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  size_t n = dims.size();
  std::vector<int64_t> out_dims(n), strides(n, 1), out_strides(n, 1);
  for (size_t k = 0; k < n; ++k) out_dims[k] = dims[perm[k]];
  for (size_t k = n - 1; k-- > 0;) strides[k] = strides[k + 1] * dims[k + 1];
  for (size_t k = n - 1; k-- > 0;) out_strides[k] = out_strides[k + 1] * out_dims[k + 1];
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  std::vector<double> out(total);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t o = 0;
    for (size_t k = 0; k < n; ++k)
      o += ((flat / strides[perm[k]]) % dims[perm[k]]) * out_strides[k];
    out[o] = static_cast<double>(flat);
  }
  return f32(out_dims, out);
}

TEST_CASE("transpose: default reverses the axes, explicit perms") {
  check_tensor(run_ok("transpose", {{"X", f32({2, 3, 4}, iota(24))}}),
               naive_transpose({2, 3, 4}, {2, 1, 0}));
  check_tensor(run_ok("transpose", {{"X", f32({2, 3}, iota(6))}}), f32({3, 2}, {0, 3, 1, 4, 2, 5}));
  check_tensor(run_ok("transpose", {{"X", f32({2, 3, 5}, iota(30))}},
                      {{"perm", std::vector<int64_t>{1, 0, 2}}}),
               naive_transpose({2, 3, 5}, {1, 0, 2}));
  check_tensor(run_ok("transpose", {{"X", f32({1, 3, 2, 1}, iota(6))}},
                      {{"perm", std::vector<int64_t>{3, 0, 2, 1}}}),
               naive_transpose({1, 3, 2, 1}, {3, 0, 2, 1}));
  check_tensor(run_ok("transpose", {{"X", f32({4}, iota(4))}}), f32({4}, iota(4)));
  check_tensor(run_ok("transpose", {{"X", f32({0, 3}, {})}}), f32({3, 0}, {}));
}

TEST_CASE("transpose: errors") {
  auto x = Input{"X", f32({2, 3}, iota(6))};
  check_op_error("transpose", {x}, {{"perm", std::vector<int64_t>{0}}},
                 StatusCode::kInvalidArgument,
                 "transpose: attribute 'perm' has 1 entries but the input has rank 2");
  check_op_error("transpose", {x}, {{"perm", std::vector<int64_t>{1, 1}}},
                 StatusCode::kInvalidArgument,
                 "transpose: attribute 'perm' must be a permutation of 0..1, got 1, 1");
  check_op_error("transpose", {x}, {{"perm", std::vector<int64_t>{0, 2}}},
                 StatusCode::kInvalidArgument,
                 "transpose: attribute 'perm' must be a permutation of 0..1, got 0, 2");
  check_op_error("transpose", {x}, {{"perm", std::vector<int64_t>{-1, 0}}},
                 StatusCode::kInvalidArgument,
                 "transpose: attribute 'perm' must be a permutation of 0..1, got -1, 0");
}

TEST_CASE("squeeze: explicit axes checked at bind, default drops literal 1s") {
  check_tensor(run_ok("squeeze", {{"X", f32({1, 3, 1, 2}, iota(6))}},
                      {{"axes", std::vector<int64_t>{0, -2}}}),
               f32({3, 2}, iota(6)));
  check_tensor(run_ok("squeeze", {{"X", f32({3, 1}, iota(3))}}, {{"axes", int64_t{1}}}),
               f32({3}, iota(3)));
  check_tensor(run_ok("squeeze", {{"X", f32({1}, {4})}}, {{"axes", std::vector<int64_t>{0}}}),
               f32({}, {4}));
  // Input dims are symbolic, so the default drops nothing...
  check_tensor(run_ok("squeeze", {{"X", f32({1, 2}, iota(2))}}), f32({1, 2}, iota(2)));
  // ...but drops the literal 1s an earlier reshape made.
  OpRun r = run_chain(
      {{"X", f32({2, 3}, iota(6))}},
      {{"reshape", {0}, {{"shape", std::vector<int64_t>{1, 2, 1, 3, 1}}}}, {"squeeze", {1}, {}}});
  REQUIRE(r.status.is_ok());
  check_tensor(r.outputs[0], f32({2, 3}, iota(6)));
}

TEST_CASE("squeeze: errors") {
  auto x = Input{"X", f32({1, 3}, iota(3))};
  check_op_error("squeeze", {x}, {{"axes", std::vector<int64_t>{2}}}, StatusCode::kTypeError,
                 "squeeze: attribute 'axes' is 2, out of range for rank 2");
  check_op_error("squeeze", {x}, {{"axes", std::vector<int64_t>{0, -2}}},
                 StatusCode::kInvalidArgument, "squeeze: attribute 'axes' names axis 0 twice");
  // A symbolic size that is not 1 fails at bind, also when the input has no elements.
  check_run_error(run_op("squeeze", {x}, {{"axes", std::vector<int64_t>{1}}}),
                  StatusCode::kTypeError, "2:3: squeeze: axis 1 has size 3, not 1");
  check_run_error(run_op("squeeze", {{"X", f32({0, 3}, {})}}, {{"axes", std::vector<int64_t>{1}}}),
                  StatusCode::kTypeError, "2:3: squeeze: axis 1 has size 3, not 1");
  check_run_error(run_op("squeeze", {{"X", f32({3, 0}, {})}}, {{"axes", std::vector<int64_t>{1}}}),
                  StatusCode::kTypeError, "2:3: squeeze: axis 1 has size 0, not 1");
  // A literal size other than 1 is an error while building.
  OpRun r = run_chain({x}, {{"reshape", {0}, {{"shape", std::vector<int64_t>{3, 1}}}},
                            {"squeeze", {1}, {{"axes", std::vector<int64_t>{0}}}}});
  CHECK(r.status.code() == StatusCode::kTypeError);
  CHECK(r.status.message() == "squeeze: axis 0 has size 3, not 1");
}

TEST_CASE("unsqueeze: positions in the output, negative allowed") {
  auto x = Input{"X", f32({2, 3}, iota(6))};
  check_tensor(run_ok("unsqueeze", {x}, {{"axes", std::vector<int64_t>{0}}}),
               f32({1, 2, 3}, iota(6)));
  check_tensor(run_ok("unsqueeze", {x}, {{"axes", std::vector<int64_t>{-1}}}),
               f32({2, 3, 1}, iota(6)));
  check_tensor(run_ok("unsqueeze", {x}, {{"axes", std::vector<int64_t>{3, 1}}}),
               f32({2, 1, 3, 1}, iota(6)));
  check_tensor(run_ok("unsqueeze", {{"X", f32({}, {5})}}, {{"axes", std::vector<int64_t>{0, 1}}}),
               f32({1, 1}, {5}));
  check_tensor(run_ok("unsqueeze", {{"X", f32({0}, {})}}, {{"axes", int64_t{0}}}), f32({1, 0}, {}));
}

TEST_CASE("unsqueeze: errors") {
  auto x = Input{"X", f32({2, 3}, iota(6))};
  check_op_error("unsqueeze", {x}, {}, StatusCode::kInvalidArgument,
                 "unsqueeze: attribute 'axes' (a list of integers) is required");
  check_op_error("unsqueeze", {x}, {{"axes", std::vector<int64_t>{3}}}, StatusCode::kTypeError,
                 "unsqueeze: attribute 'axes' is 3, out of range for rank 3");
  check_op_error("unsqueeze", {x}, {{"axes", std::vector<int64_t>{0, -4}}},
                 StatusCode::kInvalidArgument, "unsqueeze: attribute 'axes' names axis 0 twice");
}

TEST_CASE("flatten: ONNX axis, default 1") {
  auto x = Input{"X", f32({2, 3, 4}, iota(24))};
  check_tensor(run_ok("flatten", {x}), f32({2, 12}, iota(24)));
  check_tensor(run_ok("flatten", {x}, {{"axis", int64_t{0}}}), f32({1, 24}, iota(24)));
  check_tensor(run_ok("flatten", {x}, {{"axis", int64_t{3}}}), f32({24, 1}, iota(24)));
  check_tensor(run_ok("flatten", {x}, {{"axis", int64_t{-1}}}), f32({6, 4}, iota(24)));
  check_tensor(run_ok("flatten", {{"X", f32({0, 5}, {})}}), f32({0, 5}, {}));
  check_op_error("flatten", {x}, {{"axis", int64_t{4}}}, StatusCode::kTypeError,
                 "flatten: attribute 'axis' is 4, out of range for rank 3");
  check_op_error("flatten", {x}, {{"axis", int64_t{-4}}}, StatusCode::kTypeError,
                 "flatten: attribute 'axis' is -4, out of range for rank 3");
}

}  // namespace
}  // namespace plaidml::oplib::test
