// The C++ view of one opened device of a plugin (include/plaidml/plugin.h). The JIT sees devices
// only through this class: plugin status codes become Status values carrying the plugin's
// message, handles become RAII objects that keep their device open while they live.
// Thread safety: every method may be called from several threads at once.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "plaidml/plugin.h"

namespace plaidml::devices {

struct DeviceInfo {
  std::string name;
  std::string vendor;
  std::string kind;                  // "cpu", "gpu", ...
  std::vector<std::string> formats;  // artifact formats accepted
  std::string target;
  int64_t memory_bytes = 0;
  int64_t max_allocation_bytes = 0;
  int64_t local_memory_bytes = 0;
  int max_workgroup_size = 1;
  int compute_units = 1;
  int vector_bits = 128;
  bool fp16 = false;
  bool fp64 = false;
  bool unified_memory = false;
  bool int8 = true, int16 = true, int64 = true;  // false only where the plugin says so
  bool ieee_float_controls = false;  // PLAIDML_PLUGIN_DEVICE_IEEE_FLOAT_CONTROLS
  int subgroup_size = 0;  // 0: unknown
  std::string matrix_shapes;  // plaidml_plugin_device_info::matrix_shapes; "" when none
  std::string memory_heaps;

  bool accepts(const std::string& format) const;
};

// Reads a plaidml_plugin_device_info into a DeviceInfo.
DeviceInfo to_device_info(const plaidml_plugin_device_info& raw);

class Device;

class DeviceBuffer {
 public:
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  uint64_t size() const { return size_; }
  plaidml_plugin_buffer handle() const { return handle_; }
  const std::shared_ptr<Device>& device() const { return device_; }

 private:
  friend class Device;
  DeviceBuffer(std::shared_ptr<Device> device, plaidml_plugin_buffer handle, uint64_t size)
      : device_(std::move(device)), handle_(handle), size_(size) {}
  std::shared_ptr<Device> device_;
  plaidml_plugin_buffer handle_;
  uint64_t size_;
};

class Executable {
 public:
  ~Executable();
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;
  plaidml_plugin_executable handle() const { return handle_; }
  size_t kernel_count() const { return kernel_count_; }

 private:
  friend class Device;
  Executable(std::shared_ptr<Device> device, plaidml_plugin_executable handle, size_t kernels)
      : device_(std::move(device)), handle_(handle), kernel_count_(kernels) {}
  std::shared_ptr<Device> device_;
  plaidml_plugin_executable handle_;
  size_t kernel_count_;
};

struct LaunchParams {
  uint32_t kernel = 0;
  int64_t parallel_extent = 1;
  double work = 0;
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> workgroup = {1, 1, 1};
};

class Device : public std::enable_shared_from_this<Device> {
 public:
  // Opens device `index` of `plugin`; id is its selection id ("cpu:0").
  static Expected<std::shared_ptr<Device>> open(
      const plaidml_plugin* plugin, uint32_t index, std::string id,
      const std::vector<std::pair<std::string, std::string>>& options);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const std::string& id() const { return id_; }
  const DeviceInfo& info() const { return info_; }

  // bytes: any size (0 allowed). Out of memory: kOutOfMemory.
  Expected<std::unique_ptr<DeviceBuffer>> allocate(uint64_t bytes);
  // Whether wrap_host works: the plugin offers it (plugin.h).
  bool can_wrap_host() const;
  // A read-only buffer over host memory, with no copy; the caller keeps the memory alive and
  // unchanged while the buffer lives. kUnsupported when the device cannot reach host memory.
  Expected<std::unique_ptr<DeviceBuffer>> wrap_host(const void* data, uint64_t bytes);
  Status write(const DeviceBuffer& buffer, uint64_t offset, const void* data, uint64_t bytes);
  Status read(const DeviceBuffer& buffer, uint64_t offset, void* data, uint64_t bytes);
  Status copy(const DeviceBuffer& src, const DeviceBuffer& dst, uint64_t bytes);

  Expected<std::unique_ptr<Executable>> load(const std::string& format,
                                             const std::vector<uint8_t>& bytes,
                                             const std::vector<std::string>& symbols);
  // buffers: the kernel's arguments in slot order; all must belong to this device.
  Status launch(const Executable& executable, const LaunchParams& params,
                const std::vector<const DeviceBuffer*>& buffers);
  Status synchronize();

 private:
  Device(const plaidml_plugin* plugin, plaidml_plugin_device handle, std::string id)
      : plugin_(plugin), handle_(handle), id_(std::move(id)) {}
  Status check(plaidml_plugin_status status, const char* what) const;
  friend class DeviceBuffer;
  friend class Executable;

  const plaidml_plugin* plugin_;
  plaidml_plugin_device handle_;
  std::string id_;
  DeviceInfo info_;
};

// A plugin status and message as a Status ("device cpu:0: <what>: <plugin message>").
Status plugin_status(const plaidml_plugin* plugin, plaidml_plugin_status status,
                     const std::string& context);

}  // namespace plaidml::devices
