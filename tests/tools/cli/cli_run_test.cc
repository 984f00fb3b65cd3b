// `plaidml run` end to end: .npy inputs in, .npy outputs out, values against hand-computed
// results; timings, cache statistics and summaries in the stable output lines.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>

#include "cli_harness.h"

namespace plaidml_cli::testing {
namespace {

TEST_CASE("run matmul: outputs, summary and cache statistics") {
  ScratchDir dir;
  write_array(dir.path("a.npy"), f32_array({2, 3}, {1, 2, 3, 4, 5, 6}));
  write_array(dir.path("b.npy"), f32_array({3, 2}, {7, 8, 9, 10, 11, 12}));
  auto r = run_cli(dir, "run '" + data_file("matmul.tile") +
                            "' --input A=a.npy --input B=b.npy --output-dir out --repeat 3");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  NpyArray c = read_array(dir.path("out/C.npy"));
  CHECK(c.dtype == Dtype::F32);
  CHECK(c.shape == std::vector<int64_t>{2, 2});
  // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]]
  CHECK(values_of(c) == std::vector<double>{58, 64, 139, 154});
  CHECK(r.out.find("output C: shape=2x2 dtype=f32 min=58 max=154 mean=103.75 file=out/C.npy\n") !=
        std::string::npos);
  CHECK(field(r.out, "cache:", "compiles") == "1");
  CHECK(field(r.out, "cache:", "hits") == "3");
  CHECK(field(r.out, "cached runs:", "n") == "3");
  CHECK(r.out.find("compile+run: ") != std::string::npos);
  CHECK(r.out.find("program: " + data_file("matmul.tile") + " on cpu:0\n") == 0);
}

TEST_CASE("run --memory prints what an execute needs before running") {
  ScratchDir dir;
  auto r = run_cli(dir, "run '" + data_file("matmul.tile") +
                            "' -i A=ones:f32:2x3 -i B=ones:f32:3x2 --memory");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // A 2x3 and B 3x2 f32 are 48 bytes, C 2x2 16; a matmul has no intermediate.
  CHECK(r.out.rfind("memory: constants=0 arena=0 unshared=0 inputs=48 outputs=16 peak=64 device=",
                    0) == 0);
  CHECK(r.out.find("program: ") != std::string::npos);
}

TEST_CASE("run --memory gives the budget, and a run over it fails with the figures") {
  ScratchDir dir;
  setenv("PLAIDML_MEMORY_LIMIT", "63", 1);  // the matmul's peak is 64 bytes
  auto r = run_cli(dir, "run '" + data_file("matmul.tile") +
                            "' -i A=ones:f32:2x3 -i B=ones:f32:3x2 --memory");
  unsetenv("PLAIDML_MEMORY_LIMIT");
  CHECK(r.exit_code == 1);
  CHECK(field(r.out, "memory:", "peak") == "64");
  CHECK(field(r.out, "memory:", "budget") == "63");
  CHECK(r.err.find("running the program on cpu:0 needs 64 B (inputs 48 B, outputs 16 B, "
                   "intermediates 0 B, constants 0 B), but the context's memory limit is 63 B "
                   "(PLAIDML_MEMORY_LIMIT)") != std::string::npos);
}

TEST_CASE("run without --repeat compiles once and prints no cached-run line") {
  ScratchDir dir;
  auto r = run_cli(dir, "run '" + data_file("matmul.tile") +
                            "' -i A=ones:f32:4x5 -i B=ones:f32:5x3 --threads 2 --print-values");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(field(r.out, "cache:", "compiles") == "1");
  CHECK(field(r.out, "cache:", "hits") == "0");
  CHECK(r.out.find("cached runs:") == std::string::npos);
  CHECK(r.out.find(
            "output C: shape=4x3 dtype=f32 min=5 max=5 mean=5\n5 5 5\n5 5 5\n5 5 5\n5 5 5\n") !=
        std::string::npos);
}

TEST_CASE("run conv (valid, NHWC): hand-computed values") {
  ScratchDir dir;
  write_array(dir.path("i.npy"), f32_array({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  // Output channel 0: a 2x2 box sum; channel 1: I[x, y] - I[x + 1, y + 1].
  write_array(dir.path("k.npy"), f32_array({2, 2, 1, 2}, {1, 1, 1, 0, 1, 0, 1, -1}));
  auto r = run_cli(dir, "run '" + data_file("conv.tile") + "' -i I=i.npy -i K=k.npy -o .");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  NpyArray o = read_array(dir.path("O.npy"));
  CHECK(o.shape == std::vector<int64_t>{1, 2, 2, 2});
  CHECK(values_of(o) == std::vector<double>{12, -4, 16, -4, 24, -4, 28, -4});
}

TEST_CASE("run the conv example (same padding, bias, relu)") {
  ScratchDir dir;
  write_array(dir.path("i.npy"), f32_array({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  write_array(dir.path("k.npy"), f32_array({3, 3, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}));
  write_array(dir.path("b.npy"), f32_array({1}, {-30}));
  auto r = run_cli(
      dir, "run '" + example_file("conv.tile") + "' -i I=i.npy -i K=k.npy -i B=b.npy -o out");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // 3x3 neighbourhood sums [[12,21,16],[27,45,33],[24,39,28]], minus 30, then relu.
  CHECK(values_of(read_array(dir.path("out/O.npy"))) ==
        std::vector<double>{0, 0, 0, 0, 15, 3, 0, 9, 0});
}

TEST_CASE("run with several outputs of different dtypes, integer inputs, broadcasting") {
  ScratchDir dir;
  write_array(dir.path("a.npy"), i32_array({2, 3}, {1, -2, 3, 4, 5, -6}));
  write_array(dir.path("b.npy"), i32_array({3}, {10, -20, 2}));
  auto r = run_cli(dir, "run '" + data_file("multi_output.tile") + "' -i A=a.npy -i B=b.npy -o o");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  NpyArray sum = read_array(dir.path("o/Sum.npy"));
  CHECK(sum.dtype == Dtype::I32);
  CHECK(values_of(sum) == std::vector<double>{11, -22, 5, 14, -15, -4});
  CHECK(values_of(read_array(dir.path("o/Prod.npy"))) ==
        std::vector<double>{10, 40, 6, 40, -100, -12});
  NpyArray greater = read_array(dir.path("o/Greater.npy"));
  CHECK(greater.dtype == Dtype::Bool);
  CHECK(values_of(greater) == std::vector<double>{0, 1, 1, 0, 1, 0});
  CHECK(r.out.find("output Greater: shape=2x3 dtype=bool min=0 max=1 mean=0.5") !=
        std::string::npos);
}

TEST_CASE("run with f16 and f64 inputs keeps their dtypes") {
  ScratchDir dir;
  auto r = run_cli(
      dir, "run '" + data_file("multi_output.tile") + "' -i A=ones:f16:2 -i B=zeros:f16:2 -o o");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  NpyArray sum = read_array(dir.path("o/Sum.npy"));
  CHECK(sum.dtype == Dtype::F16);
  CHECK(values_of(sum) == std::vector<double>{1, 1});
  auto r64 = run_cli(dir, "run '" + data_file("multi_output.tile") +
                              "' -i A=ones:f64:scalar -i B=ones:f64:scalar -o o64");
  REQUIRE(r64.exit_code == 0);
  NpyArray prod = read_array(dir.path("o64/Prod.npy"));
  CHECK(prod.dtype == Dtype::F64);
  CHECK(prod.shape.empty());
  CHECK(values_of(prod) == std::vector<double>{1});
}

TEST_CASE("bf16 outputs are written as '<u2' bits with a warning") {
  ScratchDir dir;
  write_array(dir.path("a.npy"), f32_array({3}, {1.0f, -2.5f, 3.140625f}));
  auto r = run_cli(dir, "run '" + data_file("to_bf16.tile") + "' -i A=a.npy -o o");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err ==
        "plaidml: warning: o/B.npy: NumPy has no bfloat16 dtype; the values are stored "
        "as their raw bits in a '<u2' array (in NumPy: (a.astype(np.uint32) << "
        "16).view(np.float32))\n");
  NpyArray b = read_array(dir.path("o/B.npy"));
  CHECK(b.dtype == Dtype::U16);
  CHECK(values_of(b) == std::vector<double>{0x3f80, 0xc020, 0x4049});
  CHECK(r.out.find("output B: shape=3 dtype=bf16 min=-2.5 max=3.14062 mean=0.546875") !=
        std::string::npos);
}

TEST_CASE("random inputs are reproducible for a seed and differ between seeds") {
  ScratchDir dir;
  std::string cmd =
      "run '" + data_file("matmul.tile") + "' -i A=random:f32:3x4 -i B=random:f32:4x2";
  auto r1 = run_cli(dir, cmd + " --seed 5 -o s5a");
  auto r2 = run_cli(dir, cmd + " --seed 5 -o s5b");
  auto r3 = run_cli(dir, cmd + " --seed 6 -o s6");
  REQUIRE(r1.exit_code == 0);
  REQUIRE(r2.exit_code == 0);
  REQUIRE(r3.exit_code == 0);
  auto c1 = values_of(read_array(dir.path("s5a/C.npy")));
  CHECK(c1 == values_of(read_array(dir.path("s5b/C.npy"))));
  CHECK(c1 != values_of(read_array(dir.path("s6/C.npy"))));
  for (double v : c1) CHECK(std::abs(v) <= 4.0);  // 4 products of values in [-1, 1)
}

}  // namespace
}  // namespace plaidml_cli::testing
