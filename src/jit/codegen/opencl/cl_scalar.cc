// Types, constants, conversions and memory forms of cl_scalar.h (the ops: cl_scalar_ops.cc).
#include <cmath>
#include <cstdio>
#include <limits>

#include <fmt/format.h>

#include "core/types/half.h"
#include "jit/codegen/opencl/cl_scalar.h"

namespace plaidml::jit::opencl {

namespace {

// f32 -> bf16 bits, round to nearest even, NaN kept quiet: the CPU codegen's rounding.
constexpr const char* kBf16Bits =
    "inline ushort plaidml_bf16_bits(float x) {\n"
    "  uint b = as_uint(x);\n"
    "  if (isnan(x)) return (ushort)((b >> 16) | 0x40u);\n"
    "  return (ushort)((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);\n"
    "}\n";

constexpr const char* kRoundBf16 =
    "inline float plaidml_round_bf16(float x) {\n"
    "  uint b = as_uint(x);\n"
    "  uint r = isnan(x) ? ((b >> 16) | 0x40u) : ((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);\n"
    "  return as_float(r << 16);\n"
    "}\n";

// Through a ushort: a `half` variable needs cl_khr_fp16, a `half*` does not.
constexpr const char* kRoundF16 =
    "inline float plaidml_round_f16(float x) {\n"
    "  ushort h;\n"
    "  vstore_half_rte(x, 0, (half*)&h);\n"
    "  return vload_half(0, (const half*)&h);\n"
    "}\n";

std::string parens_if_negative(const std::string& text) {
  return !text.empty() && text[0] == '-' ? "(" + text + ")" : text;
}

// float -> integer: truncating, saturating, NaN gives 0 (OpenCL's _sat conversions saturate;
// NaN is tested here rather than trusting every driver's reading of the spec).
std::string float_to_int(const std::string& value, DType from, DType to, ClHelpers& helpers) {
  std::string ft = cl_value_type(from);
  std::string t = cl_value_type(to);
  std::string name = fmt::format("plaidml_{}_from_{}", dtype_name(to), ft);
  if (!helpers.count(name)) {
    helpers[name] = fmt::format(
        "inline {0} {1}({2} x) {{ return isnan(x) ? ({0})0 : convert_{0}_sat_rtz(x); }}\n", t,
        name, ft);
  }
  return fmt::format("{}({})", name, value);
}

}  // namespace

std::string cl_value_type(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I8: return "char";
    case DType::I16: return "short";
    case DType::I32: return "int";
    case DType::I64: return "long";
    case DType::U8: return "uchar";
    case DType::U16: return "ushort";
    case DType::U32: return "uint";
    case DType::U64: return "ulong";
    case DType::F16:
    case DType::BF16:
    case DType::F32: return "float";
    case DType::F64: return "double";
  }
  return "int";
}

std::string cl_storage_type(DType t) {
  switch (t) {
    case DType::Bool: return "uchar";
    case DType::F16: return "half";
    case DType::BF16: return "ushort";
    default: return cl_value_type(t);
  }
}

std::string cl_float_literal(double value, DType t) {
  if (t == DType::F16) value = round_to_f16(static_cast<float>(value));
  if (t == DType::BF16) value = round_to_bf16(static_cast<float>(value));
  if (t != DType::F64) value = static_cast<float>(value);
  if (std::isnan(value)) return t == DType::F64 ? "((double)NAN)" : "NAN";
  if (std::isinf(value)) {
    std::string inf = t == DType::F64 ? "((double)INFINITY)" : "INFINITY";
    return value < 0 ? "(-" + inf + ")" : inf;
  }
  // %a is exact: every float and double prints as the hex form of its bits.
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", value);
  std::string text = std::string(buf) + (t == DType::F64 ? "" : "f");
  return parens_if_negative(text);
}

std::string cl_int_literal(int64_t value, DType t) {
  switch (t) {
    case DType::Bool: return value != 0 ? "1" : "0";
    case DType::I32:
      if (value == std::numeric_limits<int32_t>::min()) return "(-2147483647-1)";
      return parens_if_negative(std::to_string(value));
    case DType::U32: return std::to_string(static_cast<uint32_t>(value)) + "u";
    case DType::I64:
      if (value == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807L-1L)";
      return parens_if_negative(std::to_string(value) + "L");
    case DType::U64: return std::to_string(static_cast<uint64_t>(value)) + "UL";
    case DType::I8:
    case DType::I16:
    case DType::U8:
    case DType::U16: return fmt::format("(({}){})", cl_value_type(t), value);
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64: return cl_float_literal(static_cast<double>(value), t);
  }
  return std::to_string(value);
}

std::string cl_const(const loop::Expr& e) {
  if (dtype_is_float(e.dtype)) return cl_float_literal(e.float_value, e.dtype);
  return cl_int_literal(e.int_value, e.dtype);
}

std::string cl_cast(const std::string& value, DType from, DType to, ClHelpers& helpers) {
  if (from == to) return value;
  if (to == DType::Bool) return fmt::format("({} != 0)", value);  // NaN != 0 holds
  std::string t = cl_value_type(to);
  if (dtype_is_float(to)) {
    // As the CPU codegen: to float first, then rounded to f16/bf16 precision.
    std::string f = cl_value_type(from) == t ? value : fmt::format("(({}){})", t, value);
    if (to == DType::F16) {
      helpers.emplace("plaidml_round_f16", kRoundF16);
      return fmt::format("plaidml_round_f16({})", f);
    }
    if (to == DType::BF16) {
      helpers.emplace("plaidml_round_bf16", kRoundBf16);
      return fmt::format("plaidml_round_bf16({})", f);
    }
    return f;
  }
  if (dtype_is_float(from)) return float_to_int(value, from, to, helpers);
  return fmt::format("(({}){})", t, value);  // C conversions sign- or zero-extend, or truncate
}

std::string cl_load(DType t, const std::string& ptr, const std::string& index) {
  switch (t) {
    case DType::Bool: return fmt::format("({}[{}] != 0)", ptr, index);
    case DType::F16: return fmt::format("vload_half({}, {})", index, ptr);
    case DType::BF16: return fmt::format("as_float((uint){}[{}] << 16)", ptr, index);
    default: return fmt::format("{}[{}]", ptr, index);
  }
}

std::string cl_store(DType t, const std::string& ptr, const std::string& index,
                     const std::string& value, ClHelpers& helpers) {
  switch (t) {
    case DType::Bool: return fmt::format("{}[{}] = (uchar){};", ptr, index, value);
    case DType::F16: return fmt::format("vstore_half_rte({}, {}, {});", value, index, ptr);
    case DType::BF16:
      helpers.emplace("plaidml_bf16_bits", kBf16Bits);
      return fmt::format("{}[{}] = plaidml_bf16_bits({});", ptr, index, value);
    default: return fmt::format("{}[{}] = {};", ptr, index, value);
  }
}

}  // namespace plaidml::jit::opencl
