// The plugin ABI's functions over a Driver: arguments and handles checked (checks.h,
// handles.h), then the driver called, every exception caught and every status passed through
// the driver's finish_call.
#include "devices/plugin_support/vtable.h"

#include <string>
#include <tuple>
#include <vector>

#include "devices/plugin_support/checks.h"
#include "devices/plugin_support/handles.h"
#include "devices/plugin_support/plugin_errors.h"

namespace plaidml::devices::plugin_support {
namespace {

Driver* g_driver = nullptr;  // the module's one driver, set by plugin_vtable

// Runs body under guarded(), then through the driver's finish_call.
template <typename Body>
plaidml_plugin_status call(Body&& body) noexcept {
  return guarded(g_driver->title(), [&] { return g_driver->finish_call(body()); });
}

// The calls with no status (close_device, free_buffer, unload) may come from exit handlers,
// after the thread's message (thread-local) is destroyed: they leave it alone, and nothing they
// throw gets out.
template <typename Body>
void quietly(Body&& body) noexcept {
  try {
    body();
  } catch (...) {
  }
}

plaidml_plugin_status check_device(plaidml_plugin_device device) {
  if (auto s = require(device, "device"); s != PLAIDML_PLUGIN_OK) return s;
  if (is_open(device)) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
              std::string("device is not an open device of the ") + g_driver->title() +
                  " (closed already?)");
}

// The live buffer behind a handle, or INVALID_ARGUMENT naming the call's `what`.
plaidml_plugin_status live_buffer(plaidml_plugin_device device, plaidml_plugin_buffer handle,
                                  const char* what, Buffer** out) {
  if (!handle) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, std::string(what) + ": buffer is NULL");
  *out = find_buffer(device, handle);
  if (*out) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
              std::string(what) + ": the buffer is not a live buffer of this device "
                                  "(freed already, or another device's)");
}

plaidml_plugin_status live_executable(plaidml_plugin_device device,
                                      plaidml_plugin_executable handle, Executable** out) {
  if (auto s = require(handle, "executable"); s != PLAIDML_PLUGIN_OK) return s;
  *out = find_executable(device, handle);
  if (*out) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
              "the executable is not loaded on this device (unloaded already, or another "
              "device's)");
}

plaidml_plugin_status find_record(uint32_t index, const DeviceRecord** out) {
  const Inventory& inv = g_driver->inventory();
  if (inv.status != PLAIDML_PLUGIN_OK) return fail(inv.status, inv.why_absent);
  if (index >= inv.devices.size()) {
    return fail(PLAIDML_PLUGIN_NOT_FOUND, std::string("no device ") + std::to_string(index) +
                                              " in the " + g_driver->title() + " (there are " +
                                              std::to_string(inv.devices.size()) + ")");
  }
  *out = inv.devices[index].get();
  return PLAIDML_PLUGIN_OK;
}

const char* last_error_fn() { return last_error(); }

plaidml_plugin_status device_count(uint32_t* out_count) {
  return call([&] {
    if (auto s = require(out_count, "out_count"); s != PLAIDML_PLUGIN_OK) return s;
    const Inventory& inv = g_driver->inventory();
    if (inv.status != PLAIDML_PLUGIN_OK) return fail(inv.status, inv.why_absent);
    *out_count = static_cast<uint32_t>(inv.devices.size());
    return PLAIDML_PLUGIN_OK;
  });
}

plaidml_plugin_status describe_device(uint32_t index, plaidml_plugin_device_info* info) {
  return call([&] {
    if (auto s = require(info, "info"); s != PLAIDML_PLUGIN_OK) return s;
    if (auto s = check_info_size(*info); s != PLAIDML_PLUGIN_OK) return s;
    const DeviceRecord* record = nullptr;
    if (auto s = find_record(index, &record); s != PLAIDML_PLUGIN_OK) return s;
    fill_device_info(*record, info);
    return PLAIDML_PLUGIN_OK;
  });
}

plaidml_plugin_status parse_options(const plaidml_plugin_option* options, size_t n,
                                    Options* out) {
  if (n && !options) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "options is NULL");
  for (size_t i = 0; i < n; ++i) {
    if (!options[i].key || !options[i].value) {
      return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                  "option " + std::to_string(i) + " has a NULL key or value");
    }
    out->emplace_back(options[i].key, options[i].value);
  }
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status open_device(uint32_t index, const plaidml_plugin_option* options,
                                  size_t num_options, plaidml_plugin_device* out_device) {
  return call([&] {
    if (auto s = require(out_device, "out_device"); s != PLAIDML_PLUGIN_OK) return s;
    Options parsed;
    if (auto s = parse_options(options, num_options, &parsed); s != PLAIDML_PLUGIN_OK) return s;
    const DeviceRecord* record = nullptr;
    if (auto s = find_record(index, &record); s != PLAIDML_PLUGIN_OK) return s;
    std::unique_ptr<Device> device;
    if (auto s = g_driver->open(*record, parsed, &device); s != PLAIDML_PLUGIN_OK) return s;
    *out_device = register_device(std::move(device));
    return PLAIDML_PLUGIN_OK;
  });
}

plaidml_plugin_status query_device(plaidml_plugin_device device, plaidml_plugin_device_info* info) {
  return call([&] {
    if (auto s = check_device(device); s != PLAIDML_PLUGIN_OK) return s;
    if (auto s = require(info, "info"); s != PLAIDML_PLUGIN_OK) return s;
    if (auto s = check_info_size(*info); s != PLAIDML_PLUGIN_OK) return s;
    fill_device_info(device->device->record(), info);
    return PLAIDML_PLUGIN_OK;
  });
}

// What the caller left open goes first, executables before buffers, then the device.
void close_device(plaidml_plugin_device handle) {
  quietly([&] {
    std::unique_ptr<plaidml_plugin_device_s> d = unregister_device(handle);
    if (!d) return;  // NULL, or closed already: nothing to do
    for (auto& [key, executable] : d->executables) d->device->unload(std::move(executable));
    for (auto& [key, buffer] : d->buffers) d->device->free_buffer(std::move(buffer));
    d->device.reset();
  });
}

plaidml_plugin_status allocate(plaidml_plugin_device device, uint64_t bytes,
                               plaidml_plugin_buffer* out_buffer) {
  return call([&] {
    if (auto s = check_device(device); s != PLAIDML_PLUGIN_OK) return s;
    if (auto s = require(out_buffer, "out_buffer"); s != PLAIDML_PLUGIN_OK) return s;
    if (auto s = check_allocation(device->device->record(), bytes); s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    std::unique_ptr<Buffer> buffer;
    if (auto s = device->device->allocate(bytes, &buffer); s != PLAIDML_PLUGIN_OK) return s;
    *out_buffer = add_buffer(device, std::move(buffer));
    return PLAIDML_PLUGIN_OK;
  });
}

void free_buffer(plaidml_plugin_device device, plaidml_plugin_buffer handle) {
  quietly([&] {
    if (!handle || !is_open(device)) return;
    // A handle freed already is not found: a second free does nothing.
    if (std::unique_ptr<Buffer> buffer = take_buffer(device, handle)) {
      device->device->free_buffer(std::move(buffer));
    }
  });
}

// The checks shared by write and read; *out is the buffer when the call has bytes to move.
plaidml_plugin_status transfer_target(plaidml_plugin_device device, plaidml_plugin_buffer handle,
                                      const char* what, uint64_t offset, const void* data,
                                      uint64_t bytes, Buffer** out) {
  if (auto s = check_device(device); s != PLAIDML_PLUGIN_OK) return s;
  if (auto s = live_buffer(device, handle, what, out); s != PLAIDML_PLUGIN_OK) return s;
  if (auto s = check_range(what, **out, offset, bytes); s != PLAIDML_PLUGIN_OK) return s;
  if (bytes && !data) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, std::string(what) +
                                                                       ": data is NULL");
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status write(plaidml_plugin_device device, plaidml_plugin_buffer handle,
                            uint64_t offset, const void* data, uint64_t bytes) {
  return call([&] {
    Buffer* buffer = nullptr;
    if (auto s = transfer_target(device, handle, "write", offset, data, bytes, &buffer);
        s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    if (bytes == 0) return PLAIDML_PLUGIN_OK;
    return device->device->write(*buffer, offset, data, bytes);
  });
}

plaidml_plugin_status read(plaidml_plugin_device device, plaidml_plugin_buffer handle,
                           uint64_t offset, void* data, uint64_t bytes) {
  return call([&] {
    Buffer* buffer = nullptr;
    if (auto s = transfer_target(device, handle, "read", offset, data, bytes, &buffer);
        s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    if (bytes == 0) return PLAIDML_PLUGIN_OK;
    return device->device->read(*buffer, offset, data, bytes);
  });
}

plaidml_plugin_status copy(plaidml_plugin_device device, plaidml_plugin_buffer src_handle,
                           uint64_t src_offset, plaidml_plugin_buffer dst_handle,
                           uint64_t dst_offset, uint64_t bytes) {
  return call([&] {
    if (auto s = check_device(device); s != PLAIDML_PLUGIN_OK) return s;
    Buffer *src = nullptr, *dst = nullptr;
    for (auto [handle, what, offset, out] :
         {std::tuple{src_handle, "copy source", src_offset, &src},
          std::tuple{dst_handle, "copy destination", dst_offset, &dst}}) {
      if (auto s = live_buffer(device, handle, what, out); s != PLAIDML_PLUGIN_OK) return s;
      if (auto s = check_range(what, **out, offset, bytes); s != PLAIDML_PLUGIN_OK) return s;
    }
    if (bytes == 0) return PLAIDML_PLUGIN_OK;
    if (auto s = check_no_overlap(src, src_offset, dst, dst_offset, bytes);
        s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    return device->device->copy(*src, src_offset, *dst, dst_offset, bytes);
  });
}

plaidml_plugin_status load(plaidml_plugin_device device, const char* format, const void* bytes,
                           uint64_t num_bytes, const char* const* symbols, size_t num_symbols,
                           plaidml_plugin_executable* out_executable) {
  return call([&] {
    if (auto s = check_device(device); s != PLAIDML_PLUGIN_OK) return s;
    if (auto s = require(format, "format"); s != PLAIDML_PLUGIN_OK) return s;
    if (auto s = require(out_executable, "out_executable"); s != PLAIDML_PLUGIN_OK) return s;
    if (num_bytes && !bytes) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "bytes is NULL");
    if (num_symbols && !symbols) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "symbols is NULL");
    if (auto s = check_format(device->device->record(), format); s != PLAIDML_PLUGIN_OK) return s;
    std::vector<std::string> names;
    for (size_t i = 0; i < num_symbols; ++i) {
      if (!symbols[i]) {
        return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "symbol " + std::to_string(i) + " is NULL");
      }
      names.emplace_back(symbols[i]);
    }
    std::unique_ptr<Executable> executable;
    if (auto s = device->device->load(format, bytes, num_bytes, std::move(names), &executable);
        s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    *out_executable = add_executable(device, std::move(executable));
    return PLAIDML_PLUGIN_OK;
  });
}

void unload(plaidml_plugin_device device, plaidml_plugin_executable handle) {
  quietly([&] {
    if (!handle || !is_open(device)) return;
    if (std::unique_ptr<Executable> executable = take_executable(device, handle)) {
      device->device->unload(std::move(executable));
    }
  });
}

plaidml_plugin_status launch(plaidml_plugin_device device, plaidml_plugin_executable handle,
                             const plaidml_plugin_launch_info* info,
                             const plaidml_plugin_buffer* buffers, size_t num_buffers) {
  return call([&] {
    if (auto s = check_device(device); s != PLAIDML_PLUGIN_OK) return s;
    Executable* executable = nullptr;
    if (auto s = live_executable(device, handle, &executable); s != PLAIDML_PLUGIN_OK) return s;
    if (auto s = require(info, "launch info"); s != PLAIDML_PLUGIN_OK) return s;
    if (auto s = check_launch(*info, *executable); s != PLAIDML_PLUGIN_OK) return s;
    if (num_buffers && !buffers) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "buffers is NULL");
    std::vector<Buffer*> args(num_buffers);
    for (size_t i = 0; i < num_buffers; ++i) {
      if (auto s = live_buffer(device, buffers[i], "launch", &args[i]); s != PLAIDML_PLUGIN_OK) {
        return s;
      }
    }
    return device->device->launch(*executable, *info, args);
  });
}

plaidml_plugin_status synchronize(plaidml_plugin_device device) {
  return call([&] {
    if (auto s = check_device(device); s != PLAIDML_PLUGIN_OK) return s;
    return device->device->synchronize();
  });
}

}  // namespace

const plaidml_plugin* plugin_vtable(Driver& driver) {
  static Driver* const fixed = (g_driver = &driver);
  static const plaidml_plugin vtable = {
      PLAIDML_PLUGIN_ABI_VERSION,
      sizeof(plaidml_plugin),
      fixed->name(),
      last_error_fn,
      device_count,
      describe_device,
      open_device,
      query_device,
      close_device,
      allocate,
      free_buffer,
      write,
      read,
      copy,
      load,
      unload,
      launch,
      synchronize,
      nullptr,  // wrap_host: a plugin's kernels reach device memory only
  };
  return &vtable;
}

}  // namespace plaidml::devices::plugin_support
