#include "jit/loop/verifier.h"

#include <map>
#include <string>
#include <utility>

#include "core/ir/type_rules.h"
#include "jit/loop/printer.h"

namespace plaidml::jit::loop {
namespace {

// What a message names: a text, or an expression printed only when a check fails (printing
// every expression as it was checked cost more than the rest of the compile front end).
struct Where {
  Where(const char* t) : text(t) {}                     // NOLINT: implicit, like a string
  Where(std::string t) : text(std::move(t)) {}          // NOLINT
  explicit Where(const Expr& e) : expr(&e) {}
  std::string str() const { return expr ? to_string(*expr) : text; }

  std::string text;
  const Expr* expr = nullptr;
};

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

  Status slot_exists(int slot, const Where& where) const {
    if (slot < 0 || slot >= static_cast<int>(slot_dtypes_.size())) {
      return fail(fmt::format("slot s{} does not exist in {}", slot, where.str()));
    }
    return Status::ok();
  }

  Status slot_ok(int slot, DType dtype, const Where& where) const {
    PLAIDML_TRY(slot_exists(slot, where));
    if (slot_dtypes_[slot] != dtype) {
      return fail(fmt::format("{} uses slot s{} as {} but it holds {}", where.str(), slot,
                              dtype_name(dtype), dtype_name(slot_dtypes_[slot])));
    }
    return Status::ok();
  }

  // Scalar i64 (indices, bounds).
  Status index_ok(const Expr& e, const std::string& what) {
    PLAIDML_TRY(expr(e));
    if (e.dtype != DType::I64 || e.lanes != 1) return fail(what + " is not a scalar i64");
    return Status::ok();
  }

  // Vectors hold F32/F64 values or Bool conditions (loop_ir.h).
  Status lanes_ok(const Expr& e) const {
    if (e.lanes < 1) return fail("lanes < 1: " + to_string(e));
    bool vector_dtype = e.dtype == DType::F32 || e.dtype == DType::F64 || e.dtype == DType::Bool;
    if (e.lanes > 1 && !vector_dtype) return fail("vector of " + to_string(e));
    return mask_ok(e.mask_lanes, e.lanes, e.kind == ExprKind::kLoad, Where(e));
  }

  // A mask belongs to a vector load or store and keeps some of its lanes, not all.
  Status mask_ok(int mask_lanes, int lanes, bool access, const Where& what) const {
    if (mask_lanes == 0) return Status::ok();
    if (!access || lanes < 2 || mask_lanes < 1 || mask_lanes >= lanes) {
      return fail("bad mask: " + what.str());
    }
    return Status::ok();
  }

  Status expr(const Expr& e) {
    for (const auto& a : e.args) PLAIDML_TRY(expr(*a));
    PLAIDML_TRY(lanes_ok(e));
    switch (e.kind) {
      case ExprKind::kConst:
        return e.lanes == 1 ? Status::ok() : fail("vector constant: " + to_string(e));
      case ExprKind::kVar: {
        auto it = scope_.find(e.name);
        if (it == scope_.end() || it->second.empty()) return fail("unknown variable " + e.name);
        if (it->second.back() != VarType{e.dtype, e.lanes}) {
          return fail("variable " + e.name + " has a wrong dtype");
        }
        return Status::ok();
      }
      case ExprKind::kLoad:
        if (e.args.size() != 1 || e.args[0]->dtype != DType::I64 || e.args[0]->lanes != 1) {
          return fail("load index is not a scalar i64: " + to_string(e));
        }
        return slot_ok(e.slot, e.dtype, Where(e));
      case ExprKind::kCast: {
        if (e.args.size() != 1) return fail("cast arity: " + to_string(e));
        // Vector casts are splats only: conversions of vectors are not needed yet.
        bool splat = e.dtype == e.args[0]->dtype && e.args[0]->lanes == 1;
        if (!splat && e.lanes != 1) return fail("vector conversion: " + to_string(e));
        return Status::ok();
      }
      case ExprKind::kOp:
        for (const auto& a : e.args) {
          if (a->lanes != e.lanes) return fail("operands of different lanes: " + to_string(e));
        }
        return op_ok(e);
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
    ir::OpCategory category = ir::op_category(e.op);
    bool to_bool = category == ir::OpCategory::kCompare || category == ir::OpCategory::kPredicate;
    DType want = to_bool ? DType::Bool : e.args[first]->dtype;
    if (category == ir::OpCategory::kBitcast) {
      auto target = ir::detail::bitcast_target(e.args[0]->dtype);
      if (!target) return fail("bitcast of an operand without a partner type: " + to_string(e));
      want = *target;
    }
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
        PLAIDML_TRY(index_ok(*s.lo, "lower bound of " + s.var));
        PLAIDML_TRY(index_ok(*s.hi, "upper bound of " + s.var));
        if (s.step < 1) return fail("bad bounds of loop " + s.var);
        if (s.parallel && !top) return fail("nested parallel loop " + s.var);
        scope_[s.var].push_back(VarType{DType::I64, 1});
        Status status = body(s.body);
        scope_[s.var].pop_back();
        return status;
      }
      case StmtKind::kIf:
        PLAIDML_TRY(expr(*s.cond));
        if (s.cond->dtype != DType::Bool || s.cond->lanes != 1) {
          return fail("condition is not a scalar bool");
        }
        return body(s.body);
      case StmtKind::kBarrier:
        // Only the GPU schedule places barriers, after lowering and verification.
        return fail("a barrier outside a scheduled GPU kernel");
      case StmtKind::kMatrix:
        return fail("a cooperative-matrix operation outside a scheduled GPU kernel");
      case StmtKind::kPrefetch:
        PLAIDML_TRY(index_ok(*s.index, "prefetch index"));
        return slot_exists(s.slot, "a prefetch");
      case StmtKind::kStore:
        PLAIDML_TRY(index_ok(*s.index, "store index"));
        PLAIDML_TRY(expr(*s.value));
        PLAIDML_TRY(mask_ok(s.mask_lanes, s.value->lanes, true, "store"));
        return slot_ok(s.slot, s.value->dtype, fmt::format("store to s{}", s.slot));
      case StmtKind::kDeclare:
        PLAIDML_TRY(expr(*s.value));
        scope_[s.var].push_back(VarType{s.value->dtype, s.value->lanes});
        return Status::ok();
      case StmtKind::kAssign: {
        PLAIDML_TRY(expr(*s.value));
        auto it = scope_.find(s.var);
        if (it == scope_.end() || it->second.empty()) return fail("assign to unknown " + s.var);
        if (it->second.back() != VarType{s.value->dtype, s.value->lanes}) {
          return fail("assign of a wrong dtype to " + s.var);
        }
        return Status::ok();
      }
    }
    return Status::ok();
  }

  const Kernel& kernel_;
  const std::vector<DType>& slot_dtypes_;
  struct VarType {
    DType dtype;
    int lanes;
    bool operator==(const VarType&) const = default;
  };
  std::map<std::string, std::vector<VarType>> scope_;
};

}  // namespace

Status verify(const Kernel& kernel, const std::vector<DType>& slot_dtypes) {
  return Verifier(kernel, slot_dtypes).run();
}

}  // namespace plaidml::jit::loop
