// How generate_program spends the bytes: every choice is one FuzzedDataProvider call, so a
// mutation of one byte changes one choice (or shifts the ones after it), and an exhausted
// input reads as zeros: the first option of every choice, a short program.
#include "program_gen.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include "support/tensors.h"

namespace plaidml::fuzz {
namespace {

struct GenDim {
  std::string expr;  // as an output size: a dim name or a literal
  int64_t size = 1;
};

struct GenTensor {
  std::string name;
  std::vector<GenDim> dims;
};

const std::vector<DType> kDTypes = {DType::F32, DType::F32,  DType::F32, DType::F64,
                                    DType::F16, DType::BF16, DType::I32, DType::I64,
                                    DType::I8,  DType::U8,   DType::U32, DType::Bool};
const std::vector<std::string> kUnary = {
    "exp",  "log",  "sqrt",  "tanh",  "sin",   "cos",     "tan",   "sinh", "cosh",  "asin",
    "acos", "atan", "asinh", "acosh", "atanh", "erf",     "floor", "ceil", "round", "round_even",
    "abs",  "sign", "neg",   "recip", "relu",  "sigmoid", "isnan", "isinf"};
const std::vector<std::string> kBinaryOps = {"+", "-",  "*",  "/", "%", "==", "!=", "<",
                                             ">", "<=", ">=", "&", "|", "^",  "<<", ">>"};
const std::vector<std::string> kBinaryFns = {"pow", "max", "min"};
const std::vector<std::string> kCasts = {"as_float(X, 16)",  "as_float(X, 32)", "as_float(X, 64)",
                                         "as_bfloat(X, 16)", "as_int(X, 8)",    "as_int(X, 32)",
                                         "as_int(X, 64)",    "as_uint(X, 8)",   "as_uint(X, 32)",
                                         "as_bool(X)",       "bitcast(X)"};
const std::vector<std::string> kLiterals = {"0", "1", "2", "-1", "3", "0.5", "-2.5", "7"};
const std::vector<std::string> kIndexVars = {"i", "j", "k", "l"};
const std::vector<double> kValues = {0,    1,   -1,   2,   -2,  3,    5,   -7,    8,    100,
                                     -100, 127, -128, 255, 0.5, -0.5, 1.5, -2.25, 0.125};

// numpy broadcasting of two dim lists (right-aligned, size 1 stretches); nullopt if they clash.
std::optional<std::vector<GenDim>> broadcast(const std::vector<GenDim>& a,
                                             const std::vector<GenDim>& b) {
  const std::vector<GenDim>& longer = a.size() >= b.size() ? a : b;
  const std::vector<GenDim>& shorter = a.size() >= b.size() ? b : a;
  std::vector<GenDim> out = longer;
  size_t shift = longer.size() - shorter.size();
  for (size_t i = 0; i < shorter.size(); ++i) {
    const GenDim& x = longer[shift + i];
    const GenDim& y = shorter[i];
    if (x.size == y.size) continue;
    if (x.size == 1) {
      out[shift + i] = y;
    } else if (y.size != 1) {
      return std::nullopt;
    }
  }
  return out;
}

// Whether the value fits the dtype's range (write_element's C casts need that).
bool fits(DType dtype, double v) {
  if (dtype_is_float(dtype) || dtype == DType::Bool) return true;
  if (v != static_cast<double>(static_cast<int64_t>(v))) return false;
  if (dtype_bits(dtype) >= 32) return true;
  double max = dtype_is_signed(dtype) ? std::ldexp(1.0, dtype_bits(dtype) - 1) - 1
                                      : std::ldexp(1.0, dtype_bits(dtype)) - 1;
  return v <= max && v >= -max - 1;
}

class Generator {
 public:
  explicit Generator(FuzzedDataProvider& bytes) : b_(bytes) {}

  GeneratedProgram run() {
    specials_ = chance(10);
    for (int64_t& size : sizes_) size = chance(5) ? 0 : b_.ConsumeIntegralInRange<int64_t>(1, 4);
    int input_count = b_.ConsumeIntegralInRange(1, 3);
    for (int i = 0; i < input_count; ++i) declare_input(i);
    int statement_count = b_.ConsumeIntegralInRange(1, 6);
    for (int i = 0; i < statement_count; ++i) add_statement(i);
    return {finish(input_count), std::move(inputs_)};
  }

 private:
  template <typename T>
  const T& pick(const std::vector<T>& options) {
    return options[b_.ConsumeIntegralInRange<size_t>(0, options.size() - 1)];
  }
  bool chance(int percent) { return b_.ConsumeIntegralInRange(0, 99) < percent; }
  // A dim some input declares (binding refuses others), or `otherwise` when none does.
  std::string dim_or(const char* otherwise) {
    std::vector<std::string> dims;
    for (int d = 0; d < 3; ++d) {
      if (declared_[d]) dims.push_back(std::string(1, "NMK"[d]));
    }
    return dims.empty() ? otherwise : pick(dims);
  }
  const GenTensor& any_tensor() { return pick(tensors_); }

  void declare_input(int index) {
    GenTensor t{fmt::format("X{}", index), {}};
    int rank = b_.ConsumeIntegralInRange(0, 3);
    std::vector<std::string> names;
    for (int d = 0; d < rank; ++d) {
      int which = b_.ConsumeIntegralInRange(0, 3);
      GenDim dim =
          which == 3 ? GenDim{"1", 1} : GenDim{std::string(1, "NMK"[which]), sizes_[which]};
      names.push_back(dim.expr);
      if (which < 3) declared_[which] = true;
      t.dims.push_back(dim);
    }
    DType dtype = pick(kDTypes);
    decls_.push_back(fmt::format("{}: {}[{}]", t.name, dtype_name(dtype), fmt::join(names, ", ")));
    inputs_.push_back(values(dtype, t.dims));
    tensors_.push_back(std::move(t));
  }

  HostTensor values(DType dtype, const std::vector<GenDim>& dims) {
    std::vector<int64_t> sizes;
    for (const GenDim& d : dims) sizes.push_back(d.size);
    HostTensor t(Shape(dtype, sizes));
    const double kSpecials[] = {std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
    for (int64_t i = 0; i < t.elements(); ++i) {
      double v = pick(kValues);
      if (specials_ && dtype_is_float(dtype) && chance(15))
        v = kSpecials[b_.ConsumeIntegralInRange(0, 2)];
      testing::write_element(t, i, fits(dtype, v) ? v : 1);
    }
    return t;
  }

  void add_statement(int index) {
    GenTensor result{fmt::format("T{}", index), {}};
    std::string rhs;
    if (chance(40)) {
      rhs = contraction(result);
    } else {
      rhs = elementwise(result.dims);
      rhs = fmt::format("{} = {};", result.name, rhs);
    }
    statements_.push_back(rhs);
    tensors_.push_back(std::move(result));
  }

  // An operand broadcast-compatible with dims (updating them), or a literal.
  std::string operand(std::vector<GenDim>& dims) {
    if (chance(25)) return pick(kLiterals);
    const GenTensor& t = any_tensor();
    auto joined = broadcast(dims, t.dims);
    if (!joined) return pick(kLiterals);
    dims = *joined;
    return t.name;
  }

  std::string elementwise(std::vector<GenDim>& dims) {
    const GenTensor& x = any_tensor();
    dims = x.dims;
    int kind = b_.ConsumeIntegralInRange(0, 99);
    if (kind < 30) return fmt::format("{}({})", pick(kUnary), x.name);
    if (kind < 60) {
      std::string y = operand(dims);
      return fmt::format("{} {} {}", x.name, pick(kBinaryOps), y);
    }
    if (kind < 70) {
      std::string y = operand(dims);
      return fmt::format("{}({}, {})", pick(kBinaryFns), x.name, y);
    }
    if (kind < 80) {
      std::string cast = pick(kCasts);
      return cast.replace(cast.find('X'), 1, x.name);
    }
    if (kind < 88) {
      std::string a = operand(dims), c = operand(dims);
      return chance(50) ? fmt::format("{} ? {} : {}", x.name, a, c)
                        : fmt::format("select({}, {}, {})", x.name, a, c);
    }
    if (kind < 94 && !x.dims.empty()) {
      int axis = b_.ConsumeIntegralInRange<int>(0, static_cast<int>(x.dims.size()) - 1);
      return fmt::format("index({}, {})", x.name, axis);
    }
    int64_t total = 1;
    for (const GenDim& d : x.dims) total *= d.size;
    dims = {GenDim{std::to_string(total), total}};
    return fmt::format("reshape({}, {})", x.name, total);
  }

  // One index expression of an access; `alone` records a variable that indexes a dim by itself
  // (its size can then size an output dim).
  std::string index_term(const GenDim& dim, std::vector<std::string>& used,
                         std::vector<std::pair<std::string, GenDim>>& alone) {
    std::string v = pick(kIndexVars);
    int form = b_.ConsumeIntegralInRange(0, 99);
    int c = b_.ConsumeIntegralInRange(-2, 2);
    std::string offset = c == 0 ? "" : fmt::format(" {} {}", c < 0 ? '-' : '+', std::abs(c));
    if (form < 97 && std::find(used.begin(), used.end(), v) == used.end()) used.push_back(v);
    if (form < 60) {
      alone.push_back({v, dim});
      return v;
    }
    if (form < 72) return v + offset;
    if (form < 82) {
      std::string w = pick(kIndexVars);
      if (std::find(used.begin(), used.end(), w) == used.end()) used.push_back(w);
      return fmt::format("{} {} {}{}", v, chance(50) ? '+' : '-', w, offset);
    }
    if (form < 88) return fmt::format("2 * {}{}", v, offset);
    if (form < 94) return fmt::format("({}{}) / 2", v, offset);
    if (form < 97) return fmt::format("{} + {} - 2", v, dim_or("1"));
    return std::to_string(b_.ConsumeIntegralInRange(0, 2));
  }

  std::string access(const GenTensor& t, std::vector<std::string>& used,
                     std::vector<std::pair<std::string, GenDim>>& alone) {
    std::vector<std::string> terms;
    for (const GenDim& d : t.dims) terms.push_back(index_term(d, used, alone));
    return fmt::format("{}[{}]", t.name, fmt::join(terms, ", "));
  }

  std::string contraction(GenTensor& result) {
    static const std::vector<std::string> kAggs = {"+", "+", "+", ">", "<", "*", "=", "="};
    static const std::vector<std::string> kCombs = {"", "", " * ", " * ", " + ", " == ", "?"};
    std::string agg = pick(kAggs), comb = pick(kCombs);
    std::vector<std::string> used;
    std::vector<std::pair<std::string, GenDim>> alone;
    std::string body = access(any_tensor(), used, alone);
    if (comb == "?") {
      std::string b = access(any_tensor(), used, alone);
      body += fmt::format(" == {} ? {}", b, access(any_tensor(), used, alone));
    } else if (!comb.empty()) {
      body += comb + access(any_tensor(), used, alone);
    }
    std::vector<std::string> out_vars = used;
    if (agg != "=") {
      size_t rank = b_.ConsumeIntegralInRange<size_t>(0, out_vars.size());
      for (size_t i = 0; i < out_vars.size(); ++i) {
        std::swap(out_vars[i], out_vars[b_.ConsumeIntegralInRange<size_t>(i, out_vars.size() - 1)]);
      }
      out_vars.resize(rank);
    }
    std::vector<std::string> indices, sizes;
    for (const std::string& v : out_vars) {
      GenDim dim{"", 0};
      for (const auto& [var, d] : alone) {
        if (var == v && dim.expr.empty() && chance(80)) dim = d;
      }
      if (dim.expr.empty()) {
        dim.size = b_.ConsumeIntegralInRange<int64_t>(1, 4);
        dim.expr = std::to_string(dim.size);
      }
      indices.push_back(chance(10) ? v + " + 1" : v);
      sizes.push_back(dim.expr);
      result.dims.push_back(dim);
    }
    std::string text =
        indices.empty() ? fmt::format("{}[] = {}({})", result.name, agg, body)
                        : fmt::format("{}[{} : {}] = {}({})", result.name, fmt::join(indices, ", "),
                                      fmt::join(sizes, ", "), agg, body);
    if (!used.empty() && chance(25)) {
      text += fmt::format(", {} + {} < {}", pick(used), pick(used), chance(50) ? dim_or("2") : "3");
    }
    if (chance(10)) text += " default " + (chance(70) ? pick(kLiterals) : any_tensor().name);
    return text + ";";
  }

  std::string finish(int input_count) {
    std::vector<std::string> outputs = {tensors_.back().name};
    const GenTensor& other =
        tensors_[b_.ConsumeIntegralInRange<size_t>(input_count, tensors_.size() - 1)];
    if (other.name != outputs[0] && chance(30)) outputs.push_back(other.name);
    return fmt::format("function ({}) -> ({}) {{\n  {}\n}}\n", fmt::join(decls_, ", "),
                       fmt::join(outputs, ", "), fmt::join(statements_, "\n  "));
  }

  FuzzedDataProvider& b_;
  bool specials_ = false;
  int64_t sizes_[3] = {1, 1, 1};
  bool declared_[3] = {false, false, false};  // whether an input declares N, M, K
  std::vector<GenTensor> tensors_;            // inputs, then statement results
  std::vector<std::string> decls_, statements_;
  std::vector<HostTensor> inputs_;
};

}  // namespace

GeneratedProgram generate_program(FuzzedDataProvider& bytes) { return Generator(bytes).run(); }

}  // namespace plaidml::fuzz
