#include "converters.h"

#include <algorithm>

namespace plaidml::onnx_import {

const std::vector<ConverterEntry>& all_converters() {
  static const std::vector<ConverterEntry> all = [] {
    std::vector<ConverterEntry> list;
    for (auto group : {elementwise_converters, shape_converters, nn_converters,
                       reduce_converters, misc_converters, attention_converters,
                       quant_converters, sequence_converters}) {
      auto entries = group();
      list.insert(list.end(), entries.begin(), entries.end());
    }
    std::sort(list.begin(), list.end(),
              [](const ConverterEntry& a, const ConverterEntry& b) { return a.op < b.op; });
    return list;
  }();
  return all;
}

const ConverterEntry* find_converter(const std::string& op) {
  const auto& all = all_converters();
  auto it = std::lower_bound(all.begin(), all.end(), op,
                             [](const ConverterEntry& e, const std::string& o) { return e.op < o; });
  return it != all.end() && it->op == op ? &*it : nullptr;
}

}  // namespace plaidml::onnx_import
