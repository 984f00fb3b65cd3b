// The OpenCL device, buffer and executable behind the plugin scaffold's handles
// (devices/plugin_support/driver.h). The scaffold has checked every argument before a method
// here runs: these hold only the OpenCL calls.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "devices/opencl/cl_platform.h"
#include "devices/plugin_support/driver.h"

namespace plaidml::devices::opencl {

namespace ps = plugin_support;

class ClBuffer : public ps::Buffer {
 public:
  ClBuffer(uint64_t size, cl_mem mem) : Buffer(size), mem(mem) {}
  // The runtime keeps the memory alive for commands still queued on it.
  ~ClBuffer() override { clReleaseMemObject(mem); }
  cl_mem mem;  // at least 1 byte: OpenCL has no empty buffers
};

class ClExecutable : public ps::Executable {
 public:
  using Executable::Executable;
  ~ClExecutable() override;
  cl_program program = nullptr;
  std::vector<cl_kernel> kernels;  // parallel to symbols()
  std::vector<cl_uint> num_args;
};

// One opened device: its own context and one in-order queue, so the kernels of a program chain
// on the device without host round trips.
class ClDevice : public ps::Device {
 public:
  explicit ClDevice(const ClDeviceRecord& record) : Device(record), cl(record) {}
  ~ClDevice() override;  // waits for queued work, then releases the queue and context
  plaidml_plugin_status open();

  // cl_buffer.cc
  plaidml_plugin_status allocate(uint64_t bytes, std::unique_ptr<ps::Buffer>* out) override;
  plaidml_plugin_status write(ps::Buffer& buffer, uint64_t offset, const void* data,
                              uint64_t bytes) override;
  plaidml_plugin_status read(ps::Buffer& buffer, uint64_t offset, void* data,
                             uint64_t bytes) override;
  plaidml_plugin_status copy(ps::Buffer& src, uint64_t src_offset, ps::Buffer& dst,
                             uint64_t dst_offset, uint64_t bytes) override;
  // cl_program.cc
  plaidml_plugin_status load(std::string_view format, const void* bytes, uint64_t num_bytes,
                             std::vector<std::string> symbols,
                             std::unique_ptr<ps::Executable>* out) override;
  // cl_launch.cc
  plaidml_plugin_status launch(ps::Executable& executable, const plaidml_plugin_launch_info& info,
                               const std::vector<ps::Buffer*>& buffers) override;
  plaidml_plugin_status synchronize() override;

  const ClDeviceRecord& cl;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  // clSetKernelArg changes a kernel object shared by all callers: argument setting and the
  // enqueue that captures the arguments happen under this lock.
  std::mutex launch_mutex;
};

}  // namespace plaidml::devices::opencl
