// The artifact cache: the artifact encoding, the key (what goes into it), and lookups through
// memory, disk and the generator, with its statistics.
#include "jit/cache/artifact_cache.h"

#include <doctest/doctest.h>

#include "cache_test_util.h"
#include "jit/cache/artifact_codec.h"
#include "jit/cache/compiler_revision.h"
#include "jit/loop/loop_ir.h"

using namespace plaidml;
using namespace plaidml::jit;
using namespace plaidml::testing;

namespace {

Artifact sample_artifact() {
  Artifact a;
  a.format = "elf-object";
  a.bytes = {0x7f, 'E', 'L', 'F', 0, 1, 2, 255};
  KernelEntry k0{"k0", 64, 4096.5};
  KernelEntry k1{"k1", 1, 0};
  k1.grid = {4, 2, 1};
  k1.workgroup = {64, 1, 1};
  a.kernels = {k0, k1};
  return a;
}

void check_same(const Artifact& a, const Artifact& b) {
  CHECK(a.format == b.format);
  CHECK(a.bytes == b.bytes);
  REQUIRE(a.kernels.size() == b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    CHECK(a.kernels[i].symbol == b.kernels[i].symbol);
    CHECK(a.kernels[i].parallel_extent == b.kernels[i].parallel_extent);
    CHECK(a.kernels[i].work == b.kernels[i].work);
    CHECK(a.kernels[i].grid == b.kernels[i].grid);
    CHECK(a.kernels[i].workgroup == b.kernels[i].workgroup);
  }
}

// out[i] = in[i] * 2 over n elements of dtype.
LoweredProgram twice_program(int64_t n, DType dtype = DType::F32) {
  LoweredProgram p;
  p.slots = {BufferSlot{BufferSlot::Role::kInput, 0, Shape{dtype, {n}}},
             BufferSlot{BufferSlot::Role::kOutput, 0, Shape{dtype, {n}}}};
  loop::Kernel k;
  k.name = "twice";
  k.reads = {0};
  k.writes = {1};
  auto value = loop::op(ir::OpKind::Mul, dtype,
                        {loop::load(0, dtype, loop::var("i")), loop::float_const(2, dtype)});
  k.body = loop::block({loop::for_loop("i", 0, n, {loop::store(1, loop::var("i"), value)}, true)});
  k.work = static_cast<double>(n);
  p.kernels.push_back(k);
  return p;
}

ArtifactTarget cpu_target() {
  return {"elf-object", "x86_64-pc-linux-gnu|skylake|+avx2", "19.1.7"};
}

// A generator that counts its calls.
struct CountingGenerator {
  int calls = 0;
  ArtifactCache::Generate fn() {
    return [this]() -> Expected<Artifact> {
      ++calls;
      return sample_artifact();
    };
  }
};

}  // namespace

TEST_CASE("artifact codec: an artifact round-trips") {
  Artifact a = sample_artifact();
  auto decoded = decode_artifact(encode_artifact(a));
  REQUIRE(decoded.has_value());
  check_same(a, *decoded);
  auto empty = decode_artifact(encode_artifact(Artifact{}));
  REQUIRE(empty.has_value());
  CHECK(empty->kernels.empty());
}

TEST_CASE("artifact codec: a malformed payload is an error, never a crash") {
  std::string good = encode_artifact(sample_artifact());
  for (size_t size = 0; size < good.size(); ++size) {
    auto r = decode_artifact(std::string_view(good).substr(0, size));
    CHECK_FALSE(r.has_value());
    CHECK(r.status().code() == StatusCode::kIoError);
  }
  auto extra = decode_artifact(good + "x");
  REQUIRE_FALSE(extra.has_value());
  CHECK(extra.status().message() == "malformed artifact: 1 bytes after the code");
  std::string huge = good;
  huge[8 + 10 + 7] = 0x7f;  // the kernel count's high byte (after the format string)
  auto absurd = decode_artifact(huge);
  REQUIRE_FALSE(absurd.has_value());
  CHECK(absurd.status().message().find(" kernels") != std::string::npos);
}

TEST_CASE("artifact key: the text names everything that shapes the code") {
  ArtifactKey key = make_artifact_key(twice_program(100), cpu_target());
  CHECK(key.text.find("revision " + std::to_string(kCompilerRevision) + "\n") != std::string::npos);
  CHECK(key.text.find("llvm 19.1.7\n") != std::string::npos);
  CHECK(key.text.find("format elf-object\n") != std::string::npos);
  CHECK(key.text.find("target x86_64-pc-linux-gnu|skylake|+avx2\n") != std::string::npos);
  CHECK(key.text.find("slot 0 input 0 f32[100]\n") != std::string::npos);
  CHECK(key.text.find("kernel twice(") != std::string::npos);
  CHECK(key.digest == sha256(key.text));
  CHECK(key.hex().size() == 64);
}

TEST_CASE("artifact key: any change of kernel, shape, dtype or target changes it") {
  ArtifactKey base = make_artifact_key(twice_program(100), cpu_target());
  CHECK(make_artifact_key(twice_program(100), cpu_target()).digest == base.digest);
  CHECK(make_artifact_key(twice_program(101), cpu_target()).digest != base.digest);
  CHECK(make_artifact_key(twice_program(100, DType::F64), cpu_target()).digest != base.digest);
  ArtifactTarget t = cpu_target();
  t.description = "x86_64-pc-linux-gnu|sapphirerapids|+avx2";
  CHECK(make_artifact_key(twice_program(100), t).digest != base.digest);
  t = cpu_target();
  t.llvm_version = "19.1.8";
  CHECK(make_artifact_key(twice_program(100), t).digest != base.digest);
  t = cpu_target();
  t.format = "opencl-c";
  CHECK(make_artifact_key(twice_program(100), t).digest != base.digest);
  LoweredProgram more_work = twice_program(100);
  more_work.kernels[0].work = 1000;
  CHECK(make_artifact_key(more_work, cpu_target()).digest != base.digest);
}

TEST_CASE("artifact cache: generate once, then memory hits (memory only without a folder)") {
  ArtifactCache cache("");
  CountingGenerator gen;
  ArtifactKey key = make_artifact_key(twice_program(8), cpu_target());
  auto first = cache.get_or_generate(key, gen.fn());
  REQUIRE(first.has_value());
  CHECK(first->source == ArtifactCache::Source::kGenerated);
  auto second = cache.get_or_generate(key, gen.fn());
  REQUIRE(second.has_value());
  CHECK(second->source == ArtifactCache::Source::kMemory);
  CHECK(second->artifact == first->artifact);
  CHECK(gen.calls == 1);
  ArtifactCacheStats s = cache.stats();
  CHECK(s.kernels_compiled == 2);  // the sample artifact has two kernels
  CHECK(s.memory_hits == 1);
  CHECK(s.disk_hits + s.disk_misses + s.disk_writes + s.disk_write_failures == 0);
  CHECK(cache.disk_dir().empty());
}

TEST_CASE("artifact cache: a second cache on the same folder reads the disk, generates nothing") {
  TempDir dir;
  ArtifactKey key = make_artifact_key(twice_program(8), cpu_target());
  CountingGenerator gen;
  {
    ArtifactCache cache(dir.path());
    REQUIRE(cache.get_or_generate(key, gen.fn()).has_value());
    ArtifactCacheStats s = cache.stats();
    CHECK(s.disk_misses == 1);
    CHECK(s.disk_writes == 1);
  }
  CHECK(list_files(dir.path("kernels")) == std::vector<std::string>{key.hex()});
  ArtifactCache cache(dir.path());
  auto found = cache.get_or_generate(key, gen.fn());
  REQUIRE(found.has_value());
  CHECK(found->source == ArtifactCache::Source::kDisk);
  check_same(*found->artifact, sample_artifact());
  CHECK(gen.calls == 1);
  ArtifactCacheStats s = cache.stats();
  CHECK(s.disk_hits == 1);
  CHECK(s.kernels_compiled == 0);
  CHECK(s.disk_writes == 0);
  // Then memory serves it.
  CHECK(cache.get_or_generate(key, gen.fn())->source == ArtifactCache::Source::kMemory);
}

TEST_CASE("artifact cache: a damaged entry is counted, regenerated and rewritten") {
  TempDir dir;
  ArtifactKey key = make_artifact_key(twice_program(8), cpu_target());
  CountingGenerator gen;
  REQUIRE(ArtifactCache(dir.path()).get_or_generate(key, gen.fn()).has_value());
  std::string path = dir.path("kernels/" + key.hex());
  std::string bytes = read_file(path);
  bytes[bytes.size() - 3] ^= 0x40;
  write_file(path, bytes);
  LogCapture log;
  ArtifactCache cache(dir.path());
  auto found = cache.get_or_generate(key, gen.fn());
  REQUIRE(found.has_value());
  CHECK(found->source == ArtifactCache::Source::kGenerated);
  CHECK(gen.calls == 2);
  ArtifactCacheStats s = cache.stats();
  CHECK(s.disk_invalid == 1);
  CHECK(s.disk_misses == 1);
  CHECK(s.disk_writes == 1);
  CHECK(log.warnings_with("checksum mismatch") == 1);
  // The rewritten entry is whole again.
  ArtifactCache third(dir.path());
  CHECK(third.get_or_generate(key, gen.fn())->source == ArtifactCache::Source::kDisk);
}

TEST_CASE("artifact cache: a generator error is returned and not cached") {
  TempDir dir;
  ArtifactCache cache(dir.path());
  ArtifactKey key = make_artifact_key(twice_program(8), cpu_target());
  int calls = 0;
  auto failing = [&]() -> Expected<Artifact> {
    ++calls;
    return Status(StatusCode::kUnsupported, "no");
  };
  auto r = cache.get_or_generate(key, failing);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().message() == "no");
  CHECK_FALSE(cache.get_or_generate(key, failing).has_value());
  CHECK(calls == 2);
  CHECK(list_files(dir.path("kernels")).empty());
  CHECK(cache.stats().disk_writes == 0);
}

TEST_CASE("artifact cache: memory keeps the most recently used artifacts within its budget") {
  // The sample artifact counts 8 code bytes + 2 * 64 metadata: a budget of two.
  ArtifactCache cache("", 2 * (8 + 128));
  CountingGenerator gen;
  ArtifactKey a = make_artifact_key(twice_program(1), cpu_target());
  ArtifactKey b = make_artifact_key(twice_program(2), cpu_target());
  ArtifactKey c = make_artifact_key(twice_program(3), cpu_target());
  REQUIRE(cache.get_or_generate(a, gen.fn()).has_value());
  REQUIRE(cache.get_or_generate(b, gen.fn()).has_value());
  REQUIRE(cache.get_or_generate(a, gen.fn()).has_value());  // a is now more recent than b
  REQUIRE(cache.get_or_generate(c, gen.fn()).has_value());  // evicts b
  CHECK(gen.calls == 3);
  CHECK(cache.get_or_generate(a, gen.fn())->source == ArtifactCache::Source::kMemory);
  CHECK(cache.get_or_generate(c, gen.fn())->source == ArtifactCache::Source::kMemory);
  CHECK(cache.get_or_generate(b, gen.fn())->source == ArtifactCache::Source::kGenerated);
}

TEST_CASE("artifact cache: an unwritable folder still compiles, counts the failure, warns once") {
  TempDir dir;
  write_file(dir.path("file"), "");
  LogCapture log;
  ArtifactCache cache(dir.path("file"));  // its "kernels" subfolder cannot be created
  CountingGenerator gen;
  CHECK(cache.get_or_generate(make_artifact_key(twice_program(1), cpu_target()), gen.fn()));
  CHECK(cache.get_or_generate(make_artifact_key(twice_program(2), cpu_target()), gen.fn()));
  CHECK(cache.stats().disk_write_failures == 2);
  CHECK(cache.stats().kernels_compiled == 4);
  CHECK(log.warnings_with("cannot create the folder") == 1);
}
