#include "devices/vulkan/vk_spirv.h"

#include <algorithm>
#include <array>
#include <map>

namespace plaidml::devices::vulkan {
namespace {

constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kHeaderWords = 5;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kModeLocalSize = 17;
constexpr uint32_t kDecorationBinding = 33;
constexpr uint32_t kDecorationDescriptorSet = 34;
// Far above any device's per-stage storage-buffer limit; keeps binding + 1 from overflowing.
constexpr uint32_t kMaxBinding = 1u << 20;

// A literal string starting at words[begin] (nul-terminated, packed little-endian); *next is the
// word after it. False when the nul is missing before `end`.
bool literal_string(const std::vector<uint32_t>& words, size_t begin, size_t end, std::string* out,
                    size_t* next) {
  out->clear();
  for (size_t w = begin; w < end; ++w) {
    for (int byte = 0; byte < 4; ++byte) {
      char c = static_cast<char>((words[w] >> (8 * byte)) & 0xFF);
      if (c == '\0') {
        *next = w + 1;
        return true;
      }
      out->push_back(c);
    }
  }
  return false;
}

struct Decorations {
  std::map<uint32_t, uint32_t> binding, set;  // by target id
};

}  // namespace

bool parse_spirv(const std::vector<uint32_t>& words, SpirvModuleInfo* out, std::string* error) {
  if (words.size() < kHeaderWords || words[0] != kMagic) {
    *error = "not a SPIR-V module (no 0x07230203 magic word at the start)";
    return false;
  }
  Decorations decorations;
  std::map<uint32_t, std::array<uint32_t, 3>> local_sizes;  // by function id
  for (size_t at = kHeaderWords; at < words.size();) {
    uint32_t count = words[at] >> 16, opcode = words[at] & 0xFFFF;
    if (count == 0 || at + count > words.size()) {
      *error = "malformed SPIR-V: instruction at word " + std::to_string(at) + " (opcode " +
               std::to_string(opcode) + ", " + std::to_string(count) +
               " words) runs past the end of the module";
      return false;
    }
    const size_t end = at + count;
    if (opcode == kOpEntryPoint && count >= 4) {
      SpirvEntryPoint e;
      e.execution_model = words[at + 1];
      e.function = words[at + 2];
      size_t next = 0;
      if (!literal_string(words, at + 3, end, &e.name, &next)) {
        *error = "malformed SPIR-V: unterminated entry point name at word " + std::to_string(at);
        return false;
      }
      out->entry_points.push_back(std::move(e));
    } else if (opcode == kOpExecutionMode && count >= 6 && words[at + 2] == kModeLocalSize) {
      local_sizes[words[at + 1]] = {words[at + 3], words[at + 4], words[at + 5]};
    } else if (opcode == kOpDecorate && count >= 4) {
      if (words[at + 2] == kDecorationBinding) decorations.binding[words[at + 1]] = words[at + 3];
      if (words[at + 2] == kDecorationDescriptorSet) {
        decorations.set[words[at + 1]] = words[at + 3];
      }
    }
    at = end;
  }
  for (SpirvEntryPoint& e : out->entry_points) {
    auto it = local_sizes.find(e.function);
    if (it != local_sizes.end()) std::copy(it->second.begin(), it->second.end(), e.local_size);
  }
  for (const auto& [target, binding] : decorations.binding) {
    auto set = decorations.set.find(target);
    uint32_t set_index = set == decorations.set.end() ? 0 : set->second;
    if (set_index != 0) {
      *error = "the module uses descriptor set " + std::to_string(set_index) +
               " (binding " + std::to_string(binding) + "); buffers are bound at set 0 only";
      return false;
    }
    if (binding >= kMaxBinding) {
      *error = "the module uses binding " + std::to_string(binding) + "; plaidml binds at most " +
               std::to_string(kMaxBinding) + " buffers";
      return false;
    }
    out->num_bindings = std::max(out->num_bindings, binding + 1);
  }
  return true;
}

}  // namespace plaidml::devices::vulkan
