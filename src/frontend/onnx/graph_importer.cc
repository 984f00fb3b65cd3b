#include "graph_importer.h"

#include <fmt/ranges.h>

#include <cctype>
#include <cstring>
#include <deque>
#include <set>

#include "converters.h"
#include "import_error.h"
#include "layout.h"
#include "op_versions.h"
#include "plaidml/onnx.h"
#include "tensor_proto.h"

namespace plaidml::onnx_import {
namespace {

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// Tile dim names are capitalised identifiers: "batch_size" -> "Batch_size", "1x" -> "D1x".
std::string sanitize_dim(const std::string& param) {
  std::string out;
  for (char c : param) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "D" + out;
  out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

std::string type_kind(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType: return "a tensor";
    case onnx::TypeProto::kSequenceType: return "a sequence";
    case onnx::TypeProto::kMapType: return "a map";
    case onnx::TypeProto::kOptionalType: return "an optional";
    case onnx::TypeProto::kSparseTensorType: return "a sparse tensor";
    default: return "of no type";
  }
}

}  // namespace

std::string describe_node(const onnx::NodeProto& node, int index, int opset) {
  std::string where = node.domain().empty() || node.domain() == "ai.onnx"
                          ? fmt::format("{}, opset {}", node.op_type(), opset)
                          : fmt::format("{}, domain '{}'", node.op_type(), node.domain());
  if (!node.name().empty()) return fmt::format("node '{}' ({})", node.name(), where);
  std::string made = node.output_size() > 0 ? fmt::format(" making '{}'", node.output(0)) : "";
  return fmt::format("node #{} ({}){}", index, where, made);
}

GraphImporter::GraphImporter(std::shared_ptr<onnx::ModelProto> model, ExternalData* external,
                             const ImportOptions& options)
    : model_owner_(std::move(model)), model_(*model_owner_), external_(external),
      options_(options), builder_(model_.graph().name()) {}

void GraphImporter::check_model() {
  int64_t ir = model_.ir_version();
  if (ir < PLAIDML_ONNX_MIN_IR_VERSION || ir > PLAIDML_ONNX_MAX_IR_VERSION) {
    unsupported("the model has IR version {}; plaidml imports IR versions {} to {}", ir,
                PLAIDML_ONNX_MIN_IR_VERSION, PLAIDML_ONNX_MAX_IR_VERSION);
  }
  for (const auto& import : model_.opset_import()) {
    if (is_default_domain(import.domain())) opset_ = static_cast<int>(import.version());
  }
  // A model of other domains only (ai.onnx.ml, training) has no default opset: its nodes are
  // refused one by one, as unsupported domains.
  if (opset_ != 0 && (opset_ < PLAIDML_ONNX_MIN_OPSET || opset_ > PLAIDML_ONNX_MAX_OPSET)) {
    unsupported("the model uses opset {} of the default domain; plaidml imports opsets {} to {}",
                opset_, PLAIDML_ONNX_MIN_OPSET, PLAIDML_ONNX_MAX_OPSET);
  }
  if (!model_.has_graph()) invalid("the model has no graph");
}

std::string GraphImporter::dim_name(const std::string& input,
                                    const onnx::TensorShapeProto::Dimension& dim) {
  if (dim.has_dim_value()) {
    if (dim.dim_value() < 0) invalid("input '{}' has a negative dim {}", input, dim.dim_value());
    return std::to_string(dim.dim_value());
  }
  if (!dim.has_dim_param() || dim.dim_param().empty()) return "";
  // An option names the dim as the model does ("batch") or as the program does ("Batch").
  std::string tile_name = sanitize_dim(dim.dim_param());
  for (const std::string& name : {dim.dim_param(), tile_name}) {
    if (auto it = options_.dims.find(name); it != options_.dims.end()) {
      used_dim_options_[name] = true;
      return std::to_string(it->second);
    }
  }
  return tile_name;
}

void GraphImporter::declare_inputs() {
  std::set<std::string> initializers;
  for (const auto& init : model_.graph().initializer()) initializers.insert(init.name());
  std::set<std::string> symbolic;
  for (const auto& input : model_.graph().input()) {
    if (initializers.count(input.name())) continue;  // an initializer with a default (IR < 4)
    if (input.name().empty()) invalid("a graph input has no name");
    if (values_.count(input.name())) invalid("graph input '{}' is declared twice", input.name());
    const auto& type = input.type();
    if (type.value_case() != onnx::TypeProto::kTensorType) {
      unsupported("input '{}' is {}; plaidml imports tensors only", input.name(), type_kind(type));
    }
    auto dtype = dtype_of_onnx(type.tensor_type().elem_type());
    if (!dtype) {
      unsupported("input '{}' has type {}, which plaidml does not support", input.name(),
                  elem_type_name(type.tensor_type().elem_type()));
    }
    if (options_.values.count(input.name())) {
      declare_bound_input(input, *dtype);
      continue;
    }
    if (!type.tensor_type().has_shape()) {
      unsupported("input '{}' has no shape: plaidml needs the rank of every input", input.name());
    }
    std::vector<std::string> dims;
    for (const auto& d : type.tensor_type().shape().dim()) {
      dims.push_back(dim_name(input.name(), d));
      if (d.has_dim_param()) symbolic.insert(d.dim_param());
    }
    Value v;
    v.dtype = *dtype;
    v.tensor = builder_.input(input.name(), dims, static_cast<plaidml::DType>(*dtype));
    v.input_deps = {input.name()};
    values_[input.name()] = std::move(v);
  }
  for (const auto& [name, bound] : options_.values) {
    if (!values_.count(name)) {
      invalid("value option '{}' names no input of the model (initializers cannot be bound)",
              name);
    }
  }
  for (const auto& [name, size] : options_.dims) {
    if (!used_dim_options_.count(name)) {
      invalid("dimension option '{}' matches no symbolic dim of the model's inputs (they are: {})",
              name, symbolic.empty() ? "none" : fmt::format("{}", fmt::join(symbolic, ", ")));
    }
  }
}

// An input bound to a value by the options: a known value from here on, not a program input.
// The value must fit the input's declaration (dtype, rank, fixed sizes).
void GraphImporter::declare_bound_input(const onnx::ValueInfoProto& input, plaidml_dtype dtype) {
  const HostTensor& bound = options_.values.at(input.name());
  if (bound.dtype != dtype) {
    invalid("the value bound to input '{}' is {}, but the input is {}", input.name(),
            dtype_text(bound.dtype), dtype_text(dtype));
  }
  if (input.type().tensor_type().has_shape()) {
    const auto& dims = input.type().tensor_type().shape().dim();
    bool fits = static_cast<size_t>(dims.size()) == bound.rank();
    for (int a = 0; fits && a < dims.size(); ++a) {
      fits = !dims[a].has_dim_value() || dims[a].dim_value() == bound.dims[a];
    }
    if (!fits) {
      invalid("the value bound to input '{}' has dims [{}], which the input's declared shape "
              "does not allow", input.name(), fmt::join(bound.dims, ", "));
    }
  }
  Value v;
  v.dtype = dtype;
  v.host = bound;
  values_[input.name()] = std::move(v);
}

// The initializer's raw bytes in aligned storage of their own (HostTensor::uninitialized), the model's
// copy freed at once: a weight then lives only as long as something needs it.
void take_raw_data(onnx::TensorProto& init, HostTensor& t) {
  HostTensor own = HostTensor::uninitialized(t.dtype, t.dims);
  std::memcpy(own.mutable_data(), t.data, t.byte_size());
  std::string().swap(*init.mutable_raw_data());
  t = std::move(own);
}

void GraphImporter::add_initializers() {
  for (auto& init : *model_owner_->mutable_graph()->mutable_initializer()) {
    if (init.name().empty()) invalid("an initializer has no name");
    if (values_.count(init.name())) {
      invalid("initializer '{}' has the name of another input or initializer", init.name());
    }
    Value v;
    v.host = read_tensor(init, model_owner_, external_);  // checks the sizes
    if (v.host->owner == model_owner_ && init.has_raw_data()) take_raw_data(init, *v.host);
    v.dtype = v.host->dtype;
    values_[init.name()] = std::move(v);
  }
  if (model_.graph().sparse_initializer_size() > 0) {
    unsupported("the graph has sparse initializers ('{}'), which plaidml does not import",
                model_.graph().sparse_initializer(0).values().name());
  }
}

// The nodes in an order where every value is made before it is used (ONNX asks exporters for
// that order; this checks it, and finds undefined names, duplicate names and cycles).
std::vector<int> GraphImporter::ordered_nodes() {
  const auto& nodes = model_.graph().node();
  std::map<std::string, int> producer;
  for (int i = 0; i < nodes.size(); ++i) {
    for (const auto& out : nodes[i].output()) {
      if (out.empty()) continue;
      if (values_.count(out) || producer.count(out)) {
        invalid("{} makes '{}', a name that is already defined", describe_node(nodes[i], i, opset_),
                out);
      }
      producer[out] = i;
    }
  }
  std::vector<int> waiting(nodes.size(), 0);
  std::vector<std::vector<int>> users(nodes.size());
  for (int i = 0; i < nodes.size(); ++i) {
    for (const auto& in : nodes[i].input()) {
      if (in.empty() || values_.count(in)) continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        invalid("{} uses '{}', which no input, initializer or node defines",
                describe_node(nodes[i], i, opset_), in);
      }
      ++waiting[i];
      users[it->second].push_back(i);
    }
  }
  std::deque<int> ready;
  for (int i = 0; i < nodes.size(); ++i) {
    if (waiting[i] == 0) ready.push_back(i);
  }
  std::vector<int> order;
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int u : users[i]) {
      if (--waiting[u] == 0) ready.push_back(u);
    }
  }
  if (order.size() != static_cast<size_t>(nodes.size())) {
    for (int i = 0; i < nodes.size(); ++i) {
      if (waiting[i] > 0) {
        invalid("the graph has a cycle: {} depends on its own output",
                describe_node(nodes[i], i, opset_));
      }
    }
  }
  return order;
}

void GraphImporter::import_node(int index) {
  const onnx::NodeProto& node = model_.graph().node(index);
  std::string where = describe_node(node, index, opset_);
  if (!is_default_domain(node.domain())) {
    unsupported("{}: domain '{}' is not supported (plaidml imports the default ONNX domain only)",
                where, node.domain());
  }
  if (opset_ == 0) invalid("{}: the model imports no version of the default ONNX domain", where);
  int version = op_version_at(node.op_type(), opset_);
  if (version == 0) unsupported("{}: {} is not an ONNX operator at opset {}", where, node.op_type(), opset_);
  const ConverterEntry* entry = find_converter(node.op_type());
  if (entry == nullptr) unsupported("{}: operator {} is not supported", where, node.op_type());
  if (std::find(entry->versions.begin(), entry->versions.end(), version) == entry->versions.end()) {
    unsupported("{}: {} version {} (in effect at opset {}) is not supported; plaidml implements "
                "versions {}", where, node.op_type(), version, opset_,
                fmt::join(entry->versions, ", "));
  }
  NodeContext cx(*this, node, version, opset_, index);
  // Profiles name kernels by the nodes they compute (plaidml_builder_set_origin).
  std::string label = node.name().empty() ? node.output_size() ? node.output(0) : "" : node.name();
  builder_.set_origin(label + " (" + node.op_type() + ")");
  try {
    cx.run_channels_last();
    entry->convert(cx);
  } catch (const ImportError& e) {
    std::string hint;
    if (e.status() == PLAIDML_STATUS_UNSUPPORTED) {
      needed_inputs_ = input_deps_of(cx);
      if (!needed_inputs_.empty()) {
        hint = fmt::format(" (it is computed from the graph input(s) '{}': binding them to values "
                           "at import, with plaidml_onnx_options_set_input_value, imports it)",
                           fmt::join(needed_inputs_, "', '"));
      }
    }
    throw ImportError(e.status(), where + ": " + e.what() + hint);
  } catch (const plaidml::Error& e) {
    throw ImportError(e.status(), where + ": " + e.what());
  }
  propagate_input_deps(node);
  for (int i = 0; i < node.output_size(); ++i) {
    if (!node.output(i).empty() && !values_.count(node.output(i))) {
      throw ImportError(PLAIDML_STATUS_INTERNAL,
                        fmt::format("{}: the converter did not make output '{}' (please report)",
                                    where, node.output(i)));
    }
  }
}

// The graph inputs behind the node's inputs whose contents its converter asked for in vain.
std::set<std::string> GraphImporter::input_deps_of(const NodeContext& cx) {
  std::set<std::string> deps;
  for (size_t i : cx.asked_unknown()) {
    const Value& v = value(cx.node().input(static_cast<int>(i)));
    deps.insert(v.input_deps.begin(), v.input_deps.end());
  }
  return deps;
}

// A computed output depends on the run-time contents of every graph input its node's inputs
// depend on; a known output (contents or sizes) on none.
void GraphImporter::propagate_input_deps(const onnx::NodeProto& node) {
  std::set<std::string> deps;
  for (const auto& in : node.input()) {
    if (in.empty()) continue;
    const Value& v = value(in);
    deps.insert(v.input_deps.begin(), v.input_deps.end());
  }
  for (const auto& out : node.output()) {
    if (out.empty()) continue;
    Value& v = value(out);
    if (!v.host && !v.sizes) v.input_deps = deps;
  }
}

void GraphImporter::add_outputs() {
  if (model_.graph().output_size() == 0) invalid("the graph has no outputs");
  for (const auto& out : model_.graph().output()) {
    Value& v = value(out.name());
    const auto& type = out.type();
    if (type.value_case() != onnx::TypeProto::kTensorType && type.value_case() != 0) {
      unsupported("output '{}' is {}; plaidml imports tensors only", out.name(), type_kind(type));
    }
    if (type.has_tensor_type() && type.tensor_type().elem_type() != 0) {
      auto declared = dtype_of_onnx(type.tensor_type().elem_type());
      // The model's own types disagree (ONNX's checker refuses such a model): the caller's
      // error, not an invariant of plaidml's (it was INTERNAL until fuzz_onnx_import met one).
      if (declared && *declared != v.dtype) {
        invalid("output '{}' is declared {}, but the graph computes it as {}", out.name(),
                dtype_text(*declared), dtype_text(v.dtype));
      }
    }
    builder_.output(out.name(), materialize(out.name(), v));
  }
}

plaidml_program* GraphImporter::import() {
  check_model();
  declare_inputs();
  add_initializers();
  std::map<std::string, int> uses = count_uses();
  for (int index : ordered_nodes()) {
    import_node(index);
    release_inputs(model_.graph().node(index), uses);
  }
  add_outputs();
  plaidml_program* program = nullptr;
  plaidml_status status = plaidml_builder_build(builder_.get(), &program);
  if (status != PLAIDML_STATUS_OK) throw ImportError(status, plaidml_last_error_message());
  return program;
}

std::map<std::string, int> GraphImporter::count_uses() const {
  std::map<std::string, int> uses;
  for (const auto& node : model_.graph().node()) {
    // A subgraph (If, Loop, Scan) may read any outer value by name: keep every value.
    for (const auto& a : node.attribute()) {
      if (a.has_g() || a.graphs_size() > 0) return {};
    }
    for (const auto& in : node.input()) ++uses[in];
  }
  for (const auto& out : model_.graph().output()) uses[out.name()] += 1;  // never released
  return uses;
}

void GraphImporter::release_inputs(const onnx::NodeProto& node, std::map<std::string, int>& uses) {
  for (const auto& in : node.input()) {
    auto it = uses.find(in);
    if (it != uses.end() && --it->second == 0) values_.erase(in);
  }
}

Value& GraphImporter::value(const std::string& name) {
  auto it = values_.find(name);
  if (it == values_.end()) invalid("'{}' is not defined by any input, initializer or node", name);
  return it->second;
}

void GraphImporter::define(const std::string& name, Value value) {
  if (!values_.emplace(name, std::move(value)).second) invalid("'{}' is defined twice", name);
}

plaidml::Tensor GraphImporter::materialize(const std::string& name, Value& v) {
  if (v.tensor) return *v.tensor;
  if (v.channels_last) {
    v.tensor = transpose(*v.channels_last, from_channels_last(v.channels_last->rank()));
    return *v.tensor;
  }
  if (v.host) {
    const HostTensor& h = *v.host;
    v.tensor = builder_.constant_tensor(name, static_cast<plaidml::DType>(h.dtype), h.dims, h.data,
                                        h.byte_size(), h.owner);
    return *v.tensor;
  }
  if (v.sizes) {
    v.tensor = tensor_of_sizes(v);
    return *v.tensor;
  }
  throw ImportError(PLAIDML_STATUS_INTERNAL,
                    fmt::format("value '{}' has no contents (please report)", name));
}

// Sizes as a program value: the known ones as a constant vector, plus each symbolic one as its
// dim value times a one-hot constant (all elementwise on the vector's integer dtype).
plaidml::Tensor GraphImporter::tensor_of_sizes(const Value& v) {
  const auto& sizes = *v.sizes;
  std::vector<int64_t> dims;
  if (!v.is_sizes_scalar) dims.push_back(static_cast<int64_t>(sizes.size()));
  std::vector<int64_t> known(sizes.size(), 0);
  for (size_t i = 0; i < sizes.size(); ++i) known[i] = sizes[i].value.value_or(0);
  HostTensor base = HostTensor::from_ints(v.dtype, dims, known);
  plaidml::Tensor result = builder_.constant_tensor("", static_cast<plaidml::DType>(v.dtype), dims,
                                                    base.data, base.byte_size(), base.owner);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i].known()) continue;
    std::vector<int64_t> hot(sizes.size(), 0);
    hot[i] = 1;
    HostTensor one = HostTensor::from_ints(v.dtype, dims, hot);
    plaidml::Tensor onehot = builder_.constant_tensor(
        "", static_cast<plaidml::DType>(v.dtype), dims, one.data, one.byte_size(), one.owner);
    plaidml_value size_value;
    detail::check(plaidml_builder_dim_constant(builder_.get(), sizes[i].expr->get(), &size_value));
    result = result + onehot * plaidml::Tensor(builder_.get(), size_value);
  }
  return result;
}

}  // namespace plaidml::onnx_import
