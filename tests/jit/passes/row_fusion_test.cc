// row-fusion (jit/passes/row_fusion.h): a softmax's and a layer norm's kernels run as one kernel
// over their rows and compute the interpreter's numbers (the harness runs each kernel's rows in
// two calls, the second half first); kernels whose rows would touch each other's elements, or
// that would lose their threads' share of rows, stay apart.
#include "jit/codegen/harness.h"
#include "jit/passes/row_fusion.h"
#include "support/log_capture.h"

namespace plaidml::jit::testing {
namespace {

size_t kernel_count(const std::string& program, const std::vector<Shape>& shapes,
                    const passes::CpuTarget& cpu = host_cpu()) {
  return schedule(bind_tile(program, shapes), cpu).lowered.kernels.size();
}

// Softmax over the last axis, as the op library writes it (a max, an exp, a sum, a scale).
const char* kSoftmax =
    "function (X[A, B, C]) -> (Y) {\n"
    "  M[a, b, z : A, B, 1] = >(X[a, b, c]);\n"
    "  E = exp(X - M);\n"
    "  S[a, b, z : A, B, 1] = +(E[a, b, c]);\n"
    "  Y = E * recip(S);\n"
    "}";

// Layer normalization over the last axis: its square is an elementwise kernel over all
// elements (one flat loop), whose rows fusion cuts out of that loop.
const char* kLayerNorm =
    "function (X[R, C], G[C], B[C]) -> (Y) {\n"
    "  S[r, z : R, 1] = +(X[r, c]);\n"
    "  D = X - S / C;\n"
    "  Q = D * D;\n"
    "  V[r, z : R, 1] = +(Q[r, c]);\n"
    "  Y = D * recip(sqrt(V / C + 0.00001)) * G + B;\n"
    "}";

TEST_CASE("row-fusion: a softmax is one kernel over its rows") {
  for (auto [a, b, c] : {std::tuple{3, 5, 37}, std::tuple{2, 16, 128}, std::tuple{1, 9, 1}}) {
    CAPTURE(a);
    CAPTURE(b);
    CAPTURE(c);
    std::vector<Shape> shapes = {Shape(DType::F32, {a, b, c})};
    Scheduled scheduled = schedule(bind_tile(kSoftmax, shapes), host_cpu());
    CHECK(scheduled.lowered.kernels.size() == 1);
    const std::string& text = scheduled.text;
    CHECK(text.find(fmt::format("parallel for row$ in [0, {})", a * b)) != std::string::npos);
    check_against_interpreter(kSoftmax, {random(DType::F32, {a, b, c}, 7)});
  }
}

TEST_CASE("row-fusion: a layer norm is one kernel, the flat square loop is cut into rows") {
  std::vector<Shape> shapes = {Shape(DType::F32, {24, 40}), Shape(DType::F32, {40}),
                               Shape(DType::F32, {40})};
  Scheduled scheduled = schedule(bind_tile(kLayerNorm, shapes), host_cpu());
  CHECK(scheduled.lowered.kernels.size() == 1);
  const std::string& text = scheduled.text;
  CHECK(text.find("parallel for row$ in [0, 24)") != std::string::npos);
  CHECK(text.find("$in in [0, 40)") != std::string::npos);  // the square's remainder loop
  check_against_interpreter(kLayerNorm,
                            {random(DType::F32, {24, 40}, 8), random(DType::F32, {40}, 9),
                             random(DType::F32, {40}, 10)});
}

TEST_CASE("row-fusion: PLAIDML_DUMP names the kernels it fused") {
  plaidml::testing::LogCapture log;
  auto lowered = lower(bind_tile(kSoftmax, {Shape(DType::F32, {2, 3, 8})}));
  REQUIRE(lowered.has_value());
  passes::PipelineOptions options;
  options.cpu = host_cpu();
  options.dump = true;
  REQUIRE(passes::run_pipeline(*lowered, options).is_ok());
  CHECK(log.warnings_with("row-fusion fused:") == 1);
  CHECK(log.warnings_with("(6 rows)") == 1);
  CHECK(log.warnings_with("k0_M + k1_E + k2_S + k3_Y -> k3_Y") == 1);
}

TEST_CASE("row-fusion: rows that would touch each other's elements stay apart") {
  // T reads S backwards: row i needs S[N - 1 - i], which a later row writes.
  const char* reversed =
      "function (A[N, K]) -> (T) {\n"
      "  S[i, z : N, 1] = +(A[i, k]);\n"
      "  T[i, k : N, K] = +(S[N - 1 - i, 0] * A[i, k]);\n"
      "}";
  std::vector<Shape> shapes = {Shape(DType::F32, {12, 20})};
  CHECK(kernel_count(reversed, shapes) >= 2);
  check_against_interpreter(reversed, {random(DType::F32, {12, 20}, 11)});
  // A sum over all rows feeds every row.
  const char* total =
      "function (A[N, K]) -> (T) {\n"
      "  S[] = +(A[i, k]);\n"
      "  T = A / S;\n"
      "}";
  CHECK(kernel_count(total, shapes) >= 2);
  check_against_interpreter(total, {random(DType::F32, {12, 20}, 12)});
}

// Two hand-built kernels over 8 rows: k0 writes s1 (row i at s1[i * stride + j], j < width),
// k1 reads it back at s1[i * stride + j + shift] and writes s2. Whether fuse_rows fuses them.
bool fuses(int64_t stride, int64_t width, int64_t shift) {
  using namespace loop;  // NOLINT: the loop IR's builders
  auto at = [&](int64_t extra) {
    return idx_add(idx_add(idx_mul(var("i"), stride), var("j")), int_const(extra));
  };
  Kernel k0;
  k0.name = "k0";
  k0.reads = {0};
  k0.writes = {1};
  k0.body = block({for_loop("i", 0, 8,
                            {for_loop("j", 0, width,
                                      {store(1, at(0), load(0, DType::F32, at(0)))})},
                            /*parallel=*/true)});
  Kernel k1 = k0;
  k1.name = "k1";
  k1.reads = {1};
  k1.writes = {2};
  k1.body = block({for_loop("i", 0, 8,
                            {for_loop("j", 0, width,
                                      {store(2, at(0), load(1, DType::F32, at(shift)))})},
                            /*parallel=*/true)});
  std::vector<Kernel> kernels = {k0, k1};
  passes::CpuTarget one = passes::cpu_target_for(256, 1);
  return !passes::fuse_rows(kernels, one).empty() && kernels.size() == 1;
}

TEST_CASE("row-fusion: fuses only where every row keeps to its own elements") {
  CHECK(fuses(4, 4, 0));    // rows of 4, read where written
  CHECK(fuses(6, 4, 2));    // rows 6 apart, read 2 further on: still inside the row's slice
  CHECK_FALSE(fuses(4, 4, 1));  // the last element of a row reads the next row's first
  CHECK_FALSE(fuses(2, 3, 0));  // rows 2 apart, 3 wide: rows overlap
  CHECK_FALSE(fuses(4, 4, -4));  // each row reads the previous row
}

TEST_CASE("row-fusion: rows keep each member's inner loops (pixels of channels, not elements)") {
  // Elementwise kernels over H x W x C (MobileNetV3's activations between convs; Y's loops are
  // H and W * C): fused over the H image rows, each row its members' loops, not over H x W x C
  // rows of one element (a division per element, no vectors) nor rows of a few channels.
  const char* chain =
      "function (X[H, W, C], B[C]) -> (Y, Q) {\n"
      "  Q = X * X + B;\n"
      "  Y = Q * X + Q;\n"
      "}";
  std::vector<Shape> shapes = {Shape(DType::F32, {8, 8, 16}), Shape(DType::F32, {16})};
  Scheduled scheduled = schedule(bind_tile(chain, shapes), host_cpu());
  CHECK(scheduled.lowered.kernels.size() == 1);
  const std::string& text = scheduled.text;
  CHECK(text.find("parallel for row$ in [0, 8)") != std::string::npos);
  CHECK(text.find("row$ in [0, 1024)") == std::string::npos);
  CHECK(text.find("row$ in [0, 128)") == std::string::npos);
  check_against_interpreter(chain,
                            {random(DType::F32, {8, 8, 16}, 15), random(DType::F32, {16}, 16)});
}

TEST_CASE("row-fusion: never fewer rows than the threads' share, never on GPU targets") {
  // A max per row, then Q = X * X as one flat loop, then Q - max. At 2 threads 4 rows are below
  // their share (8) and the max stays apart; Q and the difference alone would be rows of one
  // element found through two digits, so they stay apart too.
  const char* per_row =
      "function (X[A, B, C]) -> (Y, Q) {\n"
      "  M[a, b, z : A, B, 1] = >(X[a, b, c]);\n"
      "  Q = X * X;\n"
      "  Y = Q - M;\n"
      "}";
  std::vector<Shape> shapes = {Shape(DType::F32, {1, 4, 1024})};
  CHECK(kernel_count(per_row, shapes) == 3);
  check_against_interpreter(per_row, {random(DType::F32, {1, 4, 1024}, 13)});
  // With one thread, 4 rows are its share: all three fuse over the rows.
  passes::CpuTarget one = passes::cpu_target_for(host_cpu().vector_bits, 1);
  Scheduled scheduled = schedule(bind_tile(per_row, shapes), one);
  CHECK(scheduled.lowered.kernels.size() == 1);
  const std::string& text = scheduled.text;
  CHECK(text.find("parallel for row$ in [0, 4)") != std::string::npos);
  check_against_interpreter(per_row, {random(DType::F32, {1, 4, 1024}, 14)}, one);
  // No vector unit: a GPU target keeps its kernels.
  passes::CpuTarget none;
  shapes = {Shape(DType::F32, {3, 5, 37})};
  CHECK(kernel_count(kSoftmax, shapes, none) > 1);
}

}  // namespace
}  // namespace plaidml::jit::testing
