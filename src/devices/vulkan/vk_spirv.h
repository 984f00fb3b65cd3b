// What load needs to know of a SPIR-V module before the driver sees it: its entry points with
// their LocalSize and the storage-buffer bindings of set 0 each one uses. The walk also
// rejects what is not a SPIR-V module at all (bad magic, truncated instructions): drivers are
// not required to survive such input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace plaidml::devices::vulkan {

struct SpirvEntryPoint {
  std::string name;
  uint32_t execution_model = 0;  // 5: GLCompute
  uint32_t function = 0;
  uint32_t local_size[3] = {0, 0, 0};  // 0s: given by LocalSizeId or a constant, not checked
  // The highest Binding of set 0 that the entry point uses statically (through its function
  // and the functions it calls), plus one: each pipeline binds only these.
  uint32_t num_bindings = 0;
};

struct SpirvModuleInfo {
  std::vector<SpirvEntryPoint> entry_points;
};

inline constexpr uint32_t kGLComputeModel = 5;

// The modules of an artifact: one or more SPIR-V modules back to back, a new one starting
// where the instruction stream meets the magic word (no instruction starts with it: it would
// be opcode 515, which SPIR-V does not define). Each comes out with its own words; the walk
// only splits and checks that instructions stay inside the words (parse_spirv checks the rest).
bool split_spirv(const std::vector<uint32_t>& words, std::vector<std::vector<uint32_t>>* out,
                 std::string* error);

// Parses the header, entry points, LocalSize modes, Binding/DescriptorSet decorations and which
// variables each function reaches (pointer operands of loads, stores, access chains, atomics,
// copies and calls). On a
// malformed module returns false with the reason in *error.
bool parse_spirv(const std::vector<uint32_t>& words, SpirvModuleInfo* out, std::string* error);

}  // namespace plaidml::devices::vulkan
