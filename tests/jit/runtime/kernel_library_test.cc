// The kernel library (jit/kernel_library.h) and shape-class forms (jit/kernel_table.h): on the
// CPU a kernel whose sizes all lie in its parallel loop is compiled once and launched at every
// extent, by other programs and by later runtimes through the plan entries, with the reference
// interpreter's results at each size; a kernel whose inner sizes differ is compiled anew.
#include <doctest/doctest.h>

#include <filesystem>

#include "jit/cache/artifact_key.h"
#include "jit/cache/cache_test_util.h"
#include "jit/compiler.h"
#include "jit/kernel_table.h"
#include "runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

// Rows of C columns: a map and a row sum, each with all of N in its parallel loop.
constexpr const char* kRows = R"(
function (X[N, C], B[C]) -> (Y, S) {
  Y = relu(X + B);
  S[n : N] = +(Y[n, c]);
}
)";

std::unique_ptr<jit::Runtime> runtime_at(const std::string& cache_dir) {
  return make_runtime(2, cache_dir);
}

void run_rows(jit::Runtime& rt, int64_t n, int64_t c) {
  run_and_check(rt, parse_program(kRows),
                {random_tensor({DType::F32, {n, c}}, static_cast<unsigned>(n)),
                 random_tensor({DType::F32, {c}}, 3)});
}

// A kernel storing p0[i] = i over `for i in [0, hi)`, its loop parallel.
jit::loop::Kernel iota(int64_t hi, int slot) {
  using namespace jit::loop;
  Kernel k;
  k.name = "k" + std::to_string(slot);
  k.writes = {slot};
  k.body = block({for_loop("i", 0, hi, {store(slot, var("i"), cast(DType::F32, var("i")))},
                           /*parallel=*/true)});
  return k;
}

}  // namespace

TEST_CASE("kernel table: CPU forms leave the parallel extent to the launch, GPU forms do not") {
  jit::LoweredProgram lowered;
  lowered.slots = {{jit::BufferSlot::Role::kOutput, 0, Shape(DType::F32, {4})},
                   {jit::BufferSlot::Role::kOutput, 1, Shape(DType::F32, {8})}};
  lowered.kernels = {iota(4, 0), iota(8, 1)};
  jit::KernelTable cpu = jit::build_kernel_table(lowered, jit::KernelForms::kShapeClasses);
  CHECK(cpu.code.kernels.size() == 1);
  REQUIRE(cpu.calls.size() == 2);
  CHECK(cpu.calls[0].kernel == cpu.calls[1].kernel);
  CHECK(cpu.calls[0].parallel_extent == 4);
  CHECK(cpu.calls[1].parallel_extent == 8);
  jit::KernelTable gpu = jit::build_kernel_table(lowered, jit::KernelForms::kShapes);
  CHECK(gpu.code.kernels.size() == 2);
  CHECK(gpu.forms[0] != gpu.forms[1]);
  // Another dtype is another kernel, on the CPU too.
  lowered.slots[1].shape = Shape(DType::F64, {8});
  CHECK(jit::build_kernel_table(lowered, jit::KernelForms::kShapeClasses).code.kernels.size() == 2);
}

TEST_CASE("kernels key: names each form at its place, and only there") {
  jit::ArtifactTarget target{"elf-object", "x86_64|test", "19"};
  Sha256Digest a = sha256("form a"), b = sha256("form b");
  std::string text = jit::make_kernels_key({a, b}, target).text;
  CHECK(jit::kernels_key_names(text, 0, a));
  CHECK(jit::kernels_key_names(text, 1, b));
  CHECK_FALSE(jit::kernels_key_names(text, 0, b));
  CHECK_FALSE(jit::kernels_key_names(text, 2, a));
  CHECK_FALSE(jit::kernels_key_names("plaidml artifact\n", 0, a));
}

TEST_CASE("kernel library: row kernels compile once and run right at every number of rows") {
  auto rt = runtime_at("");
  run_rows(*rt, 5, 64);
  jit::CacheStats first = rt->stats();
  REQUIRE(first.kernels_compiled >= 1);
  CHECK(first.kernel_library_hits == 0);
  // (One row is a size of its own: its unit dim simplifies away before scheduling.)
  for (int64_t n : {2, 37, 200, 5}) run_rows(*rt, n, 64);
  jit::CacheStats later = rt->stats();
  CHECK(later.compiles == 4);  // 5 rows again is the plan cache's
  CHECK(later.kernels_compiled == first.kernels_compiled);
  CHECK(later.kernel_library_hits == 3 * first.kernels_compiled);
}

TEST_CASE("kernel library: other columns are other kernels") {
  auto rt = runtime_at("");
  run_rows(*rt, 5, 64);
  int64_t kernels = rt->stats().kernels_compiled;
  run_rows(*rt, 5, 48);
  CHECK(rt->stats().kernels_compiled > kernels);
  CHECK(rt->stats().kernel_library_hits == 0);
}

TEST_CASE("kernel library: a plan of library kernels is restored by a later runtime") {
  TempDir dir;
  {
    auto rt = runtime_at(dir.path());
    run_rows(*rt, 5, 64);
    run_rows(*rt, 9, 64);  // its plan entry names the artifact the first generated
    CHECK(rt->stats().kernel_library_hits >= 1);
    CHECK(list_files(dir.path("kernels")).size() == 1);
    CHECK(list_files(dir.path("plans")).size() == 2);
  }
  auto later = runtime_at(dir.path());
  run_rows(*later, 9, 64);
  run_rows(*later, 5, 64);  // the second entry's kernels: the library's, loaded for the first
  jit::CacheStats s = later->stats();
  CHECK(s.plan_disk_hits == 2);
  CHECK(s.kernels_compiled == 0);
  CHECK(s.disk_hits == 1);
  CHECK(s.kernel_library_hits >= 1);
}

TEST_CASE("form index: a later runtime at a new number of rows generates no kernel") {
  TempDir dir;
  run_rows(*runtime_at(dir.path()), 5, 64);
  CHECK(list_files(dir.path("forms")).size() >= 1);
  auto later = runtime_at(dir.path());
  run_rows(*later, 11, 64);  // no plan entry for 11 rows, and nothing in the library
  jit::CacheStats s = later->stats();
  CHECK(s.plan_disk_hits == 0);
  CHECK(s.kernels_compiled == 0);
  CHECK(s.disk_hits == 1);
  // An entry whose artifact is gone: the kernel is generated again, and the entry rewritten.
  for (const std::string& f : list_files(dir.path("kernels"))) {
    std::filesystem::remove(dir.path("kernels/" + f));
  }
  auto third = runtime_at(dir.path());
  run_rows(*third, 13, 64);
  CHECK(third->stats().kernels_compiled >= 1);
  auto fourth = runtime_at(dir.path());
  run_rows(*fourth, 17, 64);
  CHECK(fourth->stats().kernels_compiled == 0);
}

TEST_CASE("form index: a damaged entry warns and is placed again") {
  TempDir dir;
  run_rows(*runtime_at(dir.path()), 5, 64);
  auto forms = list_files(dir.path("forms"));
  REQUIRE(forms.size() == 1);
  std::string path = dir.path("forms/" + forms[0]);
  std::string bytes = read_file(path);
  write_file(path, bytes.substr(0, bytes.size() - 3));  // as a crash mid-copy would leave it
  LogCapture log;
  auto later = runtime_at(dir.path());
  run_rows(*later, 11, 64);
  // The kernel alone is the missing set, whose artifact is the first runtime's: read, not made.
  CHECK(later->stats().kernels_compiled == 0);
  CHECK(later->stats().disk_hits == 1);
  CHECK(log.warnings_with("ignoring the invalid entry") == 1);
  CHECK(read_file(path) == bytes);  // rewritten: the same form, in the same artifact
}
