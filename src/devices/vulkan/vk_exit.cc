#include "devices/vulkan/vk_exit.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace plaidml::devices::vulkan {
namespace {

std::atomic<bool> exiting{false};

void on_exit() { exiting.store(true); }

}  // namespace

void watch_process_exit() {
  // Handlers run in reverse order of registration, so this one must be registered after the
  // driver's, which happens during vkCreateDevice. glibc ties it to this module: a dlclose of
  // the plugin runs it early instead of leaving a dangling handler.
  static std::once_flag once;
  std::call_once(once, [] { std::atexit(on_exit); });
}

bool process_exiting() { return exiting.load(); }

void abandon(const void* object) {
  static std::mutex mutex;
  static auto* abandoned = new std::vector<const void*>;  // never freed: outlives every static
  std::lock_guard<std::mutex> lock(mutex);
  abandoned->push_back(object);
}

}  // namespace plaidml::devices::vulkan
