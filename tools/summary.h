// Per-output statistics printed by `plaidml run` (shape, dtype, min, max, mean) and the
// formatting of values and times in the CLI's stable output lines.
#pragma once

#include <string>
#include <vector>

#include "npy.h"

namespace plaidml_cli {

struct ArrayStats {
  double min = 0;
  double max = 0;
  double mean = 0;
  int64_t nan_count = 0;  // NaNs are left out of min/max/mean and reported apart
};

ArrayStats array_stats(const NpyArray& array);

// "output C: shape=2x2 dtype=f32 min=19 max=50 mean=34.5"
std::string summary_line(const std::string& name, const NpyArray& array);

// All elements, row by row, for --print-values.
std::string format_values(const NpyArray& array);

// "%.{digits}g": 6 significant digits reads well in a summary; --print-values uses 9, enough to
// tell f32 values apart.
std::string format_number(double v, int digits = 6);
// Milliseconds with 3 decimals.
std::string format_ms(double seconds);

// Median of a non-empty list.
double median(std::vector<double> values);

}  // namespace plaidml_cli
