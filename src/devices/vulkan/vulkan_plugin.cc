// The Vulkan plugin: its driver (enumeration, opening, validation errors) over the shared
// scaffold, and the module's one exported symbol.
#include <memory>

#include "devices/plugin_support/vtable.h"
#include "devices/vulkan/vk_device.h"
#include "devices/vulkan/vk_errors.h"
#include "devices/vulkan/vk_inventory.h"

namespace plaidml::devices::vulkan {
namespace {

class VulkanDriver : public plugin_support::Driver {
 public:
  const char* name() const override { return "vulkan"; }
  const char* title() const override { return "Vulkan plugin"; }
  const plugin_support::Inventory& inventory() override { return vulkan::inventory(); }

  plaidml_plugin_status open(const plugin_support::DeviceRecord& record,
                             const plugin_support::Options& options,
                             std::unique_ptr<plugin_support::Device>* out) override {
    return open_device(static_cast<const VkDeviceRecord&>(record), options, out);
  }

  // Validation-layer errors reported during a call fail it (vk_errors.h).
  plaidml_plugin_status finish_call(plaidml_plugin_status status) override {
    return with_validation_errors(status);
  }
};

}  // namespace
}  // namespace plaidml::devices::vulkan

PLAIDML_PLUGIN_ENTRY const plaidml_plugin* plaidml_plugin_get_v1(void) {
  static plaidml::devices::vulkan::VulkanDriver driver;
  return plaidml::devices::plugin_support::plugin_vtable(driver);
}
