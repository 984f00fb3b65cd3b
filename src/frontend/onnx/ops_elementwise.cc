// Elementwise ONNX operators: arithmetic, comparisons, logic, math functions, activations, Cast.
#include "converters.h"

namespace plaidml::onnx_import {
namespace {

const std::vector<plaidml_dtype> kFloats = {PLAIDML_DTYPE_FLOAT16, PLAIDML_DTYPE_BFLOAT16,
                                            PLAIDML_DTYPE_FLOAT32, PLAIDML_DTYPE_FLOAT64};

// A Tile function of one operand, same dtype out.
template <const char* kFunction>
void unary_float(NodeContext& cx) {
  cx.check_attrs({});
  cx.require_dtype(0, kFloats);
  cx.set_output(0, plaidml::call(kFunction, {cx.tensor(0)}), cx.dtype(0));
}

// numpy-broadcasting binary operator; both operands have the same dtype in ONNX.
template <const char* kFunction>
void binary_same(NodeContext& cx) {
  cx.check_attrs({});
  if (cx.dtype(0) != cx.dtype(1)) {
    invalid("operands have different types ({} and {})", dtype_text(cx.dtype(0)),
            dtype_text(cx.dtype(1)));
  }
  cx.set_output(0, plaidml::call(kFunction, {cx.tensor(0), cx.tensor(1)}), cx.dtype(0));
}

constexpr char kRelu[] = "relu";
constexpr char kAdd[] = "add";
constexpr char kSub[] = "sub";
constexpr char kMul[] = "mul";

}  // namespace

std::vector<ConverterEntry> elementwise_converters() {
  return {
      {"Relu", {6, 13, 14}, unary_float<kRelu>},
      {"Add", {7, 13, 14}, binary_same<kAdd>},
      {"Sub", {7, 13, 14}, binary_same<kSub>},
      {"Mul", {7, 13, 14}, binary_same<kMul>},
  };
}

}  // namespace plaidml::onnx_import
