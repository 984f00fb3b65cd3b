#include "devices/opencl/cl_device.h"

#include <memory>

#include "devices/opencl/cl_errors.h"

namespace plaidml::devices::opencl {
namespace {

cl_command_queue create_queue(const ClDeviceRecord& r, cl_context context, cl_int* err) {
  // clCreateCommandQueueWithProperties exists from OpenCL 2.0; 1.x platforms only have the
  // older entry point.
  if (platform_api_version(r) >= 200) {
    return clCreateCommandQueueWithProperties(context, r.device, nullptr, err);
  }
  return clCreateCommandQueue(context, r.device, 0, err);
}

void release(plaidml_plugin_device_s* d) {
  if (d->queue) clReleaseCommandQueue(d->queue);
  if (d->context) clReleaseContext(d->context);
  delete d;
}

}  // namespace

plaidml_plugin_status device_count(uint32_t* out_count) {
  return guarded([&] {
    if (!out_count) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "out_count is NULL");
    const ClInventory& inv = inventory();
    if (inv.status != PLAIDML_PLUGIN_OK) return fail(inv.status, inv.error);
    *out_count = static_cast<uint32_t>(inv.devices.size());
    return PLAIDML_PLUGIN_OK;
  });
}

plaidml_plugin_status describe_device(uint32_t index, plaidml_plugin_device_info* info) {
  return guarded([&] {
    if (!info) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "info is NULL");
    const ClDeviceRecord* record = nullptr;
    if (auto s = find_device(index, &record); s != PLAIDML_PLUGIN_OK) return s;
    fill_device_info(*record, info);
    return PLAIDML_PLUGIN_OK;
  });
}

// OpenCL devices take no options today; unknown keys are ignored, as plugin.h says.
plaidml_plugin_status open_device(uint32_t index, const plaidml_plugin_option* /*options*/,
                                  size_t /*num_options*/, plaidml_plugin_device* out_device) {
  return guarded([&] {
    if (!out_device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "out_device is NULL");
    const ClDeviceRecord* record = nullptr;
    if (auto s = find_device(index, &record); s != PLAIDML_PLUGIN_OK) return s;
    auto d = std::make_unique<plaidml_plugin_device_s>();
    d->record = record;
    cl_int err = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     reinterpret_cast<cl_context_properties>(record->platform), 0};
    d->context = clCreateContext(props, 1, &record->device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) return fail_cl("clCreateContext", err, record->name);
    d->queue = create_queue(*record, d->context, &err);
    if (err != CL_SUCCESS) {
      release(d.release());
      return fail_cl("clCreateCommandQueue", err, record->name);
    }
    *out_device = d.release();
    return PLAIDML_PLUGIN_OK;
  });
}

plaidml_plugin_status query_device(plaidml_plugin_device device, plaidml_plugin_device_info* info) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    if (!info) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "info is NULL");
    fill_device_info(*device->record, info);
    return PLAIDML_PLUGIN_OK;
  });
}

void close_device(plaidml_plugin_device device) {
  if (!device) return;
  // Pending work finishes before the queue goes: plaidml frees buffers first, but launches may
  // still be running on them.
  clFinish(device->queue);
  release(device);
}

}  // namespace plaidml::devices::opencl
