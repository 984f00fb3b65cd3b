// matmul, dot, batch_matmul and gemm against naive loops over plain arrays.
#include <numeric>

#include "oplib_harness.h"

namespace plaidml::oplib::test {
namespace {

std::vector<double> matmul_seq(size_t n, double scale = 0.5, double offset = -1.0) {
  std::vector<double> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = offset + scale * static_cast<double>((k * 7) % 11);
  return v;
}

// numpy.matmul on row-major arrays: the oracle.
HostTensor ref_matmul(const std::vector<int64_t>& sa, const std::vector<double>& a,
                      const std::vector<int64_t>& sb, const std::vector<double>& b) {
  std::vector<int64_t> da = sa, db = sb;
  bool a1 = da.size() == 1, b1 = db.size() == 1;
  if (a1) da.insert(da.begin(), 1);
  if (b1) db.push_back(1);
  size_t nb = std::max(da.size(), db.size()) - 2;
  std::vector<int64_t> ba(nb, 1), bb(nb, 1), bo(nb);
  for (size_t j = 0; j + 2 < da.size(); ++j) ba[nb - (da.size() - 2) + j] = da[j];
  for (size_t j = 0; j + 2 < db.size(); ++j) bb[nb - (db.size() - 2) + j] = db[j];
  for (size_t j = 0; j < nb; ++j) bo[j] = std::max(ba[j], bb[j]);
  int64_t M = da[da.size() - 2], K = da.back(), N = db.back();
  std::vector<double> out;
  for (int64_t flat = 0; flat < count(bo); ++flat) {
    int64_t oa = 0, ob = 0, rem = flat, sa_ = 1, sb_ = 1;
    for (size_t j = nb; j-- > 0;) {
      int64_t i = rem % bo[j];
      rem /= bo[j];
      oa += (ba[j] == 1 ? 0 : i) * sa_;
      ob += (bb[j] == 1 ? 0 : i) * sb_;
      sa_ *= ba[j];
      sb_ *= bb[j];
    }
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += a[(oa * M + m) * K + k] * b[(ob * K + k) * N + n];
        out.push_back(s);
      }
    }
  }
  std::vector<int64_t> shape = bo;
  if (!a1) shape.push_back(M);
  if (!b1) shape.push_back(N);
  return f32(shape, out);
}

void check_matmul(const std::vector<int64_t>& sa, const std::vector<int64_t>& sb,
                  const std::string& op = "matmul") {
  INFO("a ", sa.size(), "-D, b ", sb.size(), "-D");
  auto a = matmul_seq(count(sa)), b = matmul_seq(count(sb), 0.25, -0.5);
  check_tensor(run_ok(op, {{"A", f32(sa, a)}, {"B", f32(sb, b)}}), ref_matmul(sa, a, sb, b));
}

}  // namespace

TEST_CASE("matmul: 2-D, 1-D promotion, batch broadcasting and size-1 batch dims") {
  check_matmul({2, 3}, {3, 4});
  check_matmul({1, 1}, {1, 1});
  check_matmul({3}, {3, 2});
  check_matmul({2, 3}, {3});
  check_matmul({3}, {2, 3, 4});
  check_matmul({2, 2, 3}, {3});
  check_matmul({2, 2, 3}, {2, 3, 2});
  check_matmul({2, 2, 3}, {3, 2});
  check_matmul({1, 2, 3}, {3, 3, 2});
  check_matmul({3, 1, 2, 3}, {2, 3, 1});
  check_matmul({2, 1, 2, 2}, {1, 3, 2, 2});
}

TEST_CASE("matmul: f64 and shared dim names") {
  auto out = run_ok("matmul", {{"A", f64({2, 2}, {1, 2, 3, 4}), {"M", "K"}},
                               {"B", f64({2, 1}, {5, 6}), {"K", "N"}}});
  check_tensor(out, f64({2, 1}, {17, 39}));
}

TEST_CASE("matmul: errors") {
  check_op_error("matmul", {{"A", f32({}, {1})}, {"B", f32({2}, {1, 2})}}, {},
                 StatusCode::kTypeError,
                 "matmul: argument 'a' must have rank 1 or more, but it has rank 0");
  check_op_error("matmul", {{"A", f32({2}, {1, 2})}, {"B", f32({}, {1})}}, {},
                 StatusCode::kTypeError,
                 "matmul: argument 'b' must have rank 1 or more, but it has rank 0");
  // Mismatches between differently named dims are caught when the program is bound, with the
  // op's message (an assertion of the program) and the bound sizes.
  check_op_error("matmul", {{"A", f32({2, 3}, matmul_seq(6))}, {"B", f32({2, 2}, matmul_seq(4))}}, {},
                 StatusCode::kTypeError,
                 "2:3: matmul: the summed dimensions differ: 'a' [2, 3] has 3, 'b' [2, 2] has 2");
  check_op_error("matmul", {{"A", f32({1, 3}, matmul_seq(3))}, {"B", f32({1, 2}, matmul_seq(2))}}, {},
                 StatusCode::kTypeError,
                 "2:3: matmul: the summed dimensions differ: 'a' [1, 3] has 3, 'b' [1, 2] has 1");
  check_op_error("matmul", {{"A", f32({2, 1, 1}, matmul_seq(2))}, {"B", f32({3, 1, 1}, matmul_seq(3))}}, {},
                 StatusCode::kTypeError,
                 "2:3: matmul: batch dimensions of 'a' [2] and 'b' [3] do not broadcast");
  // The same dim name on both sides makes a mismatch a bind error of the inputs.
  check_op_error("matmul",
                 {{"A", f32({2, 3}, matmul_seq(6)), {"M", "K"}}, {"B", f32({2, 2}, matmul_seq(4)), {"K", "N"}}},
                 {}, StatusCode::kTypeError, "1:20: dimension 'K' is 3 in 'A' but 2 in 'B'");
}

TEST_CASE("batch_matmul: rank 3 or more") {
  check_matmul({2, 2, 3}, {2, 3, 2}, "batch_matmul");
  check_matmul({1, 2, 3}, {2, 3, 1}, "batch_matmul");
  check_op_error("batch_matmul", {{"A", f32({2, 3}, matmul_seq(6))}, {"B", f32({1, 3, 2}, matmul_seq(6))}}, {},
                 StatusCode::kTypeError,
                 "batch_matmul: argument 'a' must have rank 3 or more, but it has rank 2");
  check_op_error("batch_matmul", {{"A", f32({1, 2, 3}, matmul_seq(6))}, {"B", f32({3, 2}, matmul_seq(6))}}, {},
                 StatusCode::kTypeError,
                 "batch_matmul: argument 'b' must have rank 3 or more, but it has rank 2");
}

// numpy.dot: the oracle.
HostTensor ref_dot(const std::vector<int64_t>& sa, const std::vector<double>& a,
                   const std::vector<int64_t>& sb, const std::vector<double>& b) {
  int64_t K = sa.back();
  int64_t rows = count(sa) / K;
  size_t kb = sb.size() >= 2 ? sb.size() - 2 : 0;
  int64_t N = sb.size() >= 2 ? sb.back() : 1;
  int64_t pre = 1;
  for (size_t j = 0; j < kb; ++j) pre *= sb[j];
  std::vector<double> out;
  std::vector<int64_t> shape(sa.begin(), sa.end() - 1);
  for (size_t j = 0; j < sb.size(); ++j) {
    if (j != kb) shape.push_back(sb[j]);
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t p = 0; p < pre; ++p) {
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += a[r * K + k] * b[(p * K + k) * N + n];
        out.push_back(s);
      }
    }
  }
  return f32(shape, out);
}

TEST_CASE("dot: numpy.dot for every rank combination") {
  for (auto [sa, sb] :
       std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{{{3}, {3}},
                                                                          {{2, 3}, {3, 2}},
                                                                          {{2, 3}, {3}},
                                                                          {{3}, {3, 2}},
                                                                          {{2, 1, 3}, {3}},
                                                                          {{2, 3}, {2, 3, 2}},
                                                                          {{1, 2, 3}, {2, 3, 1}},
                                                                          {{1}, {1}}}) {
    INFO("a ", sa.size(), "-D, b ", sb.size(), "-D");
    auto a = matmul_seq(count(sa)), b = matmul_seq(count(sb), 0.25, -0.5);
    check_tensor(run_ok("dot", {{"A", f32(sa, a)}, {"B", f32(sb, b)}}), ref_dot(sa, a, sb, b));
  }
  check_tensor(run_ok("dot", {{"A", f32({}, {2})}, {"B", f32({2}, {1, 3})}}), f32({2}, {2, 6}));
  check_tensor(run_ok("dot", {{"A", f64({2}, {1, 3})}, {"B", f64({}, {2})}}), f64({2}, {2, 6}));
  check_op_error("dot", {{"A", f32({2, 3}, matmul_seq(6))}, {"B", f32({2}, matmul_seq(2))}}, {},
                 StatusCode::kTypeError,
                 "2:3: dot: the summed dimensions differ: 'a' [2, 3] has 3, 'b' [2] has 2");
}

// ONNX Gemm: the oracle.
HostTensor ref_gemm(int64_t M, int64_t N, int64_t K, const std::vector<double>& a, bool ta,
                    const std::vector<double>& b, bool tb, double alpha, double beta,
                    const std::vector<double>& c, const std::vector<int64_t>& sc) {
  std::vector<double> out;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += a[ta ? k * M + m : m * K + k] * b[tb ? n * K + k : k * N + n];
      double cv = 0;
      if (!c.empty()) {
        int64_t rc = sc.size() == 2 ? sc[0] : 1, cc = sc.empty() ? 1 : sc.back();
        cv = c[(rc == 1 ? 0 : m) * cc + (cc == 1 ? 0 : n)];
      }
      out.push_back(alpha * s + beta * cv);
    }
  }
  return f32({M, N}, out);
}

TEST_CASE("gemm: transposes, alpha, beta and C broadcasting") {
  const int64_t M = 2, N = 3, K = 4;
  auto a = matmul_seq(M * K), b = matmul_seq(K * N, 0.25, -0.5);
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      std::vector<int64_t> sa = ta ? std::vector<int64_t>{K, M} : std::vector<int64_t>{M, K};
      std::vector<int64_t> sb = tb ? std::vector<int64_t>{N, K} : std::vector<int64_t>{K, N};
      Attrs attrs{{"trans_a", int64_t{ta}}, {"trans_b", int64_t{tb}}, {"alpha", 0.5}};
      check_tensor(run_ok("gemm", {{"A", f32(sa, a)}, {"B", f32(sb, b)}}, attrs),
                   ref_gemm(M, N, K, a, ta, b, tb, 0.5, 0, {}, {}));
    }
  }
  for (std::vector<int64_t> sc :
       std::vector<std::vector<int64_t>>{{}, {3}, {1, 3}, {2, 1}, {2, 3}, {1}}) {
    INFO("C rank ", sc.size());
    auto c = matmul_seq(count(sc), 1.0, 0.5);
    check_tensor(run_ok("gemm", {{"A", f32({M, K}, a)}, {"B", f32({K, N}, b)}, {"C", f32(sc, c)}},
                        {{"beta", 2.0}}),
                 ref_gemm(M, N, K, a, false, b, false, 1.0, 2.0, c, sc));
  }
}

TEST_CASE("gemm: errors") {
  auto a = matmul_seq(6);
  check_op_error("gemm", {{"A", f32({6}, a)}, {"B", f32({2, 3}, a)}}, {}, StatusCode::kTypeError,
                 "gemm: argument 'a' must have rank 2, but it has rank 1");
  check_op_error("gemm", {{"A", f32({2, 3}, a)}, {"B", f32({6}, a)}}, {}, StatusCode::kTypeError,
                 "gemm: argument 'b' must have rank 2, but it has rank 1");
  check_op_error("gemm", {{"A", f32({2, 3}, a)}, {"B", f32({2, 3}, a)}}, {}, StatusCode::kTypeError,
                 "2:3: gemm: the summed dimensions differ: op(A) [2, 3] has 3 columns, op(B) "
                 "[2, 3] has 2 rows");
  check_op_error("gemm", {{"A", f32({2, 3}, a)}, {"B", f32({3, 2}, a)}, {"C", f32({3, 2}, a)}}, {},
                 StatusCode::kTypeError,
                 "3:3: contraction 'R': default value 'C' (f32[3, 2]) does not broadcast to the "
                 "output shape [2, 2]");
  check_op_error("gemm",
                 {{"A", f32({2, 3}, a)}, {"B", f32({3, 2}, a)}, {"C", f32({1, 2, 2}, matmul_seq(4))}}, {},
                 StatusCode::kTypeError,
                 "gemm: argument 'c' [C_0, C_1, C_2] does not broadcast to [M, N] = [A_0, B_1]");
  check_op_error("gemm", {{"A", f32({2, 3}, a)}, {"B", f32({3, 2}, a)}}, {{"trans_a", int64_t{2}}},
                 StatusCode::kInvalidArgument, "gemm: attribute 'trans_a' must be 0 or 1, got 2");
  check_op_error("gemm", {{"A", f32({2, 3}, a)}, {"B", f32({3, 2}, a)}}, {{"gamma", 1.0}},
                 StatusCode::kInvalidArgument, "gemm: unknown attribute 'gamma'");
}

}  // namespace plaidml::oplib::test

namespace plaidml::oplib::test {

// Applies `op` to operands whose dims are literals (reshapes of inputs), where mismatches are
// seen while building; returns the op's status.
Status apply_literal(const std::string& op, const std::vector<std::vector<int64_t>>& shapes,
                     const Attrs& attrs) {
  ir::ProgramBuilder b("literal");
  std::vector<ir::ValueId> operands;
  for (size_t k = 0; k < shapes.size(); ++k) {
    auto x = b.add_input("X" + std::to_string(k), std::nullopt, std::nullopt, {});
    std::vector<ir::IntExprPtr> dims;
    for (int64_t d : shapes[k]) dims.push_back(ir::size_expr::lit(d));
    auto r = b.add_call("reshape", {*x}, dims, {});
    REQUIRE(r.has_value());
    operands.push_back(*r);
  }
  auto result = apply(b, op, operands, attrs);
  return result.has_value() ? Status::ok() : result.status();
}

void check_literal_error(const std::string& op, const std::vector<std::vector<int64_t>>& shapes,
                         const Attrs& attrs, const std::string& message) {
  Status s = apply_literal(op, shapes, attrs);
  CHECK(s.code() == StatusCode::kTypeError);
  CHECK(s.message() == message);
}

TEST_CASE("linalg: mismatches of literal dims are errors while building") {
  CHECK(apply_literal("matmul", {{2, 3}, {3, 4}}, {}).is_ok());
  CHECK(apply_literal("matmul", {{5, 1, 2, 3}, {4, 3, 4}}, {}).is_ok());
  check_literal_error("matmul", {{2, 3}, {4, 2}}, {},
                      "matmul: the summed dimensions differ: 'a' [2, 3] has 3, 'b' [4, 2] has 4");
  check_literal_error("matmul", {{2, 2, 3}, {3, 3, 2}}, {},
                      "matmul: batch dimensions of 'a' [2] and 'b' [3] do not broadcast");
  check_literal_error("dot", {{2, 3}, {2}}, {},
                      "dot: the summed dimensions differ: 'a' [2, 3] has 3, 'b' [2] has 2");
  check_literal_error("gemm", {{2, 3}, {2, 3}}, {},
                      "gemm: the summed dimensions differ: op(A) [2, 3] has 3 columns, op(B) [2, "
                      "3] has 2 rows");
  CHECK(apply_literal("gemm", {{2, 3}, {3, 4}, {1, 4}}, {}).is_ok());
  check_literal_error("gemm", {{2, 3}, {3, 4}, {3, 4}}, {},
                      "gemm: argument 'c' [3, 4] does not broadcast to [M, N] = [2, 4]");
}

}  // namespace plaidml::oplib::test
