// Code generation split over threads (jit/codegen/llvm/kernel_partition.h): how the kernels are
// shared out, and programs compiled in several parts (an ar archive of objects) computing what
// the reference interpreter computes.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <set>

#include "harness.h"
#include "jit/codegen/llvm/kernel_partition.h"

namespace plaidml::jit::testing {
namespace {

// Matmuls the register-block pass vectorizes, and elementwise and reduction kernels it leaves
// to LLVM: both kinds of kernel, several of each.
const char* kMixed = R"(
function (A[M, K], B[K, N], C[M, N]) -> (D, E, F, G) {
  P[i, j : M, N] = +(A[i, k] * B[k, j]);
  D = exp(P) + C;
  Q[i, j : M, N] = +(A[i, k] * B[k, j]);
  E = Q * 2.0 - C;
  R[i : M] = >(C[i, j]);
  F = R * 3.0;
  G = tanh(C) / (C + 4.0);
})";

ir::BoundProgram mixed_program() {
  return bind_tile(kMixed, {Shape(DType::F32, {17, 40}), Shape(DType::F32, {40, 33}),
                            Shape(DType::F32, {17, 33})});
}

std::vector<HostTensor> mixed_inputs() {
  return {plaidml::testing::random_tensor(Shape(DType::F32, {17, 40}), 1),
          plaidml::testing::random_tensor(Shape(DType::F32, {40, 33}), 2),
          plaidml::testing::random_tensor(Shape(DType::F32, {17, 33}), 3)};
}

LoweredProgram scheduled(const ir::BoundProgram& bound) {
  return schedule(bound, host_cpu()).lowered;
}

TEST_CASE(
    "partition: with no least weight, every kernel once, the two kinds apart, a part a thread") {
  LoweredProgram lowered = scheduled(mixed_program());
  const auto& kernels = lowered.kernels;
  size_t vectorized = 0;
  for (const auto& k : kernels) vectorized += loop::has_vectors(k) ? 1 : 0;
  REQUIRE(vectorized >= 1);
  REQUIRE(vectorized < kernels.size());
  for (int threads : {0, 1, 2, 3, 64}) {
    CAPTURE(threads);
    auto parts = llvmgen::partition_kernels(kernels, threads, 0);
    size_t want = std::min<size_t>(kernels.size(), std::max(2, threads));
    CHECK(parts.size() == want);
    std::multiset<size_t> seen;
    for (const auto& part : parts) {
      REQUIRE(!part.empty());
      CHECK(std::is_sorted(part.begin(), part.end()));
      bool kind = loop::has_vectors(kernels[part[0]]);
      for (size_t k : part) {
        CHECK(loop::has_vectors(kernels[k]) == kind);
        seen.insert(k);
      }
    }
    CHECK(seen.size() == kernels.size());
    CHECK(std::set<size_t>(seen.begin(), seen.end()).size() == kernels.size());
    CHECK(llvmgen::partition_kernels(kernels, threads, 0) == parts);  // deterministic
  }
  CHECK(llvmgen::partition_kernels({}, 4).empty());
}

size_t total_weight(const std::vector<loop::Kernel>& kernels) {
  size_t total = 0;
  for (const auto& k : kernels) total += llvmgen::compile_weight(k);
  return total;
}

TEST_CASE(
    "partition: a part for every least weight, up to the threads, and too little is one part") {
  LoweredProgram lowered = scheduled(mixed_program());
  const auto& kernels = lowered.kernels;
  size_t total = total_weight(kernels);
  // Less than two least weights: one part, in program order, both kinds in it.
  for (size_t least : {total / 2 + 1, total, llvmgen::kMinPartWeight}) {
    if (total >= 2 * least) continue;  // kMinPartWeight, should the program outgrow it
    CAPTURE(least);
    auto parts = llvmgen::partition_kernels(kernels, 16, least);
    REQUIRE(parts.size() == 1);
    CHECK(parts[0].size() == kernels.size());
    CHECK(std::is_sorted(parts[0].begin(), parts[0].end()));
  }
  // Room for two or three parts: that many at 16 threads, two (one a kind) at one thread.
  CHECK(llvmgen::partition_kernels(kernels, 16, total / 2).size() == 2);
  CHECK(llvmgen::partition_kernels(kernels, 16, total / 3).size() == 3);
  CHECK(llvmgen::partition_kernels(kernels, 1, total / 3).size() == 2);
  CHECK(llvmgen::partition_kernels(kernels, 2, total / 3).size() == 2);
}

TEST_CASE("partition: the heaviest kernels go to different parts") {
  LoweredProgram lowered = scheduled(mixed_program());
  std::vector<loop::Kernel> scalar;
  for (const auto& k : lowered.kernels) {
    if (!loop::has_vectors(k)) scalar.push_back(k);
  }
  REQUIRE(scalar.size() >= 2);
  auto parts = llvmgen::partition_kernels(scalar, 2, 0);
  REQUIRE(parts.size() == 2);
  size_t load[2] = {0, 0};
  for (size_t p = 0; p < 2; ++p) {
    for (size_t k : parts[p]) load[p] += llvmgen::compile_weight(scalar[k]);
  }
  size_t heaviest = 0;
  for (const auto& k : scalar) heaviest = std::max(heaviest, llvmgen::compile_weight(k));
  // Longest first onto the lightest part: the parts differ by at most one kernel's weight.
  CHECK(std::max(load[0], load[1]) - std::min(load[0], load[1]) <= heaviest);
}

// Compiled on each of `threads` with parts of at least `least` weight: the artifact's bytes
// (`archive`: an ar archive of objects, else one ELF object), and the outputs the interpreter's.
void check_compiled(const std::vector<int>& threads_list, size_t least, bool archive) {
  ir::BoundProgram bound = mixed_program();
  std::vector<HostTensor> inputs = mixed_inputs();
  auto expected = eval::evaluate(bound, inputs);
  REQUIRE_MESSAGE(expected.has_value(), expected.status().message());
  for (int threads : threads_list) {
    CAPTURE(threads);
    LoweredProgram lowered = scheduled(bound);
    auto artifact = emit_llvm_object(lowered, target(), threads, least);
    REQUIRE_MESSAGE(artifact.has_value(), artifact.status().message());
    REQUIRE(artifact->bytes.size() > 8);
    std::string head(artifact->bytes.begin(), artifact->bytes.begin() + 8);
    CHECK((head == "!<arch>\n") == archive);
    CHECK((head.substr(0, 4) == "\177ELF") == !archive);
    CHECK(artifact->kernels.size() == lowered.kernels.size());
    auto actual = run_jit(bound, inputs, host_cpu(), threads, least);
    REQUIRE_MESSAGE(actual.has_value(), actual.status().message());
    for (size_t o = 0; o < expected->size(); ++o) {
      std::string report = plaidml::testing::compare_tensors((*actual)[o], (*expected)[o]);
      CHECK_MESSAGE(report.empty(), "output ", o, ": ", report);
    }
  }
}

TEST_CASE(
    "a program compiled in several parts loads from one archive and matches the "
    "interpreter") {
  // No least weight: two kinds of kernel make two parts at least, so always an archive.
  check_compiled({1, 3, 16}, 0, true);
}

TEST_CASE("a program under two least weights is one object of both kinds and matches") {
  LoweredProgram lowered = scheduled(mixed_program());
  check_compiled({1, 16}, total_weight(lowered.kernels) / 2 + 1, false);
}

TEST_CASE("a corrupt kernel archive is an error that says so") {
  std::string text = "!<arch>\nthis is not an archive member header at all";
  std::vector<uint8_t> bytes(text.begin(), text.end());
  auto object = loader().load(bytes, {"k0"});
  REQUIRE(!object.has_value());
  CHECK(object.status().code() == StatusCode::kDeviceError);
  CHECK(object.status().message().find("cannot read") != std::string::npos);
  CHECK(object.status().message().find("kernel archive") != std::string::npos);
}

// An ar member header (60 bytes) and its bytes, padded to an even length.
std::string ar_member(const std::string& name, const std::string& bytes) {
  std::string header =
      fmt::format("{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n", name + "/", 0, 0, 0, 644, bytes.size());
  return header + bytes + (bytes.size() % 2 ? "\n" : "");
}

TEST_CASE("a kernel archive whose second member is cut short is an error that says so") {
  std::string text = "!<arch>\n" + ar_member("part0.o", "not an object") + "part1.o/   12";
  auto object = loader().load(std::vector<uint8_t>(text.begin(), text.end()), {"k0"});
  REQUIRE(!object.has_value());
  CHECK(object.status().code() == StatusCode::kDeviceError);
  CHECK(object.status().message().rfind("cannot read the kernel archive: ", 0) == 0);
}

TEST_CASE("an archive member that is not an object is an error that says so") {
  std::string text = "!<arch>\n" + ar_member("part0.o", "not an object");
  auto object = loader().load(std::vector<uint8_t>(text.begin(), text.end()), {"k0"});
  REQUIRE(!object.has_value());
  CHECK(object.status().code() == StatusCode::kDeviceError);
  CHECK(object.status().message() ==
        "cannot load kernel object: The file was not recognized as a valid object file");
}

TEST_CASE("an empty kernel archive is an error that says so") {
  std::string text = "!<arch>\n";
  auto object = loader().load(std::vector<uint8_t>(text.begin(), text.end()), {"k0"});
  REQUIRE(!object.has_value());
  CHECK(object.status().message() == "the kernel archive is empty");
}

}  // namespace
}  // namespace plaidml::jit::testing
