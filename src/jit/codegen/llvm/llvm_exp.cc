#include "jit/codegen/llvm/llvm_exp.h"

#include <llvm/IR/Intrinsics.h>

namespace plaidml::jit::llvmgen {
namespace {

using llvm::Value;

// Cephes expf's minimax polynomial P (e^r = 1 + r + r^2 P(r)), highest degree first.
constexpr float kPoly[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                           4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;  // 9 bits: n * kLn2Hi is exact for |n| < 2^15
constexpr float kLn2Lo = -2.12194440e-4f;

// 2^n as a float (n an i32 value in [-126, 127]), from its exponent bits.
Value* power_of_two(llvm::IRBuilder<>& b, Value* n, llvm::Type* float_type) {
  Value* bits = b.CreateShl(b.CreateAdd(n, llvm::ConstantInt::get(n->getType(), 127)), 23);
  return b.CreateBitCast(bits, float_type);
}

}  // namespace

Value* emit_exp_f32(llvm::IRBuilder<>& b, Value* x) {
  llvm::Type* t = x->getType();
  llvm::Type* i32 = t->getWithNewType(b.getInt32Ty());
  auto c = [&](float v) { return llvm::ConstantFP::get(t, v); };
  auto mul_add = [&](Value* m1, Value* m2, Value* a) {
    return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {t}, {m1, m2, a});
  };
  // maxnum/minnum turn NaN into a bound; the select at the end gives it back.
  Value* clamped = b.CreateMinNum(b.CreateMaxNum(x, c(-104.0f)), c(89.0f));
  Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, b.CreateFMul(clamped, c(kLog2e)));
  Value* r = mul_add(n, c(-kLn2Hi), clamped);
  r = mul_add(n, c(-kLn2Lo), r);
  Value* p = c(kPoly[0]);
  for (size_t i = 1; i < sizeof(kPoly) / sizeof(kPoly[0]); ++i) p = mul_add(p, r, c(kPoly[i]));
  p = mul_add(p, b.CreateFMul(r, r), b.CreateFAdd(r, c(1.0f)));
  // 2^n as 2^(n >> 1) * 2^(n - (n >> 1)): n is in [-150, 129], each half within a float's
  // normal exponents.
  Value* ni = b.CreateFPToSI(n, i32);
  Value* half = b.CreateAShr(ni, 1);
  Value* rest = b.CreateSub(ni, half);
  Value* result = b.CreateFMul(b.CreateFMul(p, power_of_two(b, half, t)), power_of_two(b, rest, t));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

}  // namespace plaidml::jit::llvmgen
