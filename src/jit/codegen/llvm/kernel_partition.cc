#include "jit/codegen/llvm/kernel_partition.h"

#include <algorithm>
#include <cmath>

namespace plaidml::jit::llvmgen {
namespace {

// Fixed costs per function, in size units: fitted to the per-kernel times on GPT-2 small
// (about 6 ms for a small vectorized kernel, 10 ms for a small scalar one, 8 us per node).
constexpr size_t kVectorBase = 800;
constexpr size_t kScalarBase = 1300;

size_t expr_size(const loop::Expr& e) {
  size_t n = 1;
  for (const auto& a : e.args) n += a ? expr_size(*a) : 0;
  return n;
}

size_t stmt_size(const loop::Stmt& s) {
  size_t n = 1;
  for (const loop::ExprPtr* e : {&s.lo, &s.hi, &s.cond, &s.index, &s.value}) {
    if (*e) n += expr_size(**e);
  }
  for (const auto& child : s.body) n += stmt_size(*child);
  if (s.kind == loop::StmtKind::kFor && s.unroll > 1) n *= static_cast<size_t>(s.unroll);
  return n;
}

// Longest first onto the lightest of `count` parts.
std::vector<std::vector<size_t>> spread(std::vector<size_t> kernels,
                                        const std::vector<size_t>& weight, size_t count) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [&](size_t a, size_t b) { return weight[a] > weight[b]; });
  std::vector<std::vector<size_t>> parts(std::min(count, kernels.size()));
  std::vector<size_t> load(parts.size(), 0);
  for (size_t k : kernels) {
    size_t lightest =
        static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    parts[lightest].push_back(k);
    load[lightest] += weight[k];
  }
  for (auto& part : parts) std::sort(part.begin(), part.end());
  return parts;
}

}  // namespace

size_t kernel_size(const loop::Kernel& kernel) { return kernel.body ? stmt_size(*kernel.body) : 1; }

namespace {
size_t compile_weight(const loop::Kernel& kernel, bool vectorized) {
  return kernel_size(kernel) + (vectorized ? kVectorBase : kScalarBase);
}
}  // namespace

size_t compile_weight(const loop::Kernel& kernel) {
  return compile_weight(kernel, loop::has_vectors(kernel));
}

std::vector<std::vector<size_t>> partition_kernels(const std::vector<loop::Kernel>& kernels,
                                                   int threads, size_t min_part_weight) {
  std::vector<size_t> weight(kernels.size());
  std::vector<size_t> kinds[2];  // vectorized, scalar
  size_t total[2] = {0, 0};
  for (size_t k = 0; k < kernels.size(); ++k) {
    bool vectorized = loop::has_vectors(kernels[k]);
    weight[k] = compile_weight(kernels[k], vectorized);
    int kind = vectorized ? 0 : 1;
    kinds[kind].push_back(k);
    total[kind] += weight[k];
  }
  size_t present = (kinds[0].empty() ? 0 : 1) + (kinds[1].empty() ? 0 : 1);
  if (present == 0) return {};
  size_t sum = total[0] + total[1];
  if (sum < 2 * min_part_weight) {  // too little for two parts: one, both kinds together
    std::vector<size_t> all(kernels.size());
    for (size_t k = 0; k < all.size(); ++k) all[k] = k;
    return {all};
  }
  size_t wanted = threads < 1 ? 1 : static_cast<size_t>(threads);
  if (min_part_weight > 0) wanted = std::min(wanted, sum / min_part_weight);
  size_t count = std::max(present, wanted);
  size_t vector_parts = 0;
  if (present == 2) {
    double share = static_cast<double>(total[0]) / static_cast<double>(total[0] + total[1]);
    vector_parts =
        std::clamp<size_t>(static_cast<size_t>(std::lround(share * count)), 1, count - 1);
  } else if (!kinds[0].empty()) {
    vector_parts = count;
  }
  std::vector<std::vector<size_t>> out = spread(kinds[0], weight, vector_parts);
  for (auto& part : spread(kinds[1], weight, count - vector_parts)) out.push_back(std::move(part));
  // Program order of first kernels, so that the parts' order does not depend on the kinds.
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a[0] < b[0]; });
  return out;
}

}  // namespace plaidml::jit::llvmgen
