// Fuzz target builder_calls: the input is a script of C ABI builder calls (plaidml.h), each
// step one call with fuzzed arguments: inputs of any dtype, rank and dim names, constants
// (copied, or adopted with a release callback), elementwise calls and library ops by name with
// fuzzed operands and attributes, integer expressions, contractions, assertions, outputs, and
// builds. A built program is printed and parsed back (the same text, unless a constant is too
// large to print), differentiated, and now and then run on the CPU at small shapes (when
// plaidml_program_memory says it fits in 64 MB).
//
// Operand and expression ids are mostly ones the builder gave, sometimes foreign ones. Every
// call must return a status (fuzz/check.h); every adopted constant must be released exactly
// once; LeakSanitizer checks the rest.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "builder_script.h"
#include "check.h"

namespace plaidml::fuzz {
namespace {

int g_adopted = 0, g_released = 0;

void release_constant(void* data) {
  std::free(data);
  ++g_released;
}

class Script {
 public:
  explicit Script(FuzzedDataProvider& bytes) : b_(bytes), s_(bytes) {}
  ~Script() { plaidml_builder_destroy(builder_); }

  void run() {
    if (check_c(plaidml_builder_create(b_.ConsumeBool() ? "fuzz" : nullptr, &builder_),
                "plaidml_builder_create") != PLAIDML_STATUS_OK) {
      return;
    }
    for (int step = 0; step < 64 && b_.remaining_bytes() > 0; ++step) one_step();
    build_and_use();
  }

 private:
  void one_step() {
    switch (b_.ConsumeIntegralInRange(0, 12)) {
      case 0:
        return add_input();
      case 1:
        return add_literal();
      case 2:
        return add_constant();
      case 3:
        return call_function();
      case 4:
        return call_op();
      case 5:
        return add_expr();
      case 6:
        return add_contraction();
      case 7:
        return add_output();
      case 8:
        return query_value();
      case 9:
        return add_assertion();
      case 10:
        return add_dim_constant();
      case 11:
        check_c(plaidml_builder_set_origin(builder_, s_.maybe_null(s_.name())), "set_origin");
        return;
      case 12:
        return build_and_use();
    }
  }

  void keep(plaidml_status status, plaidml_value value, const char* call) {
    if (check_c(status, call) == PLAIDML_STATUS_OK) s_.values.push_back(value);
  }
  void keep(plaidml_status status, plaidml_expr expr, const char* call) {
    if (check_c(status, call) == PLAIDML_STATUS_OK) s_.exprs.push_back(expr);
  }

  void add_input() {
    InputDecl decl = s_.input_decl(static_cast<int>(inputs_.size()));
    std::vector<const char*> dims;
    for (const auto& d : decl.dims) dims.push_back(d ? d->c_str() : nullptr);
    size_t rank = decl.rank_override.value_or(decl.dims.size());
    if (decl.unknown_rank) rank = PLAIDML_RANK_UNKNOWN;
    plaidml_value v{};
    plaidml_status st =
        plaidml_builder_add_input(builder_, decl.name.c_str(), rank,
                                  decl.unknown_rank ? nullptr : dims.data(), decl.dtype, &v);
    keep(st, v, "plaidml_builder_add_input");
    if (st == PLAIDML_STATUS_OK) inputs_.push_back(std::move(decl));
  }

  void add_literal() {
    plaidml_value v{};
    if (b_.ConsumeBool()) {
      keep(plaidml_builder_int_constant(builder_, s_.int_value(), &v), v, "int_constant");
    } else {
      keep(plaidml_builder_float_constant(builder_, s_.float_value(), &v), v, "float_constant");
    }
  }

  void add_constant() {
    ConstantArgs c = s_.constant_args();
    plaidml_value v{};
    bool adopt = b_.ConsumeBool();
    void* data = nullptr;
    if (c.bytes.size() > 0 || adopt) {
      data = std::malloc(c.bytes.size() + 1);
      if (!c.bytes.empty()) std::memcpy(data, c.bytes.data(), c.bytes.size());
    }
    if (adopt) ++g_adopted;
    plaidml_status st = plaidml_builder_add_constant(
        builder_, s_.maybe_null(c.name), c.dtype, c.dims.size(), c.dims.data(), data,
        c.bytes.size(), adopt ? release_constant : nullptr, data, &v);
    if (!adopt) std::free(data);
    if (c.elements > 16) big_constant_ = true;
    keep(st, v, "plaidml_builder_add_constant");
  }

  void call_function() {
    std::string name = s_.function_name();
    std::vector<plaidml_value> operands = s_.some_values(3);
    std::vector<plaidml_expr> args = s_.some_exprs(2);
    plaidml_value v{};
    keep(plaidml_builder_call(builder_, name.c_str(), operands.size(), operands.data(), args.size(),
                              args.data(), &v),
         v, "plaidml_builder_call");
  }

  void call_op() {
    std::string name = s_.op_name();
    std::vector<plaidml_value> operands = s_.some_values(3);
    plaidml_attrs* attrs = s_.attrs();
    plaidml_value v{};
    keep(plaidml_builder_op(builder_, name.c_str(), operands.size(), operands.data(), attrs, &v), v,
         "plaidml_builder_op");
    plaidml_attrs_destroy(attrs);
  }

  void add_expr() {
    plaidml_expr e{};
    switch (b_.ConsumeIntegralInRange(0, 4)) {
      case 0:
        return keep(plaidml_expr_index(builder_, s_.index_name().c_str(), &e), e, "expr_index");
      case 1:
        return keep(plaidml_expr_dim(builder_, s_.dim_name().c_str(), &e), e, "expr_dim");
      case 2:
        return keep(plaidml_expr_int(builder_, s_.int_value(), &e), e, "expr_int");
      case 3:
        return keep(plaidml_expr_binary(builder_, b_.ConsumeIntegralInRange(0, 8), s_.expr(),
                                        s_.expr(), &e),
                    e, "expr_binary");
      case 4:
        return keep(plaidml_expr_neg(builder_, s_.expr(), &e), e, "expr_neg");
    }
  }

  void add_contraction() {
    plaidml_contraction* c = nullptr;
    if (check_c(plaidml_contraction_create(builder_, b_.ConsumeIntegralInRange(0, 6),
                                           b_.ConsumeIntegralInRange(0, 6), &c),
                "plaidml_contraction_create") != PLAIDML_STATUS_OK) {
      return;
    }
    std::vector<plaidml_expr> idx = s_.some_exprs(4), sizes = s_.some_exprs(4);
    sizes.resize(idx.size(), s_.expr());
    check_c(plaidml_contraction_set_output(c, idx.size(), idx.data(), sizes.data()), "set_output");
    for (int n = b_.ConsumeIntegralInRange(1, 3); n > 0; --n) {
      std::vector<plaidml_expr> access = s_.some_exprs(4);
      check_c(plaidml_contraction_add_input(c, s_.value(), access.size(), access.data()),
              "contraction_add_input");
    }
    if (b_.ConsumeIntegralInRange(0, 3) == 0) {
      check_c(plaidml_contraction_add_constraint(c, s_.expr(), s_.expr()), "add_constraint");
    }
    if (b_.ConsumeIntegralInRange(0, 7) == 0) {
      check_c(plaidml_contraction_set_default(c, s_.value()), "set_default");
    }
    plaidml_value v{};
    keep(plaidml_builder_add_contraction(builder_, c, &v), v, "add_contraction");
    plaidml_contraction_destroy(c);
  }

  void add_output() {
    std::string name = s_.output_name();
    check_c(plaidml_builder_add_output(builder_, name.c_str(), s_.value()), "add_output");
  }

  void query_value() {
    size_t rank = 0;
    int64_t size = 0;
    plaidml_expr e{};
    plaidml_value v = s_.value();
    size_t axis = b_.ConsumeIntegralInRange<size_t>(0, 4);
    check_c(plaidml_builder_value_rank(builder_, v, &rank), "value_rank");
    keep(plaidml_builder_value_dim(builder_, v, axis, &e), e, "value_dim");
    check_c(plaidml_builder_value_size(builder_, v, axis, &size), "value_size");
  }

  void add_assertion() {
    std::vector<plaidml_expr> args = s_.some_exprs(2);
    check_c(
        plaidml_builder_add_assertion(builder_, b_.ConsumeIntegralInRange(0, 5), s_.expr(),
                                      s_.expr(), "fuzz: {0} and {1} {2}", args.size(), args.data()),
        "add_assertion");
  }

  void add_dim_constant() {
    plaidml_value v{};
    keep(plaidml_builder_dim_constant(builder_, s_.expr(), &v), v, "dim_constant");
  }

  void build_and_use() {
    plaidml_program* program = nullptr;
    if (check_c(plaidml_builder_build(builder_, &program), "plaidml_builder_build") ==
        PLAIDML_STATUS_OK) {
      use_program(program, !big_constant_, s_);
    }
    plaidml_program_destroy(program);
  }

  FuzzedDataProvider& b_;
  ScriptValues s_;
  plaidml_builder* builder_ = nullptr;
  std::vector<InputDecl> inputs_;
  bool big_constant_ = false;
};

}  // namespace
}  // namespace plaidml::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("PLAIDML_CACHE_DIR", "", 1);
  plaidml_set_log_level(PLAIDML_LOG_OFF);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace plaidml::fuzz;
  FuzzedDataProvider bytes(data, size);
  g_adopted = g_released = 0;
  Script(bytes).run();
  if (g_adopted != g_released) {
    fail("an adopted constant was not released exactly once",
         std::to_string(g_adopted) + " adopted, " + std::to_string(g_released) + " released");
  }
  return 0;
}
