// `plaidml info`: what a program takes and gives. For an ONNX model, libplaidml_onnx's report
// (inputs, outputs, opsets, op counts, constants, nodes that would not import); with --dim, also
// the imported program's inputs at those sizes. For a Tile program, its inputs and outputs.
#include <memory>
#include <sstream>

#include "capi_util.h"
#include "commands.h"
#include "onnx_util.h"

namespace plaidml_cli {

namespace {

// "f32[2, N, ?]": the declared dtype ("any" if not fixed) and each dim as declared (a name, a
// size, or "?" for an unnamed dim).
Result<std::string> input_type_text(const plaidml_program* program, size_t index) {
  plaidml_dtype dtype = PLAIDML_DTYPE_INVALID;
  size_t rank = 0;
  if (plaidml_program_input_type(program, index, &dtype, &rank) != PLAIDML_STATUS_OK) {
    return api_error("reading an input: ");
  }
  auto known = dtype_from_abi(dtype);
  std::string text = known ? std::string(dtype_name(*known)) : "any";
  if (rank == PLAIDML_RANK_UNKNOWN) return text + "[any rank]";
  text += "[";
  for (size_t axis = 0; axis < rank; ++axis) {
    const char* dim = nullptr;
    if (plaidml_program_input_dim(program, index, axis, &dim) != PLAIDML_STATUS_OK) {
      return api_error("reading an input: ");
    }
    text += (axis ? ", " : "") + std::string(*dim ? dim : "?");
  }
  return text + "]";
}

// The program's signature, in the layout of the ONNX report ("inputs:" then one line each).
Result<std::string> signature_text(const plaidml_program* program) {
  std::ostringstream out;
  out << "inputs:\n";
  auto inputs = program_input_names(program);
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto type = input_type_text(program, i);
    if (!type) return type.error();
    out << "  " << inputs[i] << ": " << *type << "\n";
  }
  out << "outputs:\n";
  for (const auto& name : program_output_names(program)) out << "  " << name << "\n";
  size_t count = 0;
  uint64_t bytes = 0;
  if (plaidml_program_constants(program, &count, &bytes) != PLAIDML_STATUS_OK) {
    return api_error("reading the constants: ");
  }
  out << "constants: " << count << " (" << bytes << " bytes)\n";
  return out.str();
}

std::string dims_text(const std::vector<DimSpec>& dims) {
  std::vector<std::string> parts;
  for (const auto& d : dims) parts.push_back(d.name + "=" + std::to_string(d.size));
  return join(parts, " ");
}

// The report describes the model as written; with --dim the user also wants to see that the
// names exist and what the inputs become, which only an import tells.
Result<Done> onnx_info(const std::string& path, const std::vector<DimSpec>& dims,
                       std::ostream& out) {
  auto report = describe_onnx_model(path);
  if (!report) return report.error();
  out << *report;
  if (dims.empty()) return Done{};
  auto program = load_onnx_program(path, dims);
  if (!program) return program.error();
  auto signature = signature_text(program->get());
  if (!signature) return signature.error();
  out << "imported with --dim " << dims_text(dims) << ":\n" << *signature;
  return Done{};
}

}  // namespace

Result<Done> command_info(const std::string& program_path, const std::vector<DimSpec>& dims,
                          std::ostream& out) {
  if (is_onnx_path(program_path)) return onnx_info(program_path, dims, out);
  auto program = load_program(program_path, dims);
  if (!program) return program.error();
  auto signature = signature_text(program->get());
  if (!signature) return signature.error();
  out << *signature;
  return Done{};
}

}  // namespace plaidml_cli
