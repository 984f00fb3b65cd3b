// float64 host computation of single output elements, the judge of every implementation's
// output (plaidml's and the peers'): cheap enough per element to check a few of any size.
#pragma once

#include <cstdint>

#include "bench_cases.h"

namespace plaidml_bench {

// One output element computed in float64 on the host. `scale` is the sum of |terms| that make it
// up: float32 rounding error grows with it, not with the (possibly cancelling) value.
struct Reference {
  double value = 0;
  double scale = 0;
};

// The element at flat_output_index (row-major over c.output_dims) of case c on these inputs.
Reference reference(const BenchCase& c, const HostInputs& inputs, int64_t flat_output_index);

}  // namespace plaidml_bench
