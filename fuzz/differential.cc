// Fuzz target differential: a generated program (fuzz/program_gen.h) on the CPU JIT and on the
// reference interpreter, which must agree.
//
// A program that binding or the interpreter refuses is skipped (the generator makes a few:
// a bitwise op on floats, an index nothing bounds). Where the interpreter gives a result, the
// CPU device must give the same: an error (other than UNSUPPORTED or OUT_OF_MEMORY) or a result
// outside the tolerance is a finding. The tolerance is looser than the conformance suite's, as
// the generator's values meet every math function at any magnitude: it finds wrong indices,
// ops and bounds, not last-bit rounding. Intermediates in the arena are poisoned, as in the
// conformance suite, and no disk cache is used.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "check_status.h"
#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "jit/runtime.h"
#include "program_gen.h"
#include "support/tensors.h"

namespace plaidml::fuzz {
namespace {

bool g_print = false;  // PLAIDML_FUZZ_PRINT=1: print each program and why it was skipped

// One runtime per process, made again now and then so that its caches cannot grow for a
// whole campaign.
jit::Runtime& runtime() {
  static std::unique_ptr<jit::Runtime> rt;
  static int uses = 0;
  if (!rt || ++uses % 512 == 0) {
    rt.reset();
    jit::RuntimeOptions options;
    options.device = "cpu:0";
    options.cache_dir = "";
    options.num_threads = 1;
    auto created = jit::Runtime::create(options);
    if (!created) fail("cannot create the runtime", created.status().message());
    rt = std::move(*created);
  }
  return *rt;
}

testing::Tolerance tolerance_of(DType dtype) {
  testing::Tolerance t = testing::default_tolerance(dtype);
  if (dtype_is_float(dtype)) t = {std::max(t.rtol, 1e-3), std::max(t.atol, 1e-4)};
  return t;
}

// The outputs of the program on the CPU device; nullopt where it may refuse (UNSUPPORTED, or
// more memory than it has).
std::optional<std::vector<HostTensor>> run_on_cpu(const std::shared_ptr<const ir::Program>& program,
                                                  const std::vector<HostTensor>& inputs,
                                                  const std::string& tile) {
  jit::Runtime& rt = runtime();
  std::vector<std::shared_ptr<jit::Buffer>> buffers;
  for (const HostTensor& t : inputs) {
    auto buffer = rt.allocate(0, t.shape);
    if (!buffer) fail("allocate", buffer.status().message());
    Status s = rt.write(**buffer, t.bytes.data(), t.bytes.size());
    if (!s.is_ok()) fail("write", s.message());
    buffers.push_back(*buffer);
  }
  std::vector<std::shared_ptr<jit::Buffer>> outputs;
  Status s = rt.run(program, 0, buffers, &outputs);
  if (s.code() == StatusCode::kUnsupported || s.code() == StatusCode::kOutOfMemory) {
    return std::nullopt;
  }
  if (!s.is_ok())
    fail("the CPU device failed where the interpreter ran", s.message() + "\n" + tile);
  std::vector<HostTensor> results;
  for (const auto& out : outputs) {
    HostTensor t(out->shape());
    Status r = rt.read(*out, t.bytes.data(), t.bytes.size());
    if (!r.is_ok()) fail("read", r.message());
    results.push_back(std::move(t));
  }
  return results;
}

void skip(const Status& status, const char* call) {
  check_status(status, call);
  if (plaidml::fuzz::g_print)
    std::fprintf(stderr, "skipped: %s: %s\n", call, status.message().c_str());
}

void differential(const GeneratedProgram& generated) {
  auto program = parse::parse_tile(generated.tile, "differential");
  if (!program) return skip(program.status(), "parse_tile");
  std::vector<Shape> shapes;
  for (const HostTensor& t : generated.inputs) shapes.push_back(t.shape);
  auto bound = ir::bind(*program, shapes);
  if (!bound) return skip(bound.status(), "bind");
  auto expected = eval::evaluate(*bound, generated.inputs);
  if (!expected) return skip(expected.status(), "evaluate");
  auto actual = run_on_cpu(*program, generated.inputs, generated.tile);
  if (!actual) return;
  for (size_t i = 0; i < expected->size(); ++i) {
    DType dtype = (*expected)[i].shape.dtype;
    std::string report =
        testing::compare_tensors((*actual)[i], (*expected)[i], tolerance_of(dtype));
    if (!report.empty()) {
      fail("the CPU device disagrees with the interpreter",
           "output " + (*program)->outputs[i].first + ": " + report + "\n" + generated.tile);
    }
  }
}

}  // namespace
}  // namespace plaidml::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* print = std::getenv("PLAIDML_FUZZ_PRINT");
  plaidml::fuzz::g_print = print != nullptr && *print != '\0' && *print != '0';
  setenv("PLAIDML_DEBUG_POISON_ARENA", "1", 1);
  setenv("PLAIDML_CACHE_DIR", "", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider bytes(data, size);
  plaidml::fuzz::GeneratedProgram generated = plaidml::fuzz::generate_program(bytes);
  if (plaidml::fuzz::g_print) std::fprintf(stderr, "%s", generated.tile.c_str());
  plaidml::fuzz::differential(generated);
  return 0;
}
