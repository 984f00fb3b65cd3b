// Opening Vulkan devices. Options: "direct_host_access" = "0" makes write/read go through the
// staging buffer even where buffer memory is host-visible (tests use it to cover the
// discrete-GPU path); "host_import" = "0" keeps large reads on the staging buffer too, where
// they would import the destination's pages (vk_host_import.h); "fence_timeout_ms" bounds every
// wait for the device (default 60000).
#pragma once

#include <memory>

#include "devices/plugin_support/driver.h"
#include "devices/vulkan/vk_handles.h"

namespace plaidml::devices::vulkan {

plaidml_plugin_status open_device(const VkDeviceRecord& record,
                                  const plugin_support::Options& options,
                                  std::unique_ptr<plugin_support::Device>* out);

}  // namespace plaidml::devices::vulkan
