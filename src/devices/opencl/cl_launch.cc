#include "devices/opencl/cl_launch.h"

#include <cstddef>
#include <string>

#include "devices/opencl/cl_errors.h"

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

std::string kernel_limit(const plaidml_plugin_executable_s& exe, uint32_t k, cl_device_id device) {
  size_t max = 0;
  clGetKernelWorkGroupInfo(exe.kernels[k], device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(max), &max,
                           nullptr);
  return "kernel '" + exe.symbols[k] + "' allows workgroups of at most " + std::to_string(max) +
         " threads";
}

plaidml_plugin_status check_launch(plaidml_plugin_executable executable,
                                   const plaidml_plugin_launch_info* info,
                                   const plaidml_plugin_buffer* buffers, size_t num_buffers) {
  if (!executable || !info) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "launch: NULL argument");
  if (info->struct_size <
      offsetof(plaidml_plugin_launch_info, workgroup) + sizeof(info->workgroup)) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "launch info too small for grid and workgroup");
  }
  if (info->kernel >= executable->kernels.size()) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                "kernel index " + std::to_string(info->kernel) + " out of range (" +
                    std::to_string(executable->kernels.size()) + " kernels)");
  }
  if (num_buffers != executable->num_args[info->kernel]) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                "kernel '" + executable->symbols[info->kernel] + "' takes " +
                    std::to_string(executable->num_args[info->kernel]) + " arguments, got " +
                    std::to_string(num_buffers) + " buffers");
  }
  for (size_t i = 0; i < num_buffers; ++i) {
    if (!buffers[i]) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "launch: buffer is NULL");
  }
  return PLAIDML_PLUGIN_OK;
}

}  // namespace

plaidml_plugin_status launch(plaidml_plugin_device device, plaidml_plugin_executable executable,
                             const plaidml_plugin_launch_info* info,
                             const plaidml_plugin_buffer* buffers, size_t num_buffers) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    if (auto s = check_launch(executable, info, buffers, num_buffers); s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    NdRange range;
    if (auto s = nd_range(*info, &range); s != PLAIDML_PLUGIN_OK) return s;
    if (range.empty) return PLAIDML_PLUGIN_OK;
    cl_kernel kernel = executable->kernels[info->kernel];
    const std::string& name = executable->symbols[info->kernel];
    std::lock_guard<std::mutex> lock(device->launch_mutex);
    for (size_t i = 0; i < num_buffers; ++i) {
      cl_int err =
          clSetKernelArg(kernel, static_cast<cl_uint>(i), sizeof(cl_mem), &buffers[i]->mem);
      if (err != CL_SUCCESS) {
        return fail_cl("clSetKernelArg", err,
                       "kernel '" + name + "' argument " + std::to_string(i));
      }
    }
    // The in-order queue orders this launch after every earlier command on the device.
    cl_int err =
        clEnqueueNDRangeKernel(device->queue, kernel, 3, nullptr, range.global,
                               range.has_local ? range.local : nullptr, 0, nullptr, nullptr);
    if (err == CL_INVALID_WORK_GROUP_SIZE) {
      return fail_cl("clEnqueueNDRangeKernel", err,
                     "workgroup " + dims(info->workgroup) + ": " +
                         kernel_limit(*executable, info->kernel, device->record->device));
    }
    if (err != CL_SUCCESS) {
      return fail_cl("clEnqueueNDRangeKernel", err,
                     "kernel '" + name + "', grid " + dims(info->grid) + ", workgroup " +
                         dims(info->workgroup));
    }
    return PLAIDML_PLUGIN_OK;
  });
}

plaidml_plugin_status synchronize(plaidml_plugin_device device) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    // Kernel failures that happen after enqueue surface here.
    cl_int err = clFinish(device->queue);
    if (err != CL_SUCCESS) return fail_cl("clFinish", err, device->record->name);
    return PLAIDML_PLUGIN_OK;
  });
}

}  // namespace plaidml::devices::opencl
