// The plugin's C entry point: the vtable over the OpenCL device, buffer, program and launch
// layers. The only symbol this module exports.
#include "devices/opencl/cl_buffer.h"
#include "devices/opencl/cl_device.h"
#include "devices/opencl/cl_errors.h"
#include "devices/opencl/cl_launch.h"
#include "devices/opencl/cl_program.h"

namespace plaidml::devices::opencl {
namespace {

const plaidml_plugin kPlugin = {
    PLAIDML_PLUGIN_ABI_VERSION,
    sizeof(plaidml_plugin),
    "opencl",
    last_error,
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
    nullptr,  // wrap_host: kernels reach device memory only
};

}  // namespace
}  // namespace plaidml::devices::opencl

extern "C" __attribute__((visibility("default"))) const plaidml_plugin* plaidml_plugin_get_v1(
    void) {
  return &plaidml::devices::opencl::kPlugin;
}
