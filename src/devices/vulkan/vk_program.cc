#include "devices/vulkan/vk_program.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "devices/vulkan/vk_commands.h"
#include "devices/vulkan/vk_errors.h"
#include "devices/vulkan/vk_exit.h"
#include "devices/vulkan/vk_pipeline_statistics.h"
#include "devices/vulkan/vk_spirv.h"

namespace plaidml::devices::vulkan {
namespace {

void release(VkDevice device, VulkanExecutable* exe) {
  for (VkPipeline p : exe->pipelines) vk().vkDestroyPipeline(device, p, nullptr);
  for (const auto& [n, l] : exe->layouts) {
    if (l.layout) vk().vkDestroyPipelineLayout(device, l.layout, nullptr);
    if (l.set_layout) vk().vkDestroyDescriptorSetLayout(device, l.set_layout, nullptr);
  }
  for (VkShaderModule m : exe->modules) vk().vkDestroyShaderModule(device, m, nullptr);
  delete exe;
}

struct ExecutableDeleter {
  VkDevice device;
  void operator()(VulkanExecutable* exe) const { release(device, exe); }
};
using ExecutablePtr = std::unique_ptr<VulkanExecutable, ExecutableDeleter>;

// One module of an artifact, parsed.
struct ParsedModule {
  std::vector<uint32_t> words;
  SpirvModuleInfo info;
};

std::string entry_names(const std::vector<ParsedModule>& modules) {
  std::string names;
  for (const ParsedModule& m : modules) {
    for (const auto& e : m.info.entry_points) {
      if (e.execution_model == kGLComputeModel) names += (names.empty() ? "" : ", ") + e.name;
    }
  }
  return names.empty() ? "none" : names;
}

// The GLCompute entry point `symbol` and its module's index, or nullptr.
const SpirvEntryPoint* entry_of(const std::vector<ParsedModule>& modules,
                                const std::string& symbol, size_t* module) {
  for (size_t i = 0; i < modules.size(); ++i) {
    for (const auto& e : modules[i].info.entry_points) {
      if (e.execution_model != kGLComputeModel || e.name != symbol) continue;
      *module = i;
      return &e;
    }
  }
  return nullptr;
}

// The GLCompute entry point `symbol`, checked against the device's workgroup limits.
plaidml_plugin_status find_entry(const std::vector<ParsedModule>& modules,
                                 const std::string& symbol, const VkDeviceRecord& r) {
  size_t module = 0;
  if (const SpirvEntryPoint* found = entry_of(modules, symbol, &module)) {
    const SpirvEntryPoint& e = *found;
    const uint32_t* s = e.local_size;
    uint64_t threads = uint64_t(s[0]) * s[1] * s[2];
    bool dims_ok = s[0] <= r.max_workgroup_dims[0] && s[1] <= r.max_workgroup_dims[1] &&
                   s[2] <= r.max_workgroup_dims[2];
    if (e.num_bindings > r.max_storage_buffers_per_stage) {
      return fail(PLAIDML_PLUGIN_UNSUPPORTED,
                  std::string("entry point '") + symbol + "' binds " +
                      std::to_string(e.num_bindings) + " storage buffers; " + r.name +
                      " allows " + std::to_string(r.max_storage_buffers_per_stage));
    }
    if (!dims_ok || threads > r.max_workgroup_size) {
      return fail(PLAIDML_PLUGIN_UNSUPPORTED,
                  std::string("entry point '") + symbol + "' has LocalSize " +
                      std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" +
                      std::to_string(s[2]) + ", beyond what " + r.name + " allows (" +
                      std::to_string(r.max_workgroup_size) + " invocations, " +
                      std::to_string(r.max_workgroup_dims[0]) + "x" +
                      std::to_string(r.max_workgroup_dims[1]) + "x" +
                      std::to_string(r.max_workgroup_dims[2]) + ")");
    }
    return PLAIDML_PLUGIN_OK;
  }
  return fail(PLAIDML_PLUGIN_NOT_FOUND, std::string("no GLCompute entry point named '") + symbol +
                                            "' in the SPIR-V module (entry points: " +
                                            entry_names(modules) + ")");
}

// The layout for pipelines binding `n` buffers, made on first use.
plaidml_plugin_status layout_for(VkDevice device, VulkanExecutable* exe, uint32_t n,
                                 VkPipelineLayout* out) {
  auto [it, added] = exe->layouts.emplace(n, VulkanExecutable::Layout{});
  auto& l = it->second;
  if (!added) {
    *out = l.layout;
    return PLAIDML_PLUGIN_OK;
  }
  std::vector<VkDescriptorSetLayoutBinding> bindings(n);
  for (uint32_t k = 0; k < n; ++k) {
    bindings[k].binding = k;
    bindings[k].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[k].descriptorCount = 1;
    bindings[k].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set{};
  set.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set.bindingCount = n;
  set.pBindings = bindings.data();
  VkResult r = vk().vkCreateDescriptorSetLayout(device, &set, nullptr, &l.set_layout);
  if (r != VK_SUCCESS) return fail_vk("vkCreateDescriptorSetLayout", r);
  VkPipelineLayoutCreateInfo layout{};
  layout.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &l.set_layout;
  r = vk().vkCreatePipelineLayout(device, &layout, nullptr, &l.layout);
  if (r != VK_SUCCESS) return fail_vk("vkCreatePipelineLayout", r);
  *out = l.layout;
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status create_pipeline(VkDeviceState* device, VulkanExecutable* exe,
                                      VkShaderModule module, const std::string& symbol,
                                      uint32_t bindings) {
  VkPipelineLayout layout = VK_NULL_HANDLE;
  if (auto s = layout_for(device->device, exe, bindings, &layout); s != PLAIDML_PLUGIN_OK) {
    return s;
  }
  VkComputePipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = symbol.c_str();
  info.layout = layout;
  const bool statistics = device->record->features.pipeline_statistics;
  if (statistics) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkResult r = vk().vkCreateComputePipelines(device->device, device->pipeline_cache, 1, &info,
                                             nullptr, &pipeline);
  if (r != VK_SUCCESS) {
    return fail_vk("vkCreateComputePipelines", r,
                   std::string("entry point '") + symbol + "' does not build on " +
                       device->record->name);
  }
  if (statistics)
    report_pipeline_statistics(device->device, pipeline, device->record->name, symbol);
  exe->pipelines.push_back(pipeline);
  exe->bindings.push_back(bindings);
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status create_module(VkDevice device, const std::vector<uint32_t>& words,
                                    VulkanExecutable* exe) {
  VkShaderModuleCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  info.codeSize = words.size() * sizeof(uint32_t);
  info.pCode = words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  VkResult r = vk().vkCreateShaderModule(device, &info, nullptr, &module);
  if (r != VK_SUCCESS) return fail_vk("vkCreateShaderModule", r);
  exe->modules.push_back(module);
  return PLAIDML_PLUGIN_OK;
}

// Size, modules and entry points, before any Vulkan object exists.
plaidml_plugin_status check_artifact(const VkDeviceRecord& r, const void* bytes,
                                     uint64_t num_bytes, const std::vector<std::string>& symbols,
                                     std::vector<ParsedModule>* modules) {
  if (num_bytes % 4 != 0) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                "a SPIR-V module is whole 32-bit words; got " + std::to_string(num_bytes) +
                    " bytes");
  }
  std::vector<uint32_t> words(num_bytes / 4);
  if (num_bytes) std::memcpy(words.data(), bytes, num_bytes);  // aligned for the driver
  std::string error;
  std::vector<std::vector<uint32_t>> parts;
  if (!split_spirv(words, &parts, &error)) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, error);
  for (auto& part : parts) {
    ParsedModule m;
    m.words = std::move(part);
    if (!parse_spirv(m.words, &m.info, &error)) {
      return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, error);
    }
    modules->push_back(std::move(m));
  }
  for (const std::string& symbol : symbols) {
    if (auto s = find_entry(*modules, symbol, r); s != PLAIDML_PLUGIN_OK) return s;
  }
  return PLAIDML_PLUGIN_OK;
}

}  // namespace

plaidml_plugin_status VulkanDevice::load(std::string_view /*format: spirv*/, const void* bytes,
                                         uint64_t num_bytes, std::vector<std::string> symbols,
                                         std::unique_ptr<plugin_support::Executable>* out) {
  VkDeviceState* device = state_.get();
  std::vector<ParsedModule> modules;
  if (auto s = check_artifact(*device->record, bytes, num_bytes, symbols, &modules);
      s != PLAIDML_PLUGIN_OK) {
    return s;
  }
  {
    std::lock_guard<std::mutex> lock(device->mutex);
    if (auto s = check_usable(device); s != PLAIDML_PLUGIN_OK) return s;
  }
  // Pipelines build without the device lock: the pipeline cache synchronises itself, and
  // launches of other programs need not wait for a compile.
  ExecutablePtr exe(new VulkanExecutable(symbols), ExecutableDeleter{device->device});
  for (const ParsedModule& m : modules) {
    if (auto s = create_module(device->device, m.words, exe.get()); s != PLAIDML_PLUGIN_OK) {
      return s;
    }
  }
  for (const std::string& symbol : symbols) {
    size_t module = 0;
    const SpirvEntryPoint* e = entry_of(modules, symbol, &module);  // check_artifact found it
    if (auto s = create_pipeline(device, exe.get(), exe->modules[module], symbol, e->num_bindings);
        s != PLAIDML_PLUGIN_OK) {
      return s;
    }
  }
  if (auto s = check_validation(); s != PLAIDML_PLUGIN_OK) return s;
  out->reset(exe.release());
  return PLAIDML_PLUGIN_OK;
}

void VulkanDevice::unload(std::unique_ptr<plugin_support::Executable> executable) {
  auto* exe = static_cast<VulkanExecutable*>(executable.release());
  if (process_exiting()) {  // the driver may be gone (vk_exit.h)
    abandon(exe);
    return;
  }
  VkDeviceState* device = state_.get();
  std::lock_guard<std::mutex> lock(device->mutex);
  // Recorded launches may use its pipelines: they run first. A submit still running past its
  // time limit may use them too: then they go when the device closes.
  flush(device);
  if (device->submit_pending) {
    device->deferred_executables.push_back(exe);
  } else {
    release(device->device, exe);
  }
}

void release_executable(VkDevice device, VulkanExecutable* executable) {
  release(device, executable);
}

}  // namespace plaidml::devices::vulkan
