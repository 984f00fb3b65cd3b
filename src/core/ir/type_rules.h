// Dtype rules of elementwise ops and contractions (docs/tile.md sections 3 and 4), separate from
// the shape rules so each can be read and tested on its own.
//
// Weak literals: an untyped literal (`2`, `0.5`, a dim used as a value) is "weak": it has a
// provisional dtype (i32, or i64 when the value does not fit; f32 for a float) but yields to
// the strong (tensor) operands it meets. The rule, by kind bool < integer < float:
//   - only weak operands: the result is weak, dtype = promote() of the weak dtypes;
//   - otherwise the strong operands decide (promote() among them), unless the weak operands are
//     of a higher kind: an int literal beside bool gives i32, a float literal beside an integer
//     or bool tensor gives f32. So `H * 2` stays f16, `I + 0.5` for an i8 tensor is f32, and
//     `U << 1` stays u8.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/ir/ops.h"
#include "core/types/dtype.h"

namespace plaidml::ir::detail {

struct TypedOperand {
  DType dtype;
  bool weak = false;
};

struct OpTypes {
  DType result;   // dtype of the produced value
  DType compute;  // dtype the operands are converted to before the op
  bool weak = false;
};

// The common dtype of operands under the weak-literal rule above; weak when all are weak.
TypedOperand unify(const std::vector<TypedOperand>& operands);

// Result and compute dtypes of an elementwise op that is not a cast or structural op.
// operands are all of the op's operands (for select: condition first). kTypeError for a bitwise
// op on floats (message built by the caller from `bad_operand`: index of the float operand).
Expected<OpTypes> elementwise_types(OpKind op, const std::vector<TypedOperand>& operands,
                                    size_t* bad_operand);

// The dtype of as_float/as_bfloat/as_int/as_uint/as_bool at `bits`; nullopt for a width the
// cast does not have. `expected` receives the valid widths for the message ("16, 32 or 64").
std::optional<DType> cast_target(OpKind op, int64_t bits, std::string* expected);

// bitcast(X)'s result for an operand of dtype `from`: f32 <-> i32 (u32 too), f64 <-> i64 (u64
// too); nullopt for the widths with no float or integer partner here (8 and 16 bits, bool).
std::optional<DType> bitcast_target(DType from);

}  // namespace plaidml::ir::detail
