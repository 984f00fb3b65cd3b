#include "devices/plugin_support/checks.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string_view>

#include "devices/plugin_support/plugin_errors.h"

namespace plaidml::devices::plugin_support {
namespace {

// ABI 1 as first published: every member up to flags (subgroup_size and memory_heaps were
// appended later).
constexpr size_t kMinInfoSize = offsetof(plaidml_plugin_device_info, subgroup_size);
constexpr size_t kLaunchInfoSize =
    offsetof(plaidml_plugin_launch_info, workgroup) + sizeof(plaidml_plugin_launch_info::workgroup);

bool listed(std::string_view list, std::string_view item) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (list.substr(0, comma) == item) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

plaidml_plugin_status require(const void* p, const char* what) {
  if (p) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, std::string(what) + " is NULL");
}

plaidml_plugin_status check_range(const char* what, const Buffer& buffer, uint64_t offset,
                                  uint64_t bytes) {
  if (offset <= buffer.size() && bytes <= buffer.size() - offset) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
              std::string(what) + " of " + std::to_string(bytes) + " bytes at offset " +
                  std::to_string(offset) + " is outside the buffer of " +
                  std::to_string(buffer.size()) + " bytes");
}

plaidml_plugin_status check_no_overlap(const Buffer* src, uint64_t src_offset, const Buffer* dst,
                                       uint64_t dst_offset, uint64_t bytes) {
  bool overlap = src == dst && src_offset < dst_offset + bytes && dst_offset < src_offset + bytes;
  if (!overlap) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
              "copy within one buffer with overlapping ranges (" + std::to_string(bytes) +
                  " bytes from offset " + std::to_string(src_offset) + " to " +
                  std::to_string(dst_offset) + ")");
}

plaidml_plugin_status check_allocation(const DeviceRecord& record, uint64_t bytes) {
  const uint64_t max = record.max_allocation_bytes;
  if (!max || bytes <= max) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY, "cannot allocate " + std::to_string(bytes) +
                                                " bytes on " + record.name +
                                                ": its largest allocation is " +
                                                std::to_string(max) + " bytes");
}

plaidml_plugin_status check_format(const DeviceRecord& record, const char* format) {
  if (listed(record.artifact_formats, format)) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_UNSUPPORTED, std::string("artifact format '") + format +
                                              "' is not supported by " + record.name +
                                              " (it accepts " + record.artifact_formats + ")");
}

plaidml_plugin_status check_info_size(const plaidml_plugin_device_info& info) {
  if (info.struct_size >= kMinInfoSize) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
              "info->struct_size is " + std::to_string(info.struct_size) +
                  "; a plaidml_plugin_device_info has at least " + std::to_string(kMinInfoSize) +
                  " bytes (set it to sizeof)");
}

plaidml_plugin_status check_launch(const plaidml_plugin_launch_info& info,
                                   const Executable& executable) {
  if (info.struct_size < kLaunchInfoSize) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                "launch info->struct_size is " + std::to_string(info.struct_size) +
                    "; a plaidml_plugin_launch_info has " + std::to_string(kLaunchInfoSize) +
                    " bytes (set it to sizeof)");
  }
  size_t kernels = executable.symbols().size();
  if (info.kernel < kernels) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "kernel index " + std::to_string(info.kernel) +
                                                   " out of range (the executable has " +
                                                   std::to_string(kernels) + " kernels)");
}

void fill_device_info(const DeviceRecord& r, plaidml_plugin_device_info* info) {
  plaidml_plugin_device_info out{};
  out.struct_size = info->struct_size;
  out.name = r.name.c_str();
  out.vendor = r.vendor.c_str();
  out.kind = r.kind.c_str();
  out.artifact_formats = r.artifact_formats.c_str();
  out.target = r.target.c_str();
  out.memory_bytes = r.memory_bytes;
  out.max_allocation_bytes = r.max_allocation_bytes;
  out.local_memory_bytes = r.local_memory_bytes;
  out.max_workgroup_size = r.max_workgroup_size;
  out.compute_units = r.compute_units;
  out.vector_bits = r.vector_bits;
  out.flags = r.flags;
  out.subgroup_size = r.subgroup_size;
  out.memory_heaps = r.memory_heaps.empty() ? nullptr : r.memory_heaps.c_str();
  out.matrix_shapes = r.matrix_shapes.empty() ? nullptr : r.matrix_shapes.c_str();
  // Only the members the caller's struct has (it may be an older, shorter header).
  std::memcpy(info, &out, std::min<size_t>(info->struct_size, sizeof(out)));
}

}  // namespace plaidml::devices::plugin_support
