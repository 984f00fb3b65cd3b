// The converters, one list per group of ops (ops_*.cc); find_converter looks an op up. The lists
// are explicit code, not static registration (docs/design.md section 3).
#pragma once

#include <string>
#include <vector>

#include "node_context.h"

namespace plaidml::onnx_import {

struct ConverterEntry {
  std::string op;
  std::vector<int> versions;  // the since-versions this converter implements exactly
  Converter convert;
};

std::vector<ConverterEntry> elementwise_converters();  // ops_elementwise.cc
std::vector<ConverterEntry> shape_converters();        // ops_shape.cc
std::vector<ConverterEntry> nn_converters();           // ops_nn.cc
std::vector<ConverterEntry> reduce_converters();       // ops_reduce.cc
std::vector<ConverterEntry> misc_converters();         // ops_misc.cc
std::vector<ConverterEntry> attention_converters();    // ops_attention.cc
std::vector<ConverterEntry> quant_converters();        // ops_quant.cc
std::vector<ConverterEntry> sequence_converters();     // ops_sequence.cc

// nullptr when no converter handles op.
const ConverterEntry* find_converter(const std::string& op);
// Every converter, sorted by op (for the support table and `plaidml info`).
const std::vector<ConverterEntry>& all_converters();

}  // namespace plaidml::onnx_import
