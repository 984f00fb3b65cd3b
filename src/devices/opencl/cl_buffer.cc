// OpenCL buffers: allocation and blocking transfers on the device's in-order queue.
#include <algorithm>
#include <memory>

#include "devices/opencl/cl_errors.h"
#include "devices/opencl/cl_handles.h"

namespace plaidml::devices::opencl {
namespace {

std::string bytes_on(uint64_t bytes, const ClDeviceRecord& record) {
  return std::to_string(bytes) + " bytes on " + record.name;
}

cl_mem mem_of(ps::Buffer& buffer) { return static_cast<ClBuffer&>(buffer).mem; }

}  // namespace

plaidml_plugin_status ClDevice::allocate(uint64_t bytes, std::unique_ptr<ps::Buffer>* out) {
  // OpenCL has no empty buffers; a 0-byte tensor still gets a handle.
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE,
                              static_cast<size_t>(std::max<uint64_t>(bytes, 1)), nullptr, &err);
  if (err != CL_SUCCESS) return fail_cl("clCreateBuffer", err, bytes_on(bytes, cl));
  *out = std::make_unique<ClBuffer>(bytes, mem);
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status ClDevice::write(ps::Buffer& buffer, uint64_t offset, const void* data,
                                      uint64_t bytes) {
  cl_int err = clEnqueueWriteBuffer(queue, mem_of(buffer), CL_TRUE, offset, bytes, data, 0,
                                    nullptr, nullptr);
  if (err != CL_SUCCESS) return fail_cl("clEnqueueWriteBuffer", err, bytes_on(bytes, cl));
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status ClDevice::read(ps::Buffer& buffer, uint64_t offset, void* data,
                                     uint64_t bytes) {
  // Blocking, on the in-order queue: it waits for every launch enqueued before it.
  cl_int err = clEnqueueReadBuffer(queue, mem_of(buffer), CL_TRUE, offset, bytes, data, 0,
                                   nullptr, nullptr);
  if (err != CL_SUCCESS) return fail_cl("clEnqueueReadBuffer", err, bytes_on(bytes, cl));
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status ClDevice::copy(ps::Buffer& src, uint64_t src_offset, ps::Buffer& dst,
                                     uint64_t dst_offset, uint64_t bytes) {
  cl_int err = clEnqueueCopyBuffer(queue, mem_of(src), mem_of(dst), src_offset, dst_offset, bytes,
                                   0, nullptr, nullptr);
  if (err != CL_SUCCESS) return fail_cl("clEnqueueCopyBuffer", err, bytes_on(bytes, cl));
  return PLAIDML_PLUGIN_OK;
}

}  // namespace plaidml::devices::opencl
