// Loading OpenCL C artifacts: build for the device, one kernel object per symbol.

#include <cstring>
#include <memory>
#include <string>

#include "devices/opencl/cl_errors.h"
#include "devices/opencl/cl_handles.h"

namespace plaidml::devices::opencl {
namespace {

// OpenCL C 1.2 on every device: generated code is written against it, and 2.0+ changes
// semantics (generic address space) without adding anything the generator uses.
constexpr const char* kBuildOptions = "-cl-std=CL1.2";

// OpenCL lets f32 division and sqrt be 2.5 and 3 ulp off; NVIDIA's are, which moved a
// round(x / scale) across a .5 (DynamicQuantizeLinear one off). Where the device can divide
// correctly rounded, as the CPU and the reference interpreter do, it is asked to.
std::string build_options(cl_device_id device) {
  cl_device_fp_config fp = 0;
  std::string options = kBuildOptions;
  if (clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof(fp), &fp, nullptr) ==
          CL_SUCCESS &&
      (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0) {
    options += " -cl-fp32-correctly-rounded-divide-sqrt";
  }
  return options;
}

std::string program_info_string(cl_program program, cl_program_info what) {
  size_t size = 0;
  if (clGetProgramInfo(program, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (clGetProgramInfo(program, what, size, s.data(), nullptr) != CL_SUCCESS) return "";
  s.resize(std::strlen(s.c_str()));
  return s;
}

std::string build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  if (size == 0) return "";
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  log.resize(std::strlen(log.c_str()));
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
  return log;
}

// A kernel that enables a floating-point extension the device lacks cannot build; saying so
// is clearer than the compiler's complaint about an unknown type.
plaidml_plugin_status check_extensions(const std::string& source, const ClDeviceRecord& r) {
  struct Need {
    const char* extension;
    uint32_t flag;
    const char* what;
  };
  const Need needs[] = {{"cl_khr_fp16", PLAIDML_PLUGIN_DEVICE_FP16, "half (f16)"},
                        {"cl_khr_fp64", PLAIDML_PLUGIN_DEVICE_FP64, "double (f64)"}};
  for (const Need& n : needs) {
    bool enabled = source.find(std::string("OPENCL EXTENSION ") + n.extension) != std::string::npos;
    if (enabled && !(r.flags & n.flag)) {
      return fail(PLAIDML_PLUGIN_UNSUPPORTED, std::string("the kernel uses ") + n.what + " (" +
                                                  n.extension + "), which OpenCL device '" +
                                                  r.name + "' does not support");
    }
  }
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status build(const ClDeviceRecord& r, ClExecutable* exe) {
  std::string options = build_options(r.device);
  cl_int err = clBuildProgram(exe->program, 1, &r.device, options.c_str(), nullptr, nullptr);
  if (err == CL_SUCCESS) return PLAIDML_PLUGIN_OK;
  std::string log = build_log(exe->program, r.device);
  return fail_cl("clBuildProgram", err,
                 "OpenCL C build for '" + r.name + "' failed" +
                     (log.empty() ? std::string(" (empty build log)") : ", build log:\n" + log));
}

plaidml_plugin_status create_kernel(ClExecutable* exe, const std::string& symbol) {
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(exe->program, symbol.c_str(), &err);
  if (err == CL_INVALID_KERNEL_NAME) {
    return fail(PLAIDML_PLUGIN_NOT_FOUND,
                std::string("no kernel named '") + symbol + "' in the OpenCL program (kernels: " +
                    program_info_string(exe->program, CL_PROGRAM_KERNEL_NAMES) + ")");
  }
  if (err != CL_SUCCESS) return fail_cl("clCreateKernel", err, symbol);
  exe->kernels.push_back(kernel);
  cl_uint args = 0;
  clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(args), &args, nullptr);
  exe->num_args.push_back(args);
  return PLAIDML_PLUGIN_OK;
}

}  // namespace

ClExecutable::~ClExecutable() {
  for (cl_kernel k : kernels) clReleaseKernel(k);
  if (program) clReleaseProgram(program);
}

plaidml_plugin_status ClDevice::load(std::string_view /*format: opencl-c*/, const void* bytes,
                                     uint64_t num_bytes, std::vector<std::string> symbols,
                                     std::unique_ptr<ps::Executable>* out) {
  std::string source(static_cast<const char*>(bytes), num_bytes);
  if (auto s = check_extensions(source, cl); s != PLAIDML_PLUGIN_OK) return s;
  auto exe = std::make_unique<ClExecutable>(symbols);
  const char* text = source.c_str();
  size_t length = source.size();
  cl_int err = CL_SUCCESS;
  exe->program = clCreateProgramWithSource(context, 1, &text, &length, &err);
  if (err != CL_SUCCESS) return fail_cl("clCreateProgramWithSource", err);
  if (auto s = build(cl, exe.get()); s != PLAIDML_PLUGIN_OK) return s;
  for (const std::string& symbol : symbols) {
    if (auto s = create_kernel(exe.get(), symbol); s != PLAIDML_PLUGIN_OK) return s;
  }
  *out = std::move(exe);
  return PLAIDML_PLUGIN_OK;
}

}  // namespace plaidml::devices::opencl
