// Golden kernel texts of the two GPU emitters for one tiled contraction (matmul + bias + relu,
// ragged edges) and one cooperative reduction (a row max over 300, jit/codegen/gpu/
// reduction_kernel.h): the OpenCL C source and the SPIR-V disassembly (spirv-dis) of the same
// schedule (jit/codegen/gpu/gpu_schedule.h). A change to the schedule or to either printer
// shows up here as a text diff, to be read and accepted: PLAIDML_UPDATE_GOLDEN=1 rewrites the
// files in tests/data/golden instead of comparing (then review `git diff` and commit).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "jit/codegen/opencl/opencl_codegen.h"
#include "jit/codegen/spirv/spirv_codegen.h"
#include "jit/gpu_lowering.h"
#include "spirv_val.h"

namespace plaidml::jit {
namespace {

const char* kProgram =
    "function (A[M, K], B[K, N], Bias[N]) -> (R) {\n"
    "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
    "  R = relu(C + Bias);\n"
    "}";

LoweredProgram golden_program() {
  return testing::lower_gpu(kProgram, {Shape(DType::F32, {33, 20}), Shape(DType::F32, {20, 18}),
                                       Shape(DType::F32, {18})});
}

GpuTarget golden_target() {
  GpuTarget t;
  t.device_name = "golden gpu";
  t.max_workgroup_size = 256;
  t.local_memory_bytes = 32768;
  t.compute_units = 4;
  return t;
}

std::string golden_path(const std::string& name) {
  return std::string(PLAIDML_GOLDEN_DIR) + "/" + name;
}

// Compares `text` with the golden file, or rewrites the file under PLAIDML_UPDATE_GOLDEN=1.
void check_golden(const std::string& name, const std::string& text) {
  const std::string path = golden_path(name);
  const char* update = std::getenv("PLAIDML_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << text;
    MESSAGE("rewrote " << path);
    return;
  }
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "no golden file " << path << " (PLAIDML_UPDATE_GOLDEN=1 writes it)");
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK_MESSAGE(text == expected.str(),
                name << " differs from its golden file; if the change is intended, rerun with "
                        "PLAIDML_UPDATE_GOLDEN=1 and review the diff");
}

// spirv-dis's text of a module (friendly names, no header comment).
std::string disassemble(const std::vector<uint8_t>& bytes) {
  char path[] = "/tmp/plaidml_golden_XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  bool written = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  close(fd);
  REQUIRE(written);
  std::string command = std::string(PLAIDML_SPIRV_DIS) + " --no-header --no-color " + path;
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  int rc = pclose(pipe);
  unlink(path);
  REQUIRE_MESSAGE(rc == 0, out);
  return out;
}

LoweredProgram reduction_program() {
  return testing::lower_gpu("function (X[R, C]) -> (M) { M[i : R] = >(X[i, j]); }",
                            {Shape(DType::F32, {5, 300})});
}

void check_opencl_golden(const LoweredProgram& p, const std::string& name) {
  auto artifact = emit_opencl(p, golden_target());
  REQUIRE_MESSAGE(artifact.has_value(), artifact.status().message());
  check_golden(name, std::string(artifact->bytes.begin(), artifact->bytes.end()));
}

void check_spirv_golden(const LoweredProgram& p, const std::string& name) {
  SpirvTarget t;
  t.device_name = "golden gpu";
  t.max_workgroup_size = 256;
  t.shared_memory_bytes = 32768;
  t.compute_units = 4;
  t.int64 = t.float_controls = true;
  auto artifact = emit_spirv(p, t);
  REQUIRE_MESSAGE(artifact.has_value(), artifact.status().message());
  std::string errors = plaidml::testing::spirv_val(artifact->bytes);
  CHECK_MESSAGE(errors.empty(), errors);
  std::string text;
  for (const auto& module : plaidml::testing::spirv_modules(artifact->bytes)) {
    text += disassemble(module);
  }
  check_golden(name, text);
}

TEST_CASE("golden: the tiled matmul + bias + relu as OpenCL C") {
  check_opencl_golden(golden_program(), "tiled_matmul_bias_relu.cl");
}

TEST_CASE("golden: the tiled matmul + bias + relu as SPIR-V") {
  check_spirv_golden(golden_program(), "tiled_matmul_bias_relu.spvasm");
}

TEST_CASE("golden: the cooperative row max as OpenCL C") {
  check_opencl_golden(reduction_program(), "cooperative_row_max.cl");
}

TEST_CASE("golden: the cooperative row max as SPIR-V") {
  check_spirv_golden(reduction_program(), "cooperative_row_max.spvasm");
}

}  // namespace
}  // namespace plaidml::jit
