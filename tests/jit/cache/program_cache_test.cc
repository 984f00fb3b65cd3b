// Programs kept under a key in the cache folder (jit/program_cache.h): stored and found again,
// a miss for another key, nothing stored with the cache off, and the folder kept within its
// byte budget by removing the entries used least recently; a folder others can write is refused.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "cache_test_util.h"
#include "core/ir/builder.h"
#include "core/ir/constant.h"
#include "core/ir/printer.h"
#include "core/parse/parse.h"
#include "jit/program_cache.h"
#include "jit/runtime/runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

constexpr const char* kProgram = "function (A[N]) -> (B) { B = A * 2; }";

// Sets an environment variable for the scope.
struct Env {
  Env(const char* name, const std::string& value) : name(name) { ::setenv(name, value.c_str(), 1); }
  ~Env() { ::unsetenv(name); }
  const char* name;
};

// The file system's clock may be coarse: make each use later than the one before.
void tick() { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }

}  // namespace

TEST_CASE("program cache: a stored program is found under its key only") {
  TempDir dir;
  Env cache("PLAIDML_CACHE_DIR", dir.path());
  auto program = parse_program(kProgram);
  CHECK(jit::load_cached_program("model") == nullptr);
  jit::store_cached_program("model", *program);
  CHECK(list_files(dir.path("programs")).size() == 1);
  auto back = jit::load_cached_program("model");
  REQUIRE(back != nullptr);
  CHECK(ir::print_tile(*back) == ir::print_tile(*program));
  CHECK(jit::load_cached_program("another model") == nullptr);
}

TEST_CASE("program cache: off when the cache folder is \"\"") {
  TempDir dir;
  Env cache("PLAIDML_CACHE_DIR", "");
  jit::store_cached_program("model", *parse_program(kProgram));
  CHECK(jit::load_cached_program("model") == nullptr);
}

TEST_CASE("program cache: a folder others can write is refused: nothing stored or loaded") {
  TempDir dir;
  REQUIRE(::chmod(dir.path().c_str(), 0777) == 0);
  Env cache("PLAIDML_CACHE_DIR", dir.path());
  LogCapture log;
  jit::store_cached_program("model", *parse_program(kProgram));
  CHECK(jit::load_cached_program("model") == nullptr);
  CHECK(list_files(dir.path()).empty());
  CHECK(log.warnings_with("program cache " + dir.path("programs") +
                          ": refused, running without the disk cache: the folder " + dir.path() +
                          " is writable by others (mode 0777)") == 1);
}

TEST_CASE("program cache: the least recently used entries go when the folder is over budget") {
  TempDir dir;
  Env cache("PLAIDML_CACHE_DIR", dir.path());
  auto program = parse_program(kProgram);
  jit::store_cached_program("a", *program);
  auto files = list_files(dir.path("programs"));
  REQUIRE(files.size() == 1);
  uint64_t entry = std::filesystem::file_size(dir.path("programs/" + files[0]));
  Env budget("PLAIDML_PROGRAM_CACHE_BYTES", std::to_string(entry * 5 / 2));  // two entries fit
  tick();
  jit::store_cached_program("b", *program);
  tick();
  jit::store_cached_program("c", *program);
  CHECK(list_files(dir.path("programs")).size() == 2);
  CHECK(jit::load_cached_program("a") == nullptr);  // the oldest went
  tick();
  CHECK(jit::load_cached_program("b") != nullptr);  // used now: c is the least recent
  tick();
  jit::store_cached_program("d", *program);
  CHECK(jit::load_cached_program("c") == nullptr);
  CHECK(jit::load_cached_program("b") != nullptr);
  CHECK(jit::load_cached_program("d") != nullptr);
  // A budget below one entry still keeps the entry just stored.
  Env tiny("PLAIDML_PROGRAM_CACHE_BYTES", "1");
  jit::store_cached_program("e", *program);
  CHECK(list_files(dir.path("programs")).size() == 1);
  CHECK(jit::load_cached_program("e") != nullptr);
}

TEST_CASE("program cache: a dim expression used as a value is kept and loads back the same") {
  TempDir dir;
  Env cache("PLAIDML_CACHE_DIR", dir.path());
  // Y = X + max(N, 3), as exported shape arithmetic makes (BERT): printed `X + (max(N, 3))`,
  // which parses back as that one value. It used to read back as elementwise max nodes,
  // another program, so it was not kept.
  ir::ProgramBuilder b("dims");
  auto x = b.add_input("X", std::vector<std::string>{"N"}, DType::F32, {});
  REQUIRE(x.has_value());
  auto size = b.add_dim_literal(
      ir::IntExpr::binary(ir::IntOp::kMax, ir::IntExpr::dim("N"), ir::IntExpr::literal(3)), {});
  REQUIRE(size.has_value());
  auto y = b.add_elementwise(ir::OpKind::Add, {*x, *size}, {}, {});
  REQUIRE(y.has_value());
  REQUIRE(b.assign("Y", *y, {}).is_ok());
  REQUIRE(b.add_output("Y", {}).is_ok());
  auto program = b.finish();
  REQUIRE(program.has_value());
  jit::store_cached_program("dims", **program);
  CHECK(list_files(dir.path("programs")).size() == 1);
  auto loaded = jit::load_cached_program("dims");
  REQUIRE(loaded != nullptr);
  CHECK(loaded->fingerprint() == (*program)->fingerprint());
}

TEST_CASE("program cache: a program that does not print back to itself is not kept") {
  TempDir dir;
  Env cache("PLAIDML_CACHE_DIR", dir.path());
  // An index variable with a capitalised name prints as `X[K]`, which reads back with a
  // dimension K in its place. The C API refuses such names (plaidml_expr_index); the library's
  // own builder does not check them, and the cache keeps only what reads back the same.
  ir::ProgramBuilder b("capitalised");
  auto x = b.add_input("X", std::vector<std::string>{"N"}, DType::F32, {});
  REQUIRE(x.has_value());
  ir::Contraction c;
  c.inputs = {{*x, {ir::IntExpr::index("K")}, {}}};
  auto sum = b.add_contraction(c, {});
  REQUIRE(sum.has_value());
  REQUIRE(b.assign("S", *sum, {}).is_ok());
  REQUIRE(b.add_output("S", {}).is_ok());
  auto program = b.finish();
  REQUIRE(program.has_value());
  REQUIRE(!parse::parse_tile(ir::print_tile(**program)).has_value());  // the premise
  jit::store_cached_program("capitalised", **program);
  CHECK(list_files(dir.path("programs")).empty());
  CHECK(jit::load_cached_program("capitalised") == nullptr);
}

TEST_CASE("program cache: equal bytes under two shapes are two constants, and the program is kept") {
  TempDir dir;
  Env cache("PLAIDML_CACHE_DIR", dir.path());
  std::vector<float> fill(20, 0.02f);  // as exporters' constant fills are
  auto flat = ir::copy_constant(Shape(DType::F32, {20}), fill.data());
  auto square = ir::copy_constant(Shape(DType::F32, {4, 5}), fill.data());
  REQUIRE((flat && square));
  REQUIRE((*flat)->digest == (*square)->digest);
  ir::ProgramBuilder b("fills");
  auto x = b.add_input("X", std::vector<std::string>{"4", "5"}, DType::F32, {});
  auto f = b.add_constant("F", *flat, {});
  auto q = b.add_constant("Q", *square, {});
  REQUIRE((x && f && q));
  auto y = b.add_elementwise(ir::OpKind::Add, {*x, *q}, {}, {});
  REQUIRE(y.has_value());
  REQUIRE(b.assign("Y", *y, {}).is_ok());
  REQUIRE(b.assign("G", *f, {}).is_ok());
  REQUIRE(b.add_output("Y", {}).is_ok());
  REQUIRE(b.add_output("G", {}).is_ok());
  auto program = b.finish();
  INFO(program.status().message());
  REQUIRE(program.has_value());
  jit::store_cached_program("fills", **program);
  auto back = jit::load_cached_program("fills");
  REQUIRE(back != nullptr);
  CHECK(ir::print_tile(*back) == ir::print_tile(**program));
}
