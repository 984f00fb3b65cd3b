// A small Tile program and its inputs from fuzz bytes, for the differential target.
//
// The program is valid by construction as far as syntax goes (what binding refuses, a bitwise
// op on floats or an index nothing bounds, is skipped by the caller): up to three inputs of
// rank 0 to 3 over the dims N, M, K (sizes 0 to 4), then up to six statements, each an
// elementwise expression of broadcast-compatible operands (operators, math functions, casts,
// select, index, reshape) or a contraction (every aggregation and combination, index
// expressions with offsets, sums, multiples and halves of index variables, constraints,
// default). Input values come from a small table of exactly representable numbers (with inf
// and NaN now and then), so that a float result depends little on the order of operations.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <string>
#include <vector>

#include "core/types/tensor.h"

namespace plaidml::fuzz {

struct GeneratedProgram {
  std::string tile;
  std::vector<HostTensor> inputs;  // parallel to the program's inputs
};

GeneratedProgram generate_program(FuzzedDataProvider& bytes);

}  // namespace plaidml::fuzz
