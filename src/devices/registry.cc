#include "devices/registry.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "core/base/env.h"
#include "core/base/folder.h"
#include "core/base/logging.h"
#include "devices/cpu/cpu_device.h"

namespace plaidml::devices {
namespace fs = std::filesystem;
namespace {

constexpr const char* kModulePrefix = "libplaidml_device_";
constexpr const char* kModuleSuffix = ".so";

// The built-in devices, in listing order: the only place that names them.
std::vector<const plaidml_plugin*> builtin_plugins() { return {cpu::cpu_plugin()}; }

Expected<const plaidml_plugin*> check_plugin(const std::string& path, const plaidml_plugin* p) {
  if (!p) {
    return make_error(StatusCode::kUnsupported,
                      "plugin {}: plaidml_plugin_get_v1 returned NULL (it cannot run here)", path);
  }
  if (p->abi_version != PLAIDML_PLUGIN_ABI_VERSION) {
    return make_error(StatusCode::kUnsupported,
                      "plugin {}: plugin ABI version {}, this plaidml supports version {}", path,
                      p->abi_version, PLAIDML_PLUGIN_ABI_VERSION);
  }
  if (p->struct_size < PLAIDML_PLUGIN_REQUIRED_SIZE) {
    return make_error(StatusCode::kUnsupported,
                      "plugin {}: vtable of {} bytes, ABI version {} needs {}", path,
                      p->struct_size, PLAIDML_PLUGIN_ABI_VERSION, PLAIDML_PLUGIN_REQUIRED_SIZE);
  }
  if (!p->name || !*p->name || !p->last_error || !p->device_count || !p->describe_device ||
      !p->open_device || !p->query_device || !p->close_device || !p->allocate || !p->free_buffer ||
      !p->write || !p->read || !p->copy || !p->load || !p->unload || !p->launch ||
      !p->synchronize) {
    return make_error(StatusCode::kUnsupported, "plugin {}: vtable has NULL entries", path);
  }
  return p;
}

Expected<const plaidml_plugin*> dlopen_plugin(const std::string& path) {
  if (!fs::exists(path)) return make_error(StatusCode::kNotFound, "plugin {}: no such file", path);
  // RTLD_LOCAL keeps a plugin's driver symbols to itself; modules are never closed because
  // their threads and thread-locals may outlive any point where closing is safe.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    return make_error(StatusCode::kUnsupported, "plugin {}: cannot load: {}", path,
                      err ? err : "unknown dlopen error");
  }
  auto entry = reinterpret_cast<plaidml_plugin_get_v1_fn>(dlsym(handle, PLAIDML_PLUGIN_ENTRY_V1));
  if (!entry) {
    return make_error(StatusCode::kUnsupported,
                      "plugin {}: not a plaidml device plugin (no {} symbol)", path,
                      PLAIDML_PLUGIN_ENTRY_V1);
  }
  return check_plugin(path, entry());
}

// "libplaidml_device_opencl.so" -> "opencl": the id of a module that failed as a whole.
std::string module_stem(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  if (name.rfind(kModulePrefix, 0) == 0) name = name.substr(std::string(kModulePrefix).size());
  auto dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

bool is_module_name(const std::string& name) {
  std::string prefix = kModulePrefix, suffix = kModuleSuffix;
  return name.size() > prefix.size() + suffix.size() && name.rfind(prefix, 0) == 0 &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The module files of the search path, in order, each once.
std::vector<std::string> find_modules(const std::vector<std::string>& search_dirs) {
  std::vector<std::string> modules;
  for (const auto& dir : search_dirs) {
    std::error_code ec;
    if (fs::is_regular_file(dir, ec)) {
      modules.push_back(dir);
      continue;
    }
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<std::string> found;
    for (const std::string& name : folder_entries(dir)) {
      if (is_module_name(name)) found.push_back((fs::path(dir) / name).string());
    }
    std::sort(found.begin(), found.end());
    modules.insert(modules.end(), found.begin(), found.end());
  }
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (const auto& m : modules) {
    std::error_code ec;
    auto canonical = fs::weakly_canonical(m, ec).string();
    if (seen.insert(ec ? m : canonical).second) unique.push_back(m);
  }
  return unique;
}

DeviceEntry unavailable(std::string id, std::string path, std::string reason) {
  DeviceEntry e;
  e.id = std::move(id);
  e.module_path = std::move(path);
  e.unavailable_reason = std::move(reason);
  return e;
}

// Appends one entry per device of a plugin (or one unavailable entry for the whole plugin).
void add_plugin_devices(const plaidml_plugin* p, const std::string& path,
                        std::vector<DeviceEntry>* out) {
  uint32_t count = 0;
  Status s = plugin_status(p, p->device_count(&count), "");
  // A plugin out of host memory has not found its devices missing: the listing fails (and the
  // next call lists again) instead of marking them unavailable, for good, with that reason.
  throw_if_out_of_memory(s);
  if (!s.is_ok()) {
    logger().info("device plugin '{}' ({}) has no devices: {}", p->name, path, s.message());
    out->push_back(unavailable(p->name, path, s.message()));
    return;
  }
  for (uint32_t i = 0; i < count; ++i) {
    std::string id = std::string(p->name) + ":" + std::to_string(i);
    plaidml_plugin_device_info raw{};
    raw.struct_size = sizeof(raw);
    Status d = plugin_status(p, p->describe_device(i, &raw), "");
    throw_if_out_of_memory(d);
    if (!d.is_ok()) {
      out->push_back(unavailable(id, path, d.message()));
      continue;
    }
    DeviceEntry e;
    e.id = id;
    e.available = true;
    e.module_path = path;
    e.info = to_device_info(raw);
    e.plugin = p;
    e.index = i;
    out->push_back(std::move(e));
  }
}

std::string library_dir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&builtin_plugins), &info) || !info.dli_fname) return "";
  std::error_code ec;
  auto path = fs::weakly_canonical(info.dli_fname, ec);
  return ec ? "" : path.parent_path().string();
}

}  // namespace

Expected<const plaidml_plugin*> load_plugin_module(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, Expected<const plaidml_plugin*>> modules;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = modules.find(path);
  if (it == modules.end()) it = modules.emplace(path, dlopen_plugin(path)).first;
  return it->second;
}

std::vector<std::string> plugin_search_dirs() {
  std::vector<std::string> dirs;
  std::string libdir = library_dir();
  if (!libdir.empty()) dirs.push_back(libdir + "/plaidml/devices");
  std::string path = env_string("PLAIDML_PLUGIN_PATH");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) dirs.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return dirs;
}

std::vector<DeviceEntry> list_devices(const std::vector<std::string>& search_dirs) {
  std::vector<DeviceEntry> out;
  std::set<std::string> names;
  for (const plaidml_plugin* p : builtin_plugins()) {
    names.insert(p->name);
    add_plugin_devices(p, "", &out);
  }
  for (const auto& path : find_modules(search_dirs)) {
    auto plugin = load_plugin_module(path);
    if (!plugin) {
      logger().warn("skipping device plugin: {}", plugin.status().message());
      out.push_back(unavailable(module_stem(path), path, plugin.status().message()));
      continue;
    }
    const plaidml_plugin* p = *plugin;
    if (!names.insert(p->name).second) {
      out.push_back(unavailable(
          p->name, path,
          fmt::format("plugin {}: a plugin named '{}' is already loaded", path, p->name)));
      continue;
    }
    add_plugin_devices(p, path, &out);
  }
  return out;
}

std::vector<DeviceEntry> list_devices() { return list_devices(plugin_search_dirs()); }

std::vector<DeviceEntry> list_builtin_devices() { return list_devices({}); }

Expected<std::shared_ptr<Device>> open_device(const DeviceEntry& entry,
                                              const DeviceOptions& options) {
  if (!entry.available || !entry.plugin) {
    return make_error(StatusCode::kNotFound, "device {} is unavailable: {}", entry.id,
                      entry.unavailable_reason);
  }
  return Device::open(entry.plugin, entry.index, entry.id, options);
}

}  // namespace plaidml::devices
