#include "devices/plugin_support/handles.h"

#include <unordered_set>

namespace plaidml::devices::plugin_support {
namespace {

struct OpenDevices {
  std::mutex mutex;
  std::unordered_set<const void*> handles;
};

OpenDevices& open_devices() {
  static auto* devices = new OpenDevices();  // never destroyed: closes may come at exit
  return *devices;
}

template <typename T>
T* find_in(plaidml_plugin_device d,
           const std::unordered_map<const void*, std::unique_ptr<T>>& map, const void* handle) {
  std::lock_guard<std::mutex> lock(d->mutex);
  auto it = map.find(handle);
  return it == map.end() ? nullptr : it->second.get();
}

template <typename T>
std::unique_ptr<T> take_from(plaidml_plugin_device d,
                             std::unordered_map<const void*, std::unique_ptr<T>>& map,
                             const void* handle) {
  std::lock_guard<std::mutex> lock(d->mutex);
  auto it = map.find(handle);
  if (it == map.end()) return nullptr;
  std::unique_ptr<T> out = std::move(it->second);
  map.erase(it);
  return out;
}

}  // namespace

plaidml_plugin_device register_device(std::unique_ptr<Device> device) {
  auto handle = std::make_unique<plaidml_plugin_device_s>();
  handle->device = std::move(device);
  OpenDevices& open = open_devices();
  std::lock_guard<std::mutex> lock(open.mutex);
  open.handles.insert(handle.get());
  return handle.release();
}

std::unique_ptr<plaidml_plugin_device_s> unregister_device(plaidml_plugin_device handle) {
  OpenDevices& open = open_devices();
  std::lock_guard<std::mutex> lock(open.mutex);
  if (open.handles.erase(handle) == 0) return nullptr;
  return std::unique_ptr<plaidml_plugin_device_s>(handle);
}

bool is_open(plaidml_plugin_device handle) {
  OpenDevices& open = open_devices();
  std::lock_guard<std::mutex> lock(open.mutex);
  return open.handles.count(handle) != 0;
}

plaidml_plugin_buffer add_buffer(plaidml_plugin_device d, std::unique_ptr<Buffer> buffer) {
  auto* handle = reinterpret_cast<plaidml_plugin_buffer>(buffer.get());
  std::lock_guard<std::mutex> lock(d->mutex);
  d->buffers.emplace(handle, std::move(buffer));
  return handle;
}

plaidml_plugin_executable add_executable(plaidml_plugin_device d,
                                         std::unique_ptr<Executable> executable) {
  auto* handle = reinterpret_cast<plaidml_plugin_executable>(executable.get());
  std::lock_guard<std::mutex> lock(d->mutex);
  d->executables.emplace(handle, std::move(executable));
  return handle;
}

Buffer* find_buffer(plaidml_plugin_device d, plaidml_plugin_buffer handle) {
  return find_in(d, d->buffers, handle);
}

Executable* find_executable(plaidml_plugin_device d, plaidml_plugin_executable handle) {
  return find_in(d, d->executables, handle);
}

std::unique_ptr<Buffer> take_buffer(plaidml_plugin_device d, plaidml_plugin_buffer handle) {
  return take_from(d, d->buffers, handle);
}

std::unique_ptr<Executable> take_executable(plaidml_plugin_device d,
                                            plaidml_plugin_executable handle) {
  return take_from(d, d->executables, handle);
}

}  // namespace plaidml::devices::plugin_support
