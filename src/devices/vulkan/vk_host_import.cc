// Host-memory imports for reads (vk_host_import.h).
#include "devices/vulkan/vk_host_import.h"

#include "devices/vulkan/vk_inventory.h"
#include "devices/vulkan/vk_memory_choice.h"

namespace plaidml::devices::vulkan {
namespace {

constexpr VkExternalMemoryHandleTypeFlagBits kHostHandle =
    VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
constexpr VkMemoryPropertyFlags kImportCoherent =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

VkResult create_import_buffer(VkDevice device, uint64_t size, VkBuffer* out) {
  VkExternalMemoryBufferCreateInfo external{};
  external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  external.handleTypes = kHostHandle;
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.pNext = &external;
  info.size = size;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  return vk().vkCreateBuffer(device, &info, nullptr, out);
}

}  // namespace

void read_host_import(VkDeviceRecord* r, bool listed) {
  if (!listed) return;
  VkPhysicalDeviceExternalMemoryHostPropertiesEXT host{};
  host.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &host;
  vk().vkGetPhysicalDeviceProperties2(r->physical, &props);
  const uint64_t alignment = host.minImportedHostPointerAlignment;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return;  // a power of two, per spec
  r->host_import_alignment = alignment;
  r->features.extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
}

void enable_host_import(VkDeviceState* device, bool allowed) {
  device->host_pointer_properties = nullptr;
  if (!allowed || device->record->host_import_alignment == 0) return;
  device->host_pointer_properties = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
      vk().vkGetInstanceProcAddr(inventory().instance, "vkGetMemoryHostPointerPropertiesEXT"));
}

bool import_host_range(VkDeviceState* device, void* host, uint64_t bytes, HostImport* out) {
  if (!device->host_pointer_properties || bytes < kHostImportMinBytes) return false;
  const uint64_t alignment = device->record->host_import_alignment;
  const uintptr_t start = reinterpret_cast<uintptr_t>(host);
  const uintptr_t base = start & ~uintptr_t(alignment - 1);
  const uint64_t size = (start - base + bytes + alignment - 1) & ~uint64_t(alignment - 1);
  void* pages = reinterpret_cast<void*>(base);
  VkMemoryHostPointerPropertiesEXT pointer{};
  pointer.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT;
  if (device->host_pointer_properties(device->device, kHostHandle, pages, &pointer) != VK_SUCCESS) {
    return false;
  }
  HostImport import;
  import.offset = start - base;
  if (create_import_buffer(device->device, size, &import.buffer) != VK_SUCCESS) return false;
  VkMemoryRequirements needs{};
  vk().vkGetBufferMemoryRequirements(device->device, import.buffer, &needs);
  // Host-coherent (the host sees the device's writes once the read's fence signals, as with
  // staging), host-cached where a type is.
  uint32_t type = 0;
  if (needs.size > size ||
      !find_memory_type(device->record->memory, needs.memoryTypeBits & pointer.memoryTypeBits,
                        kImportCoherent, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &type)) {
    release_host_import(device->device, &import);
    return false;
  }
  VkImportMemoryHostPointerInfoEXT from{};
  from.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
  from.handleType = kHostHandle;
  from.pHostPointer = pages;
  VkMemoryAllocateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  info.pNext = &from;
  info.allocationSize = size;
  info.memoryTypeIndex = type;
  VkResult r = vk().vkAllocateMemory(device->device, &info, nullptr, &import.memory);
  if (r == VK_SUCCESS) r = vk().vkBindBufferMemory(device->device, import.buffer, import.memory, 0);
  if (r != VK_SUCCESS) {
    release_host_import(device->device, &import);
    return false;
  }
  *out = import;
  return true;
}

void release_host_import(VkDevice device, HostImport* import) {
  if (import->buffer) vk().vkDestroyBuffer(device, import->buffer, nullptr);
  if (import->memory) vk().vkFreeMemory(device, import->memory, nullptr);
  *import = HostImport{};
}

}  // namespace plaidml::devices::vulkan
