#include "summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace plaidml_cli {

ArrayStats array_stats(const NpyArray& array) {
  ArrayStats stats;
  int64_t n = array.element_count();
  int64_t counted = 0;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = load_as_double(array.dtype, array.data.data(), i);
    if (std::isnan(v)) {
      ++stats.nan_count;
      continue;
    }
    stats.min = counted ? std::min(stats.min, v) : v;
    stats.max = counted ? std::max(stats.max, v) : v;
    sum += v;
    ++counted;
  }
  stats.mean = counted ? sum / static_cast<double>(counted) : NAN;
  if (!counted) stats.min = stats.max = NAN;
  return stats;
}

std::string format_number(double v, int digits) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  return buf;
}

std::string format_ms(double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f", seconds * 1e3);
  return buf;
}

std::string summary_line(const std::string& name, const NpyArray& array) {
  ArrayStats s = array_stats(array);
  std::string line = "output " + name + ": shape=" + format_dims(array.shape) +
                     " dtype=" + std::string(dtype_name(array.dtype));
  if (array.element_count() == 0) return line + " (empty)";
  line += " min=" + format_number(s.min) + " max=" + format_number(s.max) +
          " mean=" + format_number(s.mean);
  if (s.nan_count) line += " nans=" + std::to_string(s.nan_count);
  return line;
}

std::string format_values(const NpyArray& array) {
  int64_t n = array.element_count();
  int64_t row = array.shape.empty() ? 1 : std::max<int64_t>(array.shape.back(), 1);
  std::string out;
  for (int64_t i = 0; i < n; ++i) {
    out += format_number(load_as_double(array.dtype, array.data.data(), i), 9);
    out += (i + 1) % row == 0 ? "\n" : " ";
  }
  if (n == 0) out = "(empty)\n";
  return out;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace plaidml_cli
