#include "devices/device.h"

#include <cstddef>

#include <algorithm>
#include <new>
#include <sstream>

namespace plaidml::devices {
namespace {

// Plugin codes are plaidml_status values; anything a plugin invents counts as a device error.
StatusCode to_status_code(plaidml_plugin_status status) {
  switch (status) {
    case PLAIDML_PLUGIN_INVALID_ARGUMENT:
      return StatusCode::kInvalidArgument;
    case PLAIDML_PLUGIN_NOT_FOUND:
      return StatusCode::kNotFound;
    case PLAIDML_PLUGIN_UNSUPPORTED:
      return StatusCode::kUnsupported;
    case PLAIDML_PLUGIN_OUT_OF_MEMORY:
      return StatusCode::kOutOfMemory;
    case PLAIDML_PLUGIN_INTERNAL:
      return StatusCode::kInternal;
    default:
      return StatusCode::kDeviceError;
  }
}

std::string safe(const char* s) { return s ? s : ""; }

}  // namespace

bool DeviceInfo::accepts(const std::string& format) const {
  return std::find(formats.begin(), formats.end(), format) != formats.end();
}

DeviceInfo to_device_info(const plaidml_plugin_device_info& raw) {
  DeviceInfo info;
  info.name = safe(raw.name);
  info.vendor = safe(raw.vendor);
  info.kind = safe(raw.kind);
  info.target = safe(raw.target);
  std::stringstream formats(safe(raw.artifact_formats));
  for (std::string f; std::getline(formats, f, ',');) {
    f.erase(0, f.find_first_not_of(' '));
    f.erase(f.find_last_not_of(' ') + 1);
    if (!f.empty()) info.formats.push_back(f);
  }
  info.memory_bytes = static_cast<int64_t>(raw.memory_bytes);
  info.max_allocation_bytes = static_cast<int64_t>(raw.max_allocation_bytes);
  info.local_memory_bytes = static_cast<int64_t>(raw.local_memory_bytes);
  info.max_workgroup_size = static_cast<int>(raw.max_workgroup_size);
  info.compute_units = static_cast<int>(raw.compute_units);
  info.vector_bits = static_cast<int>(raw.vector_bits);
  info.fp16 = raw.flags & PLAIDML_PLUGIN_DEVICE_FP16;
  info.fp64 = raw.flags & PLAIDML_PLUGIN_DEVICE_FP64;
  info.unified_memory = raw.flags & PLAIDML_PLUGIN_DEVICE_UNIFIED_MEMORY;
  info.ieee_float_controls = raw.flags & PLAIDML_PLUGIN_DEVICE_IEEE_FLOAT_CONTROLS;
  if (raw.flags & PLAIDML_PLUGIN_DEVICE_INT_LIMITS) {
    info.int8 = raw.flags & PLAIDML_PLUGIN_DEVICE_INT8;
    info.int16 = raw.flags & PLAIDML_PLUGIN_DEVICE_INT16;
    info.int64 = raw.flags & PLAIDML_PLUGIN_DEVICE_INT64;
  }
  if (raw.struct_size >= offsetof(plaidml_plugin_device_info, memory_heaps) + sizeof(char*)) {
    info.subgroup_size = static_cast<int>(raw.subgroup_size);
    info.memory_heaps = safe(raw.memory_heaps);
  }
  if (raw.struct_size >= offsetof(plaidml_plugin_device_info, matrix_shapes) + sizeof(char*)) {
    info.matrix_shapes = safe(raw.matrix_shapes);
  }
  return info;
}

Status plugin_status(const plaidml_plugin* plugin, plaidml_plugin_status status,
                     const std::string& context) {
  if (status == PLAIDML_PLUGIN_OK) return Status::ok();
  std::string message = plugin->last_error ? safe(plugin->last_error()) : "";
  if (message.empty()) message = "failed with plugin status " + std::to_string(status);
  return Status(to_status_code(status), context + message);
}

Expected<std::shared_ptr<Device>> Device::open(
    const plaidml_plugin* plugin, uint32_t index, std::string id,
    const std::vector<std::pair<std::string, std::string>>& options) {
  std::vector<plaidml_plugin_option> raw;
  for (const auto& [k, v] : options) raw.push_back({k.c_str(), v.c_str()});
  plaidml_plugin_device handle = nullptr;
  PLAIDML_TRY(plugin_status(plugin, plugin->open_device(index, raw.data(), raw.size(), &handle),
                            "cannot open device " + id + ": "));
  std::shared_ptr<Device> device(new Device(plugin, handle, std::move(id)));
  plaidml_plugin_device_info raw_info{};
  raw_info.struct_size = sizeof(raw_info);
  PLAIDML_TRY(device->check(plugin->query_device(handle, &raw_info), "query"));
  device->info_ = to_device_info(raw_info);
  return device;
}

Device::~Device() { plugin_->close_device(handle_); }

DeviceBuffer::~DeviceBuffer() { device_->plugin_->free_buffer(device_->handle_, handle_); }

Executable::~Executable() { device_->plugin_->unload(device_->handle_, handle_); }

// The message is built only on failure: building it allocates, and after a call that made
// something (a buffer, an executable) a bad_alloc there would lose its handle.
Status Device::check(plaidml_plugin_status status, const char* what) const {
  if (status == PLAIDML_PLUGIN_OK) return Status::ok();
  return plugin_status(plugin_, status, "device " + id_ + ": " + what + ": ");
}

Expected<std::unique_ptr<DeviceBuffer>> Device::allocate(uint64_t bytes) {
  plaidml_plugin_buffer handle = nullptr;
  PLAIDML_TRY(check(plugin_->allocate(handle_, bytes, &handle), "allocate"));
  try {
    return std::unique_ptr<DeviceBuffer>(new DeviceBuffer(shared_from_this(), handle, bytes));
  } catch (const std::bad_alloc&) {
    plugin_->free_buffer(handle_, handle);
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

bool Device::can_wrap_host() const {
  return plugin_->struct_size >= offsetof(plaidml_plugin, wrap_host) + sizeof(plugin_->wrap_host) &&
         plugin_->wrap_host != nullptr;
}

Expected<std::unique_ptr<DeviceBuffer>> Device::wrap_host(const void* data, uint64_t bytes) {
  if (!can_wrap_host()) {
    return make_error(StatusCode::kUnsupported, "device {} cannot use host memory in place", id_);
  }
  plaidml_plugin_buffer handle = nullptr;
  PLAIDML_TRY(check(plugin_->wrap_host(handle_, data, bytes, &handle), "wrap_host"));
  try {
    return std::unique_ptr<DeviceBuffer>(new DeviceBuffer(shared_from_this(), handle, bytes));
  } catch (const std::bad_alloc&) {
    plugin_->free_buffer(handle_, handle);
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

Status Device::write(const DeviceBuffer& buffer, uint64_t offset, const void* data,
                     uint64_t bytes) {
  return check(plugin_->write(handle_, buffer.handle(), offset, data, bytes), "write");
}

Status Device::read(const DeviceBuffer& buffer, uint64_t offset, void* data, uint64_t bytes) {
  return check(plugin_->read(handle_, buffer.handle(), offset, data, bytes), "read");
}

Status Device::copy(const DeviceBuffer& src, const DeviceBuffer& dst, uint64_t bytes) {
  return check(plugin_->copy(handle_, src.handle(), 0, dst.handle(), 0, bytes), "copy");
}

Expected<std::unique_ptr<Executable>> Device::load(const std::string& format,
                                                   const std::vector<uint8_t>& bytes,
                                                   const std::vector<std::string>& symbols) {
  std::vector<const char*> names;
  names.reserve(symbols.size());
  for (const auto& s : symbols) names.push_back(s.c_str());
  plaidml_plugin_executable handle = nullptr;
  PLAIDML_TRY(check(plugin_->load(handle_, format.c_str(), bytes.data(), bytes.size(), names.data(),
                                  names.size(), &handle),
                    "load"));
  try {
    return std::unique_ptr<Executable>(new Executable(shared_from_this(), handle, symbols.size()));
  } catch (const std::bad_alloc&) {
    plugin_->unload(handle_, handle);
    return Status(StatusCode::kOutOfMemory, "out of host memory");
  }
}

Status Device::launch(const Executable& executable, const LaunchParams& params,
                      const std::vector<const DeviceBuffer*>& buffers) {
  std::vector<plaidml_plugin_buffer> handles;
  handles.reserve(buffers.size());
  for (const DeviceBuffer* b : buffers) {
    if (!b || b->device().get() != this) {
      return make_error(StatusCode::kInternal, "device {}: launch with a foreign buffer", id_);
    }
    handles.push_back(b->handle());
  }
  plaidml_plugin_launch_info info{};
  info.struct_size = sizeof(info);
  info.kernel = params.kernel;
  info.parallel_extent = params.parallel_extent;
  info.work = params.work;
  for (int i = 0; i < 3; ++i) {
    info.grid[i] = params.grid[i];
    info.workgroup[i] = params.workgroup[i];
  }
  return check(plugin_->launch(handle_, executable.handle(), &info, handles.data(), handles.size()),
               "launch");
}

Status Device::synchronize() { return check(plugin_->synchronize(handle_), "synchronize"); }

}  // namespace plaidml::devices
