// What a device plugin writes: its driver calls, as subclasses of Driver, Device, Buffer and
// Executable. The scaffold (vtable.h) does the rest of what include/plaidml/plugin.h asks of a
// plugin, once for every device: NULL and struct-size checks, ranges of transfers, artifact
// formats and kernel indexes, the status and message of each failure, no exception leaving a
// call, handle bookkeeping (a freed or foreign handle is INVALID_ARGUMENT, a second free does
// nothing) and releasing what a closed device still holds. docs/devices.md walks through
// writing a device; src/devices/null is the template to copy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plaidml/plugin.h"

namespace plaidml::devices::plugin_support {

// One device as describe_device reports it. A plugin derives its own record with the driver's
// handles. Records are built once, so the strings outlive every call that hands them out.
struct DeviceRecord {
  virtual ~DeviceRecord() = default;
  std::string name;              // "Intel(R) Xeon(R) ..."
  std::string vendor;
  std::string kind;              // "cpu", "gpu", "accelerator"
  std::string artifact_formats;  // comma-separated; load() accepts exactly these
  std::string target;
  std::string memory_heaps;  // free text; empty: none reported
  uint64_t memory_bytes = 0;
  uint64_t max_allocation_bytes = 0;  // 0: no limit beyond memory
  uint64_t local_memory_bytes = 0;
  uint32_t max_workgroup_size = 1;
  uint32_t compute_units = 1;
  uint32_t vector_bits = 32;
  uint32_t flags = 0;  // PLAIDML_PLUGIN_DEVICE_*
  uint32_t subgroup_size = 0;
  std::string matrix_shapes;  // plaidml_plugin_device_info::matrix_shapes; empty: none
};

// The devices a driver sees, or why it sees none: without a driver, runtime or platform the
// status is not OK and why_absent says what is missing, in words a user can act on.
struct Inventory {
  plaidml_plugin_status status = PLAIDML_PLUGIN_OK;
  std::string why_absent;
  std::vector<std::unique_ptr<DeviceRecord>> devices;
};

// Memory of one device. The scaffold checks every range against size before a call reaches
// the driver.
class Buffer {
 public:
  explicit Buffer(uint64_t size) : size_(size) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  uint64_t size() const { return size_; }  // as requested; 0 allowed

 private:
  uint64_t size_;
};

// Loaded code: kernel k of a launch is symbols()[k].
class Executable {
 public:
  explicit Executable(std::vector<std::string> symbols) : symbols_(std::move(symbols)) {}
  virtual ~Executable() = default;
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;
  const std::vector<std::string>& symbols() const { return symbols_; }

 private:
  std::vector<std::string> symbols_;
};

using Options = std::vector<std::pair<std::string, std::string>>;

// An opened device. Every method returns a plugin status; a failure records its message with
// fail() (plugin_errors.h). Exceptions are caught by the scaffold (bad_alloc: OUT_OF_MEMORY).
// Each method may be called from several threads at once; a driver that cannot run them
// concurrently serialises them itself.
class Device {
 public:
  explicit Device(const DeviceRecord& record) : record_(record) {}
  // Closing: waits for what is still running, then frees the driver's objects. The scaffold
  // has freed the device's buffers and executables first.
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  const DeviceRecord& record() const { return record_; }

  // Called with bytes no larger than the record's max_allocation_bytes (when set).
  virtual plaidml_plugin_status allocate(uint64_t bytes, std::unique_ptr<Buffer>* out) = 0;
  // Frees a buffer (default: destroys it). A driver whose launches may still use it defers.
  virtual void free_buffer(std::unique_ptr<Buffer> buffer) { buffer.reset(); }
  // Ranges are inside the buffer, bytes > 0 and data not NULL; copies do not overlap.
  virtual plaidml_plugin_status write(Buffer& buffer, uint64_t offset, const void* data,
                                      uint64_t bytes) = 0;
  virtual plaidml_plugin_status read(Buffer& buffer, uint64_t offset, void* data,
                                     uint64_t bytes) = 0;
  virtual plaidml_plugin_status copy(Buffer& src, uint64_t src_offset, Buffer& dst,
                                     uint64_t dst_offset, uint64_t bytes) = 0;
  // format is one of the record's artifact_formats; symbols are not NULL. A missing symbol is
  // NOT_FOUND, code the driver cannot build DEVICE_ERROR or UNSUPPORTED, with its log.
  virtual plaidml_plugin_status load(std::string_view format, const void* bytes,
                                     uint64_t num_bytes, std::vector<std::string> symbols,
                                     std::unique_ptr<Executable>* out) = 0;
  virtual void unload(std::unique_ptr<Executable> executable) { executable.reset(); }
  // info.kernel indexes the executable's symbols and info.struct_size covers the whole v1
  // struct; buffers are live buffers of this device.
  virtual plaidml_plugin_status launch(Executable& executable,
                                       const plaidml_plugin_launch_info& info,
                                       const std::vector<Buffer*>& buffers) = 0;
  virtual plaidml_plugin_status synchronize() = 0;

 private:
  const DeviceRecord& record_;
};

// The plugin itself: one object per module, alive as long as the module.
class Driver {
 public:
  virtual ~Driver() = default;
  virtual const char* name() const = 0;   // device id prefix: "opencl"
  virtual const char* title() const = 0;  // names the plugin in messages: "OpenCL plugin"
  // The devices, enumerated on first use (thread-safe) and kept for the module's life.
  virtual const Inventory& inventory() = 0;
  // Opens the device of `record` (one of the inventory's). Unknown option keys are ignored.
  virtual plaidml_plugin_status open(const DeviceRecord& record, const Options& options,
                                     std::unique_ptr<Device>* out) = 0;
  // Every call's status passes through here on its way out (Vulkan adds validation errors).
  virtual plaidml_plugin_status finish_call(plaidml_plugin_status status) { return status; }
};

}  // namespace plaidml::devices::plugin_support
