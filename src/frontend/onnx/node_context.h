// What a converter sees of the node it imports: its inputs (as program values, or their
// contents when known at import), its attributes, the version of its op in effect, and where its
// outputs go. Converters throw (import_error.h); the importer adds the node's name, op type and
// opset to every message.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host_tensor.h"
#include "import_error.h"
#include "value.h"

namespace plaidml::onnx_import {

class GraphImporter;

class NodeContext {
 public:
  NodeContext(GraphImporter& graph, const onnx::NodeProto& node, int version, int opset,
              int index = -1)
      : graph_(graph), node_(node), version_(version), opset_(opset), index_(index) {}

  const onnx::NodeProto& node() const { return node_; }
  const std::string& op_type() const { return node_.op_type(); }
  // The since-version of the op's definition in effect at the model's opset (Relu at opset 17
  // is version 14).
  int version() const { return version_; }
  int opset() const { return opset_; }
  plaidml::Builder& builder();

  // --- inputs (a missing optional input is an empty name, or absent at the end) ---
  size_t input_count() const { return static_cast<size_t>(node_.input_size()); }
  bool has_input(size_t i) const { return i < input_count() && !node_.input(i).empty(); }
  Value& input(size_t i);  // throws naming the input if it is missing
  plaidml_dtype dtype(size_t i) { return input(i).dtype; }
  // The input as a program value (a known constant becomes a program constant on first use).
  // While the node runs channels last (run_channels_last), the input in that order.
  plaidml::Tensor tensor(size_t i);

  // --- channels-last storage (layout.h) ---
  // Whether input i is a computed value held channels last.
  bool is_channels_last(size_t i);
  // Input i channels last (rank 3 or more): as held, or transposed once and kept.
  plaidml::Tensor channels_last(size_t i);
  // Whether the importer's layout option lets converters keep values channels last.
  bool channels_last_allowed() const;
  // For a layout-transparent op (is_layout_transparent) with a channels-last input: runs the
  // converter on every input in channels-last order (tensor, rank, size and dim then describe
  // that order) and marks its outputs channels last. Returns whether it did.
  bool run_channels_last();
  // Rank and sizes of input i: known sizes are >= 0, symbolic ones -1.
  size_t rank(size_t i);
  int64_t size(size_t i, size_t axis);
  plaidml::IndexExpr dim(size_t i, size_t axis);
  // The contents of input i when known at import (else nullptr). This and known_ints/sizes
  // remember each input asked for and not known: if the node then fails to import, the graph
  // inputs those are computed from are what a caller could bind to values (needed_inputs).
  const HostTensor* host(size_t i);
  // The contents of input i as integers (a constant, or sizes all known); else nullopt.
  std::optional<std::vector<int64_t>> known_ints(size_t i);
  // The same, or UNSUPPORTED naming `what` ("input 'shape' must be known at import").
  std::vector<int64_t> required_ints(size_t i, const char* what);
  // The contents of a 0-D/1-D integer input as sizes (known or symbolic); nullopt if neither.
  std::optional<std::vector<SymInt>> sizes(size_t i);

  // --- attributes ---
  bool has_attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  double attr_float(const std::string& name, double fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name,
                                 const std::vector<int64_t>& fallback = {}) const;
  std::vector<double> attr_floats(const std::string& name) const;
  std::optional<HostTensor> attr_tensor(const std::string& name) const;
  // Fails with UNSUPPORTED for any attribute the node has that is not in `known`.
  void check_attrs(const std::vector<std::string>& known) const;

  // --- outputs ---
  size_t output_count() const { return static_cast<size_t>(node_.output_size()); }
  bool wants_output(size_t i) const { return i < output_count() && !node_.output(i).empty(); }
  void set_output(size_t i, Value value);
  void set_output(size_t i, const plaidml::Tensor& tensor, plaidml_dtype dtype);
  void set_output(size_t i, HostTensor host);  // known at import: folded
  // A computed output stored channels last (its logical shape has the channels at axis 1).
  void set_output_channels_last(size_t i, const plaidml::Tensor& tensor, plaidml_dtype dtype);
  void set_sizes_output(size_t i, std::vector<SymInt> sizes, bool scalar = false);

  // The inputs whose contents were asked for (host, known_ints, sizes) and were not known.
  const std::vector<size_t>& asked_unknown() const { return asked_unknown_; }

  // --- helpers ---
  // A constant program value of dtype holding `values` (dims {} for a scalar).
  plaidml::Tensor constant(const HostTensor& host);
  plaidml::IndexExpr literal(int64_t v);
  // An axis attribute or input normalised to [0, rank); UNSUPPORTED/INVALID naming it if out
  // of range.
  size_t normalize_axis(int64_t axis, size_t rank, const char* what) const;
  // Requires `lhs op rhs` of sizes whenever the program runs (plaidml_builder_add_assertion):
  // the check a converter makes at import where the sizes are known, for sizes only binding
  // knows. The message, in which {k} stands for args[k]'s size, is prefixed with the node as
  // import errors are.
  void require(plaidml_assert_op op, const plaidml::IndexExpr& lhs, const plaidml::IndexExpr& rhs,
               const std::string& message, const std::vector<plaidml::IndexExpr>& args = {});
  // Fails with UNSUPPORTED unless input i's dtype is one of `allowed`.
  void require_dtype(size_t i, const std::vector<plaidml_dtype>& allowed);

 private:
  GraphImporter& graph_;
  const onnx::NodeProto& node_;
  int version_;
  int opset_;
  int index_;  // the node's position in the graph, for messages
  std::vector<size_t> asked_unknown_;
  // run_channels_last: the rank every input is brought to, and the inputs made so far.
  size_t stored_rank_ = 0;
  std::vector<std::optional<plaidml::Tensor>> stored_inputs_;

  plaidml::Tensor stored_input(size_t i);
};

// x converted to dtype (Tile's as_float/as_bfloat/as_int/as_uint/as_bool): the one cast every
// converter uses.
plaidml::Tensor cast_tensor(const plaidml::Tensor& x, plaidml_dtype dtype);

// A converter imports one node (every version listed with it in converters.cc).
using Converter = void (*)(NodeContext&);

}  // namespace plaidml::onnx_import
