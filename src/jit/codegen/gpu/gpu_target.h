// What GPU code generation knows of a device: its limits, from the plugin's device info
// (jit/compiler.cc fills it for OpenCL; the SPIR-V generator derives one from SpirvTarget).
// Tile sizes and workgroup shapes are chosen from these numbers, never hard-coded for one GPU.
#pragma once

#include <cstdint>
#include <string>

namespace plaidml::jit {

struct GpuTarget {
  std::string device_name;          // for messages
  int max_workgroup_size = 256;     // threads per workgroup
  int64_t local_memory_bytes = 32768;  // shared bytes per workgroup
  int compute_units = 1;            // SMs / CUs: how many workgroups run at once, roughly
  bool fp16 = false;                // cl_khr_fp16 (f16 arithmetic; storage works everywhere)
  bool fp64 = false;                // cl_khr_fp64
  // Goes into cache keys: everything above that changes the generated code.
  std::string key() const {
    return device_name + "|wg" + std::to_string(max_workgroup_size) + "|lm" +
           std::to_string(local_memory_bytes) + "|cu" + std::to_string(compute_units) +
           (fp16 ? "|fp16" : "") + (fp64 ? "|fp64" : "");
  }
};

}  // namespace plaidml::jit
