// Fuzz target tile_text: Tile text through the parser, the binder and the printer.
//
// The input is Tile text. What parses is bound at small input shapes (binding checks types,
// broadcasting and bounds), printed, parsed again and printed again: the printer promises text
// that parses back to the same program (core/ir/printer.h), so the second print must equal the
// first. Constants too large to print their values are given back to the second parse by
// digest, as a program file does. Findings: fuzz/check.h, and a round trip that fails to parse
// or changes the text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "check_status.h"
#include "core/ir/bind.h"
#include "core/ir/printer.h"
#include "core/parse/parse.h"

namespace plaidml::fuzz {
namespace {

// Sizes small enough that binding never meets a size it could not hold, varied by the dim's
// name so that a named dim gets one size everywhere.
int64_t size_of_dim_name(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return 1 + static_cast<int64_t>(h % 3);
}

// Input shapes for binding: declared dtypes and fixed sizes as written (nullopt when a fixed
// size is too large to be worth binding), named dims by size_of_dim_name, unnamed dims 2, an
// input of unknown rank a vector of 2.
std::optional<std::vector<Shape>> shapes_for(const ir::Program& program) {
  std::vector<Shape> shapes;
  for (ir::ValueId id : program.inputs) {
    const ir::Node& node = program.nodes[id];
    Shape shape(node.input_dtype.value_or(DType::F32), {});
    if (!node.input_dims) shape.dims = {2};
    for (const std::string& dim : node.input_dims.value_or(std::vector<std::string>{})) {
      std::optional<int64_t> fixed = ir::fixed_dim_size(dim);
      if (fixed && *fixed > 64) return std::nullopt;
      shape.dims.push_back(fixed ? *fixed : dim.empty() ? 2 : size_of_dim_name(dim));
    }
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

// The first program's constants by digest, for the second parse.
parse::ConstantResolver resolver_of(const ir::Program& program) {
  return [&program](const Shape& shape,
                    uint64_t digest) -> Expected<std::shared_ptr<const ir::ConstantData>> {
    for (const ir::Node& node : program.nodes) {
      if (node.constant && node.constant->digest == digest && node.constant->shape == shape) {
        return node.constant;
      }
    }
    return make_error(StatusCode::kParseError, "no constant of digest {:016x}", digest);
  };
}

void round_trip(const ir::Program& program) {
  std::string first = ir::print_tile(program);
  auto again = parse::parse_tile(first, program.name, resolver_of(program));
  if (!again) {
    fail("printed text does not parse back",
         "message: " + again.status().message() + "\nprinted:\n" + first);
  }
  std::string second = ir::print_tile(**again);
  if (second != first) fail("print(parse(print(p))) != print(p)", first + "\n---\n" + second);
}

}  // namespace
}  // namespace plaidml::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace plaidml;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto program = parse::parse_tile(text, "fuzz");
  if (!program) {
    fuzz::check_status(program.status(), "parse_tile");
    return 0;
  }
  if (auto shapes = fuzz::shapes_for(**program)) {
    auto bound = ir::bind(*program, *shapes);
    if (!bound) fuzz::check_status(bound.status(), "bind");
  }
  fuzz::round_trip(**program);
  return 0;
}
