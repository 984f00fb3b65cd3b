// Command-line pieces the bench binaries share: number parsing, name lists and case selection.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "bench_cases.h"

namespace plaidml_bench {

// A whole decimal integer >= min into *out; false (and *out untouched) otherwise.
bool parse_int(const std::string& text, long long min, long long* out);

// A whole non-negative decimal number into *out; false otherwise.
bool parse_seconds(const std::string& text, double* out);

// "a,b,,c" -> {a, b, c}.
std::set<std::string> split_names(const std::string& text);

// The cases of `all` named in `names` (every case when names is empty), in all's order. An
// unknown name is reported on stderr (prefixed with `program`) and makes the result false.
bool select_cases(const char* program, std::vector<BenchCase> all,
                  const std::set<std::string>& names, std::vector<BenchCase>& selected);

}  // namespace plaidml_bench
