// coalesce-rows (jit/passes/coalesce_rows.h): a 1x1 stride-1 convolution's image rows become one
// loop over its pixels, and computes the interpreter's numbers; convolutions whose accesses do
// not see the two loops as one index keep them.
#include "jit/codegen/harness.h"
#include "jit/passes/coalesce_rows.h"

namespace plaidml::jit::testing {
namespace {

std::string lowered_kernels(const std::string& text, const std::vector<Shape>& shapes,
                            const passes::CpuTarget& cpu) {
  return schedule(bind_tile(text, shapes), cpu).text;
}

// relu(1x1 conv + bias) + residual, NHWC.
const char* kPointwise =
    "function (I[N, H, W, CI], K[CI, CO], B[CO], R[N, H, W, CO]) -> (O) {\n"
    "  C[n, y, x, co : N, H, W, CO] = +(I[n, y, x, ci] * K[ci, co]);\n"
    "  O = relu(C + B) + R;\n"
    "}";

TEST_CASE("coalesce-rows: a 1x1 conv's image rows become one loop over its pixels") {
  for (auto [n, h, w] : {std::tuple{1, 7, 7}, std::tuple{2, 14, 3}, std::tuple{1, 1, 5}}) {
    CAPTURE(n);
    CAPTURE(h);
    CAPTURE(w);
    std::vector<Shape> shapes = {Shape(DType::F32, {n, h, w, 24}), Shape(DType::F32, {24, 40}),
                                 Shape(DType::F32, {40}), Shape(DType::F32, {n, h, w, 40})};
    std::string text = lowered_kernels(kPointwise, shapes, host_cpu());
    if (h > 1) {
      CHECK(text.find(fmt::format("for x$rb in [0, {})", h * w)) != std::string::npos);
      CHECK(text.find(" y ") == std::string::npos);
    }
    check_against_interpreter(kPointwise, {random(DType::F32, {n, h, w, 24}, 1),
                                           random(DType::F32, {24, 40}, 2),
                                           random(DType::F32, {40}, 3),
                                           random(DType::F32, {n, h, w, 40}, 4)});
  }
}

TEST_CASE("coalesce-rows: strided and padded convs keep their image rows") {
  // Stride 2: the input's pixel (2y, 2x) is not (y * W + x) of anything.
  const char* strided =
      "function (I[N, H, W, CI], K[CI, CO]) -> (O) {\n"
      "  O[n, y, x, co : N, H / 2, W / 2, CO] = +(I[n, 2 * y, 2 * x, ci] * K[ci, co]);\n}";
  std::vector<Shape> shapes = {Shape(DType::F32, {1, 8, 8, 16}), Shape(DType::F32, {16, 32})};
  std::string text = lowered_kernels(strided, shapes, host_cpu());
  CHECK(text.find("for y in [0, 4)") != std::string::npos);
  check_against_interpreter(strided, {random(DType::F32, {1, 8, 8, 16}, 5),
                                      random(DType::F32, {16, 32}, 6)});
  // Padding: the guards on x hold for some pixels of a row and not others.
  const char* padded =
      "function (I[N, H, W, CI], K[KH, KW, CI, CO]) -> (O) {\n"
      "  O[n, y, x, co : N, H, W, CO] = +(I[n, y + i - 1, x + j - 1, ci] * K[i, j, ci, co]);\n}";
  shapes = {Shape(DType::F32, {1, 6, 6, 8}), Shape(DType::F32, {3, 3, 8, 16})};
  CHECK(lowered_kernels(padded, shapes, host_cpu()).find("for y in [0, 6)") != std::string::npos);
  // No vector unit (a GPU target): the pass leaves kernels alone.
  passes::CpuTarget none;
  std::vector<Shape> pointwise = {Shape(DType::F32, {1, 4, 4, 8}), Shape(DType::F32, {8, 8}),
                                  Shape(DType::F32, {8}), Shape(DType::F32, {1, 4, 4, 8})};
  CHECK(lowered_kernels(kPointwise, pointwise, none).find("for y in [0, 4)") != std::string::npos);
}

}  // namespace
}  // namespace plaidml::jit::testing
