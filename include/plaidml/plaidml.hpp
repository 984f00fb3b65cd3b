// plaidml.hpp: a header-only C++17 (and later) wrapper over the C ABI (plaidml.h): RAII handles,
// exceptions instead of status codes, and a small EDSL for building programs:
//
//   plaidml::Builder b("matmul");
//   auto A = b.input("A", {"M", "K"});
//   auto B = b.input("B", {"K", "N"});
//   auto i = b.index("i"), j = b.index("j"), k = b.index("k");
//   auto C = b.contraction({b.dim("M"), b.dim("N")});
//   C(i, j) += A(i, k) * B(k, j);
//   b.output("R", plaidml::relu(C));
//   plaidml::Program program = b.build();
//
//   plaidml::Context ctx;
//   auto a = plaidml::Buffer::from(ctx, {2, 3}, std::vector<float>{...});
//   auto outputs = ctx.run(program, {{"A", a}, {"B", bb}});
//   std::vector<float> r = outputs.at("R").read<float>();
//
// Everything here is inline over plaidml.h: it exports no symbols, so it never constrains the
// library's ABI. Errors throw plaidml::Error (status + message); nothing else throws except
// std::bad_alloc. Context, Program and Buffer are cheap shared handles, thread-safe like their C
// counterparts. Builder, Tensor, IndexExpr and Contraction belong to one builder, which must
// outlive them and be used from one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "plaidml/plaidml.h"

namespace plaidml {

// A failed plaidml call: the C status and plaidml_last_error_message() at the time.
class Error : public std::runtime_error {
 public:
  Error(plaidml_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  plaidml_status status() const noexcept { return status_; }

 private:
  plaidml_status status_;
};

namespace detail {

inline void check(plaidml_status status) {
  if (status != PLAIDML_STATUS_OK) throw Error(status, plaidml_last_error_message());
}

template <typename T>
std::shared_ptr<T> adopt(T* handle, void (*destroy)(T*)) {
  return std::shared_ptr<T>(handle, destroy);
}

}  // namespace detail

inline std::string version() { return plaidml_version(); }

// The Tile names of every elementwise operator and function the library knows (docs/tile.md
// section 3), in its order: what call() accepts.
inline std::vector<std::string> function_names() {
  size_t count = 0;
  detail::check(plaidml_function_count(&count));
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    detail::check(plaidml_function_name(i, &name));
    names.emplace_back(name);
  }
  return names;
}

inline void set_log_level(plaidml_log_level level) { detail::check(plaidml_set_log_level(level)); }

enum class DType : plaidml_dtype {
  Invalid = PLAIDML_DTYPE_INVALID,
  Bool = PLAIDML_DTYPE_BOOL,
  I8 = PLAIDML_DTYPE_INT8,
  I16 = PLAIDML_DTYPE_INT16,
  I32 = PLAIDML_DTYPE_INT32,
  I64 = PLAIDML_DTYPE_INT64,
  U8 = PLAIDML_DTYPE_UINT8,
  U16 = PLAIDML_DTYPE_UINT16,
  U32 = PLAIDML_DTYPE_UINT32,
  U64 = PLAIDML_DTYPE_UINT64,
  F16 = PLAIDML_DTYPE_FLOAT16,
  BF16 = PLAIDML_DTYPE_BFLOAT16,
  F32 = PLAIDML_DTYPE_FLOAT32,
  F64 = PLAIDML_DTYPE_FLOAT64,
};

// The dtype of a C++ element type (bool buffers hold one byte per element: use bool or uint8_t
// only through read_bytes/write_bytes).
template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>)
    return DType::F32;
  else if constexpr (std::is_same_v<T, double>)
    return DType::F64;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DType::I8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return DType::I16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::I32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::I64;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DType::U8;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return DType::U16;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return DType::U32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return DType::U64;
  else
    static_assert(sizeof(T) == 0, "no plaidml dtype for this C++ type");
}

// ---------------------------------------------------------------------------------------------
// Programs
// ---------------------------------------------------------------------------------------------

class Program {
 public:
  Program() = default;
  explicit Program(plaidml_program* adopted)
      : handle_(detail::adopt(adopted, &plaidml_program_destroy)) {}

  // Parses Tile text. Throws Error (PARSE_ERROR with line:column, NOT_FOUND, ...).
  static Program from_tile(const std::string& text) {
    plaidml_program* program = nullptr;
    detail::check(plaidml_program_from_tile(text.c_str(), &program));
    return Program(program);
  }

  // The program as Tile text.
  std::string str() const {
    char* text = nullptr;
    detail::check(plaidml_program_print(get(), &text));
    std::string result(text);
    plaidml_string_destroy(text);
    return result;
  }

  std::vector<std::string> inputs() const {
    return names(&plaidml_program_input_count, &plaidml_program_input_name);
  }
  std::vector<std::string> outputs() const {
    return names(&plaidml_program_output_count, &plaidml_program_output_name);
  }

  // A new program: these outputs plus d(loss)/d(input) for each input in wrt, named
  // grad_names (empty: "<input>_grad"). See plaidml_program_gradient.
  Program gradient(const std::string& loss, const std::vector<std::string>& wrt,
                   const std::vector<std::string>& grad_names = {}) const {
    std::vector<const char*> w, g;
    for (const auto& n : wrt) w.push_back(n.c_str());
    for (const auto& n : grad_names) g.push_back(n.c_str());
    if (!grad_names.empty() && grad_names.size() != wrt.size()) {
      throw Error(PLAIDML_STATUS_INVALID_ARGUMENT,
                  "Program::gradient: grad_names must be empty or name every wrt input");
    }
    plaidml_program* out = nullptr;
    detail::check(plaidml_program_gradient(get(), loss.c_str(), w.size(), w.data(),
                                           g.empty() ? nullptr : g.data(), &out));
    return Program(out);
  }

  plaidml_program* get() const { return handle_.get(); }

 private:
  using CountFn = plaidml_status (*)(const plaidml_program*, size_t*);
  using NameFn = plaidml_status (*)(const plaidml_program*, size_t, const char**);
  std::vector<std::string> names(CountFn count_fn, NameFn name_fn) const {
    size_t count = 0;
    detail::check(count_fn(get(), &count));
    std::vector<std::string> result;
    for (size_t i = 0; i < count; ++i) {
      const char* name = nullptr;
      detail::check(name_fn(get(), i, &name));
      result.emplace_back(name);
    }
    return result;
  }

  std::shared_ptr<plaidml_program> handle_;
};

// ---------------------------------------------------------------------------------------------
// Contexts and buffers
// ---------------------------------------------------------------------------------------------

struct DeviceInfo {
  std::string id;
  std::string name;
  bool available = false;
  std::string unavailable_reason;
};

struct TensorShape {
  DType dtype = DType::F32;
  std::vector<int64_t> dims;
};

class Buffer;
using Bindings = std::vector<std::pair<std::string, Buffer>>;

class Context {
 public:
  struct Options {
    int num_threads = 0;  // 0: PLAIDML_NUM_THREADS, else the number of cores
    std::string device;   // "": PLAIDML_DEVICE, else "cpu:0"
    // The disk cache folder, "" for none; unset: PLAIDML_CACHE_DIR, else the default folder
    // (see PLAIDML_CONTEXT_OPTION_CACHE_DIR).
    std::optional<std::string> cache_dir;
    // Bytes one run or buffer may use in host memory; 0: PLAIDML_MEMORY_LIMIT, else the default
    // (see PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT). Over it, a run throws OUT_OF_MEMORY.
    int64_t memory_limit = 0;
  };

  Context() : Context(Options{}) {}
  explicit Context(const Options& options) {
    plaidml_context_options* raw = nullptr;
    detail::check(plaidml_context_options_create(&raw));
    auto opts = detail::adopt(raw, &plaidml_context_options_destroy);
    detail::check(plaidml_context_options_set_int(raw, PLAIDML_CONTEXT_OPTION_NUM_THREADS,
                                                  options.num_threads));
    detail::check(plaidml_context_options_set_string(raw, PLAIDML_CONTEXT_OPTION_DEVICE,
                                                     options.device.c_str()));
    if (options.cache_dir) {
      detail::check(plaidml_context_options_set_string(raw, PLAIDML_CONTEXT_OPTION_CACHE_DIR,
                                                       options.cache_dir->c_str()));
    }
    detail::check(plaidml_context_options_set_int(raw, PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT,
                                                  options.memory_limit));
    plaidml_context* context = nullptr;
    detail::check(plaidml_context_create(raw, &context));
    handle_ = detail::adopt(context, &plaidml_context_destroy);
  }

  std::vector<DeviceInfo> devices() const {
    size_t count = 0;
    detail::check(plaidml_device_count(get(), &count));
    std::vector<DeviceInfo> result(count);
    for (size_t i = 0; i < count; ++i) {
      const char* id = nullptr;
      const char* name = nullptr;
      const char* reason = nullptr;
      detail::check(plaidml_device_id(get(), i, &id));
      detail::check(plaidml_device_name(get(), i, &name));
      detail::check(plaidml_device_available(get(), i, &result[i].available, &reason));
      result[i].id = id;
      result[i].name = name;
      result[i].unavailable_reason = reason;
    }
    return result;
  }

  void select_device(const std::string& id) {
    detail::check(plaidml_context_select_device(get(), id.c_str()));
  }
  std::string device() const {
    const char* id = nullptr;
    detail::check(plaidml_context_device(get(), &id));
    return id;
  }

  // The disk cache folder in use, "" when it is off.
  std::string cache_dir() const {
    const char* dir = nullptr;
    detail::check(plaidml_context_cache_dir(get(), &dir));
    return dir;
  }

  plaidml_stats stats() const {
    plaidml_stats stats{};
    stats.struct_size = sizeof(stats);
    detail::check(plaidml_context_stats(get(), &stats));
    return stats;
  }

  // Compiles program for these input shapes (by name) without running it.
  void compile(const Program& program,
               const std::vector<std::pair<std::string, TensorShape>>& shapes) {
    std::vector<const char*> names;
    std::vector<plaidml_tensor_shape> c_shapes;
    for (const auto& [name, shape] : shapes) {
      names.push_back(name.c_str());
      c_shapes.push_back(
          {static_cast<plaidml_dtype>(shape.dtype), shape.dims.size(), shape.dims.data()});
    }
    detail::check(
        plaidml_compile(get(), program.get(), names.size(), names.data(), c_shapes.data()));
  }

  // Runs program; returns every output, newly allocated, by name.
  inline std::map<std::string, Buffer> run(const Program& program, const Bindings& inputs);
  // Runs program, writing the named outputs into the given buffers (shapes are checked).
  inline void run(const Program& program, const Bindings& inputs, const Bindings& outputs);

  plaidml_context* get() const { return handle_.get(); }

 private:
  std::shared_ptr<plaidml_context> handle_;
};

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(plaidml_buffer* adopted)
      : handle_(detail::adopt(adopted, &plaidml_buffer_destroy)) {}

  // An uninitialised buffer on the context's selected device.
  Buffer(const Context& context, DType dtype, const std::vector<int64_t>& dims) {
    plaidml_buffer* buffer = nullptr;
    detail::check(plaidml_buffer_create(context.get(), static_cast<plaidml_dtype>(dtype),
                                        dims.size(), dims.data(), &buffer));
    handle_ = detail::adopt(buffer, &plaidml_buffer_destroy);
  }

  // A buffer holding data (row-major); data.size() must equal the element count.
  template <typename T>
  static Buffer from(const Context& context, const std::vector<int64_t>& dims,
                     const std::vector<T>& data) {
    plaidml_buffer* buffer = nullptr;
    detail::check(plaidml_buffer_create_from_host(
        context.get(), static_cast<plaidml_dtype>(dtype_of<T>()), dims.size(), dims.data(),
        data.data(), data.size() * sizeof(T), &buffer));
    return Buffer(buffer);
  }

  // The contents as T; T must match the buffer's dtype.
  template <typename T>
  std::vector<T> read() const {
    check_type(dtype_of<T>());
    std::vector<T> result(byte_size() / sizeof(T));
    detail::check(plaidml_buffer_read(get(), result.data(), result.size() * sizeof(T)));
    return result;
  }
  template <typename T>
  void write(const std::vector<T>& data) {
    check_type(dtype_of<T>());
    detail::check(plaidml_buffer_write(get(), data.data(), data.size() * sizeof(T)));
  }
  std::vector<uint8_t> read_bytes() const {
    std::vector<uint8_t> bytes(byte_size());
    detail::check(plaidml_buffer_read(get(), bytes.data(), bytes.size()));
    return bytes;
  }
  void write_bytes(const void* data, size_t size) {
    detail::check(plaidml_buffer_write(get(), data, size));
  }

  DType dtype() const {
    plaidml_dtype dtype = PLAIDML_DTYPE_INVALID;
    detail::check(plaidml_buffer_dtype(get(), &dtype));
    return static_cast<DType>(dtype);
  }
  std::vector<int64_t> dims() const {
    size_t rank = 0;
    detail::check(plaidml_buffer_rank(get(), &rank));
    std::vector<int64_t> result(rank);
    for (size_t i = 0; i < rank; ++i) detail::check(plaidml_buffer_dim(get(), i, &result[i]));
    return result;
  }
  size_t byte_size() const {
    size_t size = 0;
    detail::check(plaidml_buffer_byte_size(get(), &size));
    return size;
  }

  plaidml_buffer* get() const { return handle_.get(); }

 private:
  void check_type(DType wanted) const {
    if (dtype() != wanted) {
      throw Error(PLAIDML_STATUS_INVALID_ARGUMENT,
                  "plaidml::Buffer: element type does not match the buffer's dtype");
    }
  }

  std::shared_ptr<plaidml_buffer> handle_;
};

inline std::map<std::string, Buffer> Context::run(const Program& program, const Bindings& inputs) {
  std::vector<const char*> in_names;
  std::vector<plaidml_buffer*> in_buffers;
  for (const auto& [name, buffer] : inputs) {
    in_names.push_back(name.c_str());
    in_buffers.push_back(buffer.get());
  }
  std::vector<std::string> out_names = program.outputs();
  std::vector<const char*> out_cnames;
  for (const auto& name : out_names) out_cnames.push_back(name.c_str());
  std::vector<plaidml_buffer*> out_buffers(out_names.size(), nullptr);
  detail::check(plaidml_execute(get(), program.get(), in_names.size(), in_names.data(),
                                in_buffers.data(), out_names.size(), out_cnames.data(),
                                out_buffers.data()));
  std::map<std::string, Buffer> result;
  for (size_t i = 0; i < out_names.size(); ++i) result[out_names[i]] = Buffer(out_buffers[i]);
  return result;
}

inline void Context::run(const Program& program, const Bindings& inputs, const Bindings& outputs) {
  std::vector<const char*> in_names, out_names;
  std::vector<plaidml_buffer*> in_buffers, out_buffers;
  for (const auto& [name, buffer] : inputs) {
    in_names.push_back(name.c_str());
    in_buffers.push_back(buffer.get());
  }
  for (const auto& [name, buffer] : outputs) {
    if (buffer.get() == nullptr) {
      throw Error(PLAIDML_STATUS_INVALID_ARGUMENT,
                  "plaidml::Context::run: output buffer '" + name + "' is empty");
    }
    out_names.push_back(name.c_str());
    out_buffers.push_back(buffer.get());
  }
  detail::check(plaidml_execute(get(), program.get(), in_names.size(), in_names.data(),
                                in_buffers.data(), out_names.size(), out_names.data(),
                                out_buffers.data()));
}

// ---------------------------------------------------------------------------------------------
// The EDSL
// ---------------------------------------------------------------------------------------------

struct Constraint;

// An integer expression: an index variable, a dim size, a literal, or arithmetic on those.
class IndexExpr {
 public:
  IndexExpr(plaidml_builder* builder, plaidml_expr expr) : builder_(builder), expr_(expr) {}
  plaidml_builder* builder() const { return builder_; }
  plaidml_expr get() const { return expr_; }

  IndexExpr literal(int64_t value) const {
    plaidml_expr e;
    detail::check(plaidml_expr_int(builder_, value, &e));
    return IndexExpr(builder_, e);
  }
  IndexExpr binary(plaidml_expr_op op, const IndexExpr& rhs) const {
    plaidml_expr e;
    detail::check(plaidml_expr_binary(builder_, op, expr_, rhs.expr_, &e));
    return IndexExpr(builder_, e);
  }
  IndexExpr operator-() const {
    plaidml_expr e;
    detail::check(plaidml_expr_neg(builder_, expr_, &e));
    return IndexExpr(builder_, e);
  }

 private:
  plaidml_builder* builder_;
  plaidml_expr expr_;
};

#define PLAIDML_HPP_INDEX_OP(op, code)                                   \
  inline IndexExpr operator op(const IndexExpr& a, const IndexExpr& b) { \
    return a.binary(code, b);                                            \
  }                                                                      \
  inline IndexExpr operator op(const IndexExpr& a, int64_t b) {          \
    return a.binary(code, a.literal(b));                                 \
  }                                                                      \
  inline IndexExpr operator op(int64_t a, const IndexExpr& b) {          \
    return b.literal(a).binary(code, b);                                 \
  }
PLAIDML_HPP_INDEX_OP(+, PLAIDML_EXPR_ADD)
PLAIDML_HPP_INDEX_OP(-, PLAIDML_EXPR_SUB)
PLAIDML_HPP_INDEX_OP(*, PLAIDML_EXPR_MUL)
PLAIDML_HPP_INDEX_OP(/, PLAIDML_EXPR_DIV)
#undef PLAIDML_HPP_INDEX_OP

inline IndexExpr max(const IndexExpr& a, const IndexExpr& b) {
  return a.binary(PLAIDML_EXPR_MAX, b);
}
inline IndexExpr floordiv(const IndexExpr& a, const IndexExpr& b) {
  return a.binary(PLAIDML_EXPR_FLOOR_DIV, b);
}
inline IndexExpr min(const IndexExpr& a, const IndexExpr& b) {
  return a.binary(PLAIDML_EXPR_MIN, b);
}

// 0 <= poly < bound.
struct Constraint {
  IndexExpr poly;
  IndexExpr bound;
};
inline Constraint operator<(const IndexExpr& poly, const IndexExpr& bound) { return {poly, bound}; }
inline Constraint operator<(const IndexExpr& poly, int64_t bound) {
  return {poly, poly.literal(bound)};
}

class Access;

// A tensor value inside a builder.
class Tensor {
 public:
  Tensor(plaidml_builder* builder, plaidml_value value) : builder_(builder), value_(value) {}
  plaidml_builder* builder() const { return builder_; }
  plaidml_value get() const { return value_; }

  // An access for a contraction: A(i, k), A(2 * x + i, 0).
  template <typename... Idx>
  Access operator()(const Idx&... indices) const;

  Tensor constant(int64_t value) const {
    plaidml_value v;
    detail::check(plaidml_builder_int_constant(builder_, value, &v));
    return Tensor(builder_, v);
  }
  Tensor constant(double value) const {
    plaidml_value v;
    detail::check(plaidml_builder_float_constant(builder_, value, &v));
    return Tensor(builder_, v);
  }
  // The rank and the dims, as integer expressions over the inputs' dims (usable as sizes).
  size_t rank() const {
    size_t r = 0;
    detail::check(plaidml_builder_value_rank(builder_, value_, &r));
    return r;
  }
  IndexExpr dim(size_t axis) const {
    plaidml_expr e;
    detail::check(plaidml_builder_value_dim(builder_, value_, axis, &e));
    return IndexExpr(builder_, e);
  }
  // The size of dim axis when it is known while building, else -1 (plaidml_builder_value_size).
  int64_t size(size_t axis) const {
    int64_t s = -1;
    detail::check(plaidml_builder_value_size(builder_, value_, axis, &s));
    return s;
  }

  // A scalar of arithmetic type S as a constant tensor (ints stay ints, floats stay floats).
  template <typename S>
  Tensor scalar(S value) const {
    if constexpr (std::is_floating_point_v<S>)
      return constant(static_cast<double>(value));
    else
      return constant(static_cast<int64_t>(value));
  }

 private:
  plaidml_builder* builder_;
  plaidml_value value_;
};

// Any elementwise operator or function by its Tile name, with integer arguments if it has any.
inline Tensor call(const std::string& function, const std::vector<Tensor>& operands,
                   const std::vector<IndexExpr>& int_args = {}) {
  if (operands.empty()) {
    throw Error(PLAIDML_STATUS_INVALID_ARGUMENT, "plaidml::call('" + function + "'): no operands");
  }
  std::vector<plaidml_value> values;
  for (const auto& t : operands) values.push_back(t.get());
  std::vector<plaidml_expr> args;
  for (const auto& e : int_args) args.push_back(e.get());
  plaidml_value out;
  detail::check(plaidml_builder_call(operands[0].builder(), function.c_str(), values.size(),
                                     values.data(), args.size(), args.data(), &out));
  return Tensor(operands[0].builder(), out);
}

// Attributes of an op of the library: op("conv", {x, w}, Attrs().set("strides", {2, 2})).
class Attrs {
 public:
  Attrs() {
    plaidml_attrs* a = nullptr;
    detail::check(plaidml_attrs_create(&a));
    handle_ = detail::adopt(a, &plaidml_attrs_destroy);
  }
  Attrs& set(const std::string& name, int64_t v) {
    detail::check(plaidml_attrs_set_int(get(), name.c_str(), v));
    return *this;
  }
  Attrs& set(const std::string& name, int v) { return set(name, static_cast<int64_t>(v)); }
  Attrs& set(const std::string& name, const std::vector<int64_t>& v) {
    detail::check(plaidml_attrs_set_ints(get(), name.c_str(), v.size(), v.data()));
    return *this;
  }
  Attrs& set(const std::string& name, double v) {
    detail::check(plaidml_attrs_set_float(get(), name.c_str(), v));
    return *this;
  }
  Attrs& set(const std::string& name, const std::string& v) {
    detail::check(plaidml_attrs_set_string(get(), name.c_str(), v.c_str()));
    return *this;
  }
  Attrs& set(const std::string& name, const char* v) { return set(name, std::string(v)); }
  plaidml_attrs* get() const { return handle_.get(); }

 private:
  std::shared_ptr<plaidml_attrs> handle_;
};

// An op of the library by name (plaidml_builder_op): op("softmax", {x}, Attrs().set("axis", 1)).
inline Tensor op(const std::string& name, const std::vector<Tensor>& operands,
                 const Attrs& attrs = Attrs()) {
  if (operands.empty()) {
    throw Error(PLAIDML_STATUS_INVALID_ARGUMENT, "plaidml::op('" + name + "'): no operands");
  }
  std::vector<plaidml_value> values;
  for (const auto& t : operands) values.push_back(t.get());
  plaidml_value out;
  detail::check(plaidml_builder_op(operands[0].builder(), name.c_str(), values.size(),
                                   values.data(), attrs.get(), &out));
  return Tensor(operands[0].builder(), out);
}

// The elementwise operators and functions: + - * ..., exp, relu, as_float, gather, ...
#define PLAIDML_HPP_INCLUDING_FUNCTIONS
#include "plaidml/plaidml_functions.hpp"  // IWYU pragma: export
#undef PLAIDML_HPP_INCLUDING_FUNCTIONS

// A tensor access inside a contraction: A(i, k).
class Access {
 public:
  Access(Tensor tensor, std::vector<IndexExpr> indices)
      : tensor_(tensor), indices_(std::move(indices)) {}
  const Tensor& tensor() const { return tensor_; }
  const std::vector<IndexExpr>& indices() const { return indices_; }

 private:
  Tensor tensor_;
  std::vector<IndexExpr> indices_;
};

template <typename... Idx>
Access Tensor::operator()(const Idx&... indices) const {
  auto to_expr = [this](const auto& index) -> IndexExpr {
    if constexpr (std::is_integral_v<std::decay_t<decltype(index)>>) {
      return detail::literal_of(*this, static_cast<int64_t>(index));
    } else {
      return index;
    }
  };
  return Access(*this, std::vector<IndexExpr>{to_expr(indices)...});
}

// The right-hand side of a contraction: one access, or A * B, A + B, A == B, cond(A == B, C).
struct Combination {
  plaidml_comb_op comb = PLAIDML_COMB_NONE;
  std::vector<Access> inputs;

  Combination(const Access& a) : comb(PLAIDML_COMB_NONE), inputs{a} {}  // NOLINT: implicit
  Combination(plaidml_comb_op c, std::vector<Access> in) : comb(c), inputs(std::move(in)) {}
};
inline Combination operator*(const Access& a, const Access& b) {
  return {PLAIDML_COMB_MUL, {a, b}};
}
inline Combination operator+(const Access& a, const Access& b) {
  return {PLAIDML_COMB_ADD, {a, b}};
}
inline Combination operator==(const Access& a, const Access& b) {
  return {PLAIDML_COMB_EQ, {a, b}};
}
// (A == B) ? C : 0
inline Combination cond(const Combination& eq, const Access& c) {
  if (eq.comb != PLAIDML_COMB_EQ) {
    throw Error(PLAIDML_STATUS_INVALID_ARGUMENT, "plaidml::cond: the condition must be A == B");
  }
  return {PLAIDML_COMB_COND, {eq.inputs[0], eq.inputs[1], c}};
}

class Contraction;

// The output side of a contraction: C(i, j) += ...; C(i) >= ... (max); C(i) <= ... (min);
// C(i) *= ... (product); C(i, j) = ... (assign).
class OutputAccess {
 public:
  OutputAccess(Contraction* owner, std::vector<IndexExpr> indices)
      : owner_(owner), indices_(std::move(indices)) {}
  OutputAccess& operator=(const OutputAccess&) = delete;

  inline void operator+=(const Combination& rhs) { set(PLAIDML_AGG_SUM, rhs); }
  inline void operator*=(const Combination& rhs) { set(PLAIDML_AGG_PROD, rhs); }
  inline void operator>=(const Combination& rhs) { set(PLAIDML_AGG_MAX, rhs); }
  inline void operator<=(const Combination& rhs) { set(PLAIDML_AGG_MIN, rhs); }
  inline void operator=(const Combination& rhs) { set(PLAIDML_AGG_ASSIGN, rhs); }
  void max(const Combination& rhs) { set(PLAIDML_AGG_MAX, rhs); }
  void min(const Combination& rhs) { set(PLAIDML_AGG_MIN, rhs); }

 private:
  inline void set(plaidml_agg_op agg, const Combination& rhs);
  Contraction* owner_;
  std::vector<IndexExpr> indices_;
};

// A contraction under construction. Give it its output sizes, then one statement
// `C(i, j) += A(i, k) * B(k, j)`, optional constraints and a default; it becomes a Tensor (and
// is added to the builder, once) when converted to one: used in an expression or as an output.
class Contraction {
 public:
  Contraction(plaidml_builder* builder, std::vector<IndexExpr> sizes)
      : state_(std::make_shared<State>()) {
    state_->builder = builder;
    state_->sizes = std::move(sizes);
  }

  template <typename... Idx>
  OutputAccess operator()(const Idx&... indices) {
    return OutputAccess(this, std::vector<IndexExpr>{IndexExpr(indices)...});
  }
  Contraction& where(const Constraint& c) {
    state_->constraints.push_back(c);
    return *this;
  }
  Contraction& set_default(const Tensor& t) {
    state_->default_value = std::make_unique<Tensor>(t);
    return *this;
  }

  // Adds the contraction to the builder on first use. Throws Error for structural errors.
  operator Tensor() const { return tensor(); }  // NOLINT: implicit by design (EDSL)
  Tensor tensor() const;

 private:
  friend class OutputAccess;
  struct State {
    plaidml_builder* builder = nullptr;
    std::vector<IndexExpr> sizes;
    std::vector<IndexExpr> out_indices;
    plaidml_agg_op agg = 0;
    std::vector<Constraint> constraints;
    std::unique_ptr<Combination> rhs;
    std::unique_ptr<Tensor> default_value;
    std::unique_ptr<Tensor> result;
  };
  std::shared_ptr<State> state_;
};

inline void OutputAccess::set(plaidml_agg_op agg, const Combination& rhs) {
  auto& state = *owner_->state_;
  if (state.result) {
    throw Error(PLAIDML_STATUS_INVALID_ARGUMENT,
                "plaidml::Contraction: the contraction was already used; make a new one");
  }
  state.agg = agg;
  state.out_indices = indices_;
  state.rhs = std::make_unique<Combination>(rhs);
}

inline Tensor Contraction::tensor() const {
  State& s = *state_;
  if (s.result) return *s.result;
  if (!s.rhs) {
    throw Error(PLAIDML_STATUS_INVALID_ARGUMENT,
                "plaidml::Contraction: used before a statement like C(i) += A(i, j)");
  }
  plaidml_contraction* raw = nullptr;
  detail::check(plaidml_contraction_create(s.builder, s.agg, s.rhs->comb, &raw));
  auto c = detail::adopt(raw, &plaidml_contraction_destroy);
  std::vector<plaidml_expr> idx, sizes;
  for (const auto& e : s.out_indices) idx.push_back(e.get());
  for (const auto& e : s.sizes) sizes.push_back(e.get());
  if (idx.size() != sizes.size()) {
    throw Error(PLAIDML_STATUS_INVALID_ARGUMENT,
                "plaidml::Contraction: " + std::to_string(idx.size()) + " output indices but " +
                    std::to_string(sizes.size()) + " output sizes");
  }
  detail::check(plaidml_contraction_set_output(raw, idx.size(), idx.data(), sizes.data()));
  for (const auto& access : s.rhs->inputs) {
    std::vector<plaidml_expr> in;
    for (const auto& e : access.indices()) in.push_back(e.get());
    detail::check(plaidml_contraction_add_input(raw, access.tensor().get(), in.size(), in.data()));
  }
  for (const auto& k : s.constraints) {
    detail::check(plaidml_contraction_add_constraint(raw, k.poly.get(), k.bound.get()));
  }
  if (s.default_value) detail::check(plaidml_contraction_set_default(raw, s.default_value->get()));
  plaidml_value out;
  detail::check(plaidml_builder_add_contraction(s.builder, raw, &out));
  s.result = std::make_unique<Tensor>(s.builder, out);
  return *s.result;
}

// Builds a Program. Tensors, index expressions and contractions made from a builder refer to it
// and must not outlive it.
class Builder {
 public:
  explicit Builder(const std::string& name = "") {
    plaidml_builder* builder = nullptr;
    detail::check(plaidml_builder_create(name.c_str(), &builder));
    handle_.reset(builder);
  }

  // An input with named dims ("" for an unnamed dim) and an optional required dtype.
  Tensor input(const std::string& name, const std::vector<std::string>& dims,
               DType dtype = DType::Invalid) {
    std::vector<const char*> names;
    for (const auto& d : dims) names.push_back(d.empty() ? nullptr : d.c_str());
    return add_input(name, dims.size(), names.data(), dtype);
  }
  // An input of any rank (Tile `X`).
  Tensor input_any_rank(const std::string& name, DType dtype = DType::Invalid) {
    return add_input(name, PLAIDML_RANK_UNKNOWN, nullptr, dtype);
  }

  // Labels the values made from now on (plaidml_builder_set_origin); "" stops.
  void set_origin(const std::string& origin) {
    detail::check(plaidml_builder_set_origin(get(), origin.c_str()));
  }

  IndexExpr index(const std::string& name) {
    plaidml_expr e;
    detail::check(plaidml_expr_index(get(), name.c_str(), &e));
    return IndexExpr(get(), e);
  }
  IndexExpr dim(const std::string& name) {
    plaidml_expr e;
    detail::check(plaidml_expr_dim(get(), name.c_str(), &e));
    return IndexExpr(get(), e);
  }
  IndexExpr literal(int64_t value) {
    plaidml_expr e;
    detail::check(plaidml_expr_int(get(), value, &e));
    return IndexExpr(get(), e);
  }
  Tensor constant(int64_t value) {
    plaidml_value v;
    detail::check(plaidml_builder_int_constant(get(), value, &v));
    return Tensor(get(), v);
  }
  Tensor constant(double value) {
    plaidml_value v;
    detail::check(plaidml_builder_float_constant(get(), value, &v));
    return Tensor(get(), v);
  }

  // A constant tensor (a weight) holding a copy of dims' product elements of dtype at data.
  Tensor constant_tensor(const std::string& name, DType dtype, const std::vector<int64_t>& dims,
                         const void* data, size_t byte_size) {
    plaidml_value v;
    detail::check(plaidml_builder_add_constant(get(), name.empty() ? nullptr : name.c_str(),
                                               static_cast<plaidml_dtype>(dtype), dims.size(),
                                               dims.data(), data, byte_size, nullptr, nullptr,
                                               &v));
    return Tensor(get(), v);
  }
  // The same without a copy: the bytes are read in place, and `owner` (anything that keeps them
  // valid) is held until the builder and every program using the constant are gone.
  Tensor constant_tensor(const std::string& name, DType dtype, const std::vector<int64_t>& dims,
                         const void* data, size_t byte_size, std::shared_ptr<const void> owner) {
    auto* held = new std::shared_ptr<const void>(std::move(owner));
    plaidml_value v;
    detail::check(plaidml_builder_add_constant(
        get(), name.empty() ? nullptr : name.c_str(), static_cast<plaidml_dtype>(dtype),
        dims.size(), dims.data(), data, byte_size,
        [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); }, held, &v));
    return Tensor(get(), v);
  }

  // Requires `lhs op rhs` of sizes whenever the program runs (plaidml_builder_add_assertion);
  // {k} in message stands for args[k]'s size.
  void require(plaidml_assert_op op, const IndexExpr& lhs, const IndexExpr& rhs,
               const std::string& message, const std::vector<IndexExpr>& args = {}) {
    std::vector<plaidml_expr> exprs;
    for (const auto& a : args) exprs.push_back(a.get());
    detail::check(plaidml_builder_add_assertion(get(), op, lhs.get(), rhs.get(), message.c_str(),
                                                exprs.size(), exprs.data()));
  }

  // A contraction with these output sizes (none: a scalar output).
  Contraction contraction(std::vector<IndexExpr> sizes) {
    return Contraction(get(), std::move(sizes));
  }

  void output(const std::string& name, const Tensor& value) {
    detail::check(plaidml_builder_add_output(get(), name.c_str(), value.get()));
  }

  Program build() {
    plaidml_program* program = nullptr;
    detail::check(plaidml_builder_build(get(), &program));
    return Program(program);
  }

  plaidml_builder* get() const { return handle_.get(); }

 private:
  Tensor add_input(const std::string& name, size_t rank, const char* const* dims, DType dtype) {
    plaidml_value v;
    detail::check(plaidml_builder_add_input(get(), name.c_str(), rank, dims,
                                            static_cast<plaidml_dtype>(dtype), &v));
    return Tensor(get(), v);
  }

  struct Destroy {
    void operator()(plaidml_builder* b) const { plaidml_builder_destroy(b); }
  };
  std::unique_ptr<plaidml_builder, Destroy> handle_;
};

}  // namespace plaidml
