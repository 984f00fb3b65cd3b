// Scalar values in LLVM IR: types, f16/bf16 memory forms, constants, conversions and every op of
// the table, with the semantics of the reference interpreter (eval/elementwise.h, eval/scalar.h):
// wrapping integers, x / 0 == 0 (never a trap), shifts out of range give 0, fmax/fmin for float
// max/min, saturating float -> integer conversions.
#include <llvm/IR/Intrinsics.h>

#include <limits>

#include "core/ir/op_cases.h"
#include "jit/codegen/llvm/llvm_emitter.h"
#include "jit/codegen/llvm/llvm_exp.h"

namespace plaidml::jit::llvmgen {

using ir::OpKind;
using llvm::Value;

namespace {

enum class Domain { kFloat, kSigned, kUnsigned };

Domain domain(DType t) {
  if (dtype_is_float(t)) return Domain::kFloat;
  if (t == DType::Bool) return Domain::kUnsigned;
  return dtype_is_signed(t) ? Domain::kSigned : Domain::kUnsigned;
}

// float -> bf16 bits, round to nearest even; NaN stays a quiet NaN.
Value* float_to_bf16_bits(Env& env, Value* f) {
  auto& b = env.b;
  Value* bits = b.CreateBitCast(f, b.getInt32Ty());
  Value* lsb = b.CreateAnd(b.CreateLShr(bits, 16), b.getInt32(1));
  Value* rounded = b.CreateAdd(bits, b.CreateAdd(b.getInt32(0x7FFF), lsb));
  Value* quiet = b.CreateOr(b.CreateLShr(bits, 16), b.getInt32(0x40));
  Value* is_nan = b.CreateFCmpUNO(f, f);
  Value* out = b.CreateSelect(is_nan, quiet, b.CreateLShr(rounded, 16));
  return b.CreateTrunc(out, b.getInt16Ty());
}

Value* bf16_bits_to_float(Env& env, Value* bits) {
  auto& b = env.b;
  Value* wide = b.CreateShl(b.CreateZExt(bits, b.getInt32Ty()), 16);
  return b.CreateBitCast(wide, b.getFloatTy());
}

// A float rounded to f16 / bf16 precision, kept in a float register.
Value* round_float(Env& env, Value* f, DType t) {
  auto& b = env.b;
  if (f->getType()->isDoubleTy()) f = b.CreateFPTrunc(f, b.getFloatTy());
  if (t == DType::F16) return b.CreateFPExt(b.CreateFPTrunc(f, b.getHalfTy()), b.getFloatTy());
  if (t == DType::BF16) return bf16_bits_to_float(env, float_to_bf16_bits(env, f));
  return f;
}

Value* int_div(Env& env, Domain d, Value* a, Value* bv, bool mod) {
  auto& b = env.b;
  Value* zero = llvm::ConstantInt::get(a->getType(), 0);
  Value* one = llvm::ConstantInt::get(a->getType(), 1);
  Value* is_zero = b.CreateICmpEQ(bv, zero);
  if (d == Domain::kUnsigned) {
    Value* safe = b.CreateSelect(is_zero, one, bv);
    Value* r = mod ? b.CreateURem(a, safe) : b.CreateUDiv(a, safe);
    return b.CreateSelect(is_zero, zero, r);
  }
  // INT_MIN / -1 traps on x86: -1 is handled apart (a / -1 == -a wrapping, a % -1 == 0).
  Value* minus_one = llvm::ConstantInt::getSigned(a->getType(), -1);
  Value* is_m1 = b.CreateICmpEQ(bv, minus_one);
  Value* safe = b.CreateSelect(b.CreateOr(is_zero, is_m1), one, bv);
  Value* r = mod ? b.CreateSRem(a, safe) : b.CreateSDiv(a, safe);
  Value* special = mod ? zero : b.CreateSelect(is_zero, zero, b.CreateNeg(a));
  return b.CreateSelect(b.CreateOr(is_zero, is_m1), special, r);
}

Value* shift(Env& env, Domain d, Value* a, Value* s, bool left) {
  auto& b = env.b;
  unsigned width = a->getType()->getIntegerBitWidth();
  Value* zero = llvm::ConstantInt::get(a->getType(), 0);
  Value* width_v = llvm::ConstantInt::get(a->getType(), width);
  // Unsigned compare also rejects negative amounts of a signed shift.
  Value* out_of_range = b.CreateICmpUGE(s, width_v);
  Value* safe = b.CreateSelect(out_of_range, zero, s);
  Value* r = left ? b.CreateShl(a, safe) : (d == Domain::kSigned ? b.CreateAShr(a, safe)
                                                                  : b.CreateLShr(a, safe));
  return b.CreateSelect(out_of_range, zero, r);
}

Value* libm_call(Env& env, const char* name, std::vector<Value*> args) {
  llvm::Type* t = args[0]->getType();
  std::string symbol = t->isFloatTy() ? std::string(name) + "f" : std::string(name);
  std::vector<llvm::Type*> types(args.size(), t);
  auto callee = env.module.getOrInsertFunction(symbol, llvm::FunctionType::get(t, types, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    // It may set errno, which no kernel reads: as a pure function, the vectorizer may call its
    // vector variant (llvm_veclib.h).
    f->setDoesNotAccessMemory();
  }
  return env.b.CreateCall(callee, args);
}

// A bitcast's target: `scalar` in t's shape (a vector of as many lanes, or a scalar).
llvm::Type* same_width(llvm::Type* t, llvm::Type* scalar) {
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(t)) {
    return llvm::VectorType::get(scalar, vt->getElementCount());
  }
  return scalar;
}
unsigned width(llvm::Type* t) { return t->getScalarSizeInBits(); }

// f32 values, and F16/BF16 ones (computed in f32), scalar or vector.
bool is_f32(llvm::Type* t) { return t->getScalarType()->isFloatTy(); }

Value* float_op(Env& env, OpKind op, std::vector<Value*> v) {
  auto& b = env.b;
  llvm::Type* t = v[0]->getType();
  auto c = [&](double x) { return llvm::ConstantFP::get(t, x); };
  auto un = [&](llvm::Intrinsic::ID id) { return b.CreateUnaryIntrinsic(id, v[0]); };
  // f32 (and f16/bf16) exp inline (llvm_exp.h); f64 through LLVM's intrinsic (libm, libmvec).
  auto exp = [&](Value* x) {
    return is_f32(t) ? emit_exp_f32(b, x) : b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
  };
  switch (op) {
    case OpKind::Add: return b.CreateFAdd(v[0], v[1]);
    case OpKind::Sub: return b.CreateFSub(v[0], v[1]);
    case OpKind::Mul: return b.CreateFMul(v[0], v[1]);
    case OpKind::Div: return b.CreateFDiv(v[0], v[1]);
    case OpKind::Mod: return b.CreateFRem(v[0], v[1]);
    case OpKind::Neg: return b.CreateFNeg(v[0]);
    case OpKind::Eq: return b.CreateFCmpOEQ(v[0], v[1]);
    case OpKind::Ne: return b.CreateFCmpUNE(v[0], v[1]);
    case OpKind::Lt: return b.CreateFCmpOLT(v[0], v[1]);
    case OpKind::Gt: return b.CreateFCmpOGT(v[0], v[1]);
    case OpKind::Le: return b.CreateFCmpOLE(v[0], v[1]);
    case OpKind::Ge: return b.CreateFCmpOGE(v[0], v[1]);
    case OpKind::Exp: return exp(v[0]);
    case OpKind::Log: return un(llvm::Intrinsic::log);
    case OpKind::Sqrt: return un(llvm::Intrinsic::sqrt);
    case OpKind::Pow: return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, v[0], v[1]);
    case OpKind::Sin: return un(llvm::Intrinsic::sin);
    case OpKind::Cos: return un(llvm::Intrinsic::cos);
    case OpKind::Floor: return un(llvm::Intrinsic::floor);
    case OpKind::Ceil: return un(llvm::Intrinsic::ceil);
    case OpKind::Round: return un(llvm::Intrinsic::round);
    case OpKind::RoundEven: return un(llvm::Intrinsic::roundeven);
    case OpKind::IsNan: return b.CreateFCmpUNO(v[0], v[0]);
    case OpKind::IsInf:
      return b.CreateFCmpOEQ(un(llvm::Intrinsic::fabs), c(std::numeric_limits<double>::infinity()));
    case OpKind::Abs: return un(llvm::Intrinsic::fabs);
    case OpKind::Tanh: return libm_call(env, "tanh", v);
    case OpKind::Tan: return libm_call(env, "tan", v);
    case OpKind::Sinh: return libm_call(env, "sinh", v);
    case OpKind::Cosh: return libm_call(env, "cosh", v);
    case OpKind::Asin: return libm_call(env, "asin", v);
    case OpKind::Acos: return libm_call(env, "acos", v);
    case OpKind::Atan: return libm_call(env, "atan", v);
    case OpKind::Asinh: return libm_call(env, "asinh", v);
    case OpKind::Acosh: return libm_call(env, "acosh", v);
    case OpKind::Atanh: return libm_call(env, "atanh", v);
    case OpKind::Erf: return libm_call(env, "erf", v);
    case OpKind::Sigmoid:
      return b.CreateFDiv(c(1.0), b.CreateFAdd(c(1.0), exp(b.CreateFNeg(v[0]))));
    case OpKind::Sign: {
      Value* s = b.CreateSelect(b.CreateFCmpOGT(v[0], c(0)), c(1),
                                b.CreateSelect(b.CreateFCmpOLT(v[0], c(0)), c(-1), c(0)));
      return b.CreateSelect(b.CreateFCmpUNO(v[0], v[0]), v[0], s);
    }
    case OpKind::Recip: return b.CreateFDiv(c(1.0), v[0]);
    case OpKind::Max: return b.CreateMaxNum(v[0], v[1]);
    case OpKind::Min: return b.CreateMinNum(v[0], v[1]);
    case OpKind::Relu: return b.CreateSelect(b.CreateFCmpOLT(v[0], c(0)), c(0), v[0]);
    case OpKind::Bitcast: return b.CreateBitCast(v[0], same_width(t, b.getIntNTy(width(t))));
    case OpKind::Select: return b.CreateSelect(v[0], v[1], v[2]);
    case OpKind::BitAnd:
    case OpKind::BitOr:
    case OpKind::BitXor:
    case OpKind::BitNot:
    case OpKind::Shl:
    case OpKind::Shr:
    PLAIDML_OPS_NOT_IN_LOOP_IR: break;
  }
  return nullptr;
}

Value* int_op(Env& env, OpKind op, Domain d, std::vector<Value*> v) {
  auto& b = env.b;
  llvm::Type* t = v[0]->getType();
  bool s = d == Domain::kSigned;
  auto c = [&](int64_t x) { return llvm::ConstantInt::getSigned(t, x); };
  auto id = [&](llvm::Intrinsic::ID sid, llvm::Intrinsic::ID uid) {
    return b.CreateBinaryIntrinsic(s ? sid : uid, v[0], v[1]);
  };
  switch (op) {
    case OpKind::Add: return b.CreateAdd(v[0], v[1]);
    case OpKind::Sub: return b.CreateSub(v[0], v[1]);
    case OpKind::Mul: return b.CreateMul(v[0], v[1]);
    case OpKind::Div: return int_div(env, d, v[0], v[1], false);
    case OpKind::Mod: return int_div(env, d, v[0], v[1], true);
    case OpKind::Neg: return b.CreateSub(c(0), v[0]);
    case OpKind::Eq: return b.CreateICmpEQ(v[0], v[1]);
    case OpKind::Ne: return b.CreateICmpNE(v[0], v[1]);
    case OpKind::Lt: return s ? b.CreateICmpSLT(v[0], v[1]) : b.CreateICmpULT(v[0], v[1]);
    case OpKind::Gt: return s ? b.CreateICmpSGT(v[0], v[1]) : b.CreateICmpUGT(v[0], v[1]);
    case OpKind::Le: return s ? b.CreateICmpSLE(v[0], v[1]) : b.CreateICmpULE(v[0], v[1]);
    case OpKind::Ge: return s ? b.CreateICmpSGE(v[0], v[1]) : b.CreateICmpUGE(v[0], v[1]);
    case OpKind::BitAnd: return b.CreateAnd(v[0], v[1]);
    case OpKind::BitOr: return b.CreateOr(v[0], v[1]);
    case OpKind::BitXor: return b.CreateXor(v[0], v[1]);
    case OpKind::BitNot: return b.CreateNot(v[0]);
    case OpKind::Shl: return shift(env, d, v[0], v[1], true);
    case OpKind::Shr: return shift(env, d, v[0], v[1], false);
    case OpKind::Abs: return s ? b.CreateSelect(b.CreateICmpSLT(v[0], c(0)), b.CreateNeg(v[0]), v[0])
                               : v[0];
    case OpKind::Sign:
      if (!s) return b.CreateZExt(b.CreateICmpNE(v[0], c(0)), t);
      return b.CreateSelect(b.CreateICmpSLT(v[0], c(0)), c(-1),
                            b.CreateZExt(b.CreateICmpSGT(v[0], c(0)), t));
    case OpKind::Recip: return int_div(env, d, c(1), v[0], false);
    case OpKind::Max: return id(llvm::Intrinsic::smax, llvm::Intrinsic::umax);
    case OpKind::Min: return id(llvm::Intrinsic::smin, llvm::Intrinsic::umin);
    case OpKind::Relu: return s ? b.CreateSelect(b.CreateICmpSLT(v[0], c(0)), c(0), v[0]) : v[0];
    case OpKind::Bitcast:  // bind allows 32 and 64 bits only
      return b.CreateBitCast(
          v[0], same_width(t, width(t) == 32 ? b.getFloatTy() : b.getDoubleTy()));
    // Integers and bools are never NaN or infinite.
    case OpKind::IsNan:
    case OpKind::IsInf: return b.getFalse();
    case OpKind::Select: return b.CreateSelect(v[0], v[1], v[2]);
    PLAIDML_OPS_MATH  // the float functions (op_cases.h)
    PLAIDML_OPS_NOT_IN_LOOP_IR: break;
  }
  return nullptr;
}

// Arithmetic on bool operands follows the interpreter: computed on 0/1 as unsigned integers,
// then narrowed to bool (v != 0). Logic and comparisons stay on i1.
bool bool_widens(OpKind op) {
  ir::OpCategory cat = ir::op_category(op);
  return cat == ir::OpCategory::kArith || cat == ir::OpCategory::kNumeric;
}

}  // namespace

llvm::Type* reg_type(llvm::LLVMContext& ctx, DType t) {
  switch (t) {
    case DType::Bool: return llvm::Type::getInt1Ty(ctx);
    case DType::I8:
    case DType::U8: return llvm::Type::getInt8Ty(ctx);
    case DType::I16:
    case DType::U16: return llvm::Type::getInt16Ty(ctx);
    case DType::I32:
    case DType::U32: return llvm::Type::getInt32Ty(ctx);
    case DType::I64:
    case DType::U64: return llvm::Type::getInt64Ty(ctx);
    case DType::F16:
    case DType::BF16:
    case DType::F32: return llvm::Type::getFloatTy(ctx);
    case DType::F64: return llvm::Type::getDoubleTy(ctx);
  }
  return nullptr;
}

llvm::Type* mem_type(llvm::LLVMContext& ctx, DType t) {
  if (t == DType::Bool) return llvm::Type::getInt8Ty(ctx);
  if (t == DType::F16 || t == DType::BF16) return llvm::Type::getInt16Ty(ctx);
  return reg_type(ctx, t);
}

Value* from_memory(Env& env, Value* v, DType t) {
  auto& b = env.b;
  if (t == DType::Bool) return b.CreateICmpNE(v, b.getInt8(0));
  if (t == DType::F16) return b.CreateFPExt(b.CreateBitCast(v, b.getHalfTy()), b.getFloatTy());
  if (t == DType::BF16) return bf16_bits_to_float(env, v);
  return v;
}

Value* to_memory(Env& env, Value* v, DType t) {
  auto& b = env.b;
  if (t == DType::Bool) return b.CreateZExt(v, b.getInt8Ty());
  if (t == DType::F16) return b.CreateBitCast(b.CreateFPTrunc(v, b.getHalfTy()), b.getInt16Ty());
  if (t == DType::BF16) return float_to_bf16_bits(env, v);
  return v;
}

Value* emit_const(Env& env, const loop::Expr& e) {
  llvm::Type* t = reg_type(env.b.getContext(), e.dtype);
  if (dtype_is_float(e.dtype)) {
    // Rounded to the dtype's precision once, here, like any other value of that dtype.
    double v = e.float_value;
    if (e.dtype != DType::F64) v = static_cast<float>(v);
    Value* c = llvm::ConstantFP::get(t, v);
    return e.dtype == DType::F16 || e.dtype == DType::BF16 ? round_float(env, c, e.dtype) : c;
  }
  return llvm::ConstantInt::get(t, static_cast<uint64_t>(e.int_value), /*isSigned=*/false);
}

Value* emit_cast(Env& env, Value* v, DType from, DType to) {
  auto& b = env.b;
  llvm::Type* t = reg_type(b.getContext(), to);
  if (from == to) return v;
  Domain df = domain(from);
  if (to == DType::Bool) {
    if (df == Domain::kFloat) return b.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0));
    return b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (dtype_is_float(to)) {
    Value* f = nullptr;
    if (df == Domain::kFloat) {
      f = v->getType() == t ? v : (to == DType::F64 ? b.CreateFPExt(v, t) : b.CreateFPTrunc(v, t));
    } else {
      f = df == Domain::kSigned ? b.CreateSIToFP(v, t) : b.CreateUIToFP(v, t);
    }
    return to == DType::F16 || to == DType::BF16 ? round_float(env, f, to) : f;
  }
  bool to_signed = dtype_is_signed(to);
  if (df == Domain::kFloat) {
    auto id = to_signed ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b.CreateIntrinsic(id, {t, v->getType()}, {v});
  }
  return df == Domain::kSigned ? b.CreateSExtOrTrunc(v, t) : b.CreateZExtOrTrunc(v, t);
}

Value* emit_op(Env& env, OpKind op, DType operand, std::vector<Value*> args) {
  auto& b = env.b;
  if (operand == DType::Bool && bool_widens(op)) {
    for (auto& a : args) a = b.CreateZExt(a, b.getInt64Ty());
    Value* r = int_op(env, op, Domain::kUnsigned, std::move(args));
    return b.CreateICmpNE(r, b.getInt64(0));
  }
  Domain d = domain(operand);
  return d == Domain::kFloat ? float_op(env, op, std::move(args))
                             : int_op(env, op, d, std::move(args));
}

}  // namespace plaidml::jit::llvmgen
