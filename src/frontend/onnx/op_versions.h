// The versions of every op of ONNX's default domain (op_versions.inc, generated from the onnx
// package's schemas by scripts/gen_onnx_op_versions.py).
#pragma once

#include <string>
#include <vector>

namespace plaidml::onnx_import {

// The since-version of op's definition in effect at opset (the largest <= opset); 0 when the
// op is not defined at that opset (unknown, or newer).
int op_version_at(const std::string& op, int opset);
// The largest opset the table knows.
int max_known_opset();

}  // namespace plaidml::onnx_import
