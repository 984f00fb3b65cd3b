// The measured tile search (jit/tile_measure.h) on opencl:0 (PoCL in CI): it times the
// candidates on the device and hints the fastest; the choice is recorded in the artifact cache
// per kernel, so a later process (a new cache on the same folder) takes it without measuring,
// as does another program with the same kernel; a spent budget measures nothing and records
// nothing; the environment turns it on and off.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "devices/registry.h"
#include "jit/cache/cache_test_util.h"
#include "jit/codegen/opencl/opencl_codegen.h"
#include "jit/gpu_codegen.h"
#include "jit/gpu_lowering.h"
#include "jit/tile_measure.h"

namespace plaidml::jit {
namespace {

using plaidml::testing::TempDir;

std::shared_ptr<devices::Device> opencl0() {
  for (const devices::DeviceEntry& e : devices::list_devices()) {
    if (e.id != "opencl:0") continue;
    auto d = devices::open_device(e, {});
    REQUIRE_MESSAGE(d.has_value(), d.status().message());
    return *d;
  }
  FAIL("no opencl:0");
  return nullptr;
}

const char* kSearchMatmul =
    "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }";

struct Search {
  std::shared_ptr<devices::Device> device = opencl0();
  GpuCodegen codegen = gpu_codegen(device->info(), kOpenClFormat);
  ArtifactTarget target{kOpenClFormat, gpu_target(device->info()).key(), ""};
  TileSearchOptions options;
  Search() {
    options.enabled = true;
    options.min_work = 0;
    options.max_candidates = 3;
  }
  gpu::TileHints run(const LoweredProgram& p, ArtifactCache* cache) {
    return measured_tiles(p, *device, codegen, target, cache, options);
  }
};

TEST_CASE("tile search: measures the candidates, records the fastest, reuses the record") {
  Search s;
  LoweredProgram p = testing::lower_gpu(
      kSearchMatmul, {Shape(DType::F32, {96, 80}), Shape(DType::F32, {80, 112})});
  const loop::Kernel& k = p.kernels.back();
  const std::vector<gpu::TileChoice> candidates =
      gpu::tiled_candidates(k, s.codegen.limits, s.codegen.dispatch, 3);
  REQUIRE(candidates.size() >= 2);
  TempDir dir;
  ArtifactCache cache(dir.path());
  gpu::TileHints hints = s.run(p, &cache);
  REQUIRE(hints.by_kernel.count(k.name) == 1);
  const gpu::TileChoice chosen = hints.by_kernel.at(k.name);
  CHECK(std::find(candidates.begin(), candidates.end(), chosen) != candidates.end());
  CHECK(cache.stats().disk_writes == 1);

  // The next process: a fresh cache on the folder. With no time to measure, the hint can only
  // come from the record.
  s.options.budget_seconds = 0;
  ArtifactCache next(dir.path());
  gpu::TileHints again = s.run(p, &next);
  REQUIRE(again.by_kernel.count(k.name) == 1);
  CHECK(again.by_kernel.at(k.name) == chosen);
  CHECK(next.stats().disk_hits == 1);

  // Another program with the same kernel over other slot numbers finds the same record.
  LoweredProgram q = testing::lower_gpu(
      "function (X[P], A[M, K], B[K, N]) -> (Y, C) {\n"
      "  Y = exp(X);\n"
      "  C[i, j : M, N] = +(A[i, k] * B[k, j]);\n"
      "}",
      {Shape(DType::F32, {7}), Shape(DType::F32, {96, 80}), Shape(DType::F32, {80, 112})});
  gpu::TileHints other = s.run(q, &next);
  REQUIRE(other.by_kernel.size() == 1);
  CHECK(other.by_kernel.begin()->second == chosen);
}

TEST_CASE("tile search: a spent budget or no tiled kernel measures and records nothing") {
  Search s;
  s.options.budget_seconds = 0;
  TempDir dir;
  ArtifactCache cache(dir.path());
  LoweredProgram p = testing::lower_gpu(
      kSearchMatmul, {Shape(DType::F32, {96, 80}), Shape(DType::F32, {80, 112})});
  CHECK(s.run(p, &cache).by_kernel.empty());
  s.options.budget_seconds = 20;
  LoweredProgram e =
      testing::lower_gpu("function (X[N]) -> (Y) { Y = exp(X); }", {Shape(DType::F32, {4096})});
  CHECK(s.run(e, &cache).by_kernel.empty());
  CHECK(cache.stats().disk_writes == 0);
  s.options.enabled = false;
  CHECK(s.run(p, &cache).by_kernel.empty());
}

TEST_CASE("tile search: candidates that fail to build leave the model's tiles, unrecorded") {
  Search s;
  s.codegen.emit = [](const LoweredProgram&, const gpu::TileHints&) -> Expected<Artifact> {
    return Status(StatusCode::kDeviceError, "the driver refused the module");
  };
  TempDir dir;
  ArtifactCache cache(dir.path());
  LoweredProgram p = testing::lower_gpu(
      kSearchMatmul, {Shape(DType::F32, {96, 80}), Shape(DType::F32, {80, 112})});
  CHECK(s.run(p, &cache).by_kernel.empty());
  CHECK(s.run(p, nullptr).by_kernel.empty());
  CHECK(cache.stats().disk_writes == 0);
}

TEST_CASE("tile search: a record is taken only when it names one of the kernel's candidates") {
  Search s;
  LoweredProgram p = testing::lower_gpu(
      kSearchMatmul, {Shape(DType::F32, {96, 80}), Shape(DType::F32, {80, 112})});
  const std::vector<gpu::TileChoice> candidates =
      gpu::tiled_candidates(p.kernels.back(), s.codegen.limits, s.codegen.dispatch, 3);
  REQUIRE(candidates.size() >= 2);
  auto record = [](const std::string& format, const std::string& text) {
    Artifact a;
    a.format = format;
    a.bytes.assign(text.begin(), text.end());
    return a;
  };
  const gpu::TileChoice& c = candidates[1];
  const std::string good = std::to_string(c.tx) + " " + std::to_string(c.ty) + " " +
                           std::to_string(c.rn) + " " + std::to_string(c.rm) + " " +
                           std::to_string(c.bk);
  auto taken = recorded_choice(record("tile-choice", good), candidates);
  REQUIRE(taken.has_value());
  CHECK(*taken == c);
  CHECK_FALSE(recorded_choice(record("opencl-c", good), candidates));
  CHECK_FALSE(recorded_choice(record("tile-choice", "16 16 4"), candidates));
  CHECK_FALSE(recorded_choice(record("tile-choice", good + " 7"), candidates));
  CHECK_FALSE(recorded_choice(record("tile-choice", "0 0 0 0 0"), candidates));
  CHECK_FALSE(recorded_choice(record("tile-choice", "4096 4096 64 64 64"), candidates));
}

TEST_CASE("tile search: on by default for GPUs only; PLAIDML_GPU_TILE_SEARCH overrides") {
  devices::DeviceInfo gpu, cpu;
  gpu.kind = "gpu";
  cpu.kind = "cpu";
  ::unsetenv("PLAIDML_GPU_TILE_SEARCH");
  CHECK(tile_search_options(gpu).enabled);
  CHECK_FALSE(tile_search_options(cpu).enabled);
  ::setenv("PLAIDML_GPU_TILE_SEARCH", "0", 1);
  CHECK_FALSE(tile_search_options(gpu).enabled);
  ::setenv("PLAIDML_GPU_TILE_SEARCH", "1", 1);
  CHECK(tile_search_options(cpu).enabled);
  ::setenv("PLAIDML_GPU_TILE_SEARCH_SECONDS", "3", 1);
  CHECK(tile_search_options(cpu).budget_seconds == 3);
  ::unsetenv("PLAIDML_GPU_TILE_SEARCH");
  ::unsetenv("PLAIDML_GPU_TILE_SEARCH_SECONDS");
}

}  // namespace
}  // namespace plaidml::jit
