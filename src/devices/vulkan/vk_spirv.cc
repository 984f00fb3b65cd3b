#include "devices/vulkan/vk_spirv.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <map>
#include <set>

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

constexpr uint32_t kOpFunction = 54;
constexpr uint32_t kOpFunctionEnd = 56;
constexpr uint32_t kOpFunctionCall = 57;
constexpr uint32_t kOpLoad = 61;
constexpr uint32_t kOpStore = 62;
constexpr uint32_t kOpCopyMemory = 63;
constexpr uint32_t kOpAccessChain = 65;           // to 70: the access chains and OpArrayLength
constexpr uint32_t kOpInBoundsPtrAccessChain = 70;
constexpr uint32_t kOpAtomicLoad = 227;           // to 242: the atomics
constexpr uint32_t kOpAtomicStore = 228;
constexpr uint32_t kOpAtomicXor = 242;
constexpr uint32_t kOpCopyObject = 83;  // logical addressing allows no other pointer copies

// What each function refers to: ids in pointer operands (variables among them) and callees.
struct FunctionUses {
  std::vector<uint32_t> pointers;
  std::vector<uint32_t> callees;
};

// The word offsets (within the instruction) of the pointer operands of `opcode`.
std::vector<uint32_t> pointer_operands(uint32_t opcode, uint32_t count) {
  if (opcode == kOpStore || opcode == kOpAtomicStore) return {1};
  if (opcode == kOpCopyMemory) return {1, 2};
  bool access_chain = opcode >= kOpAccessChain && opcode <= kOpInBoundsPtrAccessChain;
  bool atomic = opcode >= kOpAtomicLoad && opcode <= kOpAtomicXor;
  if (opcode == kOpLoad || opcode == kOpCopyObject || access_chain || atomic) {
    return {3};
  }
  if (opcode == kOpFunctionCall) {  // arguments may be pointers to variables
    std::vector<uint32_t> args;
    for (uint32_t w = 4; w < count; ++w) args.push_back(w);
    return args;
  }
  return {};
}

// Records the uses of the instruction at `at` in the function being read.
void note_uses(const std::vector<uint32_t>& words, size_t at, FunctionUses& uses) {
  uint32_t count = words[at] >> 16, opcode = words[at] & 0xFFFF;
  for (uint32_t w : pointer_operands(opcode, count)) {
    if (w < count) uses.pointers.push_back(words[at + w]);
  }
  if (opcode == kOpFunctionCall && count > 3) uses.callees.push_back(words[at + 3]);
}

// The highest binding of set 0 reached from `function` (calls followed once each), plus one.
uint32_t bindings_reached(uint32_t function, const std::map<uint32_t, FunctionUses>& functions,
                          const std::map<uint32_t, uint32_t>& binding_of_id) {
  uint32_t reach = 0;
  std::vector<uint32_t> work = {function};
  std::set<uint32_t> seen = {function};
  while (!work.empty()) {
    auto it = functions.find(work.back());
    work.pop_back();
    if (it == functions.end()) continue;
    for (uint32_t id : it->second.pointers) {
      auto b = binding_of_id.find(id);
      if (b != binding_of_id.end()) reach = std::max(reach, b->second + 1);
    }
    for (uint32_t callee : it->second.callees) {
      if (seen.insert(callee).second) work.push_back(callee);
    }
  }
  return reach;
}

}  // namespace

bool split_spirv(const std::vector<uint32_t>& words, std::vector<std::vector<uint32_t>>* out,
                 std::string* error) {
  if (words.size() < kHeaderWords || words[0] != kMagic) {
    *error = "not a SPIR-V module (no 0x07230203 magic word at the start)";
    return false;
  }
  size_t start = 0;
  for (size_t at = kHeaderWords; at <= words.size();) {
    if (at == words.size() || words[at] == kMagic) {
      out->emplace_back(words.begin() + static_cast<std::ptrdiff_t>(start),
                        words.begin() + static_cast<std::ptrdiff_t>(at));
      if (at == words.size()) return true;
      if (at + kHeaderWords > words.size()) {
        *error = "malformed SPIR-V: a module header at word " + std::to_string(at) +
                 " is cut short";
        return false;
      }
      start = at;
      at += kHeaderWords;
      continue;
    }
    uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > words.size()) {
      *error = "malformed SPIR-V: instruction at word " + std::to_string(at) + " (opcode " +
               std::to_string(words[at] & 0xFFFF) + ", " + std::to_string(count) +
               " words) runs past the end of the module";
      return false;
    }
    at += count;
  }
  return true;
}

bool parse_spirv(const std::vector<uint32_t>& words, SpirvModuleInfo* out, std::string* error) {
  if (words.size() < kHeaderWords || words[0] != kMagic) {
    *error = "not a SPIR-V module (no 0x07230203 magic word at the start)";
    return false;
  }
  Decorations decorations;
  std::map<uint32_t, std::array<uint32_t, 3>> local_sizes;  // by function id
  std::map<uint32_t, FunctionUses> functions;               // by function id
  FunctionUses* current = nullptr;                          // inside OpFunction .. OpFunctionEnd
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
    } else if (opcode == kOpFunction && count >= 5) {
      current = &functions[words[at + 2]];
    } else if (opcode == kOpFunctionEnd) {
      current = nullptr;
    } else if (current) {
      note_uses(words, at, *current);
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
  std::map<uint32_t, uint32_t> binding_of_id;  // set 0 bindings, by variable id
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
    binding_of_id[target] = binding;
  }
  for (SpirvEntryPoint& e : out->entry_points) {
    e.num_bindings = bindings_reached(e.function, functions, binding_of_id);
  }
  return true;
}

}  // namespace plaidml::devices::vulkan
