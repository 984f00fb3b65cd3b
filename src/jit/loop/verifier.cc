#include "jit/loop/verifier.h"

#include <map>
#include <string>

#include "jit/loop/printer.h"

namespace plaidml::jit::loop {
namespace {

class Verifier {
 public:
  Verifier(const Kernel& kernel, const std::vector<DType>& slot_dtypes)
      : kernel_(kernel), slot_dtypes_(slot_dtypes) {}

  Status run() {
    if (!kernel_.body || kernel_.body->kind != StmtKind::kBlock) {
      return fail("the body is not a block");
    }
    int parallel = 0;
    for (const auto& s : kernel_.body->body) {
      if (s->kind == StmtKind::kFor && s->parallel) {
        ++parallel;
        if (!s->lo->is_const() || !s->hi->is_const()) return fail("parallel loop bounds vary");
      }
    }
    if (parallel > 1) return fail("more than one parallel loop");
    return stmt(*kernel_.body, /*top=*/true);
  }

 private:
  Status fail(const std::string& what) const {
    return make_error(StatusCode::kInternal, "loop IR of kernel '{}' is malformed: {}",
                      kernel_.name, what);
  }

  Status slot_ok(int slot, DType dtype, const std::string& where) const {
    if (slot < 0 || slot >= static_cast<int>(slot_dtypes_.size())) {
      return fail(fmt::format("slot s{} does not exist in {}", slot, where));
    }
    if (slot_dtypes_[slot] != dtype) {
      return fail(fmt::format("{} uses slot s{} as {} but it holds {}", where, slot,
                              dtype_name(dtype), dtype_name(slot_dtypes_[slot])));
    }
    return Status::ok();
  }

  Status expr(const Expr& e) {
    for (const auto& a : e.args) PLAIDML_TRY(expr(*a));
    switch (e.kind) {
      case ExprKind::kConst: return Status::ok();
      case ExprKind::kVar: {
        auto it = scope_.find(e.name);
        if (it == scope_.end() || it->second.empty()) return fail("unknown variable " + e.name);
        if (it->second.back() != e.dtype) return fail("variable " + e.name + " has a wrong dtype");
        return Status::ok();
      }
      case ExprKind::kLoad:
        if (e.args.size() != 1 || e.args[0]->dtype != DType::I64) {
          return fail("load index is not i64: " + to_string(e));
        }
        return slot_ok(e.slot, e.dtype, to_string(e));
      case ExprKind::kCast:
        return e.args.size() == 1 ? Status::ok() : fail("cast arity: " + to_string(e));
      case ExprKind::kOp: return op_ok(e);
    }
    return Status::ok();
  }

  Status op_ok(const Expr& e) const {
    int arity = ir::op_arity(e.op);
    if (static_cast<int>(e.args.size()) != arity) return fail("op arity: " + to_string(e));
    size_t first = e.op == ir::OpKind::Select ? 1 : 0;
    if (e.op == ir::OpKind::Select && e.args[0]->dtype != DType::Bool) {
      return fail("select condition is not bool: " + to_string(e));
    }
    for (size_t i = first + 1; i < e.args.size(); ++i) {
      if (e.args[i]->dtype != e.args[first]->dtype) {
        return fail("operands of different dtypes: " + to_string(e));
      }
    }
    bool compare = ir::op_category(e.op) == ir::OpCategory::kCompare;
    DType want = compare ? DType::Bool : e.args[first]->dtype;
    if (e.dtype != want) return fail("result dtype: " + to_string(e));
    return Status::ok();
  }

  Status body(const std::vector<StmtPtr>& stmts, bool top = false) {
    std::vector<std::string> declared;
    Status status;
    for (const auto& s : stmts) {
      status = stmt(*s, top);
      if (!status) break;
      if (s->kind == StmtKind::kDeclare) declared.push_back(s->var);
    }
    for (const auto& name : declared) scope_[name].pop_back();
    return status;
  }

  Status stmt(const Stmt& s, bool top) {
    switch (s.kind) {
      case StmtKind::kBlock: return body(s.body, top);
      case StmtKind::kFor: {
        PLAIDML_TRY(expr(*s.lo));
        PLAIDML_TRY(expr(*s.hi));
        if (s.lo->dtype != DType::I64 || s.hi->dtype != DType::I64 || s.step < 1) {
          return fail("bad bounds of loop " + s.var);
        }
        if (s.parallel && !top) return fail("nested parallel loop " + s.var);
        scope_[s.var].push_back(DType::I64);
        Status status = body(s.body);
        scope_[s.var].pop_back();
        return status;
      }
      case StmtKind::kIf:
        PLAIDML_TRY(expr(*s.cond));
        if (s.cond->dtype != DType::Bool) return fail("condition is not bool");
        return body(s.body);
      case StmtKind::kStore:
        PLAIDML_TRY(expr(*s.index));
        PLAIDML_TRY(expr(*s.value));
        if (s.index->dtype != DType::I64) return fail("store index is not i64");
        return slot_ok(s.slot, s.value->dtype, fmt::format("store to s{}", s.slot));
      case StmtKind::kDeclare:
        PLAIDML_TRY(expr(*s.value));
        scope_[s.var].push_back(s.value->dtype);
        return Status::ok();
      case StmtKind::kAssign: {
        PLAIDML_TRY(expr(*s.value));
        auto it = scope_.find(s.var);
        if (it == scope_.end() || it->second.empty()) return fail("assign to unknown " + s.var);
        if (it->second.back() != s.value->dtype) return fail("assign of a wrong dtype to " + s.var);
        return Status::ok();
      }
    }
    return Status::ok();
  }

  const Kernel& kernel_;
  const std::vector<DType>& slot_dtypes_;
  std::map<std::string, std::vector<DType>> scope_;
};

}  // namespace

Status verify(const Kernel& kernel, const std::vector<DType>& slot_dtypes) {
  return Verifier(kernel, slot_dtypes).run();
}

}  // namespace plaidml::jit::loop
