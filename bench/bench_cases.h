// The benchmark shapes (f32 matmuls and the ResNet-50 3x3 convolution) as Tile programs, with
// their inputs, FLOP counts and a float64 host oracle for single output elements.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace plaidml_bench {

using Dims = std::vector<int64_t>;
using HostInputs = std::vector<std::vector<float>>;

// One output element computed in float64 on the host. `scale` is the sum of |terms| that make it
// up: float32 rounding error grows with it, not with the (possibly cancelling) value.
struct Reference {
  double value = 0;
  double scale = 0;
};

struct BenchCase {
  std::string name;   // stable key shared with bench/torch_gpu.py ("matmul_1024")
  std::string shape;  // human description ("1024x1024x1024")
  std::string tile;
  std::vector<std::string> input_names;
  std::vector<Dims> input_dims;
  Dims output_dims;
  double flop = 0;  // multiply-adds count as 2
  std::function<Reference(const HostInputs& inputs, int64_t flat_output_index)> reference;
};

// Every case, in the order they run: matmul_1024, conv3x3_56x56x64_n1, conv3x3_56x56x64_n32,
// matmul_4096.
std::vector<BenchCase> all_cases();

int64_t element_count(const Dims& dims);

// Deterministic inputs in [-1, 1) (a fixed generator, so runs and machines agree).
HostInputs make_inputs(const BenchCase& c, uint64_t seed);

}  // namespace plaidml_bench
