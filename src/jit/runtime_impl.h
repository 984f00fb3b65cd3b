// The Runtime of jit/runtime.h: devices (opened on first use), buffers, the plan cache and the
// run loop. Every public method is an error firewall: nothing throws out of it, and running out
// of memory for a user-sized allocation is a kOutOfMemory status.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "devices/device.h"
#include "devices/registry.h"
#include "jit/cache/artifact_cache.h"
#include "jit/compiler.h"
#include "jit/constant_buffers.h"
#include "jit/kernel_library.h"
#include "jit/memory_budget.h"
#include "jit/plan_cache.h"
#include "jit/plan_store.h"
#include "jit/runtime.h"

namespace plaidml::jit {

// Runs f, turning an escaping exception into a Status: the Runtime API never throws.
template <typename F>
auto firewall(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, std::string("unexpected exception: ") + e.what());
  }
}

// A Runtime's buffer: a shape plus device storage.
class RuntimeBuffer : public Buffer {
 public:
  RuntimeBuffer(Shape shape, int device, std::unique_ptr<devices::DeviceBuffer> storage)
      : shape_(std::move(shape)), device_(device), storage_(std::move(storage)) {}
  const Shape& shape() const override { return shape_; }
  int device() const override { return device_; }
  const devices::DeviceBuffer& storage() const { return *storage_; }

 private:
  Shape shape_;
  int device_;
  std::unique_ptr<devices::DeviceBuffer> storage_;
};

class RuntimeImpl : public Runtime {
 public:
  // entries: the devices known now. list_all, when set, lists every device (the same entries
  // first, then plugin devices); it runs once, the first time a device outside `entries` is
  // asked for or the whole list is read, so plugins load only when they are wanted.
  using DeviceLister = std::function<std::vector<devices::DeviceEntry>()>;
  static Expected<std::unique_ptr<Runtime>> create(const RuntimeOptions& options,
                                                   std::vector<devices::DeviceEntry> entries,
                                                   DeviceLister list_all = nullptr);

  const std::vector<DeviceDescription>& devices() const override;
  Expected<DeviceDescription> device_description(int device) const override;
  Expected<int> find_device(const std::string& id) const override;
  Expected<std::shared_ptr<Buffer>> allocate(int device, const Shape& shape) override;
  Status write(Buffer& buffer, const void* data, size_t bytes) override;
  Status read(const Buffer& buffer, void* data, size_t bytes) const override;
  Expected<std::shared_ptr<const Plan>> prepare(const std::shared_ptr<const ir::Program>& program,
                                                const std::vector<Shape>& input_shapes,
                                                int device) override;
  Status run(const std::shared_ptr<const ir::Program>& program, int device,
             const std::vector<std::shared_ptr<Buffer>>& inputs,
             std::vector<std::shared_ptr<Buffer>>* outputs) override;
  Expected<uint64_t> memory_budget(int device) const override;
  Status check_fits(const ir::Program& program, const Plan& plan) const override;
  CacheStats stats() const override;
  const std::string& cache_dir() const override { return artifacts_->disk_dir(); }
  Profiler& profiler() override { return profiler_; }

 private:
  RuntimeImpl() = default;
  // The opened device at index (opening it on first use).
  Expected<std::shared_ptr<devices::Device>> device(int index) const;
  Expected<std::shared_ptr<Buffer>> allocate_impl(int device, const Shape& shape);
  // A new buffer on device holding shape.byte_size() bytes copied from data.
  Expected<std::shared_ptr<Buffer>> upload(int device, const Shape& shape, const void* data);
  // The constant on the device: its own memory in place where the device reaches host memory
  // (the CPU: weights are not held twice), else an upload. A wrapped constant's buffer is valid
  // while the constant lives: runs hold their program, and ConstantBuffers drops entries whose
  // constant has expired before any other use.
  Expected<std::shared_ptr<Buffer>> resident(int device, const ir::ConstantData& constant);
  Expected<std::shared_ptr<const Plan>> prepare_impl(
      const std::shared_ptr<const ir::Program>& program, const std::vector<Shape>& input_shapes,
      int device);
  // Lists the plugin devices too, once (see create).
  void list_all_devices() const;
  Expected<int> find_listed_device(const std::string& id) const;
  void append_entries(std::vector<devices::DeviceEntry> entries) const;
  std::string device_id(int index) const;
  // The budget of an opened device (borrows host_limit_).
  MemoryBudget budget_of(const devices::Device& device) const;
  // The buffer as this runtime's, on `device`; `what` names it in errors ("input 'A'").
  Expected<const RuntimeBuffer*> own_buffer(const Buffer* buffer, const std::string& what) const;

  friend class RunCall;
  RuntimeOptions options_;
  HostLimit host_limit_;  // the context's memory limit, resolved at creation
  std::string default_id_;
  // The device table grows once, in list_all_devices(), under devices_mutex_; every other
  // access holds that mutex too, except devices(), which reads it only after it is complete.
  mutable std::mutex devices_mutex_;
  mutable DeviceLister list_all_;
  mutable std::once_flag listed_all_;
  mutable std::vector<devices::DeviceEntry> entries_;
  mutable std::vector<DeviceDescription> descriptions_;           // parallel to entries_
  mutable std::vector<std::shared_ptr<devices::Device>> opened_;  // parallel to entries_
  PlanCache cache_;
  KernelLibrary library_;  // the kernels loaded on the devices, by form
  std::unique_ptr<ArtifactCache> artifacts_;
  std::unique_ptr<PlanStore> plans_;  // plan entries in the same cache folder
  std::unique_ptr<FormIndex> forms_;  // and the kernels' places, by form
  ConstantBuffers constants_;
  mutable Profiler profiler_;
};

}  // namespace plaidml::jit
