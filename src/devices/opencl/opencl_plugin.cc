// The OpenCL plugin: its driver (enumeration and opening) over the shared scaffold, and the
// module's one exported symbol.
#include <memory>

#include "devices/opencl/cl_errors.h"
#include "devices/opencl/cl_handles.h"
#include "devices/plugin_support/vtable.h"

namespace plaidml::devices::opencl {
namespace {

class ClDriver : public ps::Driver {
 public:
  const char* name() const override { return "opencl"; }
  const char* title() const override { return "OpenCL plugin"; }
  const ps::Inventory& inventory() override { return opencl::inventory(); }

  // OpenCL devices take no options today; unknown keys are ignored, as plugin.h says.
  plaidml_plugin_status open(const ps::DeviceRecord& record, const ps::Options& /*options*/,
                             std::unique_ptr<ps::Device>* out) override {
    auto device = std::make_unique<ClDevice>(static_cast<const ClDeviceRecord&>(record));
    if (auto s = device->open(); s != PLAIDML_PLUGIN_OK) return s;
    *out = std::move(device);
    return PLAIDML_PLUGIN_OK;
  }
};

}  // namespace
}  // namespace plaidml::devices::opencl

PLAIDML_PLUGIN_ENTRY const plaidml_plugin* plaidml_plugin_get_v1(void) {
  static plaidml::devices::opencl::ClDriver driver;
  return plaidml::devices::plugin_support::plugin_vtable(driver);
}
