// Integer expressions once dims are known: sizes (C integer arithmetic) and index expressions
// (exact affine polynomials with rational coefficients), docs/tile.md section 2.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/base/status.h"
#include "core/ir/program.h"
#include "core/poly/affine.h"

namespace plaidml::ir::detail {

using DimMap = std::map<std::string, int64_t>;

// C semantics: `/` truncates toward zero. Errors (kTypeError, naming the expression): an index
// variable, an unknown dim, division by zero, 64-bit overflow.
Expected<int64_t> eval_size(const IntExpr& expr, const DimMap& dims);

// Dims become constants and `/` is exact rational division. Errors (kTypeError): a product of
// two non-constant terms or max/min of a non-constant ("is not affine"), division by a
// non-constant or by zero, an unknown dim, overflow.
Expected<poly::Affine> to_affine(const IntExpr& expr, const DimMap& dims);

}  // namespace plaidml::ir::detail
