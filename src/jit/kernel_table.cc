#include "jit/kernel_table.h"

#include <string>
#include <unordered_map>

#include "jit/loop/printer.h"

namespace plaidml::jit {
namespace {

// Everything code generation reads of a kernel, its buffers named by position.
std::string kernel_form(const LoweredProgram& lowered, const loop::Kernel& kernel,
                        const std::vector<int>& params, KernelForms forms) {
  bool classes = forms == KernelForms::kShapeClasses;
  std::string form = loop::canonical_string(
      kernel, params, classes ? loop::ParallelBound::kRunTime : loop::ParallelBound::kPrinted);
  for (int s : params) {
    const Shape& shape = lowered.slots[static_cast<size_t>(s)].shape;
    form += (classes ? std::string(dtype_name(shape.dtype)) : shape.to_string()) + "\n";
  }
  return form;
}

}  // namespace

KernelTable build_kernel_table(const LoweredProgram& lowered, KernelForms forms) {
  KernelTable table;
  table.code.slots = lowered.slots;
  std::unordered_map<std::string, int> compiled;  // kernel_form -> index in table.code.kernels
  for (const loop::Kernel& kernel : lowered.kernels) {
    KernelCall call;
    call.args = loop::parameters(kernel);
    call.parallel_extent = loop::parallel_extent(kernel);
    call.work = kernel.work;
    std::string form = kernel_form(lowered, kernel, call.args, forms);
    auto [it, added] = compiled.emplace(form, static_cast<int>(table.code.kernels.size()));
    if (added) {
      table.code.kernels.push_back(kernel);
      table.forms.push_back(sha256(form));
    }
    call.kernel = it->second;
    table.calls.push_back(std::move(call));
  }
  return table;
}

}  // namespace plaidml::jit
