// Launching OpenCL kernels on the device's in-order queue, and waiting for them.

#include <cstddef>
#include <string>

#include "devices/opencl/cl_errors.h"
#include "devices/opencl/cl_handles.h"

namespace plaidml::devices::opencl {
namespace {

struct NdRange {
  size_t global[3] = {1, 1, 1};
  size_t local[3] = {1, 1, 1};
  bool has_local = true;  // false: the driver picks the workgroup size
  bool empty = false;     // some grid dimension is 0: nothing to run
};

std::string dims(const uint32_t v[3]) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

// global = grid * workgroup per dimension; an all-zero workgroup means grid is the global size.
plaidml_plugin_status nd_range(const plaidml_plugin_launch_info& info, NdRange* out) {
  const uint32_t* wg = info.workgroup;
  bool all_zero = wg[0] == 0 && wg[1] == 0 && wg[2] == 0;
  bool any_zero = wg[0] == 0 || wg[1] == 0 || wg[2] == 0;
  if (any_zero && !all_zero) {
    return fail(
        PLAIDML_PLUGIN_INVALID_ARGUMENT,
        "workgroup " + dims(wg) + " has a zero dimension (all zero lets the driver choose)");
  }
  out->has_local = !all_zero;
  for (int d = 0; d < 3; ++d) {
    if (info.grid[d] == 0) out->empty = true;
    out->local[d] = all_zero ? 1 : wg[d];
    out->global[d] = static_cast<size_t>(info.grid[d]) * out->local[d];
  }
  return PLAIDML_PLUGIN_OK;
}

std::string kernel_limit(const ClExecutable& exe, uint32_t k, cl_device_id device) {
  size_t max = 0;
  clGetKernelWorkGroupInfo(exe.kernels[k], device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(max), &max,
                           nullptr);
  return "kernel '" + exe.symbols()[k] + "' allows workgroups of at most " + std::to_string(max) +
         " threads";
}

// The kernel takes as many arguments as it is given buffers.
plaidml_plugin_status check_arguments(const ClExecutable& exe, uint32_t k, size_t num_buffers) {
  if (num_buffers == exe.num_args[k]) return PLAIDML_PLUGIN_OK;
  return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
              "kernel '" + exe.symbols()[k] + "' takes " + std::to_string(exe.num_args[k]) +
                  " arguments, got " + std::to_string(num_buffers) + " buffers");
}

}  // namespace

plaidml_plugin_status ClDevice::launch(ps::Executable& executable,
                                      const plaidml_plugin_launch_info& info,
                                      const std::vector<ps::Buffer*>& buffers) {
  auto& exe = static_cast<ClExecutable&>(executable);
  if (auto s = check_arguments(exe, info.kernel, buffers.size()); s != PLAIDML_PLUGIN_OK) {
    return s;
  }
  NdRange range;
  if (auto s = nd_range(info, &range); s != PLAIDML_PLUGIN_OK) return s;
  if (range.empty) return PLAIDML_PLUGIN_OK;
  cl_kernel kernel = exe.kernels[info.kernel];
  const std::string& name = exe.symbols()[info.kernel];
  std::lock_guard<std::mutex> lock(launch_mutex);
  for (size_t i = 0; i < buffers.size(); ++i) {
    cl_mem mem = static_cast<ClBuffer*>(buffers[i])->mem;
    cl_int err = clSetKernelArg(kernel, static_cast<cl_uint>(i), sizeof(cl_mem), &mem);
    if (err != CL_SUCCESS) {
      return fail_cl("clSetKernelArg", err, "kernel '" + name + "' argument " + std::to_string(i));
    }
  }
  // The in-order queue orders this launch after every earlier command on the device.
  cl_int err = clEnqueueNDRangeKernel(queue, kernel, 3, nullptr, range.global,
                                      range.has_local ? range.local : nullptr, 0, nullptr, nullptr);
  if (err == CL_INVALID_WORK_GROUP_SIZE) {
    return fail_cl("clEnqueueNDRangeKernel", err,
                   "workgroup " + dims(info.workgroup) + ": " +
                       kernel_limit(exe, info.kernel, cl.device));
  }
  if (err != CL_SUCCESS) {
    return fail_cl("clEnqueueNDRangeKernel", err,
                   "kernel '" + name + "', grid " + dims(info.grid) + ", workgroup " +
                       dims(info.workgroup));
  }
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status ClDevice::synchronize() {
  // Kernel failures that happen after enqueue surface here.
  cl_int err = clFinish(queue);
  if (err != CL_SUCCESS) return fail_cl("clFinish", err, cl.name);
  return PLAIDML_PLUGIN_OK;
}

}  // namespace plaidml::devices::opencl
