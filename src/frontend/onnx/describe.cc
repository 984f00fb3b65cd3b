#include "describe.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "converters.h"
#include "graph_importer.h"
#include "import_error.h"
#include "op_versions.h"
#include "tensor_proto.h"

namespace plaidml::onnx_import {
namespace {

std::string value_text(const onnx::ValueInfoProto& v) {
  if (!v.type().has_tensor_type()) return v.name() + ": (not a tensor)";
  const auto& t = v.type().tensor_type();
  std::string dims;
  if (!t.has_shape()) {
    dims = "(rank unknown)";
  } else {
    for (const auto& d : t.shape().dim()) {
      if (!dims.empty()) dims += ", ";
      dims += d.has_dim_value() ? std::to_string(d.dim_value())
                                : (d.dim_param().empty() ? "?" : d.dim_param());
    }
    dims = "[" + dims + "]";
  }
  return fmt::format("{}: {}{}", v.name(), elem_type_name(t.elem_type()), dims);
}

int default_opset(const onnx::ModelProto& model) {
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") return static_cast<int>(o.version());
  }
  return 0;
}

// Why the node would not import, as far as the op and its version tell; "" if it may.
std::string static_problem(const onnx::NodeProto& node, int opset) {
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    return fmt::format("domain '{}' is not supported", node.domain());
  }
  int version = op_version_at(node.op_type(), opset);
  if (version == 0) return fmt::format("{} is not an ONNX operator at opset {}", node.op_type(), opset);
  const ConverterEntry* entry = find_converter(node.op_type());
  if (entry == nullptr) return fmt::format("operator {} is not supported", node.op_type());
  if (std::find(entry->versions.begin(), entry->versions.end(), version) == entry->versions.end()) {
    return fmt::format("{} version {} is not supported", node.op_type(), version);
  }
  return "";
}

}  // namespace

std::string describe_model(const std::shared_ptr<onnx::ModelProto>& loaded,
                           const std::string& folder) {
  const onnx::ModelProto& model = *loaded;
  const auto& g = model.graph();
  std::string out;
  std::string producer = model.producer_name();
  if (!model.producer_version().empty()) producer += " " + model.producer_version();
  out += fmt::format("producer: {}\n", producer.empty() ? "(not given)" : producer);
  out += fmt::format("ir version: {}\nopsets:", model.ir_version());
  for (const auto& o : model.opset_import()) {
    out += fmt::format(" {}={}", o.domain().empty() ? "ai.onnx" : o.domain(), o.version());
  }
  out += "\ninputs:\n";
  std::map<std::string, bool> initializer;
  uint64_t constant_bytes = 0;
  for (const auto& init : g.initializer()) {
    initializer[init.name()] = true;
    auto dtype = dtype_of_onnx(init.data_type());
    int64_t n = element_count({init.dims().begin(), init.dims().end()});
    if (dtype && n > 0) constant_bytes += static_cast<uint64_t>(n) * dtype_bytes(*dtype);
  }
  for (const auto& in : g.input()) {
    if (!initializer.count(in.name())) out += "  " + value_text(in) + "\n";
  }
  out += "outputs:\n";
  for (const auto& o : g.output()) out += "  " + value_text(o) + "\n";
  std::map<std::string, int> counts;
  for (const auto& n : g.node()) ++counts[n.op_type()];
  out += fmt::format("nodes: {}\n", g.node_size());
  for (const auto& [op, count] : counts) out += fmt::format("  {} {}\n", op, count);
  out += fmt::format("constants: {} initializers, {} bytes\n", g.initializer_size(), constant_bytes);
  int opset = default_opset(model);
  int problems = 0;
  for (int i = 0; i < g.node_size(); ++i) {
    std::string why = static_problem(g.node(i), opset);
    if (why.empty()) continue;
    if (problems++ == 0) out += "unsupported nodes:\n";
    out += fmt::format("  {}: {}\n", describe_node(g.node(i), i, opset), why);
  }
  try {
    // Last: the trial import consumes the initializers' bytes (GraphImporter).
    ExternalData external(folder);
    GraphImporter importer(loaded, &external, ImportOptions{});
    plaidml_program* program = importer.import();
    plaidml_program_destroy(program);
    out += "import: ok\n";
  } catch (const ImportError& e) {
    out += fmt::format("import: {}: {}\n", plaidml_status_name(e.status()), e.what());
  } catch (const plaidml::Error& e) {
    out += fmt::format("import: {}: {}\n", plaidml_status_name(e.status()), e.what());
  }
  return out;
}

}  // namespace plaidml::onnx_import
