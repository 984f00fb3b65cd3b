// The disk cache behind the Runtime, in one process: a second Runtime on the same folder (as a
// second process would) compiles its plan without generating code, and computes the same
// numbers; the folder option's "" turns it off.
#include <doctest/doctest.h>

#include "cache_test_util.h"
#include "jit/runtime/runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

constexpr const char* kMatmulRelu = R"(
function (A[M, K], B[K, N]) -> (C) {
  P[i, j : M, N] = +(A[i, k] * B[k, j]);
  C = P > 0 ? P : 0;
}
)";

std::unique_ptr<jit::Runtime> runtime_with_cache(std::optional<std::string> dir) {
  jit::RuntimeOptions opts;
  opts.num_threads = 2;
  opts.device = "cpu:0";
  opts.cache_dir = std::move(dir);
  auto rt = jit::Runtime::create(opts);
  INFO(rt.status().message());
  REQUIRE(rt.has_value());
  return std::move(*rt);
}

void run_matmul(jit::Runtime& rt, int64_t m, int64_t k, int64_t n) {
  run_and_check(rt, parse_program(kMatmulRelu),
                {random_tensor({DType::F32, {m, k}}, 1), random_tensor({DType::F32, {k, n}}, 2)});
}

}  // namespace

TEST_CASE("runtime disk cache: a second runtime on the folder generates no code") {
  TempDir dir;
  auto first = runtime_with_cache(dir.path());
  CHECK(first->cache_dir() == dir.path());
  run_matmul(*first, 33, 17, 65);
  jit::CacheStats s1 = first->stats();
  CHECK(s1.compiles == 1);
  CHECK(s1.kernels_compiled >= 1);
  CHECK(s1.disk_misses == 1);
  CHECK(s1.disk_writes == 1);
  CHECK(s1.disk_hits == 0);
  CHECK(list_files(dir.path("kernels")).size() == 1);

  auto second = runtime_with_cache(dir.path());
  run_matmul(*second, 33, 17, 65);
  jit::CacheStats s2 = second->stats();
  CHECK(s2.compiles == 1);          // the plan is new to this runtime...
  CHECK(s2.kernels_compiled == 0);  // ...but its code comes from the disk
  CHECK(s2.disk_hits == 1);
  CHECK(s2.disk_writes == 0);
  // Another shape is another kernel.
  run_matmul(*second, 8, 8, 8);
  CHECK(second->stats().kernels_compiled >= 1);
  CHECK(list_files(dir.path("kernels")).size() == 2);
}

TEST_CASE("runtime disk cache: two programs lowering to the same kernels share them in memory") {
  auto rt = runtime_with_cache(std::string(""));
  run_matmul(*rt, 5, 6, 7);
  int64_t kernels = rt->stats().kernels_compiled;
  // Other input names: another program (another plan), the same loop-IR kernels.
  std::string renamed = kMatmulRelu;
  for (auto [from, to] : {std::pair{"A[", "X["}, std::pair{"B[", "Y["}}) {
    for (size_t at; (at = renamed.find(from)) != std::string::npos;) renamed.replace(at, 2, to);
  }
  auto other = parse_program(renamed);
  CHECK(other->fingerprint() != parse_program(kMatmulRelu)->fingerprint());
  run_and_check(*rt, other,
                {random_tensor({DType::F32, {5, 6}}, 3), random_tensor({DType::F32, {6, 7}}, 4)});
  jit::CacheStats s = rt->stats();
  CHECK(s.compiles == 2);
  CHECK(s.kernel_library_hits == kernels);  // every kernel of the second from the library
  CHECK(s.artifact_memory_hits == 0);       // so no artifact was even looked up
  CHECK(s.kernels_compiled == kernels);
}

TEST_CASE("runtime disk cache: a damaged entry is rebuilt and the numbers stay right") {
  TempDir dir;
  run_matmul(*runtime_with_cache(dir.path()), 9, 10, 11);
  auto files = list_files(dir.path("kernels"));
  REQUIRE(files.size() == 1);
  std::string path = dir.path("kernels/" + files[0]);
  std::string bytes = read_file(path);
  write_file(path, bytes.substr(0, bytes.size() / 2));  // as a crash mid-copy would leave it
  LogCapture log;
  auto rt = runtime_with_cache(dir.path());
  run_matmul(*rt, 9, 10, 11);
  CHECK(rt->stats().disk_invalid == 1);
  CHECK(rt->stats().kernels_compiled >= 1);
  CHECK(rt->stats().disk_writes == 1);
  CHECK(log.warnings_with("ignoring the invalid entry") == 1);
  CHECK(read_file(path) == bytes);  // rewritten whole (code generation is deterministic)
}

TEST_CASE("runtime disk cache: \"\" turns it off even when PLAIDML_CACHE_DIR is set") {
  TempDir dir;
  ::setenv("PLAIDML_CACHE_DIR", dir.path().c_str(), 1);
  auto off = runtime_with_cache(std::string(""));
  auto from_env = runtime_with_cache(std::nullopt);
  ::unsetenv("PLAIDML_CACHE_DIR");
  CHECK(off->cache_dir().empty());
  CHECK(from_env->cache_dir() == dir.path());
  run_matmul(*off, 4, 4, 4);
  CHECK(list_files(dir.path()).empty());
  jit::CacheStats s = off->stats();
  CHECK(s.kernels_compiled >= 1);
  CHECK(s.disk_misses + s.disk_writes + s.disk_hits == 0);
  run_matmul(*from_env, 4, 4, 4);
  CHECK(from_env->stats().disk_writes == 1);
}

TEST_CASE("runtime disk cache: an unwritable folder warns once and the program still runs") {
  TempDir dir;
  write_file(dir.path("file"), "");
  LogCapture log;
  auto rt = runtime_with_cache(dir.path("file/cache"));
  run_matmul(*rt, 4, 5, 6);
  run_matmul(*rt, 6, 5, 4);
  CHECK(rt->stats().disk_write_failures == 2);
  CHECK(log.warnings_with("kernel cache " + dir.path("file/cache/kernels") +
                          ": cannot create the folder") == 1);
}

TEST_CASE("runtime disk cache: PLAIDML_DUMP=llvm bypasses it, so that the code is printed") {
  TempDir dir;
  run_matmul(*runtime_with_cache(dir.path()), 3, 3, 3);  // the entry exists
  ::setenv("PLAIDML_DUMP", "llvm", 1);
  LogCapture log;
  auto rt = runtime_with_cache(dir.path());
  run_matmul(*rt, 3, 3, 3);
  ::unsetenv("PLAIDML_DUMP");
  jit::CacheStats s = rt->stats();
  CHECK(s.kernels_compiled >= 1);
  CHECK(s.disk_hits + s.disk_misses + s.disk_writes == 0);
  CHECK(log.warnings_with("PLAIDML_DUMP llvm:") == 1);
}
