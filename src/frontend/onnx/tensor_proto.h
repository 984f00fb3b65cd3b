// ONNX element types and TensorProto contents, as plaidml dtypes and HostTensors.
#pragma once

#include <onnx/onnx_pb.h>

#include <memory>
#include <optional>
#include <string>

#include "external_data.h"
#include "host_tensor.h"

namespace plaidml::onnx_import {

// The plaidml dtype of an ONNX TensorProto.DataType, or nullopt (string, complex, float8, int4,
// ...: their names come from elem_type_name).
std::optional<plaidml_dtype> dtype_of_onnx(int elem_type);
std::string elem_type_name(int elem_type);
int onnx_of_dtype(plaidml_dtype dtype);

// The contents of a TensorProto. Raw bytes are borrowed (model_owner keeps the parsed model
// alive); typed fields (float_data, int32_data, ...) are converted into new storage; external
// data is mapped. Checked before anything is allocated: an unsupported type (UNSUPPORTED), dims
// that are negative or whose product overflows, and byte or element counts that disagree with
// the dims (INVALID_ARGUMENT naming the tensor).
HostTensor read_tensor(const onnx::TensorProto& proto, const std::shared_ptr<const void>& model_owner,
                       ExternalData* external);

}  // namespace plaidml::onnx_import
