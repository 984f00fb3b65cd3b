// Case labels generated from the op table (ops.h) for switches that handle one category of ops
// and list every other row only to have no `default:`. Written out by hand, such a list makes
// every new op an edit there; generated, a new row of another category needs none, while a new
// row of the switch's own category still makes the compiler name the switch (-Werror=switch).
//   switch (op) {
//     case OpKind::Reshape: ...            // the structural rows, handled one by one
//     PLAIDML_OPS_EXCEPT_STRUCTURAL return internal_error();
//   }
#pragma once

#include "core/ir/ops.h"

#define PLAIDML_OP_CASE_(e) case ::plaidml::ir::OpKind::e:
#define PLAIDML_OP_NO_CASE_(e)

// Every row whose category is not kStructural.
#define PLAIDML_OP_EXCEPT_STRUCTURAL_kArith(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_STRUCTURAL_kCompare(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_STRUCTURAL_kBitwise(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_STRUCTURAL_kMath(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_STRUCTURAL_kNumeric(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_STRUCTURAL_kSelect(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_STRUCTURAL_kPredicate(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_STRUCTURAL_kCast(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_STRUCTURAL_kBitcast(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_STRUCTURAL_kStructural(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_EXCEPT_STRUCTURAL_ROW_(e, name, arity, category, infix) \
  PLAIDML_OP_EXCEPT_STRUCTURAL_##category(e)
#define PLAIDML_OPS_EXCEPT_STRUCTURAL PLAIDML_OPS(PLAIDML_OP_EXCEPT_STRUCTURAL_ROW_)

// Every row whose category is not kMath (the float functions).
#define PLAIDML_OP_EXCEPT_MATH_kArith(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_MATH_kCompare(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_MATH_kBitwise(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_MATH_kMath(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_EXCEPT_MATH_kNumeric(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_MATH_kSelect(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_MATH_kPredicate(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_MATH_kCast(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_MATH_kBitcast(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_MATH_kStructural(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_MATH_ROW_(e, name, arity, category, infix) \
  PLAIDML_OP_EXCEPT_MATH_##category(e)
#define PLAIDML_OPS_EXCEPT_MATH PLAIDML_OPS(PLAIDML_OP_EXCEPT_MATH_ROW_)

// Every row of category kMath: the float functions, which integer and bool code never sees
// (the binder computes them in a float type), so the emitters' integer and bool switches list
// them this way and a new float function is named only where float code is generated.
#define PLAIDML_OP_MATH_kArith(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_MATH_kCompare(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_MATH_kBitwise(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_MATH_kMath(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_MATH_kNumeric(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_MATH_kSelect(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_MATH_kPredicate(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_MATH_kCast(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_MATH_kBitcast(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_MATH_kStructural(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_MATH_ROW_(e, name, arity, category, infix) PLAIDML_OP_MATH_##category(e)
#define PLAIDML_OPS_MATH PLAIDML_OPS(PLAIDML_OP_MATH_ROW_)

// Every row whose operand count is not 1, and not 2: for the per-op switches that handle the
// one-operand or the two-operand ops (autodiff's derivatives). Arity is 1, 2 or 3 in every row.
#define PLAIDML_OP_EXCEPT_ARITY_1_1(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_EXCEPT_ARITY_1_2(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_ARITY_1_3(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_ARITY_1_ROW_(e, name, arity, category, infix) \
  PLAIDML_OP_EXCEPT_ARITY_1_##arity(e)
#define PLAIDML_OPS_EXCEPT_ARITY_1 PLAIDML_OPS(PLAIDML_OP_EXCEPT_ARITY_1_ROW_)

#define PLAIDML_OP_EXCEPT_ARITY_2_1(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_ARITY_2_2(e) PLAIDML_OP_NO_CASE_(e)
#define PLAIDML_OP_EXCEPT_ARITY_2_3(e) PLAIDML_OP_CASE_(e)
#define PLAIDML_OP_EXCEPT_ARITY_2_ROW_(e, name, arity, category, infix) \
  PLAIDML_OP_EXCEPT_ARITY_2_##arity(e)
#define PLAIDML_OPS_EXCEPT_ARITY_2 PLAIDML_OPS(PLAIDML_OP_EXCEPT_ARITY_2_ROW_)
