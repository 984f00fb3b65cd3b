#include "jit/codegen/gpu/gpu_target.h"

#include <cstdio>
#include <sstream>

namespace plaidml::jit {

std::vector<MatrixShape> parse_matrix_shapes(const std::string& text) {
  std::vector<MatrixShape> out;
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) continue;
    std::optional<DType> input = dtype_from_name(item.substr(0, colon));
    if (!input || (*input != DType::F16 && *input != DType::BF16)) continue;
    MatrixShape shape;
    shape.input = *input;
    // "MxNxK", then nothing or "@N"; any other tail skips the item.
    const char* at = item.c_str() + colon + 1;
    int used = 0, tail = 0;
    if (std::sscanf(at, "%dx%dx%d%n", &shape.m, &shape.n, &shape.k, &used) != 3) continue;
    at += used;
    if (*at == '@' && (std::sscanf(at + 1, "%d%n", &shape.workgroup, &tail) != 1 ||
                       shape.workgroup <= 0 || at[1 + tail] != '\0')) {
      continue;
    }
    if ((*at != '\0' && *at != '@') || shape.m <= 0 || shape.n <= 0 || shape.k <= 0 ||
        shape.m > 64 || shape.n > 64 || shape.k > 64) {
      continue;
    }
    out.push_back(shape);
  }
  return out;
}

std::string matrix_shapes_text(const std::vector<MatrixShape>& shapes) {
  std::string out;
  for (const MatrixShape& s : shapes) {
    if (!out.empty()) out += ",";
    out += std::string(dtype_name(s.input)) + ":" + std::to_string(s.m) + "x" +
           std::to_string(s.n) + "x" + std::to_string(s.k) +
           (s.workgroup > 0 ? "@" + std::to_string(s.workgroup) : std::string());
  }
  return out;
}

}  // namespace plaidml::jit
