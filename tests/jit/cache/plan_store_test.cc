// Compiled plans on disk (jit/plan_store.h, jit/plan_record.h): a second runtime on the folder
// makes its plan from the entry (nothing bound, lowered or scheduled) and computes the
// interpreter's numbers; entries that are damaged, stale or whose kernels are gone are not
// used, and the program still compiles and runs right.
#include <doctest/doctest.h>

#include "cache_test_util.h"
#include "core/ir/builder.h"
#include "core/ir/constant.h"
#include "core/parse/parse.h"
#include "core/parse/program_file.h"
#include "jit/constant_buffers.h"
#include "jit/plan_record.h"
#include "jit/plan_store.h"
#include "jit/runtime/runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

// C = relu(A * W) for a weight W (a constant slot) broadcast over A's rows.
std::shared_ptr<const ir::Program> dense(float last_weight = 6) {
  ir::ProgramBuilder b("dense");
  auto a = b.add_input("A", std::vector<std::string>{"M", "K"}, std::nullopt, {});
  const float weights[] = {1, -2, 3, 4, -5, last_weight};
  auto data = ir::copy_constant(Shape(DType::F32, {6}), weights);
  REQUIRE(a.has_value());
  REQUIRE(data.has_value());
  auto w = b.add_constant("W", *data, {});
  REQUIRE(w.has_value());
  auto product = b.add_elementwise(ir::OpKind::Mul, {*a, *w}, {}, {});
  REQUIRE(product.has_value());
  auto c = b.add_call("relu", {*product}, {}, {});
  REQUIRE(c.has_value());
  REQUIRE(b.assign("C", *c, {}).is_ok());
  REQUIRE(b.add_output("C", {}).is_ok());
  auto program = b.finish();
  REQUIRE(program.has_value());
  return *program;
}

std::unique_ptr<jit::Runtime> runtime_on(const std::string& dir, int threads = 2) {
  jit::RuntimeOptions opts;
  opts.num_threads = threads;
  opts.device = "cpu:0";
  opts.cache_dir = dir;
  auto rt = jit::Runtime::create(opts);
  INFO(rt.status().message());
  REQUIRE(rt.has_value());
  return std::move(*rt);
}

void run_dense(jit::Runtime& rt, int64_t rows) {
  run_and_check(rt, dense(), {random_tensor({DType::F32, {rows, 6}}, 7)});
}

// The path of the folder's one plan entry.
std::string only_plan_entry(const TempDir& dir) {
  auto files = list_files(dir.path("plans"));
  REQUIRE(files.size() == 1);
  return dir.path("plans/" + files[0]);
}

jit::PlanRecord sample_record() {
  jit::PlanRecord r;
  r.input_shapes = {Shape(DType::F32, {4, 3})};
  r.output_shapes = {Shape(DType::I64, {4, 2})};
  r.slots = {{jit::BufferSlot::Role::kInput, 0, r.input_shapes[0]},
             {jit::BufferSlot::Role::kConstant, 1, Shape(DType::F32, {3, 2})},
             {jit::BufferSlot::Role::kTemp, 2, Shape(DType::F32, {4, 2})},
             {jit::BufferSlot::Role::kOutput, 0, r.output_shapes[0]},
             {jit::BufferSlot::Role::kConstant, 1, Shape(DType::F32, {6}),
              jit::PanelPacking{3, 2, 2, Shape(DType::F32, {3, 2})}}};
  r.constant_digests = {0, 0x0123456789abcdefULL, 0, 0, 0x0123456789abcdefULL};
  r.calls = {{0, {0, 4, 2}, 4, 24}, {1, {2, 3}, 1, 8}};
  r.launch_info = {{{"n1 (MatMul)"}, 80}, {{"n2 (Relu)", "n3 (Cast)"}, 96}};
  r.memory_plan.block_of = {-1, -1, 0, -1, -1};
  r.memory_plan.first_kernel = {-1, -1, 0, -1, -1};
  r.memory_plan.block_bytes = {32};
  r.memory_plan.arena_bytes = 32;
  r.memory_plan.unshared_bytes = 32;
  r.memory = {24, 32, 32, 48, 64};
  // Kernel 0 from an earlier compile's artifact, kernel 1 from this one's.
  r.kernels = {{0, 3, sha256("form a")}, {1, 0, sha256("form b")}};
  r.artifact_keys = {"plaidml artifact\nkernel of form ...", "plaidml artifact\nkernel of..."};
  return r;
}

}  // namespace

TEST_CASE("plan record: a record round-trips") {
  jit::PlanRecord r = sample_record();
  auto back = jit::decode_plan_record(jit::encode_plan_record(r));
  INFO(back.status().message());
  REQUIRE(back.has_value());
  CHECK(back->input_shapes == r.input_shapes);
  CHECK(back->output_shapes == r.output_shapes);
  REQUIRE(back->slots.size() == 5);
  CHECK(back->slots[1].role == jit::BufferSlot::Role::kConstant);
  CHECK(back->slots[1].index == 1);
  CHECK_FALSE(back->slots[1].packing.packed());
  CHECK(back->slots[3].shape == r.output_shapes[0]);
  CHECK(back->slots[4].packing == r.slots[4].packing);
  CHECK(back->slots[4].shape == r.slots[4].shape);
  CHECK(back->constant_digests == r.constant_digests);
  REQUIRE(back->calls.size() == 2);
  CHECK(back->calls[1].kernel == 1);
  CHECK(back->calls[0].args == std::vector<int>{0, 4, 2});
  CHECK(back->launch_info[1].origins == r.launch_info[1].origins);
  CHECK(back->launch_info[0].bytes == 80);
  CHECK(back->memory_plan.block_of == r.memory_plan.block_of);
  CHECK(back->memory_plan.block_bytes == r.memory_plan.block_bytes);
  CHECK(back->memory.peak_bytes() == r.memory.peak_bytes());
  CHECK(back->memory.unshared_bytes == 32);
  CHECK(back->calls[0].parallel_extent == 4);
  CHECK(back->calls[1].work == 8);
  REQUIRE(back->kernels.size() == 2);
  CHECK(back->kernels[0].index == 3);
  CHECK(back->kernels[1].artifact == 1);
  CHECK(back->kernels[1].form == r.kernels[1].form);
  CHECK(back->artifact_keys == r.artifact_keys);
}

TEST_CASE("plan record: every truncation and every flipped byte is an error or a valid plan") {
  std::string bytes = jit::encode_plan_record(sample_record());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = jit::decode_plan_record(std::string_view(bytes).substr(0, n));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.status().code() == StatusCode::kIoError);
    CHECK(r.status().message().find("malformed plan entry: ") == 0);
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
    (void)jit::decode_plan_record(damaged);  // must not crash, hang or allocate without bound
  }
  CHECK_FALSE(jit::decode_plan_record(bytes + "x").has_value());
}

TEST_CASE("plan record: indices out of range are refused, naming what is wrong") {
  auto refused = [](jit::PlanRecord r) {
    auto d = jit::decode_plan_record(jit::encode_plan_record(r));
    REQUIRE_FALSE(d.has_value());
    return d.status().message();
  };
  jit::PlanRecord r = sample_record();
  r.calls[1].args[1] = 5;
  CHECK(refused(r) == "malformed plan entry: call 1: argument 5 of 5 slots");
  r = sample_record();
  r.calls[0].kernel = 2;
  CHECK(refused(r) == "malformed plan entry: call 0: kernel 2 of 2");
  r = sample_record();
  r.calls[1].parallel_extent = -1;
  CHECK(refused(r) == "malformed plan entry: call 1: parallel extent -1");
  r = sample_record();
  r.kernels[1].artifact = 2;
  CHECK(refused(r) == "malformed plan entry: kernel 1: artifact 2 of 2");
  r = sample_record();
  r.memory_plan.block_of[2] = 1;
  CHECK(refused(r) == "malformed plan entry: slot 2: arena block 1");
  r = sample_record();
  r.memory_plan.block_of[0] = 0;  // an input in the arena
  CHECK(refused(r) == "malformed plan entry: slot 0: arena block 0");
  r = sample_record();
  r.slots[3].index = 1;
  CHECK(refused(r) == "malformed plan entry: slot 3: index 1");
  r = sample_record();
  r.memory_plan.block_of.pop_back();
  CHECK(refused(r) == "malformed plan entry: memory plan: slot count");
  // Panels that would read past the constant, or a buffer of another size than they fill.
  r = sample_record();
  r.slots[4].packing.rows = 4;
  CHECK(refused(r) == "malformed plan entry: slot 4: packing");
  r = sample_record();
  r.slots[4].shape = Shape(DType::F32, {8});
  CHECK(refused(r) == "malformed plan entry: slot 4: packing");
  r = sample_record();
  r.slots[2].packing = r.slots[4].packing;  // a temporary is never packed
  CHECK(refused(r) == "malformed plan entry: slot 2: packing");
}

TEST_CASE("plan key: program, shapes, target and schedule each change it") {
  auto program = dense();
  jit::ArtifactTarget target{"elf-object", "x86_64 znver3 +avx2", "19.1.7"};
  jit::passes::CpuTarget cpu = jit::passes::cpu_target_for(256, 2);
  std::vector<Shape> shapes = {Shape(DType::F32, {4, 6})};
  jit::ArtifactKey base = jit::make_plan_key(*program, shapes, target, cpu);
  CHECK(base.text.find("W = constant(f32[6], [1, -2, 3, 4, -5, 6])") != std::string::npos);
  CHECK(jit::make_plan_key(*program, shapes, target, cpu).digest == base.digest);
  CHECK(jit::make_plan_key(*program, {Shape(DType::F32, {5, 6})}, target, cpu).digest !=
        base.digest);
  jit::ArtifactTarget other = target;
  other.description = "x86_64 skylake-avx512";
  CHECK(jit::make_plan_key(*program, shapes, other, cpu).digest != base.digest);
  CHECK(jit::make_plan_key(*program, shapes, target, jit::passes::cpu_target_for(256, 4))
            .digest != base.digest);
  CHECK(jit::make_plan_key(*dense(7), shapes, target, cpu).digest != base.digest);
}

TEST_CASE("plan store: a second runtime makes its plan from the entry and computes right") {
  TempDir dir;
  auto first = runtime_on(dir.path());
  run_dense(*first, 5);
  jit::CacheStats s1 = first->stats();
  CHECK(s1.plan_disk_misses == 1);
  CHECK(s1.plan_disk_writes == 1);
  CHECK(list_files(dir.path("plans")).size() == 1);

  auto second = runtime_on(dir.path());
  run_dense(*second, 5);
  jit::CacheStats s2 = second->stats();
  CHECK(s2.plan_disk_hits == 1);
  CHECK(s2.plan_disk_writes == 0);
  CHECK(s2.kernels_compiled == 0);
  CHECK(s2.disk_hits == 1);  // its kernels, from the kernel cache
  auto plan = second->prepare(dense(), {Shape(DType::F32, {5, 6})}, 0);
  REQUIRE(plan.has_value());
  CHECK((*plan)->memory().constants_bytes == 24);
  CHECK((*plan)->output_shapes() == std::vector<Shape>{Shape(DType::F32, {5, 6})});

  // Other shapes or another thread count (another schedule) are other entries.
  run_dense(*second, 9);
  CHECK(second->stats().plan_disk_writes == 1);
  auto four = runtime_on(dir.path(), 4);
  run_dense(*four, 5);
  CHECK(four->stats().plan_disk_hits == 0);
  CHECK(list_files(dir.path("plans")).size() == 3);
}

// relu(A x W) for a 512 x 1024 constant W: wide enough that the CPU schedule reads W from panels
// (a packed constant slot, jit/passes/weight_packing.h).
std::shared_ptr<const ir::Program> wide_dense() {
  auto resolver = [](const Shape& shape, uint64_t) {
    HostTensor w = random_tensor(shape, 17);
    return ir::copy_constant(shape, w.bytes.data());
  };
  auto program = parse::parse_tile(
      "function (A[M, K]) -> (C) {\n"
      "  W = constant(f32[512, 1024], digest \"00000000000000ff\");\n"
      "  P[i, j : M, 1024] = +(A[i, k] * W[k, j]);\n"
      "  C = relu(P);\n"
      "}",
      "wide_dense", resolver);
  REQUIRE_MESSAGE(program.has_value(), program.status().message());
  return *program;
}

TEST_CASE("plan store: a packed constant slot is bound and packed again from the entry") {
  TempDir dir;
  HostTensor a = random_tensor({DType::F32, {20, 512}}, 3);
  auto first = runtime_on(dir.path());
  run_and_check(*first, wide_dense(), {a});
  auto plan = first->prepare(wide_dense(), {a.shape}, 0);
  REQUIRE(plan.has_value());
  // The panels replace the constant: 43 panels of 24 columns (AVX2) or 22 of 48 (AVX-512),
  // never fewer bytes than the constant's 2 MiB.
  CHECK((*plan)->memory().constants_bytes >= 512 * 1024 * 4);
  CHECK((*plan)->memory().constants_bytes < 512 * 1056 * 4);

  auto second = runtime_on(dir.path());
  run_and_check(*second, wide_dense(), {a});  // a new program object, the same constant bytes
  CHECK(second->stats().plan_disk_hits == 1);
  CHECK(second->stats().kernels_compiled == 0);
}

TEST_CASE("a packed constant of a program file: its pages dropped, later runs still right") {
  // Loaded from a program file, the weights are a read-only file mapping: once packed, their
  // pages leave the process (jit/constant_buffers.h) and read back from the file if touched.
  TempDir dir;
  std::string path = dir.path("wide.plaidml");
  REQUIRE(parse::save_program(*wide_dense(), path).is_ok());
  auto loaded = parse::load_program(path);
  REQUIRE_MESSAGE(loaded.has_value(), loaded.status().message());
  const ir::ConstantData* w = nullptr;
  for (const ir::Node& n : (*loaded)->nodes) {
    if (n.constant) w = n.constant.get();
  }
  REQUIRE(w != nullptr);
  CHECK(w->file_backed);
  HostTensor a = random_tensor({DType::F32, {3, 512}}, 5);
  auto rt = runtime_on(dir.path());
  run_and_check(*rt, *loaded, {a});  // packs W, then drops its pages
  jit::drop_file_pages(*w);          // again, explicitly: the bytes read back the same
  CHECK(ir::copy_constant(w->shape, w->data).value()->digest == w->digest);
  run_and_check(*rt, *loaded, {a});
}

TEST_CASE("plan store: an entry whose kernels are gone is unused, and the compile rewrites it") {
  TempDir dir;
  run_dense(*runtime_on(dir.path()), 6);
  std::string entry = read_file(only_plan_entry(dir));
  for (const std::string& f : list_files(dir.path("kernels"))) {
    std::filesystem::remove(dir.path("kernels/" + f));
  }
  auto rt = runtime_on(dir.path());
  run_dense(*rt, 6);
  jit::CacheStats s = rt->stats();
  CHECK(s.plan_disk_hits == 0);
  CHECK(s.plan_disk_misses == 1);
  CHECK(s.plan_disk_writes == 1);
  CHECK(s.kernels_compiled >= 1);
  CHECK(s.disk_writes == 1);
  CHECK(list_files(dir.path("kernels")).size() == 1);
  CHECK(read_file(only_plan_entry(dir)) == entry);  // the same plan, written again
  // ...and a third runtime makes its plan from it.
  auto third = runtime_on(dir.path());
  run_dense(*third, 6);
  CHECK(third->stats().plan_disk_hits == 1);
  CHECK(third->stats().kernels_compiled == 0);
}

TEST_CASE("plan store: a damaged entry warns, is not used, and is rewritten") {
  TempDir dir;
  run_dense(*runtime_on(dir.path()), 3);
  std::string path = only_plan_entry(dir);
  std::string bytes = read_file(path);
  write_file(path, bytes.substr(0, bytes.size() - 9));
  LogCapture log;
  auto rt = runtime_on(dir.path());
  run_dense(*rt, 3);
  CHECK(rt->stats().plan_disk_hits == 0);
  CHECK(rt->stats().plan_disk_misses == 1);
  CHECK(log.warnings_with("ignoring the invalid entry " + path) == 1);
  CHECK(read_file(path) == bytes);
}

TEST_CASE("plan store: a whole entry whose payload is not a plan warns and is rewritten") {
  TempDir dir;
  run_dense(*runtime_on(dir.path()), 2);
  std::string path = only_plan_entry(dir);
  std::string bytes = read_file(path);  // ParsedEntry views these bytes
  jit::ParsedEntry entry = jit::parse_disk_entry(bytes);
  REQUIRE(entry.problem.empty());
  std::string key_text(entry.key_text);
  // A valid entry (its checksum matches) holding a payload no writer makes.
  jit::DiskCache(dir.path("plans")).write(entry.digest, key_text, "not a plan");
  LogCapture log;
  auto rt = runtime_on(dir.path());
  run_dense(*rt, 2);
  CHECK(rt->stats().plan_disk_misses == 1);
  CHECK(rt->stats().plan_disk_writes == 1);
  CHECK(log.warnings_with("ignoring the plan entry " + path + ": malformed plan entry: ") == 1);
}

TEST_CASE("plan store: an entry whose constant slots are not the program's constants is unused") {
  TempDir dir;
  run_dense(*runtime_on(dir.path()), 4);
  // Rewrite the entry with a constant slot's digest changed (as if the node ids had moved).
  std::string path = only_plan_entry(dir);
  std::string bytes = read_file(path);  // ParsedEntry views these bytes
  jit::ParsedEntry entry = jit::parse_disk_entry(bytes);
  REQUIRE(entry.problem.empty());
  auto record = jit::decode_plan_record(entry.payload);
  REQUIRE(record.has_value());
  bool changed = false;
  for (uint64_t& d : record->constant_digests) {
    if (d != 0) d ^= 1, changed = true;
  }
  REQUIRE(changed);
  std::string key_text(entry.key_text);
  jit::DiskCache(dir.path("plans"))
      .write(entry.digest, key_text, jit::encode_plan_record(*record));
  auto rt = runtime_on(dir.path());
  run_dense(*rt, 4);
  CHECK(rt->stats().plan_disk_hits == 0);
  CHECK(rt->stats().plan_disk_misses == 1);
  CHECK(rt->stats().plan_disk_writes == 1);  // replaced by the right one
}
