// The list of devices: the built-in CPU first, then every plugin module found in
// ${libdir}/plaidml/devices and the directories of PLAIDML_PLUGIN_PATH (':'-separated; a file
// path there names one module). A module is loaded once per process (dlopen, never closed) and
// checked: it must export plaidml_plugin_get_v1 and return a vtable of this ABI version. A
// module or driver that fails is still listed, as unavailable with the reason, so that
// `plaidml devices` can tell the user why a GPU is missing.
// Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "devices/device.h"
#include "plaidml/plugin.h"

namespace plaidml::devices {

struct DeviceEntry {
  std::string id;  // "cpu:0", "opencl:1"; for a plugin that failed as a whole: "opencl"
  bool available = false;
  std::string unavailable_reason;
  std::string module_path;  // "" for built-in devices
  DeviceInfo info;          // from describe_device, when available
  const plaidml_plugin* plugin = nullptr;
  uint32_t index = 0;
};

using DeviceOptions = std::vector<std::pair<std::string, std::string>>;

// The built-in devices only (today the CPU). Loads no plugin module: a process that only uses
// the CPU never dlopens a GPU driver (PoCL, for one, installs a SIGFPE handler when loaded).
std::vector<DeviceEntry> list_builtin_devices();

// Every device, built-ins first. search_dirs: as plugin_search_dirs() gives.
std::vector<DeviceEntry> list_devices(const std::vector<std::string>& search_dirs);
std::vector<DeviceEntry> list_devices();

// ${libdir}/plaidml/devices (the directory of the library holding this code), then the entries
// of PLAIDML_PLUGIN_PATH.
std::vector<std::string> plugin_search_dirs();

// Opens an available entry. An unavailable one: kNotFound with its reason.
Expected<std::shared_ptr<Device>> open_device(const DeviceEntry& entry,
                                              const DeviceOptions& options);

// Loads and checks one plugin module (cached per path). Errors (kNotFound for a missing
// file, kUnsupported for a bad module or ABI) name the path and the reason.
Expected<const plaidml_plugin*> load_plugin_module(const std::string& path);

}  // namespace plaidml::devices
