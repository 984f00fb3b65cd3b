// Finite-difference gradient checks of the op library's linear algebra,
// convolutions and pooling (docs/ops-nn.md), w.r.t. every float operand, at
// several shapes and attribute choices.
#include <string>
#include <vector>

#include "oplib_fd.h"

namespace plaidml::autodiff::test {
namespace {

using Ints = std::vector<int64_t>;

std::string str(const char *s) { return s; }

}  // namespace

TEST_CASE("oplib gradient: matmul with broadcasting, batch_matmul, dot") {
  uint64_t seed = 2000;
  auto mm = [&](Ints a, Ints b, const char *op = "matmul") {
    check_op(op, {{"A", rand64(a, ++seed)}, {"B", rand64(b, ++seed)}}, {}, {"A", "B"});
  };
  mm({2, 3}, {3, 4});
  mm({1, 1}, {1, 3});
  mm({3}, {3, 2});
  mm({2, 3}, {3});
  mm({3}, {3});
  mm({2, 1, 2, 3}, {3, 3, 1});
  mm({1, 2, 3}, {2, 3, 2});
  mm({2, 2, 3}, {2, 3, 1}, "batch_matmul");
  mm({1, 3, 2}, {1, 2, 2}, "batch_matmul");
  mm({3}, {3}, "dot");
  mm({2, 3}, {3, 2}, "dot");
  mm({2, 1, 3}, {3}, "dot");
  mm({2, 3}, {2, 3, 1}, "dot");
  mm({}, {2, 3}, "dot");
}

TEST_CASE("oplib gradient: gemm with alpha, beta, transposes and C") {
  uint64_t seed = 2100;
  for (int64_t ta : {0, 1}) {
    for (int64_t tb : {0, 1}) {
      Ints a = ta ? Ints{3, 2} : Ints{2, 3}, b = tb ? Ints{4, 3} : Ints{3, 4};
      Attrs at = {{"trans_a", ta}, {"trans_b", tb}, {"alpha", 0.7}, {"beta", -1.3}};
      check_op("gemm",
               {{"A", rand64(a, ++seed)}, {"B", rand64(b, ++seed)}, {"C", rand64({2, 4}, ++seed)}},
               at, {"A", "B", "C"});
    }
  }
  check_op("gemm", {{"A", rand64({1, 3}, ++seed)}, {"B", rand64({3, 1}, ++seed)}}, {}, {"A", "B"});
  check_op(
      "gemm",
      {{"A", rand64({3, 2}, ++seed)}, {"B", rand64({2, 5}, ++seed)}, {"C", rand64({5}, ++seed)}},
      {{"beta", 2.0}}, {"A", "B", "C"});
  check_op(
      "gemm",
      {{"A", rand64({2, 2}, ++seed)}, {"B", rand64({2, 3}, ++seed)}, {"C", rand64({}, ++seed)}}, {},
      {"A", "B", "C"});
}

TEST_CASE("oplib gradient: conv, every option") {
  uint64_t seed = 2200;
  struct Case {
    Ints x, k;
    Attrs a;
    bool bias;
  };
  std::vector<Case> cases = {
      {{1, 5, 2}, {3, 2, 3}, {}, false},
      {{2, 5, 1}, {2, 1, 2}, {{"strides", Ints{2}}, {"padding", str("same_upper")}}, true},
      {{1, 6, 2}, {2, 2, 2}, {{"dilations", Ints{2}}, {"padding", str("same_lower")}}, true},
      {{1, 4, 3, 2},
       {2, 2, 2, 2},
       {{"padding", str("explicit")}, {"pads", Ints{1, 0, 0, 1}}, {"strides", Ints{2, 1}}},
       true},
      {{1, 3, 3, 4}, {2, 2, 2, 4}, {{"groups", int64_t{2}}}, true},
      {{1, 3, 3, 2}, {2, 1, 1, 4}, {{"groups", int64_t{2}}, {"padding", str("same_upper")}}, false},
      {{1, 2, 5, 3},
       {3, 2, 3, 2},
       {{"layout", str("channels_first")}, {"kernel_layout", str("OIHW")}},
       true},
      {{2, 2, 4},
       {2, 2, 2},
       {{"layout", str("channels_first")},
        {"kernel_layout", str("OIHW")},
        {"padding", str("same_lower")}},
       false},
  };
  for (const Case &c : cases) {
    std::vector<FdInput> in = {{"X", rand64(c.x, ++seed)}, {"K", rand64(c.k, ++seed)}};
    std::vector<std::string> wrt = {"X", "K"};
    if (c.bias) {
      bool oihw = c.a.count("kernel_layout") != 0;
      in.push_back({"B", rand64({oihw ? c.k.front() : c.k.back()}, ++seed)});
      wrt.push_back("B");
    }
    check_op("conv", in, c.a, wrt);
  }
}

TEST_CASE("oplib gradient: conv_transpose") {
  uint64_t seed = 2300;
  struct Case {
    Ints x, k;
    Attrs a;
    bool bias;
  };
  std::vector<Case> cases = {
      {{1, 3, 2}, {3, 3, 2}, {}, false},
      {{2, 3, 1}, {2, 2, 1}, {{"strides", Ints{2}}, {"output_padding", Ints{1}}}, true},
      {{1, 2, 3, 2}, {2, 2, 1, 2}, {{"padding", str("same_upper")}, {"strides", Ints{2, 1}}}, true},
      {{1, 2, 2, 3},
       {2, 1, 3, 3},
       {{"layout", str("channels_first")},
        {"kernel_layout", str("OIHW")},
        {"padding", str("explicit")},
        {"pads", Ints{1, 0, 0, 1}}},
       false},
      {{1, 3, 4}, {2, 3, 4}, {{"groups", int64_t{2}}, {"dilations", Ints{2}}}, false},
  };
  for (const Case &c : cases) {
    check_op("conv_transpose", {{"X", rand64(c.x, ++seed)}, {"K", rand64(c.k, ++seed)}}, c.a,
             {"X", "K"});
  }
  check_op("conv_transpose",
           {{"X", rand64({1, 3, 2}, ++seed)},
            {"K", rand64({2, 3, 2}, ++seed)},
            {"B", rand64({3}, ++seed)}},
           {}, {"X", "K", "B"});
}

TEST_CASE("oplib gradient: max_pool, avg_pool, global pools") {
  uint64_t seed = 2400;
  std::vector<Attrs> variants = {
      {{"kernel", Ints{2}}},
      {{"kernel", Ints{3}}, {"strides", Ints{1}}, {"padding", str("same_upper")}},
      {{"kernel", Ints{2}},
       {"strides", Ints{2}},
       {"padding", str("explicit")},
       {"pads", Ints{1, 0}}},
      {{"kernel", Ints{2}}, {"padding", str("same_lower")}, {"layout", str("channels_first")}},
  };
  for (std::string op : {"max_pool", "avg_pool"}) {
    CAPTURE(op);
    for (const Attrs &a : variants) {
      check_op(op, {{"X", rand64({2, 5, 2}, ++seed)}}, a, {"X"});
      check_op(op, {{"X", rand64({1, 4, 1}, ++seed)}}, a, {"X"});
    }
    check_op(op, {{"X", rand64({1, 3, 5, 2}, ++seed)}},
             {{"kernel", Ints{2, 3}}, {"strides", Ints{1, 2}}}, {"X"});
  }
  check_op("avg_pool", {{"X", rand64({1, 5, 2}, ++seed)}},
           {{"kernel", Ints{3}}, {"padding", str("same_upper")}, {"count_include_pad", int64_t{1}}},
           {"X"});
  for (std::string op : {"global_avg_pool", "global_max_pool"}) {
    CAPTURE(op);
    check_op(op, {{"X", rand64({2, 3, 2}, ++seed)}}, {}, {"X"});
    check_op(op, {{"X", rand64({1, 2, 3, 1}, ++seed)}}, {{"keepdims", int64_t{1}}}, {"X"});
    check_op(op, {{"X", rand64({1, 2, 1, 3}, ++seed)}}, {{"layout", str("channels_first")}}, {"X"});
  }
}

TEST_CASE("oplib gradient: 3-D conv, depthwise conv, 2-D pools channels_first, gemm C shapes") {
  uint64_t seed = 2500;
  check_op("conv", {{"X", rand64({1, 3, 2, 3, 1}, ++seed)}, {"K", rand64({2, 1, 2, 1, 2}, ++seed)}},
           {{"padding", str("same_upper")}, {"strides", Ints{2, 1, 1}}}, {"X", "K"});
  // Depthwise: groups = channels, kernel in 1, multiplier 2; dilated and strided.
  check_op("conv",
           {{"X", rand64({1, 5, 4, 2}, ++seed)},
            {"K", rand64({2, 2, 1, 4}, ++seed)},
            {"B", rand64({4}, ++seed)}},
           {{"groups", int64_t{2}}, {"dilations", Ints{2, 1}}, {"strides", Ints{1, 2}}},
           {"X", "K", "B"});
  for (const char *op : {"max_pool", "avg_pool"}) {
    CAPTURE(std::string(op));
    check_op(op, {{"X", rand64({1, 2, 3, 4}, ++seed)}},
             {{"kernel", Ints{2, 2}},
              {"strides", Ints{1, 2}},
              {"padding", str("explicit")},
              {"pads", Ints{1, 0, 0, 1}},
              {"layout", str("channels_first")}},
             {"X"});
  }
  for (Ints c : {Ints{1, 4}, Ints{2, 1}}) {
    check_op(
        "gemm",
        {{"A", rand64({2, 3}, ++seed)}, {"B", rand64({3, 4}, ++seed)}, {"C", rand64(c, ++seed)}},
        {{"beta", 0.5}}, {"A", "B", "C"});
  }
}

}  // namespace plaidml::autodiff::test
