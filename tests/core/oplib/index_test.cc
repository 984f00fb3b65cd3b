// gather (numpy.take along an axis) and one_hot against naive loops.
#include "oplib_harness.h"

namespace plaidml::oplib::test {
namespace {

using Ints = Dims;

// numpy.take(x, idx, axis) with negative indices from the end and out-of-range clamped.
HostTensor naive_take(const Ints& dims, const std::vector<double>& x, const Ints& idx_dims,
                      const std::vector<double>& idx, size_t axis) {
  int64_t outer = count(Ints(dims.begin(), dims.begin() + axis));
  int64_t inner = count(Ints(dims.begin() + axis + 1, dims.end()));
  int64_t d = dims[axis];
  Ints out_dims(dims.begin(), dims.begin() + axis);
  out_dims.insert(out_dims.end(), idx_dims.begin(), idx_dims.end());
  out_dims.insert(out_dims.end(), dims.begin() + axis + 1, dims.end());
  std::vector<double> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (double iv : idx) {
      auto i = static_cast<int64_t>(iv);
      if (i < 0) i += d;
      i = std::clamp<int64_t>(i, 0, d - 1);
      for (int64_t n = 0; n < inner; ++n) out.push_back(x[(o * d + i) * inner + n]);
    }
  }
  return f32(out_dims, out);
}

TEST_CASE("gather: every axis, index ranks 0 to 2, negative indices") {
  Ints dims = {3, 4, 5};
  std::vector<double> x = iota(60, 0);
  struct Idx {
    Ints dims;
    std::vector<double> v;
  };
  for (const Idx& idx : {Idx{{}, {2}}, Idx{{2}, {0, -1}}, Idx{{2, 3}, {1, 0, 2, -2, 2, 1}},
                         Idx{{0}, {}}, Idx{{1, 1}, {-3}}}) {
    for (int64_t axis : {0, 1, 2, -1, -2}) {
      size_t a = axis < 0 ? axis + 3 : axis;
      INFO("axis " << axis << " idx rank " << idx.dims.size());
      check_tensor(
          run_ok("gather", {{"X", f32(dims, x)}, {"I", i32(idx.dims, idx.v)}}, {{"axis", axis}}),
          naive_take(dims, x, idx.dims, idx.v, a));
    }
  }
  // 1-D input, int64 indices; out-of-range indices clamp (Tile's gather).
  check_tensor(run_ok("gather", {{"X", f32({4}, {10, 11, 12, 13})},
                                 {"I", make_tensor(DType::I64, {4}, {3, -4, 9, -9})}}),
               f32({4}, {13, 10, 13, 10}));
}

TEST_CASE("gather: errors") {
  auto i = Input{"I", i32({1}, {0})};
  check_op_error("gather", {{"X", f32({}, {1})}, i}, {}, StatusCode::kTypeError,
                 "gather: argument 'input' is a scalar; it needs rank 1 or more");
  check_op_error("gather", {{"X", f32({2, 3}, iota(6, 0))}, i}, {{"axis", int64_t{2}}},
                 StatusCode::kTypeError, "gather: attribute 'axis' is 2, out of range for rank 2");
  check_op_error("gather", {{"X", f32({2}, {1, 2})}}, {}, StatusCode::kInvalidArgument,
                 "gather: takes 2 operands (input, indices), got 1");
  // An empty axis: at bind for a symbolic size (even with no indices), while building for a
  // literal one (made by reshape).
  check_run_error(run_op("gather", {{"X", f32({2, 0}, {})}, i}, {{"axis", int64_t{1}}}),
                  StatusCode::kTypeError,
                  "2:3: gather: axis 1 has size 0; there is nothing to gather");
  check_run_error(run_op("gather", {{"X", f32({0}, {})}, {"I", i32({0}, {})}}),
                  StatusCode::kTypeError,
                  "2:3: gather: axis 0 has size 0; there is nothing to gather");
  OpRun r = run_chain({{"X", f32({0}, {})}, i},
                      {{"reshape", {0}, {{"shape", Ints{0, 3}}}}, {"gather", {2, 1}, {}}});
  CHECK(r.status.code() == StatusCode::kTypeError);
  CHECK(r.status.message() == "gather: axis 0 has size 0; there is nothing to gather");
  // Float indices are rejected when the program is bound.
  check_run_error(run_op("gather", {{"X", f32({2}, {1, 2})}, {"I", f32({1}, {0})}}),
                  StatusCode::kTypeError, "must have an integer dtype");
}

// one_hot of indices (dims idx_dims) with the new axis at `axis` (normalised).
std::vector<double> naive_one_hot(const Ints& idx_dims, const std::vector<double>& idx,
                                  int64_t depth, size_t axis, double on, double off) {
  int64_t outer = count(Ints(idx_dims.begin(), idx_dims.begin() + axis));
  int64_t inner = count(Ints(idx_dims.begin() + axis, idx_dims.end()));
  std::vector<double> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t d = 0; d < depth; ++d) {
      for (int64_t n = 0; n < inner; ++n) {
        auto i = static_cast<int64_t>(idx[o * inner + n]);
        if (i < 0) i += depth;
        out.push_back(i == d ? on : off);
      }
    }
  }
  return out;
}

Ints with_axis(Ints dims, size_t axis, int64_t depth) {
  dims.insert(dims.begin() + axis, depth);
  return dims;
}

TEST_CASE("one_hot: axes, negative and out-of-range indices, values, dtypes") {
  Ints idims = {2, 3};
  std::vector<double> idx = {0, 3, -1, 4, -5, 2};
  for (int64_t axis : {-1, 0, 1, 2, -3}) {
    size_t a = axis < 0 ? axis + 3 : axis;
    INFO("axis " << axis);
    check_tensor(
        run_ok("one_hot", {{"I", i32(idims, idx)}}, {{"depth", int64_t{4}}, {"axis", axis}}),
        f32(with_axis(idims, a, 4), naive_one_hot(idims, idx, 4, a, 1, 0)));
  }
  check_tensor(run_ok("one_hot", {{"I", make_tensor(DType::I64, {3}, {1, 0, 7})}},
                      {{"depth", int64_t{2}},
                       {"on_value", 5.0},
                       {"off_value", -1.0},
                       {"dtype", std::string("float64")}}),
               f64({3, 2}, {-1, 5, 5, -1, -1, -1}));
  check_tensor(
      run_ok("one_hot", {{"I", i32({2}, {2, 0})}},
             {{"depth", int64_t{3}}, {"dtype", std::string("int32")}, {"on_value", int64_t{7}}}),
      i32({2, 3}, {0, 0, 7, 7, 0, 0}));
  // float64 values keep their precision (no float32 step on the way).
  HostTensor r =
      run_ok("one_hot", {{"I", i32({2}, {1, 0})}},
             {{"depth", int64_t{2}}, {"on_value", 0.1}, {"dtype", std::string("float64")}});
  CHECK(r.shape.dtype == DType::F64);
  CHECK(to_doubles(r) == std::vector<double>{0, 0.1, 0.1, 0});
  check_tensor(run_ok("one_hot", {{"I", i32({3}, {2, 5, -3})}},
                      {{"depth", int64_t{3}}, {"dtype", std::string("bool")}}),
               make_tensor(DType::Bool, {3, 3}, {0, 0, 1, 0, 0, 0, 1, 0, 0}));
  check_tensor(run_ok("one_hot", {{"I", i32({}, {1})}}, {{"depth", int64_t{3}}}),
               f32({3}, {0, 1, 0}));
  check_tensor(run_ok("one_hot", {{"I", i32({0}, {})}}, {{"depth", int64_t{3}}}), f32({0, 3}, {}));
}

TEST_CASE("one_hot: errors") {
  auto i = Input{"I", i32({2}, {0, 1})};
  check_op_error("one_hot", {i}, {}, StatusCode::kInvalidArgument,
                 "one_hot: attribute 'depth' (an integer) is required");
  check_op_error("one_hot", {i}, {{"depth", int64_t{0}}}, StatusCode::kInvalidArgument,
                 "one_hot: attribute 'depth' is 0; it must be >= 1");
  check_op_error("one_hot", {i}, {{"depth", int64_t{2}}, {"axis", int64_t{2}}},
                 StatusCode::kTypeError, "one_hot: attribute 'axis' is 2, out of range for rank 2");
  check_op_error("one_hot", {i}, {{"depth", int64_t{2}}, {"dtype", std::string("complex")}},
                 StatusCode::kInvalidArgument,
                 "one_hot: attribute 'dtype' must be float16, bfloat16, float32, float64, int8, "
                 "int16, int32, int64, uint8, uint16, uint32, uint64 or bool, got 'complex'");
}

}  // namespace
}  // namespace plaidml::oplib::test
