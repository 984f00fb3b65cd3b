// Imports one ONNX graph into a plaidml program through the public builder API: checks the
// model (IR version, opsets, names, order), declares the inputs, turns initializers into known
// values, converts the nodes in order, and names the outputs.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "external_data.h"
#include "host_tensor.h"
#include "plaidml/plaidml.hpp"
#include "value.h"

namespace plaidml::onnx_import {

struct ImportOptions {
  std::map<std::string, int64_t> dims;  // symbolic dim name -> fixed size
  // graph input name -> its contents, bound at import (the input becomes a constant)
  std::map<std::string, HostTensor> values;
  // Convolutions, pools and what lies between them keep values channels last (layout.h).
  bool channels_last = true;
  // A model file's import is kept in the disk cache and reused (import_cache.h).
  bool cache = true;
};

class NodeContext;

class GraphImporter {
 public:
  // Import consumes the model's initializer bytes: each is copied into aligned storage of its
  // own and the model's copy freed, so a weight lives only while a value or the program needs
  // it (not as long as the whole model).
  GraphImporter(std::shared_ptr<onnx::ModelProto> model, ExternalData* external,
                const ImportOptions& options);

  // The imported program (the caller owns it). Throws ImportError.
  plaidml_program* import();
  // After import() threw UNSUPPORTED: the graph inputs which, bound to values
  // (ImportOptions::values), would let the failing node import; empty when binding cannot help.
  const std::set<std::string>& needed_inputs() const { return needed_inputs_; }

  plaidml::Builder& builder() { return builder_; }
  int opset() const { return opset_; }
  const ImportOptions& options() const { return options_; }
  // The value named `name` (throws INVALID_ARGUMENT for an undefined name).
  Value& value(const std::string& name);
  void define(const std::string& name, Value value);
  // The value as a program value (made on first use for known contents).
  plaidml::Tensor materialize(const std::string& name, Value& value);

 private:
  void check_model();
  void declare_inputs();
  void add_initializers();
  std::vector<int> ordered_nodes();  // node indices
  void import_node(int index);
  // Values used by no later node nor as a graph output are dropped, and with them the host
  // bytes only they held (an OIHW weight once its HWIO copy exists): import holds one copy.
  std::map<std::string, int> count_uses() const;
  void release_inputs(const onnx::NodeProto& node, std::map<std::string, int>& uses);
  void declare_bound_input(const onnx::ValueInfoProto& input, plaidml_dtype dtype);
  void propagate_input_deps(const onnx::NodeProto& node);
  std::set<std::string> input_deps_of(const NodeContext& cx);
  void add_outputs();
  std::string dim_name(const std::string& input, const onnx::TensorShapeProto::Dimension& dim);
  plaidml::Tensor tensor_of_sizes(const Value& value);

  std::shared_ptr<onnx::ModelProto> model_owner_;
  const onnx::ModelProto& model_;
  ExternalData* external_;
  ImportOptions options_;
  std::map<std::string, bool> used_dim_options_;
  std::set<std::string> needed_inputs_;
  plaidml::Builder builder_;
  int opset_ = 0;
  std::map<std::string, Value> values_;
};

// "node 'conv1' (Conv, opset 13)", or "node #4 (Conv, opset 13) making 'y'" when unnamed.
std::string describe_node(const onnx::NodeProto& node, int index, int opset);

}  // namespace plaidml::onnx_import
