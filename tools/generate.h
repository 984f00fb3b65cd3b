// Input generators for --input NAME=random|zeros|ones:DTYPE:DIMS.
#pragma once

#include <cstdint>

#include "args.h"
#include "npy.h"

namespace plaidml_cli {

// Fills an array for a generator spec (spec.kind != kFile). Random values come from a generator
// seeded by (seed, spec.name), so each input gets its own stream and a run is reproducible:
// floats are uniform in [-1, 1), signed integers in [-4, 4], unsigned in [0, 8], bools 0 or 1.
NpyArray generate_input(const InputSpec& spec, uint64_t seed);

// Stores `value` as element i of an array of dtype t (rounding for f16/bf16).
void store_from_double(Dtype t, void* data, int64_t i, double value);

}  // namespace plaidml_cli
