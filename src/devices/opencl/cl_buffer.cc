#include "devices/opencl/cl_buffer.h"

#include <algorithm>
#include <memory>

#include "devices/opencl/cl_errors.h"

namespace plaidml::devices::opencl {
namespace {

// [offset, offset + bytes) inside the buffer, without overflow.
plaidml_plugin_status check_range(const char* what, plaidml_plugin_buffer buffer, uint64_t offset,
                                  uint64_t bytes) {
  if (!buffer) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, std::string(what) + ": buffer is NULL");
  if (offset > buffer->size || bytes > buffer->size - offset) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                std::string(what) + " of " + std::to_string(bytes) + " bytes at offset " +
                    std::to_string(offset) + " is outside the buffer of " +
                    std::to_string(buffer->size) + " bytes");
  }
  return PLAIDML_PLUGIN_OK;
}

std::string bytes_on(uint64_t bytes, plaidml_plugin_device device) {
  return std::to_string(bytes) + " bytes on " + device->record->name;
}

}  // namespace

plaidml_plugin_status allocate(plaidml_plugin_device device, uint64_t bytes,
                               plaidml_plugin_buffer* out_buffer) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    if (!out_buffer) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "out_buffer is NULL");
    const uint64_t max = device->record->max_allocation_bytes;
    if (max && bytes > max) {
      return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY, "cannot allocate " + bytes_on(bytes, device) +
                                                    ": its largest allocation is " +
                                                    std::to_string(max) + " bytes");
    }
    auto buffer = std::make_unique<plaidml_plugin_buffer_s>();
    buffer->size = bytes;
    // OpenCL has no empty buffers; a 0-byte tensor still gets a handle.
    cl_int err = CL_SUCCESS;
    buffer->mem = clCreateBuffer(device->context, CL_MEM_READ_WRITE,
                                 static_cast<size_t>(std::max<uint64_t>(bytes, 1)), nullptr, &err);
    if (err != CL_SUCCESS) return fail_cl("clCreateBuffer", err, bytes_on(bytes, device));
    *out_buffer = buffer.release();
    return PLAIDML_PLUGIN_OK;
  });
}

void free_buffer(plaidml_plugin_device /*device*/, plaidml_plugin_buffer buffer) {
  if (!buffer) return;
  // The runtime keeps the memory alive for commands still queued on it.
  clReleaseMemObject(buffer->mem);
  delete buffer;
}

plaidml_plugin_status write(plaidml_plugin_device device, plaidml_plugin_buffer buffer,
                            uint64_t offset, const void* data, uint64_t bytes) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    if (auto s = check_range("write", buffer, offset, bytes); s != PLAIDML_PLUGIN_OK) return s;
    if (bytes == 0) return PLAIDML_PLUGIN_OK;  // CL rejects empty transfers
    if (!data) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "write: data is NULL");
    cl_int err = clEnqueueWriteBuffer(device->queue, buffer->mem, CL_TRUE, offset, bytes, data, 0,
                                      nullptr, nullptr);
    if (err != CL_SUCCESS) return fail_cl("clEnqueueWriteBuffer", err, bytes_on(bytes, device));
    return PLAIDML_PLUGIN_OK;
  });
}

plaidml_plugin_status read(plaidml_plugin_device device, plaidml_plugin_buffer buffer,
                           uint64_t offset, void* data, uint64_t bytes) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    if (auto s = check_range("read", buffer, offset, bytes); s != PLAIDML_PLUGIN_OK) return s;
    if (bytes == 0) return PLAIDML_PLUGIN_OK;
    if (!data) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "read: data is NULL");
    // Blocking, on the in-order queue: it waits for every launch enqueued before it.
    cl_int err = clEnqueueReadBuffer(device->queue, buffer->mem, CL_TRUE, offset, bytes, data, 0,
                                     nullptr, nullptr);
    if (err != CL_SUCCESS) return fail_cl("clEnqueueReadBuffer", err, bytes_on(bytes, device));
    return PLAIDML_PLUGIN_OK;
  });
}

plaidml_plugin_status copy(plaidml_plugin_device device, plaidml_plugin_buffer src,
                           uint64_t src_offset, plaidml_plugin_buffer dst, uint64_t dst_offset,
                           uint64_t bytes) {
  return guarded([&] {
    if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
    if (auto s = check_range("copy source", src, src_offset, bytes); s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    if (auto s = check_range("copy destination", dst, dst_offset, bytes); s != PLAIDML_PLUGIN_OK) {
      return s;
    }
    if (bytes == 0) return PLAIDML_PLUGIN_OK;
    bool overlap = src == dst && src_offset < dst_offset + bytes && dst_offset < src_offset + bytes;
    if (overlap) {
      return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                  "copy within one buffer with overlapping ranges (" + std::to_string(bytes) +
                      " bytes from offset " + std::to_string(src_offset) + " to " +
                      std::to_string(dst_offset) + ")");
    }
    cl_int err = clEnqueueCopyBuffer(device->queue, src->mem, dst->mem, src_offset, dst_offset,
                                     bytes, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) return fail_cl("clEnqueueCopyBuffer", err, bytes_on(bytes, device));
    return PLAIDML_PLUGIN_OK;
  });
}

}  // namespace plaidml::devices::opencl
