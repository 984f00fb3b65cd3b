// Finite-difference gradient checks of every op of the "math" and "shape"
// groups of the op library, at several shapes each (size-1 and odd dims), with
// inputs away from kinks and ties. Ops without a gradient by design (prod,
// cumprod, argmax, argmin) get their exact error.
#include "oplib_fd.h"

#include <string>
#include <vector>

namespace plaidml::autodiff::test {
namespace {

using Dims = std::vector<int64_t>;
using Ints = std::vector<int64_t>;

const std::vector<Dims> kShapes = {{3, 4}, {1, 5}, {2, 1, 3}};

}  // namespace

TEST_CASE("oplib gradient: sum, mean, max, min, variance") {
  uint64_t seed = 100;
  for (std::string op : {"sum", "mean", "max", "min", "variance"}) {
    CAPTURE(op);
    for (const Dims &d : kShapes) {
      auto x = rand64(d, ++seed);
      check_op(op, {{"X", x}}, {}, {"X"});
      check_op(op, {{"X", x}}, {{"axes", Ints{0}}}, {"X"});
      check_op(op, {{"X", x}}, {{"axes", Ints{-1}}, {"keepdims", int64_t{1}}}, {"X"});
      check_op(op, {{"X", x}}, {{"axes", Ints{}}}, {"X"});
    }
    check_op(op, {{"X", rand64({2, 3, 3}, ++seed)}}, {{"axes", Ints{0, 2}}}, {"X"});
  }
  check_op("variance", {{"X", rand64({5, 3}, ++seed)}}, {{"axes", Ints{0}}, {"ddof", int64_t{1}}},
           {"X"});
}

TEST_CASE("oplib gradient: relu with alpha, max_value and threshold") {
  std::vector<Attrs> variants = {
      {},
      {{"alpha", 0.3}},
      {{"max_value", 0.5}},
      {{"threshold", 0.25}, {"alpha", 0.2}},
      {{"alpha", 0.1}, {"max_value", 0.6}, {"threshold", -0.35}},
  };
  uint64_t seed = 200;
  for (const Attrs &a : variants) {
    for (const Dims &d : kShapes) check_op("relu", {{"X", rand64(d, ++seed)}}, a, {"X"});
  }
}

TEST_CASE("oplib gradient: sigmoid, tanh, elu, gelu, hard_sigmoid, softplus, clip") {
  uint64_t seed = 300;
  struct Case {
    std::string op;
    Attrs attrs;
    double lo, hi;
  };
  std::vector<Case> cases = {
      {"sigmoid", {}, -3, 3},
      {"tanh", {}, -2, 2},
      {"elu", {}, -2, 2},
      {"elu", {{"alpha", 0.5}}, -2, 2},
      {"gelu", {}, -3, 3},
      {"gelu", {{"approximate", std::string("none")}}, -3, 3},
      {"gelu", {{"approximate", std::string("tanh")}}, -3, 3},
      {"hard_sigmoid", {}, -4, 4},
      {"hard_sigmoid", {{"alpha", 0.3}, {"beta", 0.4}}, -4, 4},
      {"softplus", {}, -5, 5},
      {"clip", {{"min", -0.5}, {"max", 0.5}}, -1, 1},
      {"clip", {{"min", -0.3}}, -1, 1},
      {"clip", {{"max", 0.2}}, -1, 1},
      {"clip", {}, -1, 1},
  };
  for (const Case &c : cases) {
    CAPTURE(c.op);
    for (const Dims &d : kShapes)
      check_op(c.op, {{"X", rand64(d, ++seed, c.lo, c.hi)}}, c.attrs, {"X"});
  }
}

TEST_CASE("oplib gradient: softmax and log_softmax over several axes") {
  uint64_t seed = 400;
  for (std::string op : {"softmax", "log_softmax"}) {
    CAPTURE(op);
    for (const Dims &d : kShapes) {
      for (int64_t axis = -1; axis < static_cast<int64_t>(d.size()); ++axis) {
        check_op(op, {{"X", rand64(d, ++seed, -2, 2)}}, {{"axis", axis}}, {"X"});
      }
    }
    check_op(op, {{"X", rand64({5}, ++seed, -2, 2)}}, {}, {"X"});
  }
}

TEST_CASE("oplib gradient: batch_norm w.r.t. input, scale, bias, mean, variance") {
  uint64_t seed = 500;
  struct Case {
    Dims x;
    int64_t c, axis;
  };
  for (const Case &k : std::vector<Case>{{{2, 3}, 3, -1}, {{1, 3, 2}, 3, 1}, {{3, 1, 1}, 1, 2}}) {
    std::vector<FdInput> in = {{"X", rand64(k.x, ++seed)},
                               {"S", rand64({k.c}, ++seed, 0.5, 2)},
                               {"B", rand64({k.c}, ++seed)},
                               {"M", rand64({k.c}, ++seed)},
                               {"V", rand64({k.c}, ++seed, 0.5, 2)}};
    check_op("batch_norm", in, {{"axis", k.axis}, {"epsilon", 1e-3}}, {"X", "S", "B", "M", "V"});
  }
  check_op("batch_norm",
           {{"X", rand64({2, 2}, 1)},
            {"S", rand64({2}, 2)},
            {"B", rand64({2}, 3)},
            {"M", rand64({2}, 4)},
            {"V", rand64({2}, 5, 0.5, 2)}},
           {}, {"X", "S", "B", "M", "V"});
}

TEST_CASE("oplib gradient: layer_norm w.r.t. input, scale, bias") {
  uint64_t seed = 600;
  check_op("layer_norm", {{"X", rand64({2, 3}, ++seed)}}, {}, {"X"});
  check_op("layer_norm", {{"X", rand64({3, 4}, ++seed)}, {"S", rand64({4}, ++seed)}}, {},
           {"X", "S"});
  check_op("layer_norm",
           {{"X", rand64({1, 5}, ++seed)}, {"S", rand64({5}, ++seed)}, {"B", rand64({5}, ++seed)}},
           {{"epsilon", 1e-3}}, {"X", "S", "B"});
  check_op("layer_norm",
           {{"X", rand64({2, 3, 2}, ++seed)},
            {"S", rand64({3, 2}, ++seed)},
            {"B", rand64({3, 2}, ++seed)}},
           {{"axes", Ints{1, 2}}}, {"X", "S", "B"});
  check_op(
      "layer_norm",
      {{"X", rand64({3, 1, 2}, ++seed)}, {"S", rand64({3}, ++seed)}, {"B", rand64({3}, ++seed)}},
      {{"axes", Ints{0}}}, {"X", "S", "B"});
}

TEST_CASE("oplib gradient: binary_crossentropy") {
  uint64_t seed = 700;
  for (const char *red : {"mean", "sum", "none"}) {
    CAPTURE(red);
    for (const Dims &d : std::vector<Dims>{{2, 3}, {1, 5}}) {
      auto t = rand64(d, ++seed, 0, 1);
      check_op("binary_crossentropy", {{"T", t}, {"O", rand64(d, ++seed, 0.05, 0.95)}},
               {{"reduction", std::string(red)}}, {"T", "O"});
      check_op("binary_crossentropy", {{"T", t}, {"O", rand64(d, ++seed, -3, 3)}},
               {{"reduction", std::string(red)}, {"from_logits", int64_t{1}}}, {"T", "O"});
    }
  }
}

TEST_CASE("oplib gradient: categorical_crossentropy") {
  uint64_t seed = 800;
  for (const char *red : {"mean", "sum", "none"}) {
    CAPTURE(red);
    for (const Dims &d : std::vector<Dims>{{2, 3}, {1, 5}, {3, 1}}) {
      auto t = rand64(d, ++seed, 0, 1);
      check_op("categorical_crossentropy", {{"T", t}, {"O", rand64(d, ++seed, 0.05, 0.95)}},
               {{"reduction", std::string(red)}}, {"T", "O"});
      check_op("categorical_crossentropy", {{"T", t}, {"O", rand64(d, ++seed, -3, 3)}},
               {{"reduction", std::string(red)}, {"from_logits", int64_t{1}}}, {"T", "O"});
    }
  }
  check_op("categorical_crossentropy",
           {{"T", rand64({3, 2}, 1, 0, 1)}, {"O", rand64({3, 2}, 2, -3, 3)}},
           {{"axis", int64_t{0}}, {"from_logits", int64_t{1}}}, {"T", "O"});
}

TEST_CASE("oplib gradient: cumsum, exclusive and reverse") {
  uint64_t seed = 900;
  for (const Dims &d : kShapes) {
    for (int64_t ex : {0, 1}) {
      for (int64_t rev : {0, 1}) {
        Attrs a = {{"axis", int64_t{-1}}, {"exclusive", ex}, {"reverse", rev}};
        check_op("cumsum", {{"X", rand64(d, ++seed)}}, a, {"X"});
        a["axis"] = int64_t{0};
        check_op("cumsum", {{"X", rand64(d, ++seed)}}, a, {"X"});
      }
    }
  }
}

TEST_CASE(
    "oplib gradient: prod, cumprod, argmax and argmin have none (exact "
    "errors)") {
  auto x = rand64({2, 3}, 1000);
  Status s = op_gradient_status("prod", {{"X", x}}, {{"axes", Ints{1}}}, {"X"}, 1);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "gradient: 'F' is a product (*) contraction, which has no gradient");
  s = op_gradient_status("cumprod", {{"X", x}}, {{"axis", int64_t{0}}}, {"X"}, 2);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "gradient: 'F' is a product (*) contraction, which has no gradient");
  for (std::string op : {"argmax", "argmin"}) {
    CAPTURE(op);
    s = op_gradient_status(op, {{"X", x}}, {{"axis", int64_t{1}}}, {"X"}, 1);
    CHECK(s.code() == StatusCode::kInvalidArgument);
    CHECK(s.message() ==
          "gradient: 'F' = as_int(_T8, 32) is not "
          "differentiable (an integer or boolean result)");
  }
}

TEST_CASE("oplib gradient: reshape, transpose, squeeze, unsqueeze, flatten") {
  uint64_t seed = 1100;
  check_op("reshape", {{"X", rand64({2, 3}, ++seed)}}, {{"shape", Ints{3, 2}}}, {"X"});
  check_op("reshape", {{"X", rand64({1, 5}, ++seed)}}, {{"shape", Ints{-1}}}, {"X"});
  check_op("reshape", {{"X", rand64({2, 1, 3}, ++seed)}}, {{"shape", Ints{3, -1, 1}}}, {"X"});
  check_op("transpose", {{"X", rand64({2, 3}, ++seed)}}, {}, {"X"});
  check_op("transpose", {{"X", rand64({2, 1, 3}, ++seed)}}, {{"perm", Ints{1, 2, 0}}}, {"X"});
  check_op("transpose", {{"X", rand64({3, 1}, ++seed)}}, {{"perm", Ints{0, 1}}}, {"X"});
  check_op("squeeze", {{"X", rand64({2, 1, 3}, ++seed)}}, {{"axes", Ints{1}}}, {"X"});
  check_op("squeeze", {{"X", rand64({1, 5}, ++seed)}}, {{"axes", Ints{-2}}}, {"X"});
  check_op("unsqueeze", {{"X", rand64({2, 3}, ++seed)}}, {{"axes", Ints{0, 3}}}, {"X"});
  check_op("unsqueeze", {{"X", rand64({5}, ++seed)}}, {{"axes", Ints{-1}}}, {"X"});
  check_op("flatten", {{"X", rand64({2, 1, 3}, ++seed)}}, {}, {"X"});
  check_op("flatten", {{"X", rand64({3, 2}, ++seed)}}, {{"axis", int64_t{0}}}, {"X"});
  check_op("flatten", {{"X", rand64({1, 3, 2}, ++seed)}}, {{"axis", int64_t{-1}}}, {"X"});
}

TEST_CASE("oplib gradient: concatenate, gradient to each input") {
  uint64_t seed = 1200;
  check_op("concatenate", {{"A", rand64({2, 3}, ++seed)}, {"B", rand64({1, 3}, ++seed)}}, {},
           {"A", "B"});
  check_op(
      "concatenate",
      {{"A", rand64({2, 1}, ++seed)}, {"B", rand64({2, 3}, ++seed)}, {"C", rand64({2, 2}, ++seed)}},
      {{"axis", int64_t{1}}}, {"A", "B", "C"});
  check_op("concatenate", {{"A", rand64({3}, ++seed)}}, {}, {"A"});
  check_op("concatenate", {{"A", rand64({1, 2, 1}, ++seed)}, {"B", rand64({1, 2, 3}, ++seed)}},
           {{"axis", int64_t{-1}}}, {"A", "B"});
}

TEST_CASE("oplib gradient: slice, also with negative steps") {
  uint64_t seed = 1300;
  auto x = rand64({4, 5}, ++seed);
  check_op("slice", {{"X", x}}, {{"starts", Ints{1}}, {"ends", Ints{3}}}, {"X"});
  check_op("slice", {{"X", x}},
           {{"starts", Ints{0, 4}}, {"ends", Ints{4, -6}}, {"steps", Ints{2, -2}}}, {"X"});
  check_op("slice", {{"X", x}},
           {{"starts", Ints{-1}}, {"ends", Ints{0}}, {"axes", Ints{1}}, {"steps", Ints{-1}}},
           {"X"});
  check_op("slice", {{"X", rand64({1, 3}, ++seed)}},
           {{"starts", Ints{0, 2}}, {"ends", Ints{1, -100}}, {"steps", Ints{1, -1}}}, {"X"});
}

TEST_CASE("oplib gradient: pad, constant, edge and reflect") {
  uint64_t seed = 1400;
  for (const char *mode : {"constant", "edge", "reflect"}) {
    CAPTURE(mode);
    Attrs a = {{"mode", std::string(mode)}, {"pads", Ints{1, 2, 2, 1}}};
    check_op("pad", {{"X", rand64({3, 4}, ++seed)}}, a, {"X"});
    a["pads"] = Ints{2, 0};
    check_op("pad", {{"X", rand64({5}, ++seed)}}, a, {"X"});
    a["pads"] = Ints{0, 1, 0, 0, 1, 0};
    check_op("pad", {{"X", rand64({1, 3, 2}, ++seed)}}, a, {"X"});
  }
  check_op("pad", {{"X", rand64({2, 3}, ++seed)}}, {{"pads", Ints{1, 0, 0, 1}}, {"value", 0.5}},
           {"X"});
}

TEST_CASE("oplib gradient: tile and repeat") {
  uint64_t seed = 1500;
  check_op("tile", {{"X", rand64({2, 3}, ++seed)}}, {{"reps", Ints{2, 1}}}, {"X"});
  check_op("tile", {{"X", rand64({1, 3}, ++seed)}}, {{"reps", Ints{2, 3, 1}}}, {"X"});
  check_op("tile", {{"X", rand64({3}, ++seed)}}, {{"reps", Ints{3}}}, {"X"});
  check_op("repeat", {{"X", rand64({2, 3}, ++seed)}},
           {{"repeats", int64_t{2}}, {"axis", int64_t{1}}}, {"X"});
  check_op("repeat", {{"X", rand64({1, 3}, ++seed)}}, {{"repeats", int64_t{3}}}, {"X"});
  check_op("repeat", {{"X", rand64({3, 1}, ++seed)}},
           {{"repeats", int64_t{2}}, {"axis", int64_t{0}}}, {"X"});
}

TEST_CASE("oplib gradient: gather w.r.t. the input, one_hot has no float operand") {
  uint64_t seed = 1600;
  check_op("gather", {{"X", rand64({4, 3}, ++seed)}, {"I", i32({5}, {0, 2, 2, -1, 7})}}, {}, {"X"});
  check_op("gather", {{"X", rand64({2, 5}, ++seed)}, {"I", i32({2, 2}, {4, 0, 1, 1})}},
           {{"axis", int64_t{1}}}, {"X"});
  check_op("gather", {{"X", rand64({1, 3}, ++seed)}, {"I", i32({3}, {0, 0, -1})}}, {}, {"X"});
  check_op("gather", {{"X", rand64({2, 3, 1}, ++seed)}, {"I", i32({1}, {2})}},
           {{"axis", int64_t{1}}}, {"X"});
  // one_hot's only operand is the indices, which reach the result only through
  // a comparison used as a select condition: no dependence, so the (undeclared)
  // indices get zeros.
  for (int64_t axis : {-1, 0}) {
    auto p = detail::with_loss(
        *op_program("one_hot", {{"I", i32({3}, {0, 2, 1})}},
                    {{"depth", int64_t{4}}, {"axis", axis}, {"dtype", std::string("float64")}}),
        "F", 2);
    auto g = detail::gradient_program(*p, {"I"});
    Dims w = axis == 0 ? Dims{4, 3} : Dims{3, 4};
    auto out = detail::run(g, {i32({3}, {0, 2, 1}), rand64(w, 1650)});
    HostTensor grad = detail::output(*g, out, "I_grad");
    CHECK(grad.shape.dims == Dims{3});
    CHECK(plaidml::testing::to_doubles(grad) == std::vector<double>{0, 0, 0});
  }
}

TEST_CASE("oplib gradient: every registered op is covered by these suites") {
  // A new op must get a gradient test here (or in oplib_fd_nn_test.cc) and be listed.
  const std::vector<std::string> covered = {"argmax",
                                            "argmin",
                                            "avg_pool",
                                            "batch_matmul",
                                            "batch_norm",
                                            "binary_crossentropy",
                                            "categorical_crossentropy",
                                            "clip",
                                            "concatenate",
                                            "conv",
                                            "conv_transpose",
                                            "cumprod",
                                            "cumsum",
                                            "dot",
                                            "elu",
                                            "flatten",
                                            "gather",
                                            "gelu",
                                            "gemm",
                                            "global_avg_pool",
                                            "global_max_pool",
                                            "hard_sigmoid",
                                            "layer_norm",
                                            "log_softmax",
                                            "matmul",
                                            "max",
                                            "max_pool",
                                            "mean",
                                            "min",
                                            "one_hot",
                                            "pad",
                                            "prod",
                                            "relu",
                                            "repeat",
                                            "reshape",
                                            "sigmoid",
                                            "slice",
                                            "softmax",
                                            "softplus",
                                            "squeeze",
                                            "sum",
                                            "tanh",
                                            "tile",
                                            "transpose",
                                            "unsqueeze",
                                            "variance"};
  CHECK(oplib::op_names() == covered);
}

}  // namespace plaidml::autodiff::test
