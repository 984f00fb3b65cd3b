#include "jit/kernel_table.h"

#include <string>
#include <unordered_map>

#include "jit/loop/printer.h"

namespace plaidml::jit {
namespace {

// Everything code generation reads of a kernel, its buffers named by position.
std::string kernel_form(const LoweredProgram& lowered, const loop::Kernel& kernel,
                        const std::vector<int>& params) {
  std::string form = loop::canonical_string(kernel, params);
  for (int s : params) form += lowered.slots[static_cast<size_t>(s)].shape.to_string() + "\n";
  form += std::to_string(kernel.work);  // launch metadata (KernelEntry::work)
  return form;
}

}  // namespace

KernelTable build_kernel_table(const LoweredProgram& lowered) {
  KernelTable table;
  table.code.slots = lowered.slots;
  std::unordered_map<std::string, int> compiled;  // kernel_form -> index in table.code.kernels
  for (const loop::Kernel& kernel : lowered.kernels) {
    KernelCall call;
    call.args = loop::parameters(kernel);
    auto [it, added] = compiled.emplace(kernel_form(lowered, kernel, call.args),
                                        static_cast<int>(table.code.kernels.size()));
    if (added) table.code.kernels.push_back(kernel);
    call.kernel = it->second;
    table.calls.push_back(std::move(call));
  }
  return table;
}

}  // namespace plaidml::jit
