#include "bench_cli.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace plaidml_bench {

bool parse_int(const std::string& text, long long min, long long* out) {
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < min) return false;
  *out = v;
  return true;
}

bool parse_seconds(const std::string& text, double* out) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0)) return false;
  *out = v;
  return true;
}

std::set<std::string> split_names(const std::string& text) {
  std::set<std::string> names;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = std::min(text.find(',', pos), text.size());
    if (comma > pos) names.insert(text.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return names;
}

bool select_cases(const char* program, std::vector<BenchCase> all,
                  const std::set<std::string>& names, std::vector<BenchCase>& selected) {
  std::set<std::string> unknown = names;
  for (BenchCase& c : all) {
    unknown.erase(c.name);
    if (names.empty() || names.count(c.name)) selected.push_back(std::move(c));
  }
  for (const std::string& name : unknown) {
    std::fprintf(stderr, "%s: unknown case '%s' (see --list)\n", program, name.c_str());
  }
  return unknown.empty();
}

}  // namespace plaidml_bench
