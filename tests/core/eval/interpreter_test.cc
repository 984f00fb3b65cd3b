// evaluate(): inputs checks and their messages, outputs, every dtype end to end.
#include "eval_util.h"

namespace plaidml::eval::test {
namespace {

using plaidml::testing::random_tensor;

std::shared_ptr<const ir::Program> parse_ok(const std::string& text) {
  auto p = parse::parse_tile(text);
  REQUIRE_MESSAGE(p.has_value(), p.status().message());
  return *p;
}

ir::BoundProgram bind_ok(const std::string& text, const std::vector<Shape>& shapes) {
  auto b = ir::bind(parse_ok(text), shapes);
  REQUIRE_MESSAGE(b.has_value(), b.status().message());
  return *b;
}

const char* kAdd = "function (A[N], B[N]) -> (C) { C = A + B; }";

TEST_CASE("wrong number of inputs is an invalid argument") {
  ir::BoundProgram b = bind_ok(kAdd, {Shape(DType::F32, {2}), Shape(DType::F32, {2})});
  auto r = evaluate(b, {f32({2}, {1, 2})});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kInvalidArgument);
  CHECK(r.status().message() == "expected 2 input tensors, got 1");
}

TEST_CASE("an input whose shape differs from the bound one is an invalid argument") {
  ir::BoundProgram b = bind_ok(kAdd, {Shape(DType::F32, {2}), Shape(DType::F32, {2})});
  auto r = evaluate(b, {f32({2}, {1, 2}), f32({3}, {1, 2, 3})});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kInvalidArgument);
  CHECK(r.status().message() == "input 'B' has shape f32[3], but the program was bound to f32[2]");
}

TEST_CASE("an input with the wrong byte count is an invalid argument") {
  ir::BoundProgram b = bind_ok(kAdd, {Shape(DType::F32, {2}), Shape(DType::F32, {2})});
  HostTensor bad = f32({2}, {1, 2});
  bad.bytes.resize(5);
  auto r = evaluate(b, {f32({2}, {1, 2}), bad});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kInvalidArgument);
  CHECK(r.status().message() == "input 'B' holds 5 bytes, but shape f32[2] needs 8");
}

TEST_CASE("an empty bound program is an invalid argument") {
  auto r = evaluate(ir::BoundProgram{}, {});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kInvalidArgument);
  CHECK(r.status().message() == "no program to evaluate");
}

TEST_CASE("a contraction too large to enumerate is unsupported, naming the tensor") {
  HostTensor a(Shape(DType::F32, {1000, 1000}));
  auto r = try_run("function (A[N, N]) -> (O) {\n  O[i : N] = +(A[i, j] * A[k, l]);\n}", {a});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kUnsupported);
  CHECK(r.status().message() ==
        "while evaluating 'O' at 2:3: the reference interpreter cannot enumerate 1000000000000 "
        "index points");
}

TEST_CASE("a tensor too large for memory is out of memory, not an exception") {
  HostTensor x(Shape(DType::F32, {100000, 1, 1}));
  HostTensor y(Shape(DType::F32, {100000, 1}));
  HostTensor z(Shape(DType::F32, {100000}));
  auto r = try_run("function (X, Y, Z) -> (O) {\n  O = X + Y + Z;\n}", {x, y, z});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == StatusCode::kOutOfMemory);
  CHECK(r.status().message() ==
        "while evaluating '_T0' at 2:9: the reference interpreter cannot hold 10000000000 "
        "elements (limit 8589934592)");
}

TEST_CASE("outputs may alias inputs, each other, or be literals") {
  HostTensor a = f32({2}, {1, 2});
  auto out = run("function (A[N]) -> (X, Y, Z, L) { X = A; Y = A * 2; Z = Y; L = 7; }", {a});
  REQUIRE(out.size() == 4);
  check_tensor(out[0], a);
  check_tensor(out[1], f32({2}, {2, 4}));
  check_tensor(out[2], f32({2}, {2, 4}));
  CHECK(out[3].shape.dims.empty());
  CHECK(to_doubles(out[3]) == std::vector<double>{7});
}

TEST_CASE("unused nodes are not evaluated") {
  // The unused huge contraction would be refused if it were evaluated.
  HostTensor x(Shape(DType::F32, {1000}));
  auto r =
      try_run("function (X[N]) -> (Y) { O[i, j, k, l : N, N, N, N] = +(X[i]); Y = X + 1; }", {x});
  REQUIRE_MESSAGE(r.has_value(), r.status().message());
  CHECK(to_doubles(r->at(0))[0] == 1);
}

TEST_CASE("every dtype: elementwise add and a row sum") {
  const DType all[] = {DType::Bool, DType::I8,  DType::I16, DType::I32, DType::I64,
                       DType::U8,   DType::U16, DType::U32, DType::U64, DType::F16,
                       DType::BF16, DType::F32, DType::F64};
  for (DType d : all) {
    CAPTURE(dtype_name(d));
    HostTensor x =
        random_tensor(Shape(d, {3, 4}), 11, {.lo = -4, .hi = 4, .int_lo = 0, .int_hi = 20});
    auto out = run("function (X[M, N]) -> (E, S) { E = X + X; S[i : M] = +(X[i, j]); }", {x});
    CHECK(out[0].shape == Shape(d, {3, 4}));
    CHECK(out[1].shape == Shape(d, {3}));
    std::vector<double> xv = to_doubles(x), e, s(3, 0.0);
    for (int i = 0; i < 12; ++i) {
      e.push_back(d == DType::Bool ? (xv[i] != 0) : 2 * xv[i]);
      s[i / 4] += xv[i];
    }
    if (d == DType::Bool) {
      for (double& v : s) v = v != 0;
    }
    // make_tensor rounds the double sums once, as the interpreter must.
    check_tensor(out[0], make_tensor(d, {3, 4}, e));
    check_tensor(out[1], make_tensor(d, {3}, s));
  }
}

}  // namespace
}  // namespace plaidml::eval::test
