// Every case of the conformance suite, at its first shape set, lowered for GPUs as
// jit/compiler.cc lowers it (LowerOptions{gpu = true}, then the pass pipeline), emitted as SPIR-V
// for a device with every optional feature, and checked by spirv-val --target-env vulkan1.1.
#include <doctest/doctest.h>

#include "conformance_case.h"
#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "jit/codegen/spirv/spirv_codegen.h"
#include "jit/passes/pipeline.h"
#include "spirv_val.h"

namespace plaidml::jit {
namespace {

SpirvTarget conformance_target() {
  SpirvTarget t;
  t.device_name = "test device";
  t.int8 = t.int16 = t.int64 = t.float16 = t.float64 = t.float_controls = true;
  return t;
}

// The module of case `c` at shape set 0, or the reason there is none.
Expected<Artifact> emit_case(const conformance::Case& c) {
  PLAIDML_ASSIGN(auto program, parse::parse_tile(c.tile, c.name));
  std::vector<Shape> shapes;
  const conformance::ShapeSet& dims = c.shapes.at(0);
  for (size_t i = 0; i < dims.size(); ++i) {
    shapes.emplace_back(c.dtypes.size() == 1 ? c.dtypes[0] : c.dtypes.at(i), dims[i]);
  }
  PLAIDML_ASSIGN(ir::BoundProgram bound, ir::bind(program, shapes));
  LowerOptions options;
  options.gpu = true;
  PLAIDML_ASSIGN(LoweredProgram lowered, lower(bound, options));
  PLAIDML_TRY(passes::run_pipeline(lowered));
  return emit_spirv(lowered, conformance_target());
}

void check_family(const conformance::Family& family) {
  int valid = 0;
  for (const conformance::Case& c : family.cases) {
    CAPTURE(c.name);
    auto artifact = emit_case(c);
    CHECK_MESSAGE(artifact.has_value(), c.name << ": " << artifact.status().message());
    if (!artifact) continue;
    std::string errors = testing::spirv_val(artifact->bytes);
    CHECK_MESSAGE(errors.empty(), c.name << ": " << errors);
    valid += errors.empty() ? 1 : 0;
  }
  MESSAGE(family.name << ": " << valid << " of " << family.cases.size() << " valid modules");
  CHECK(valid == static_cast<int>(family.cases.size()));
}

TEST_CASE("spirv conformance: contractions") { check_family(conformance::contraction_cases()); }
TEST_CASE("spirv conformance: convolutions") { check_family(conformance::convolution_cases()); }
TEST_CASE("spirv conformance: pooling and reductions") {
  check_family(conformance::pooling_reduction_cases());
}
TEST_CASE("spirv conformance: elementwise") { check_family(conformance::elementwise_cases()); }
TEST_CASE("spirv conformance: dtypes") { check_family(conformance::dtype_cases()); }
TEST_CASE("spirv conformance: structural") { check_family(conformance::structural_cases()); }
TEST_CASE("spirv conformance: edge values") { check_family(conformance::edge_cases()); }

}  // namespace
}  // namespace plaidml::jit
