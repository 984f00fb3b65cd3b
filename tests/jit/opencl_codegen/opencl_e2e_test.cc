// Tile programs compiled to OpenCL C and run on opencl:0 (PoCL in CI) through jit::Runtime,
// compared element by element with the reference interpreter: the value conventions that C
// does not give for free (division by zero, saturating casts, f16/bf16 rounding, shifts) and a
// broadcasting elementwise chain. Skipped where no OpenCL device exists.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "jit/io_binding.h"
#include "jit/runtime.h"
#include "support/tensors.h"

using namespace plaidml;
using plaidml::testing::make_tensor;

namespace {

using NamedBuffers = std::vector<std::pair<std::string, std::shared_ptr<jit::Buffer>>>;

struct OpenCl {
  std::unique_ptr<jit::Runtime> rt;
  int device = -1;
};

// A runtime with opencl:0, or none when the machine has no OpenCL device.
OpenCl open_opencl(const jit::RuntimeOptions& options = {}) {
  OpenCl out;
  setenv("PLAIDML_PLUGIN_PATH", PLAIDML_TEST_OPENCL_DIR, 1);
  auto rt = jit::Runtime::create(options);
  unsetenv("PLAIDML_PLUGIN_PATH");
  if (!rt) return out;
  auto index = (*rt)->find_device("opencl:0");
  if (!index) return out;
  out.rt = std::move(*rt);
  out.device = *index;
  return out;
}

// The shared runtime with opencl:0, or none (and a message) when there is no OpenCL device.
OpenCl& opencl() {
  static OpenCl cl = open_opencl();
  return cl;
}

void check_on(OpenCl& cl, const std::string& tile, const std::vector<HostTensor>& inputs,
              testing::Tolerance tolerance = {});

// Runs `tile` on opencl:0 and checks every output against the interpreter; floats within
// `tolerance` (exact by default: these cases have one correct rounding).
void check(const std::string& tile, const std::vector<HostTensor>& inputs,
           testing::Tolerance tolerance = {}) {
  check_on(opencl(), tile, inputs, tolerance);
}

void check_on(OpenCl& cl, const std::string& tile, const std::vector<HostTensor>& inputs,
              testing::Tolerance tolerance) {
  if (!cl.rt) {
    MESSAGE("no OpenCL device: skipped");
    return;
  }
  auto program = parse::parse_tile(tile, "test");
  REQUIRE_MESSAGE(program.has_value(), program.status().message());
  std::vector<Shape> shapes;
  for (const auto& t : inputs) shapes.push_back(t.shape);
  auto bound = ir::bind(*program, shapes);
  REQUIRE_MESSAGE(bound.has_value(), bound.status().message());
  auto expected = eval::evaluate(*bound, inputs);
  REQUIRE_MESSAGE(expected.has_value(), expected.status().message());

  NamedBuffers in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto buffer = cl.rt->allocate(cl.device, inputs[i].shape);
    REQUIRE(buffer.has_value());
    REQUIRE(cl.rt->write(**buffer, inputs[i].bytes.data(), inputs[i].bytes.size()).is_ok());
    in.emplace_back((*program)->nodes[(*program)->inputs[i]].name, *buffer);
  }
  NamedBuffers out;
  Status s = jit::run_by_name(*cl.rt, *program, cl.device, in, &out);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  REQUIRE(out.size() == expected->size());
  for (size_t i = 0; i < out.size(); ++i) {
    HostTensor actual(out[i].second->shape());
    REQUIRE(cl.rt->read(*out[i].second, actual.bytes.data(), actual.bytes.size()).is_ok());
    std::string report = testing::compare_tensors(actual, (*expected)[i], tolerance);
    CHECK_MESSAGE(report.empty(), "output " << out[i].first << ": " << report);
  }
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("opencl e2e: integer division and remainder by 0 give 0, MIN / -1 wraps") {
  const char* tile = "function (A, B) -> (Q, R) { Q = A / B; R = A % B; }";
  double i32_min = std::numeric_limits<int32_t>::min();
  std::vector<double> a = {7, -7, i32_min, 5, 0, i32_min, -9, 9};
  std::vector<double> b = {0, 2, -1, -1, 0, 0, 4, -4};
  check(tile, {make_tensor(DType::I32, {8}, a), make_tensor(DType::I32, {8}, b)});
  std::vector<double> a8 = {7, -7, -128, 5, 0, -128, -9, 9};
  check(tile, {make_tensor(DType::I8, {8}, a8), make_tensor(DType::I8, {8}, b)});
  std::vector<double> u = {7, 200, 255, 5, 0, 1, 9, 250};
  std::vector<double> v = {0, 3, 0, 255, 0, 0, 4, 7};
  check(tile, {make_tensor(DType::U8, {8}, u), make_tensor(DType::U8, {8}, v)});
  check(tile, {make_tensor(DType::I64, {8}, a), make_tensor(DType::I64, {8}, b)});
}

TEST_CASE("opencl e2e: float to integer casts saturate, NaN gives 0") {
  const char* tile = R"(function (X) -> (A, B, C, D, E, F) {
    A = as_int(X, 8); B = as_int(X, 32); C = as_int(X, 64);
    D = as_uint(X, 8); E = as_uint(X, 32); F = as_bool(X); })";
  std::vector<double> x = {kNaN, kInf, -kInf, 1e10, -1e10, 3.7, -3.7, 255.9, 256, -0.5, 1e20, 0};
  check(tile, {make_tensor(DType::F32, {12}, x)});
  check(tile, {make_tensor(DType::F16, {12}, x)});
}

TEST_CASE("opencl e2e: f16 and bf16 round to nearest even on the way in and out") {
  const char* tile = R"(function (X) -> (H, B, HF, BF) {
    H = as_float(X, 16); B = as_bfloat(X, 16);
    HF = as_float(as_float(X, 16), 32); BF = as_float(as_bfloat(X, 16), 32); })";
  std::vector<double> x = {1 + 0x1p-11,      // f16 tie: to even (1)
                           1 + 3 * 0x1p-11,  // f16 tie: to even (up)
                           1 + 0x1p-8,       // bf16 tie
                           1 + 3 * 0x1p-8,  65504, 70000, 1e-8, -2.5e-5, kNaN, -kInf,
                           3.14159265, 1e30};
  check(tile, {make_tensor(DType::F32, {12}, x)});
  // f16 and bf16 inputs: loads widen exactly, arithmetic rounds once on store.
  const char* sum = "function (A, B) -> (R) { R = A + B; }";
  std::vector<double> y = {0.1, 1000, -3, 2048, 1, 65504, 0.5, 7};
  std::vector<double> z = {0.2, 0.3, 3, 1, 0x1p-11, 100, -0.25, kNaN};
  for (DType t : {DType::F16, DType::BF16}) {
    check(sum, {make_tensor(t, {8}, y), make_tensor(t, {8}, z)});
  }
}

TEST_CASE("opencl e2e: shifts by negative or too large amounts give 0, >> is arithmetic") {
  const char* tile = "function (A, S) -> (L, R) { L = A << S; R = A >> S; }";
  std::vector<double> a = {-8, -8, 1, 3, -1, 5, 100, -100};
  std::vector<double> s = {-1, 0, 31, 32, 1, 33, 7, 2};
  check(tile, {make_tensor(DType::I32, {8}, a), make_tensor(DType::I32, {8}, s)});
  std::vector<double> s8 = {-1, 0, 7, 8, 1, 9, 3, 2};
  check(tile, {make_tensor(DType::I8, {8}, a), make_tensor(DType::I8, {8}, s8)});
  std::vector<double> u = {255, 128, 1, 3, 7, 5, 100, 200};
  check(tile, {make_tensor(DType::U8, {8}, u), make_tensor(DType::U8, {8}, s8)});
  check(tile, {make_tensor(DType::I64, {8}, a), make_tensor(DType::I64, {8}, {-1, 0, 63, 64, 1, 65, 7, 2})});
}

TEST_CASE("opencl e2e: a broadcasting elementwise chain over two-dimensional ragged shapes") {
  const char* tile = R"(function (A[M, N], B[N], C[M, O]) -> (R) {
    R = relu(A * B + C) - exp(A) / 2 + (A > C ? sigmoid(B) : tanh(A)); })";
  auto a = testing::random_tensor(Shape(DType::F32, {37, 65}), 1, {-2, 2});
  auto b = testing::random_tensor(Shape(DType::F32, {65}), 2, {-2, 2});
  auto c = testing::random_tensor(Shape(DType::F32, {37, 1}), 3, {-2, 2});
  check(tile, {a, b, c}, testing::default_tolerance(DType::F32));
}

TEST_CASE("opencl e2e: a second runtime on one disk cache folder generates no OpenCL C") {
  char dir[] = "/tmp/plaidml_opencl_cache_XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  jit::RuntimeOptions options;
  options.cache_dir = dir;
  const char* tile =
      "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";
  std::vector<HostTensor> inputs = {testing::random_tensor({DType::F32, {19, 33}}, 1),
                                    testing::random_tensor({DType::F32, {33, 21}}, 2)};
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    OpenCl cl = open_opencl(options);
    if (!cl.rt) {
      MESSAGE("no OpenCL device: skipped");
      break;
    }
    check_on(cl, tile, inputs, testing::default_tolerance(DType::F32));
    jit::CacheStats s = cl.rt->stats();
    CHECK((round == 0 ? s.kernels_compiled > 0 : s.kernels_compiled == 0));
    CHECK(s.disk_hits == round);
    CHECK(s.disk_writes == 1 - round);
  }
  std::filesystem::remove_all(dir);
}
