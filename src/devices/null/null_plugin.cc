// The null device: the template a new device plugin is copied from (docs/devices.md), and the
// plugin the plugin-ABI suite (tests/devices/plugin_abi) checks the scaffold with. It accepts
// artifacts of every format plaidml generates, keeps buffers in host memory, and launches
// nothing: a launch fails with UNSUPPORTED and says so, so a program never gets outputs that
// no kernel wrote. Everything a plugin shares (argument and handle checks, statuses,
// bookkeeping, the C vtable) comes from src/devices/plugin_support; what is left here is what
// a real device puts its driver calls in.
//
// For tests of a device that disappears mid-run (docs/reliability.md), the environment variable
// PLAIDML_NULL_DEVICE_LOST_AFTER=K, read when a device is opened, makes that device lost after
// its first K calls: every later allocate, write, read, copy, load, launch and synchronize fails
// with DEVICE_ERROR, as a GPU whose driver reports the device lost does; frees, unloads and the
// close still release what they hold.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "devices/plugin_support/plugin_errors.h"
#include "devices/plugin_support/vtable.h"

namespace plaidml::devices::null {
namespace {

using plugin_support::fail;
namespace ps = plugin_support;

constexpr uint64_t kDefaultMemory = 1ull << 30;

// A driver's buffer: here host memory; a GPU keeps its driver's memory object.
class NullBuffer : public ps::Buffer {
 public:
  explicit NullBuffer(uint64_t size) : Buffer(size), bytes_(size) {}
  uint8_t* data() { return bytes_.data(); }

 private:
  std::vector<uint8_t> bytes_;
};

// A driver's loaded code: here only the symbols; a GPU keeps its program and kernels.
class NullExecutable : public ps::Executable {
 public:
  using Executable::Executable;
};

// PLAIDML_NULL_DEVICE_LOST_AFTER: how many calls a device answers before it is lost (none:
// never). Read at open, so a test sets it for the devices it opens next.
constexpr const char* kLostAfterVariable = "PLAIDML_NULL_DEVICE_LOST_AFTER";
constexpr uint64_t kNeverLost = UINT64_MAX;

plaidml_plugin_status lost_after_option(uint64_t* out) {
  *out = kNeverLost;
  const char* value = std::getenv(kLostAfterVariable);
  if (value == nullptr) return PLAIDML_PLUGIN_OK;
  char* end = nullptr;
  *out = std::strtoull(value, &end, 10);
  if (*value == '\0' || *end != '\0' || *value == '-') {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, std::string(kLostAfterVariable) +
                                                     " must be a number of calls, got '" +
                                                     value + "'");
  }
  return PLAIDML_PLUGIN_OK;
}

class NullDevice : public ps::Device {
 public:
  NullDevice(const ps::DeviceRecord& record, uint64_t memory, uint64_t lost_after)
      : Device(record), memory_(memory), lost_after_(lost_after) {}

  // Host memory, within the device's memory option: the budget makes allocation failure
  // testable.
  plaidml_plugin_status allocate(uint64_t bytes, std::unique_ptr<ps::Buffer>* out) override {
    if (auto s = check_present(); s != PLAIDML_PLUGIN_OK) return s;
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes > memory_ - used_) {
      return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY,
                  "cannot allocate " + std::to_string(bytes) + " bytes on the null device: " +
                      std::to_string(used_) + " of its " + std::to_string(memory_) +
                      " bytes are in use");
    }
    *out = std::make_unique<NullBuffer>(bytes);
    used_ += bytes;
    return PLAIDML_PLUGIN_OK;
  }

  void free_buffer(std::unique_ptr<ps::Buffer> buffer) override {
    std::lock_guard<std::mutex> lock(mutex_);
    used_ -= buffer->size();
  }

  plaidml_plugin_status write(ps::Buffer& buffer, uint64_t offset, const void* data,
                              uint64_t bytes) override {
    if (auto s = check_present(); s != PLAIDML_PLUGIN_OK) return s;
    std::memcpy(host(buffer) + offset, data, bytes);
    return PLAIDML_PLUGIN_OK;
  }

  plaidml_plugin_status read(ps::Buffer& buffer, uint64_t offset, void* data,
                             uint64_t bytes) override {
    if (auto s = check_present(); s != PLAIDML_PLUGIN_OK) return s;
    std::memcpy(data, host(buffer) + offset, bytes);
    return PLAIDML_PLUGIN_OK;
  }

  plaidml_plugin_status copy(ps::Buffer& src, uint64_t src_offset, ps::Buffer& dst,
                             uint64_t dst_offset, uint64_t bytes) override {
    if (auto s = check_present(); s != PLAIDML_PLUGIN_OK) return s;
    std::memcpy(host(dst) + dst_offset, host(src) + src_offset, bytes);
    return PLAIDML_PLUGIN_OK;
  }

  // A real device builds the code here and looks up each symbol (NOT_FOUND when missing).
  plaidml_plugin_status load(std::string_view /*format*/, const void* /*bytes*/,
                             uint64_t /*num_bytes*/, std::vector<std::string> symbols,
                             std::unique_ptr<ps::Executable>* out) override {
    if (auto s = check_present(); s != PLAIDML_PLUGIN_OK) return s;
    *out = std::make_unique<NullExecutable>(std::move(symbols));
    return PLAIDML_PLUGIN_OK;
  }

  plaidml_plugin_status launch(ps::Executable& executable, const plaidml_plugin_launch_info& info,
                               const std::vector<ps::Buffer*>& buffers) override {
    if (auto s = check_present(); s != PLAIDML_PLUGIN_OK) return s;
    return fail(PLAIDML_PLUGIN_UNSUPPORTED,
                "the null device launches nothing: kernel '" +
                    executable.symbols()[info.kernel] + "' (" + std::to_string(buffers.size()) +
                    " buffers) did not run");
  }

  plaidml_plugin_status synchronize() override { return check_present(); }

 private:
  // Counts this call; DEVICE_ERROR once the device has answered lost_after_ calls.
  plaidml_plugin_status check_present() {
    if (lost_after_ == kNeverLost) return PLAIDML_PLUGIN_OK;
    if (calls_.fetch_add(1) < lost_after_) return PLAIDML_PLUGIN_OK;
    return fail(PLAIDML_PLUGIN_DEVICE_ERROR,
                "the null device was lost after " + std::to_string(lost_after_) + " calls (" +
                    kLostAfterVariable + ")");
  }

  static uint8_t* host(ps::Buffer& buffer) { return static_cast<NullBuffer&>(buffer).data(); }

  std::mutex mutex_;
  const uint64_t memory_;
  uint64_t used_ = 0;
  const uint64_t lost_after_;
  std::atomic<uint64_t> calls_{0};
};

// The option "memory_bytes": the device's memory (default 1 GiB).
plaidml_plugin_status memory_option(const ps::Options& options, uint64_t* out) {
  *out = kDefaultMemory;
  for (const auto& [key, value] : options) {
    if (key != "memory_bytes") continue;
    char* end = nullptr;
    *out = std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || *end || value[0] == '-') {
      return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                  "memory_bytes must be a number of bytes, got '" + value + "'");
    }
  }
  return PLAIDML_PLUGIN_OK;
}

class NullDriver : public ps::Driver {
 public:
  const char* name() const override { return "null"; }
  const char* title() const override { return "null device plugin"; }

  // A real device enumerates its driver's devices here, or says why there are none
  // (status DEVICE_ERROR or NOT_FOUND with why_absent: "no OpenCL platform", ...).
  const ps::Inventory& inventory() override {
    static const ps::Inventory inv = [] {
      ps::Inventory out;
      auto record = std::make_unique<ps::DeviceRecord>();
      record->name = "null device (launches nothing)";
      record->vendor = "plaidml";
      record->kind = "accelerator";
      record->artifact_formats = "elf-object,opencl-c,spirv";
      record->target = "null";
      record->memory_bytes = kDefaultMemory;
      record->max_allocation_bytes = kDefaultMemory;
      out.devices.push_back(std::move(record));
      return out;
    }();
    return inv;
  }

  plaidml_plugin_status open(const ps::DeviceRecord& record, const ps::Options& options,
                             std::unique_ptr<ps::Device>* out) override {
    uint64_t memory = 0, lost_after = 0;
    if (auto s = memory_option(options, &memory); s != PLAIDML_PLUGIN_OK) return s;
    if (auto s = lost_after_option(&lost_after); s != PLAIDML_PLUGIN_OK) return s;
    *out = std::make_unique<NullDevice>(record, memory, lost_after);
    return PLAIDML_PLUGIN_OK;
  }
};

}  // namespace
}  // namespace plaidml::devices::null

PLAIDML_PLUGIN_ENTRY const plaidml_plugin* plaidml_plugin_get_v1(void) {
  static plaidml::devices::null::NullDriver driver;
  return plaidml::devices::plugin_support::plugin_vtable(driver);
}
