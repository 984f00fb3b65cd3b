// Process exit and the Vulkan driver. NVIDIA's driver tears itself down in an exit handler that
// it registers when a device is created; plaidml objects in static storage (a Runtime held by a
// function-local static) are destroyed after that handler, and a Vulkan call from their
// destructors then crashes the process after all its work is done. So the plugin registers an
// exit handler of its own right after each vkCreateDevice, which runs before the driver's: it
// marks the process as exiting, and from then on closing a device, freeing a buffer or unloading
// an executable makes no Vulkan call: the object is abandoned (kept reachable, so that leak
// checkers do not report it) and the operating system reclaims it. LeakSanitizer still reports
// some of lavapipe's memory behind abandoned pipelines (tests/lsan.supp says why).
#pragma once

namespace plaidml::devices::vulkan {

// Call after a successful vkCreateDevice (registers the handler once per process).
void watch_process_exit();

// True once exit() has begun.
bool process_exiting();

// Keeps `object` (a device, buffer or executable the caller let go during exit) reachable for
// the rest of the process.
void abandon(const void* object);

}  // namespace plaidml::devices::vulkan
