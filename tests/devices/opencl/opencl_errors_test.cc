// How the OpenCL plugin reports a device that disappears (docs/reliability.md): the codes a
// driver returns for a lost or unavailable device become DEVICE_ERROR with the call and the
// code's name, never OK or a status that blames the caller. PoCL cannot be made to lose its
// device, so the mapping itself (src/devices/opencl/cl_errors.cc, compiled in) is checked.
#include <CL/cl.h>

#include <string>

#include "devices/opencl/cl_errors.h"
#include "opencl_test_util.h"

namespace opencl = plaidml::devices::opencl;

TEST_CASE("opencl: a lost or unavailable device is DEVICE_ERROR naming the call and the code") {
  // CL_OUT_OF_RESOURCES is what NVIDIA's driver returns once the GPU has fallen off the bus.
  for (cl_int code : {CL_DEVICE_NOT_AVAILABLE, CL_DEVICE_NOT_FOUND, CL_OUT_OF_RESOURCES,
                      CL_INVALID_COMMAND_QUEUE, CL_INVALID_CONTEXT}) {
    INFO(opencl::cl_error_name(code));
    CHECK(opencl::status_of(code) == PLAIDML_PLUGIN_DEVICE_ERROR);
  }
  CHECK(opencl::fail_cl("clEnqueueReadBuffer", CL_DEVICE_NOT_AVAILABLE, "pthread-cpu") ==
        PLAIDML_PLUGIN_DEVICE_ERROR);
  CHECK(std::string(plaidml::devices::plugin_support::last_error()) ==
        "clEnqueueReadBuffer failed: CL_DEVICE_NOT_AVAILABLE (-2): pthread-cpu");
}
