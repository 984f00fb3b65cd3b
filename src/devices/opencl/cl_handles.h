// The opaque handle types of include/plaidml/plugin.h, defined for OpenCL.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "devices/opencl/cl_platform.h"

// One opened device: its own context and one in-order queue, so the kernels of a program chain
// on the device without host round trips.
struct plaidml_plugin_device_s {
  const plaidml::devices::opencl::ClDeviceRecord* record = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  // clSetKernelArg changes a kernel object shared by all callers: argument setting and the
  // enqueue that captures the arguments happen under this lock.
  std::mutex launch_mutex;
};

struct plaidml_plugin_buffer_s {
  cl_mem mem = nullptr;
  uint64_t size = 0;  // as requested (the allocation is at least 1 byte)
};

struct plaidml_plugin_executable_s {
  cl_program program = nullptr;
  std::vector<cl_kernel> kernels;  // parallel to the symbols given to load
  std::vector<std::string> symbols;
  std::vector<cl_uint> num_args;
};
