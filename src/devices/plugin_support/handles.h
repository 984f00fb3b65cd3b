// The opaque handles of include/plaidml/plugin.h as the scaffold defines them, and the
// bookkeeping that makes a freed, closed or foreign handle an error instead of a crash: every
// open device, and every live buffer and executable of a device, is registered; a handle that
// is not is refused before the driver sees it.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

#include "devices/plugin_support/driver.h"
#include "plaidml/plugin.h"

struct plaidml_plugin_device_s {
  std::unique_ptr<plaidml::devices::plugin_support::Device> device;
  std::mutex mutex;  // guards the two maps (the driver guards its own state)
  std::unordered_map<const void*, std::unique_ptr<plaidml::devices::plugin_support::Buffer>>
      buffers;
  std::unordered_map<const void*, std::unique_ptr<plaidml::devices::plugin_support::Executable>>
      executables;
};

namespace plaidml::devices::plugin_support {

// Registers an opened device and returns its handle.
plaidml_plugin_device register_device(std::unique_ptr<Device> device);
// Takes an open device out of the registry; nullptr if the handle is not one (closed twice).
std::unique_ptr<plaidml_plugin_device_s> unregister_device(plaidml_plugin_device handle);
// Whether the handle is an open device.
bool is_open(plaidml_plugin_device handle);

// The handle of a buffer or executable the device now owns.
plaidml_plugin_buffer add_buffer(plaidml_plugin_device d, std::unique_ptr<Buffer> buffer);
plaidml_plugin_executable add_executable(plaidml_plugin_device d,
                                         std::unique_ptr<Executable> executable);
// A live buffer or executable of the device; nullptr if the handle is not one.
Buffer* find_buffer(plaidml_plugin_device d, plaidml_plugin_buffer handle);
Executable* find_executable(plaidml_plugin_device d, plaidml_plugin_executable handle);
// Takes one out of the device's; nullptr if the handle is not live (freed twice).
std::unique_ptr<Buffer> take_buffer(plaidml_plugin_device d, plaidml_plugin_buffer handle);
std::unique_ptr<Executable> take_executable(plaidml_plugin_device d,
                                            plaidml_plugin_executable handle);

}  // namespace plaidml::devices::plugin_support
