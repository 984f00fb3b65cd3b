// Opening and closing an OpenCL device: its context and in-order queue.
#include <memory>

#include "devices/opencl/cl_errors.h"
#include "devices/opencl/cl_handles.h"

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

}  // namespace

plaidml_plugin_status ClDevice::open() {
  cl_int err = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   reinterpret_cast<cl_context_properties>(cl.platform), 0};
  context = clCreateContext(props, 1, &cl.device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) return fail_cl("clCreateContext", err, cl.name);
  queue = create_queue(cl, context, &err);
  if (err != CL_SUCCESS) return fail_cl("clCreateCommandQueue", err, cl.name);
  return PLAIDML_PLUGIN_OK;
}

ClDevice::~ClDevice() {
  // Pending work finishes before the queue goes: the scaffold frees buffers first, but
  // launches may still be running on them.
  if (queue) {
    clFinish(queue);
    clReleaseCommandQueue(queue);
  }
  if (context) clReleaseContext(context);
}

}  // namespace plaidml::devices::opencl
