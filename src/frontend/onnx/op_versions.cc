#include "op_versions.h"

#include <algorithm>
#include <map>

namespace plaidml::onnx_import {
namespace {

const std::map<std::string, std::vector<int>>& table() {
  static const std::map<std::string, std::vector<int>> versions = {
#define PLAIDML_ONNX_OP(name, ...) {name, {__VA_ARGS__}},
#include "op_versions.inc"
#undef PLAIDML_ONNX_OP
  };
  return versions;
}

}  // namespace

int op_version_at(const std::string& op, int opset) {
  auto it = table().find(op);
  if (it == table().end()) return 0;
  int found = 0;
  for (int v : it->second) {
    if (v <= opset) found = v;
  }
  return found;
}

int max_known_opset() {
  int max = 0;
  for (const auto& [name, versions] : table()) max = std::max(max, versions.back());
  return max;
}

}  // namespace plaidml::onnx_import
