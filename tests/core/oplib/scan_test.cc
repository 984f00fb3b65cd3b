// cumsum / cumprod against a naive loop, every axis, exclusive and reverse.
#include "oplib_harness.h"

namespace plaidml::oplib::test {
namespace {

using plaidml::testing::random_tensor;

std::vector<double> naive_scan(const std::vector<int64_t>& dims, const std::vector<double>& v,
                               int64_t axis, bool prod, bool exclusive, bool reverse) {
  int64_t n = dims[axis], inner = 1;
  for (size_t k = axis + 1; k < dims.size(); ++k) inner *= dims[k];
  int64_t outer = n == 0 ? 0 : static_cast<int64_t>(v.size()) / (n * inner);
  std::vector<double> r(v.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double acc = prod ? 1 : 0;
      for (int64_t s = 0; s < n; ++s) {
        int64_t j = reverse ? n - 1 - s : s;
        int64_t at = (o * n + j) * inner + i;
        if (exclusive) r[at] = acc;
        acc = prod ? acc * v[at] : acc + v[at];
        if (!exclusive) r[at] = acc;
      }
    }
  }
  return r;
}

}  // namespace

TEST_CASE("cumsum / cumprod: every axis, exclusive and reverse") {
  for (bool prod : {false, true}) {
    std::string op = prod ? "cumprod" : "cumsum";
    for (std::vector<int64_t> dims : {std::vector<int64_t>{6}, {1, 5}, {3, 1, 4}, {2, 3, 5}}) {
      auto rank = static_cast<int64_t>(dims.size());
      for (DType dtype : {DType::F32, DType::I32}) {
        HostTensor x = random_tensor(Shape(dtype, dims), 3 + rank,
                                     {.lo = 0.5, .hi = 1.5, .int_lo = -3, .int_hi = 3});
        for (int64_t a = 0; a < rank; ++a) {
          for (int flags = 0; flags < 4; ++flags) {
            bool excl = flags & 1, rev = flags & 2;
            auto want = naive_scan(dims, to_doubles(x), a, prod, excl, rev);
            Attrs attrs{{"axis", a - (flags == 3 ? rank : 0)}};
            if (excl) attrs["exclusive"] = int64_t{1};
            if (rev) attrs["reverse"] = int64_t{1};
            INFO(op, " axis ", a, " exclusive ", excl, " reverse ", rev);
            check_tensor(run_ok(op, {{"X", x}}, attrs), make_tensor(dtype, dims, want));
          }
        }
      }
    }
  }
}

TEST_CASE("cumsum / cumprod: hand-computed") {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  check_tensor(run_ok("cumsum", {{"X", x}}, {{"axis", int64_t{1}}}),
               f32({2, 3}, {1, 3, 6, 4, 9, 15}));
  check_tensor(run_ok("cumsum", {{"X", x}}, {{"axis", int64_t{0}}}),
               f32({2, 3}, {1, 2, 3, 5, 7, 9}));
  check_tensor(run_ok("cumsum", {{"X", x}}, {{"axis", int64_t{-1}}, {"exclusive", int64_t{1}}}),
               f32({2, 3}, {0, 1, 3, 0, 4, 9}));
  check_tensor(run_ok("cumsum", {{"X", x}}, {{"axis", int64_t{1}}, {"reverse", int64_t{1}}}),
               f32({2, 3}, {6, 5, 3, 15, 11, 6}));
  check_tensor(run_ok("cumprod", {{"X", x}},
                      {{"axis", int64_t{1}}, {"reverse", int64_t{1}}, {"exclusive", int64_t{1}}}),
               f32({2, 3}, {6, 3, 1, 30, 6, 1}));
  check_tensor(run_ok("cumprod", {{"X", x}}, {{"axis", int64_t{1}}}),
               f32({2, 3}, {1, 2, 6, 4, 20, 120}));
}

TEST_CASE("cumsum / cumprod: errors") {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  check_op_error("cumsum", {{"X", x}}, {}, StatusCode::kInvalidArgument,
                 "cumsum: attribute 'axis' (an integer) is required");
  check_op_error("cumprod", {{"X", x}}, {{"axis", int64_t{2}}}, StatusCode::kTypeError,
                 "cumprod: attribute 'axis' is 2, out of range for rank 2");
  check_op_error("cumsum", {{"X", x}}, {{"axis", int64_t{-3}}}, StatusCode::kTypeError,
                 "cumsum: attribute 'axis' is -3, out of range for rank 2");
  check_op_error("cumsum", {{"X", x}}, {{"axis", int64_t{0}}, {"exclusive", int64_t{2}}},
                 StatusCode::kInvalidArgument,
                 "cumsum: attribute 'exclusive' must be 0 or 1, got 2");
  check_op_error("cumprod", {{"X", x}}, {{"axis", int64_t{0}}, {"reverse", 0.5}},
                 StatusCode::kInvalidArgument,
                 "cumprod: attribute 'reverse' must be an integer, not a float");
  check_op_error("cumsum", {{"X", f32({}, {1})}}, {{"axis", int64_t{0}}}, StatusCode::kTypeError,
                 "cumsum: attribute 'axis' is 0, out of range for rank 0");
}

}  // namespace plaidml::oplib::test
