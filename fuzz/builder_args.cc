// Arguments of builder calls from the fuzz bytes: mostly plausible (names and values the
// library's own tables and docs/ops.md use), sometimes what a careless caller passes (NULL,
// foreign ids, unknown names, negative or huge numbers).
#include <cmath>
#include <limits>

#include "builder_script.h"

namespace plaidml::fuzz {
namespace {

const std::vector<int64_t> kInts = {0,
                                    1,
                                    2,
                                    3,
                                    -1,
                                    -2,
                                    4,
                                    8,
                                    16,
                                    32,
                                    64,
                                    100,
                                    1 << 20,
                                    std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::min()};
const std::vector<std::string> kNames = {"A",   "B", "X",   "Y", "W",         "gpu_0/data",
                                         "a`b", "",  "_T1", "N", "with space"};
const std::vector<std::string> kDims = {
    "N", "M", "K", "N", "1", "2", "3", "0", "-1", "x", "", "99999999999999999999", "`q`", "B C"};
const std::vector<std::string> kAttrNames = {
    "axis",         "axes",        "alpha",     "beta",
    "pads",         "padding",     "layout",    "keepdims",
    "epsilon",      "strides",     "dilations", "reduction",
    "groups",       "from_logits", "dtype",     "trans_a",
    "trans_b",      "threshold",   "steps",     "starts",
    "ends",         "shape",       "scale",     "reverse",
    "reps",         "repeats",     "perm",      "output_padding",
    "on_value",     "off_value",   "mode",      "kernel_layout",
    "exclusive",    "depth",       "ddof",      "count_include_pad",
    "kernel_shape", "max_value",   "min",       "max",
    "value",        "bias",        "nope"};
const std::vector<std::string> kAttrStrings = {
    "valid",         "same_upper",     "same_lower", "explicit", "none", "mean", "sum",
    "channels_last", "channels_first", "constant",   "reflect",  "edge", "nchw", "nhwc",
    "oihw",          "hwio",           "",           "f32",      "i64",  "bogus"};

template <typename T>
const T& pick(FuzzedDataProvider& b, const std::vector<T>& options) {
  return options[b.ConsumeIntegralInRange<size_t>(0, options.size() - 1)];
}

}  // namespace

plaidml_value ScriptValues::value() {
  if (values.empty() || b.ConsumeIntegralInRange(0, 15) == 0) {
    return {b.ConsumeIntegralInRange<int32_t>(-2, 40)};
  }
  return pick(b, values);
}

plaidml_expr ScriptValues::expr() {
  if (exprs.empty() || b.ConsumeIntegralInRange(0, 15) == 0) {
    return {b.ConsumeIntegralInRange<int32_t>(-2, 40)};
  }
  return pick(b, exprs);
}

std::vector<plaidml_value> ScriptValues::some_values(size_t max) {
  std::vector<plaidml_value> out(b.ConsumeIntegralInRange<size_t>(0, max));
  for (auto& v : out) v = value();
  return out;
}

std::vector<plaidml_expr> ScriptValues::some_exprs(size_t max) {
  std::vector<plaidml_expr> out(b.ConsumeIntegralInRange<size_t>(0, max));
  for (auto& e : out) e = expr();
  return out;
}

int64_t ScriptValues::int_value() {
  return b.ConsumeBool() ? pick(b, kInts) : b.ConsumeIntegralInRange<int64_t>(-5, 5);
}

double ScriptValues::float_value() {
  const std::vector<double> kFloats = {0.0,
                                       1.0,
                                       -1.5,
                                       0.5,
                                       1e30,
                                       -1e-30,
                                       std::numeric_limits<double>::infinity(),
                                       std::numeric_limits<double>::quiet_NaN()};
  return pick(b, kFloats);
}

std::string ScriptValues::name() { return pick(b, kNames); }

const char* ScriptValues::maybe_null(const std::string& s) {
  return b.ConsumeIntegralInRange(0, 15) == 0 ? nullptr : s.c_str();
}

std::string ScriptValues::index_name() {
  return pick(b, std::vector<std::string>{"i", "j", "k", "l", "", "N", "i j"});
}

std::string ScriptValues::dim_name() {
  return pick(b, std::vector<std::string>{"N", "M", "K", "", "i", "Nope"});
}

std::string ScriptValues::output_name() {
  return pick(b, std::vector<std::string>{"O", "P", "Q", "A", "", "`x`", "out/0"});
}

std::string ScriptValues::function_name() {
  size_t count = 0;
  if (plaidml_function_count(&count) != PLAIDML_STATUS_OK || count == 0) return "add";
  if (b.ConsumeIntegralInRange(0, 31) == 0) return pick(b, std::vector<std::string>{"", "nope"});
  const char* out = nullptr;
  plaidml_function_name(b.ConsumeIntegralInRange<size_t>(0, count - 1), &out);
  return out ? out : "";
}

std::string ScriptValues::op_name() {
  size_t count = 0;
  if (plaidml_op_count(&count) != PLAIDML_STATUS_OK || count == 0) return "relu";
  if (b.ConsumeIntegralInRange(0, 31) == 0) return pick(b, std::vector<std::string>{"", "nope"});
  const char* out = nullptr;
  plaidml_op_name(b.ConsumeIntegralInRange<size_t>(0, count - 1), &out);
  return out ? out : "";
}

InputDecl ScriptValues::input_decl(int index) {
  InputDecl d;
  d.name = b.ConsumeIntegralInRange(0, 15) == 0 ? name() : "I" + std::to_string(index);
  int rank = b.ConsumeIntegralInRange(0, 4);
  for (int i = 0; i < rank; ++i) {
    if (b.ConsumeIntegralInRange(0, 7) == 0) {
      d.dims.push_back(std::nullopt);
    } else {
      d.dims.push_back(pick(b, kDims));
    }
  }
  int rank_kind = b.ConsumeIntegralInRange(0, 31);
  d.unknown_rank = rank_kind == 1;
  if (rank_kind == 2) d.rank_override = 65;
  if (rank_kind == 3) d.rank_override = SIZE_MAX;
  d.dtype = b.ConsumeIntegralInRange(0, 3) == 0 ? b.ConsumeIntegralInRange(-1, 14)
                                                : PLAIDML_DTYPE_INVALID;
  return d;
}

ConstantArgs ScriptValues::constant_args() {
  ConstantArgs c;
  c.name = b.ConsumeBool() ? "" : name();
  c.dtype = b.ConsumeIntegralInRange(0, 31) == 0 ? b.ConsumeIntegralInRange(-1, 14)
                                                 : b.ConsumeIntegralInRange(1, 13);
  size_t element_size = 0;
  if (plaidml_dtype_size(c.dtype, &element_size) != PLAIDML_STATUS_OK) element_size = 4;
  c.elements = 1;
  for (int rank = b.ConsumeIntegralInRange(0, 3); rank > 0; --rank) {
    int64_t dim = b.ConsumeIntegralInRange<int64_t>(-1, 4);
    c.dims.push_back(dim);
    c.elements *= dim < 0 ? 0 : dim;
  }
  size_t size = static_cast<size_t>(c.elements) * element_size;
  if (b.ConsumeIntegralInRange(0, 15) == 0) size = b.ConsumeIntegralInRange<size_t>(0, 64);
  c.bytes = b.ConsumeBytes<uint8_t>(size);
  c.bytes.resize(size);
  return c;
}

plaidml_attrs* ScriptValues::attrs() {
  if (b.ConsumeIntegralInRange(0, 7) == 0) return nullptr;
  plaidml_attrs* attrs = nullptr;
  if (plaidml_attrs_create(&attrs) != PLAIDML_STATUS_OK) return nullptr;
  for (int n = b.ConsumeIntegralInRange(0, 3); n > 0; --n) {
    const std::string& key = pick(b, kAttrNames);
    switch (b.ConsumeIntegralInRange(0, 3)) {
      case 0:
        plaidml_attrs_set_int(attrs, key.c_str(), int_value());
        break;
      case 1: {
        std::vector<int64_t> list(b.ConsumeIntegralInRange<size_t>(0, 5));
        for (int64_t& v : list) v = int_value();
        plaidml_attrs_set_ints(attrs, key.c_str(), list.size(), list.data());
        break;
      }
      case 2:
        plaidml_attrs_set_float(attrs, key.c_str(), float_value());
        break;
      case 3:
        plaidml_attrs_set_string(attrs, key.c_str(), pick(b, kAttrStrings).c_str());
        break;
    }
  }
  return attrs;
}

}  // namespace plaidml::fuzz
