// One loop-IR kernel -> one LLVM function with the CPU kernel ABI (jit/codegen/artifact.h). Variables
// live in allocas that SROA/mem2reg promote; loops are emitted in the canonical
// header/body/latch form that LLVM's loop passes and vectorizer expect.
//
// Every slot gets its own alias scope: the runtime binds distinct buffers to the slots a kernel
// writes (outputs given as inputs are computed into a temporary and copied back; two outputs
// sharing a buffer are refused; temporaries are fresh), and only inputs, which no kernel
// writes, may share a buffer. Without the scopes LLVM cannot tell that a store to the output
// leaves the inputs unchanged, and keeps loop-invariant loads inside loops (A[i, k] in i-k-j
// matmul) or needs runtime overlap checks before vectorizing.
#include <algorithm>
#include <map>

#include <llvm/IR/MDBuilder.h>

#include <fmt/format.h>

#include "jit/codegen/llvm/llvm_emitter.h"
#include "jit/loop/rewrite.h"

namespace plaidml::jit::llvmgen {

using llvm::Value;
using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

namespace {

class KernelEmitter {
 public:
  KernelEmitter(Env& env, const loop::Kernel& kernel, const std::vector<DType>& slot_dtypes)
      : env_(env), b_(env.b), kernel_(kernel), slot_dtypes_(slot_dtypes) {}

  Status emit(llvm::Function* fn) {
    fn_ = fn;
    auto* entry = llvm::BasicBlock::Create(b_.getContext(), "entry", fn);
    alloca_builder_ = std::make_unique<llvm::IRBuilder<>>(entry);
    b_.SetInsertPoint(entry);
    Value* args = fn->getArg(0);
    make_alias_scopes();
    std::vector<int> params = loop::parameters(kernel_);
    for (size_t i = 0; i < params.size(); ++i) {
      Value* addr = b_.CreateConstInBoundsGEP1_64(b_.getPtrTy(), args, i);
      slot_ptrs_[params[i]] = b_.CreateLoad(b_.getPtrTy(), addr, fmt::format("s{}", params[i]));
    }
    // Allocas go before the first non-alloca instruction of the entry block.
    alloca_builder_->SetInsertPoint(entry, entry->begin());
    for (const auto& s : kernel_.body->body) PLAIDML_TRY(stmt(*s));
    b_.CreateRetVoid();
    return Status::ok();
  }

 private:
  std::vector<int> used_slots() const {
    std::vector<int> out = kernel_.reads;
    out.insert(out.end(), kernel_.writes.begin(), kernel_.writes.end());
    return out;
  }

  void make_alias_scopes() {
    std::vector<int> slots = used_slots();
    std::sort(slots.begin(), slots.end());
    slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
    if (slots.size() < 2) return;
    llvm::MDBuilder md(b_.getContext());
    llvm::MDNode* domain = md.createAnonymousAliasScopeDomain(kernel_.name);
    std::map<int, llvm::Metadata*> scope;
    for (int s : slots) scope[s] = md.createAnonymousAliasScope(domain, fmt::format("s{}", s));
    for (int s : slots) {
      std::vector<llvm::Metadata*> others;
      for (int t : slots) {
        if (t != s) others.push_back(scope[t]);
      }
      alias_scope_[s] = llvm::MDNode::get(b_.getContext(), {scope[s]});
      noalias_[s] = llvm::MDNode::get(b_.getContext(), others);
    }
  }

  // Tags a load or store of `slot` with its scope (see the file comment).
  void tag(llvm::Instruction* access, int slot) {
    auto it = alias_scope_.find(slot);
    if (it == alias_scope_.end()) return;
    access->setMetadata(llvm::LLVMContext::MD_alias_scope, it->second);
    access->setMetadata(llvm::LLVMContext::MD_noalias, noalias_.at(slot));
  }

  llvm::AllocaInst* new_var(const std::string& name, llvm::Type* t) {
    llvm::AllocaInst* a = alloca_builder_->CreateAlloca(t, nullptr, name);
    vars_[name].push_back(a);
    return a;
  }

  Status fail(const std::string& what) const {
    return make_error(StatusCode::kInternal, "LLVM codegen of kernel '{}': {}", kernel_.name, what);
  }

  Value* address(int slot, const Expr& index) {
    llvm::Type* t = mem_type(b_.getContext(), slot_dtypes_[slot]);
    return b_.CreateInBoundsGEP(t, slot_ptrs_.at(slot), expr(index));
  }

  // Vectors (loop_ir.h) are F32/F64 in memory as in registers, so loads and stores need no
  // conversion; they are aligned to the element only.
  llvm::Align element_align(DType t) const {
    return llvm::Align(static_cast<uint64_t>(dtype_bits(t) / 8));
  }

  Value* vector_load(const Expr& e) {
    auto* t = llvm::FixedVectorType::get(mem_type(b_.getContext(), e.dtype),
                                         static_cast<unsigned>(e.lanes));
    llvm::Instruction* raw;
    if (e.mask_lanes > 0) {
      raw = b_.CreateMaskedLoad(t, address(e.slot, *e.args[0]), element_align(e.dtype),
                                lane_mask(e.lanes, e.mask_lanes), llvm::Constant::getNullValue(t));
    } else {
      raw = b_.CreateAlignedLoad(t, address(e.slot, *e.args[0]), element_align(e.dtype));
    }
    tag(raw, e.slot);
    return raw;
  }

  // The first `on` of `lanes` lanes (a masked load's or store's).
  Value* lane_mask(int lanes, int on) {
    std::vector<llvm::Constant*> bits;
    for (int i = 0; i < lanes; ++i) bits.push_back(b_.getInt1(i < on));
    return llvm::ConstantVector::get(bits);
  }

  // S[o] = S[o] + v or acc = acc + v in f32 or f64: a sum's update (loop::updates_itself).
  static bool is_sum_update(const Stmt& s) {
    if (!loop::updates_itself(s)) return false;
    const Expr& v = *s.value;
    return v.op == ir::OpKind::Add && v.lanes == 1 &&
           (v.dtype == DType::F32 || v.dtype == DType::F64);
  }

  // The value a statement stores or assigns. A float sum's update adds with reassociation
  // allowed (that add only, not what v computes), so that LLVM's vectorizer sums a row in
  // several vector accumulators: a softmax's or layer norm's sum over its contiguous axis is
  // otherwise a serial chain of adds, latency-bound. Sums then round as register tiles and GPUs
  // already do, in another order (docs/cpu-schedule.md, Vectors). Max updates keep their order:
  // vectorizing them needs "no NaNs", which inputs do not promise.
  Value* stmt_value(const Stmt& s) {
    if (!is_sum_update(s)) return expr(*s.value);
    Value* acc = expr(*s.value->args[0]);
    Value* v = expr(*s.value->args[1]);
    llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
    llvm::FastMathFlags flags;
    flags.setAllowReassoc();
    b_.setFastMathFlags(flags);
    return b_.CreateFAdd(acc, v);
  }

  Value* op_expr(const Expr& e) {
    std::vector<Value*> args;
    for (const auto& a : e.args) args.push_back(expr(*a));
    DType operand = e.op == ir::OpKind::Select ? e.args[1]->dtype : e.args[0]->dtype;
    // Vector float arithmetic may contract a * b + c into an FMA (loop_ir.h).
    llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
    if (e.lanes > 1) {
      llvm::FastMathFlags flags;
      flags.setAllowContract();
      b_.setFastMathFlags(flags);
    }
    return emit_op(env_, e.op, operand, std::move(args));
  }

  Value* expr(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kConst: return emit_const(env_, e);
      case ExprKind::kVar: {
        llvm::AllocaInst* a = vars_.at(e.name).back();
        return b_.CreateLoad(a->getAllocatedType(), a, e.name);
      }
      case ExprKind::kLoad: {
        if (e.lanes > 1) return vector_load(e);
        llvm::Type* t = mem_type(b_.getContext(), e.dtype);
        llvm::LoadInst* raw = b_.CreateLoad(t, address(e.slot, *e.args[0]));
        tag(raw, e.slot);
        return from_memory(env_, raw, e.dtype);
      }
      case ExprKind::kCast:
        if (e.lanes > 1) {  // a splat (the only vector cast)
          return b_.CreateVectorSplat(static_cast<unsigned>(e.lanes), expr(*e.args[0]));
        }
        return emit_cast(env_, expr(*e.args[0]), e.args[0]->dtype, e.dtype);
      case ExprKind::kOp: return op_expr(e);
    }
    return nullptr;
  }

  Status body(const std::vector<loop::StmtPtr>& stmts) {
    std::vector<std::string> declared;
    Status status;
    for (const auto& s : stmts) {
      status = stmt(*s);
      if (!status) break;
      if (s->kind == StmtKind::kDeclare) declared.push_back(s->var);
    }
    for (const auto& name : declared) vars_[name].pop_back();
    return status;
  }

  Status for_loop(const Stmt& s) {
    Value* lo = expr(*s.lo);
    Value* hi = nullptr;
    Value* step = b_.getInt64(static_cast<uint64_t>(s.step));
    if (s.parallel) {
      // This call runs iterations [begin, end) of the loop, end at most the loop's trip count
      // (artifact.h). The loop's own bound is not read: kernels that differ only in it are one
      // compiled kernel (KernelForms::kShapeClasses), launched with each one's extent.
      Value* begin = fn_->getArg(1);
      Value* end = fn_->getArg(2);
      Value* first = b_.CreateAdd(lo, b_.CreateMul(begin, step));
      Value* last = b_.CreateAdd(lo, b_.CreateMul(end, step));
      lo = first;
      hi = last;
    } else {
      hi = expr(*s.hi);
    }
    llvm::AllocaInst* iv = new_var(s.var, b_.getInt64Ty());
    b_.CreateStore(lo, iv);
    auto& ctx = b_.getContext();
    auto* header = llvm::BasicBlock::Create(ctx, s.var + ".header", fn_);
    auto* loop_body = llvm::BasicBlock::Create(ctx, s.var + ".body", fn_);
    auto* exit = llvm::BasicBlock::Create(ctx, s.var + ".exit", fn_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    Value* v = b_.CreateLoad(b_.getInt64Ty(), iv);
    b_.CreateCondBr(b_.CreateICmpSLT(v, hi), loop_body, exit);
    b_.SetInsertPoint(loop_body);
    PLAIDML_TRY(body(s.body));
    // No signed wrap (the loop stays within i64), but no `nuw`: a loop may start below zero
    // (`for k in [-2, 0)`), and -1 + 1 wraps as unsigned, which `nuw` would make poison: LLVM
    // then proved the loop endless.
    Value* next = b_.CreateNSWAdd(b_.CreateLoad(b_.getInt64Ty(), iv), step);
    b_.CreateStore(next, iv);
    llvm::BranchInst* back = b_.CreateBr(header);
    if (s.unroll > 1) back->setMetadata(llvm::LLVMContext::MD_loop, unroll_metadata(s.unroll));
    b_.SetInsertPoint(exit);
    vars_[s.var].pop_back();
    return Status::ok();
  }

  // The loop's own metadata node (its first operand is itself) asking LLVM's unroller for
  // `count` copies of the body.
  llvm::MDNode* unroll_metadata(int count) {
    auto& ctx = b_.getContext();
    llvm::Metadata* hint[] = {llvm::MDString::get(ctx, "llvm.loop.unroll.count"),
                              llvm::ConstantAsMetadata::get(b_.getInt32(count))};
    llvm::Metadata* ops[] = {nullptr, llvm::MDNode::get(ctx, hint)};
    llvm::MDNode* loop = llvm::MDNode::getDistinct(ctx, ops);
    loop->replaceOperandWith(0, loop);
    return loop;
  }

  Status if_then(const Stmt& s) {
    Value* cond = expr(*s.cond);
    auto& ctx = b_.getContext();
    auto* then = llvm::BasicBlock::Create(ctx, "then", fn_);
    auto* done = llvm::BasicBlock::Create(ctx, "endif", fn_);
    b_.CreateCondBr(cond, then, done);
    b_.SetInsertPoint(then);
    PLAIDML_TRY(body(s.body));
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
    return Status::ok();
  }

  Status stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::kBlock: return body(s.body);
      case StmtKind::kFor: return for_loop(s);
      case StmtKind::kIf: return if_then(s);
      case StmtKind::kStore: {
        if (s.value->lanes > 1) {
          DType t = s.value->dtype;
          Value* v = expr(*s.value);
          Value* at = address(s.slot, *s.index);
          llvm::Instruction* store =
              s.mask_lanes > 0
                  ? static_cast<llvm::Instruction*>(b_.CreateMaskedStore(
                        v, at, element_align(t), lane_mask(s.value->lanes, s.mask_lanes)))
                  : b_.CreateAlignedStore(v, at, element_align(t));
          tag(store, s.slot);
          return Status::ok();
        }
        Value* value = to_memory(env_, stmt_value(s), s.value->dtype);
        tag(b_.CreateStore(value, address(s.slot, *s.index)), s.slot);
        return Status::ok();
      }
      case StmtKind::kPrefetch: {
        // Not inbounds: the index may pass the slot's end (x86 prefetches never fault). Into
        // L2 (locality 2): the lines are for the next reduction block, not this one's L1.
        llvm::Type* t = mem_type(b_.getContext(), slot_dtypes_[s.slot]);
        Value* at = b_.CreateGEP(t, slot_ptrs_.at(s.slot), expr(*s.index));
        b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {at->getType()},
                           {at, b_.getInt32(0), b_.getInt32(2), b_.getInt32(1)});
        return Status::ok();
      }
      case StmtKind::kBarrier: return fail("a workgroup barrier, which only GPU kernels hold");
      case StmtKind::kMatrix:
        return fail("a cooperative-matrix operation, which only Vulkan kernels hold");
      case StmtKind::kDeclare: {
        Value* init = expr(*s.value);
        llvm::AllocaInst* a = new_var(s.var, init->getType());
        b_.CreateStore(init, a);
        return Status::ok();
      }
      case StmtKind::kAssign: {
        auto it = vars_.find(s.var);
        if (it == vars_.end() || it->second.empty()) return fail("assign to unknown " + s.var);
        b_.CreateStore(stmt_value(s), it->second.back());
        return Status::ok();
      }
    }
    return Status::ok();
  }

  Env& env_;
  llvm::IRBuilder<>& b_;
  const loop::Kernel& kernel_;
  const std::vector<DType>& slot_dtypes_;
  llvm::Function* fn_ = nullptr;
  std::unique_ptr<llvm::IRBuilder<>> alloca_builder_;
  std::map<int, Value*> slot_ptrs_;
  std::map<int, llvm::MDNode*> alias_scope_, noalias_;
  std::map<std::string, std::vector<llvm::AllocaInst*>> vars_;
};

}  // namespace

Status emit_kernel(Env& env, const loop::Kernel& kernel, const std::vector<DType>& slot_dtypes,
                   const std::string& cpu, const std::string& features) {
  auto& ctx = env.b.getContext();
  auto* i64 = llvm::Type::getInt64Ty(ctx);
  auto* ptr = llvm::PointerType::getUnqual(ctx);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, i64, i64}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, kernel.name,
                                    env.module);
  fn->setDoesNotThrow();
  fn->addFnAttr("target-cpu", cpu);
  fn->addFnAttr("target-features", features);
  if (features.find("+avx512f") != std::string::npos) fn->addFnAttr("prefer-vector-width", "512");
  fn->addParamAttr(0, llvm::Attribute::NoCapture);
  fn->addParamAttr(0, llvm::Attribute::ReadOnly);
  return KernelEmitter(env, kernel, slot_dtypes).emit(fn);
}

}  // namespace plaidml::jit::llvmgen
