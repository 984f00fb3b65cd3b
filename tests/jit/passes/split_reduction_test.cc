// split-reduction (jit/passes/split_reduction.h): a float max or min reduction loop runs as eight
// chains combined at the end, with the interpreter's results, NaN included; other loops keep
// their form.
#include <cmath>

#include "jit/codegen/harness.h"
#include "support/text.h"

namespace plaidml::jit::testing {
namespace {

using plaidml::testing::contains;
using plaidml::testing::make_tensor;
using plaidml::testing::to_doubles;

std::string scheduled(const std::string& text, const std::vector<Shape>& shapes,
                      const passes::CpuTarget& cpu = host_cpu()) {
  return schedule(bind_tile(text, shapes), cpu).text;
}

TEST_CASE("split-reduction: a max over the contiguous axis runs as eight chains") {
  const char* max = "function (X[M, N]) -> (O) { O[i : M] = >(X[i, j]); }";
  const char* min = "function (X[M, N]) -> (O) { O[i : M] = <(X[i, j]); }";
  for (int64_t n : {16, 40, 301}) {  // 301: 296 in chains, a tail of 5 in chain 0
    CAPTURE(n);
    std::string text = scheduled(max, {Shape(DType::F32, {5, n})});
    CHECK(contains(text, "$chain0_7"));
    CHECK(contains(text, fmt::format("[0, {}) step 8", n / 8 * 8)));
    for (DType dtype : {DType::F32, DType::F64}) {
      check_against_interpreter(max, {random(dtype, {5, n}, 2)});
      check_against_interpreter(min, {random(dtype, {5, n}, 3)});
    }
  }
}

TEST_CASE("split-reduction: NaN comes out as the serial max says") {
  // maxnum ignores a NaN beside a number; a row of NaN alone keeps the starting value (-inf).
  // Row 0: a NaN among numbers (16 the largest), row 1: all NaN, row 2: NaN in every chain
  // but one, which holds the largest (7).
  const char* max = "function (X[M, N]) -> (O) { O[i : M] = >(X[i, j]); }";
  std::vector<double> v(3 * 40);
  for (size_t k = 0; k < 40; ++k) v[k] = static_cast<double>(k % 17);
  v[5] = std::nan("");
  for (size_t k = 40; k < 80; ++k) v[k] = std::nan("");
  for (size_t k = 80; k < 120; ++k) v[k] = (k - 80) % 8 == 3 ? 7.0 : std::nan("");
  auto out = check_against_interpreter(max, {make_tensor(DType::F32, {3, 40}, v)});
  std::vector<double> got = to_doubles(out[0]);
  CHECK(got[0] == 16);
  CHECK(got[1] == -INFINITY);
  CHECK(got[2] == 7);
}

TEST_CASE("split-reduction: sums, short loops and GPU targets keep their form") {
  const char* sum = "function (X[M, N]) -> (O) { O[i : M] = +(X[i, j]); }";
  CHECK_FALSE(contains(scheduled(sum, {Shape(DType::F32, {4, 64})}), "$chain"));
  const char* max = "function (X[M, N]) -> (O) { O[i : M] = >(X[i, j]); }";
  CHECK_FALSE(contains(scheduled(max, {Shape(DType::F32, {4, 15})}), "$chain"));
  passes::CpuTarget gpu;
  CHECK_FALSE(contains(scheduled(max, {Shape(DType::F32, {4, 64})}, gpu), "$chain"));
  // An integer max: LLVM vectorizes it itself.
  CHECK_FALSE(contains(scheduled(max, {Shape(DType::I32, {4, 64})}), "$chain"));
}

}  // namespace
}  // namespace plaidml::jit::testing
