#include "jit/runtime_impl.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>

#include "core/base/env.h"
#include "core/base/logging.h"
#include "core/ir/bind.h"
#include "core/ir/constant.h"
#include "jit/cache/cache_dir.h"

namespace plaidml::jit {
namespace {

std::string join_ids(const std::vector<DeviceDescription>& devices, bool available_only) {
  std::string out;
  for (const auto& d : devices) {
    if (available_only && !d.available) continue;
    out += (out.empty() ? "" : ", ") + d.id;
  }
  return out.empty() ? "none" : out;
}

DeviceDescription describe(const devices::DeviceEntry& e, const RuntimeOptions& options) {
  DeviceDescription d;
  d.id = e.id;
  d.name = e.available ? e.info.name : e.id;
  d.kind = e.available ? e.info.kind : "";
  d.available = e.available;
  d.unavailable_reason = e.unavailable_reason;
  d.memory_bytes = e.info.memory_bytes;
  d.threads = std::max(1, e.info.compute_units);
  if (e.available && e.info.kind == "cpu" && options.num_threads > 0) {
    d.threads = options.num_threads;
  }
  return d;
}

// Bytes of a shape, or kInvalidArgument for negative dims or a size that does not fit in 63
// bits (a wrapped product would allocate a small buffer that kernels overrun).
Expected<uint64_t> checked_byte_size(const Shape& shape) {
  for (int64_t d : shape.dims) {
    if (d < 0) {
      return make_error(StatusCode::kInvalidArgument, "buffer shape {} has a negative dimension",
                        shape.to_string());
    }
  }
  if (auto why = shape.size_error()) {
    return make_error(StatusCode::kInvalidArgument, "buffer shape {} is too large: {}",
                      shape.to_string(), *why);
  }
  return static_cast<uint64_t>(shape.byte_size());
}

}  // namespace

Expected<std::unique_ptr<Runtime>> Runtime::create(const RuntimeOptions& options) {
  return firewall([&]() -> Expected<std::unique_ptr<Runtime>> {
    // The plugin folders are read now (PLAIDML_PLUGIN_PATH at context creation); the modules
    // in them load only when a plugin device is wanted.
    return RuntimeImpl::create(
        options, devices::list_builtin_devices(),
        [dirs = devices::plugin_search_dirs()] { return devices::list_devices(dirs); });
  });
}

Expected<std::unique_ptr<Runtime>> RuntimeImpl::create(const RuntimeOptions& options,
                                                       std::vector<devices::DeviceEntry> entries,
                                                       DeviceLister list_all) {
  if (options.num_threads < 0) {
    return make_error(StatusCode::kInvalidArgument,
                      "num_threads must be 0 (automatic) or positive, got {}", options.num_threads);
  }
  PLAIDML_ASSIGN(HostLimit limit, resolve_memory_limit(options.memory_limit));
  std::unique_ptr<RuntimeImpl> rt(new RuntimeImpl());
  rt->options_ = options;
  rt->host_limit_ = std::move(limit);
  logger().debug("memory limit: {} ({})",
                 rt->host_limit_.bytes ? format_bytes(rt->host_limit_.bytes) : "none",
                 rt->host_limit_.source);
  rt->artifacts_ = std::make_unique<ArtifactCache>(resolve_cache_dir(options.cache_dir));
  rt->plans_ = std::make_unique<PlanStore>(rt->artifacts_->disk_dir());
  rt->forms_ = std::make_unique<FormIndex>(rt->artifacts_->disk_dir());
  logger().debug("kernel cache folder: {}",
                 rt->artifacts_->disk_dir().empty() ? "none" : rt->artifacts_->disk_dir());
  rt->list_all_ = std::move(list_all);
  rt->append_entries(std::move(entries));
  std::string source = "the device option";
  rt->default_id_ = options.device;
  if (rt->default_id_.empty() && env_is_set("PLAIDML_DEVICE")) {
    rt->default_id_ = env_string("PLAIDML_DEVICE");
    source = "PLAIDML_DEVICE";
  }
  if (rt->default_id_.empty()) rt->default_id_ = "cpu:0";
  auto found = rt->find_device(rt->default_id_);
  if (!found) return found.status().with_context(source + ": ");
  return std::unique_ptr<Runtime>(std::move(rt));
}

// The three lists grow together or not at all: an allocation that fails between two of their
// push_backs would leave descriptions and entries of different devices at one index, and a
// listing that failed is tried again (list_all_devices).
void RuntimeImpl::append_entries(std::vector<devices::DeviceEntry> entries) const {
  std::vector<DeviceDescription> described;
  described.reserve(entries.size());
  for (const auto& e : entries) described.push_back(describe(e, options_));
  std::lock_guard<std::mutex> lock(devices_mutex_);
  descriptions_.reserve(descriptions_.size() + entries.size());
  entries_.reserve(entries_.size() + entries.size());
  opened_.reserve(opened_.size() + entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {  // moves into reserved space: nothing throws
    descriptions_.push_back(std::move(described[i]));
    entries_.push_back(std::move(entries[i]));
  }
  opened_.resize(entries_.size());
}

void RuntimeImpl::list_all_devices() const {
  std::call_once(listed_all_, [this] {
    if (!list_all_) return;
    std::vector<devices::DeviceEntry> all = list_all_();
    size_t known = 0;
    {
      std::lock_guard<std::mutex> lock(devices_mutex_);
      known = entries_.size();
    }
    // The full list starts with the entries known already (the built-ins), in the same order.
    if (all.size() <= known) return;
    append_entries(std::vector<devices::DeviceEntry>(std::make_move_iterator(all.begin() + known),
                                                     std::make_move_iterator(all.end())));
  });
}

const std::vector<DeviceDescription>& RuntimeImpl::devices() const {
  list_all_devices();
  return descriptions_;
}

Expected<DeviceDescription> RuntimeImpl::device_description(int index) const {
  {
    std::lock_guard<std::mutex> lock(devices_mutex_);
    if (index >= 0 && index < static_cast<int>(descriptions_.size())) return descriptions_[index];
  }
  list_all_devices();  // not a built-in: it may be a plugin's
  std::lock_guard<std::mutex> lock(devices_mutex_);
  if (index < 0 || index >= static_cast<int>(descriptions_.size())) {
    return make_error(StatusCode::kInvalidArgument, "device index {} out of range ({} devices)",
                      index, descriptions_.size());
  }
  return descriptions_[index];
}

std::string RuntimeImpl::device_id(int index) const {
  std::lock_guard<std::mutex> lock(devices_mutex_);
  return descriptions_.at(index).id;
}

Expected<int> RuntimeImpl::find_listed_device(const std::string& wanted) const {
  std::lock_guard<std::mutex> lock(devices_mutex_);
  for (size_t i = 0; i < descriptions_.size(); ++i) {
    const DeviceDescription& d = descriptions_[i];
    if (d.id != wanted) continue;
    if (!d.available) {
      return make_error(StatusCode::kNotFound, "device '{}' is unavailable: {}", wanted,
                        d.unavailable_reason);
    }
    return static_cast<int>(i);
  }
  return make_error(StatusCode::kNotFound, "unknown device '{}'; available devices: {}", wanted,
                    join_ids(descriptions_, true));
}

Expected<int> RuntimeImpl::find_device(const std::string& id) const {
  const std::string& wanted = id.empty() ? default_id_ : id;
  auto found = find_listed_device(wanted);
  if (found || found.status().code() != StatusCode::kNotFound) return found;
  list_all_devices();  // not a built-in: it may be a plugin's
  return find_listed_device(wanted);
}

Expected<std::shared_ptr<devices::Device>> RuntimeImpl::device(int index) const {
  std::lock_guard<std::mutex> lock(devices_mutex_);
  if (index < 0 || index >= static_cast<int>(entries_.size())) {
    return make_error(StatusCode::kInvalidArgument, "device index {} out of range ({} devices)",
                      index, entries_.size());
  }
  if (!opened_[index]) {
    devices::DeviceOptions opts;
    if (options_.num_threads > 0) {
      opts.emplace_back("num_threads", std::to_string(options_.num_threads));
    }
    PLAIDML_ASSIGN(opened_[index], devices::open_device(entries_[index], opts));
  }
  return opened_[index];
}

Expected<std::shared_ptr<Buffer>> RuntimeImpl::allocate(int device_index, const Shape& shape) {
  return firewall([&] { return allocate_impl(device_index, shape); });
}

Expected<std::shared_ptr<Buffer>> RuntimeImpl::allocate_impl(int device_index, const Shape& shape) {
  PLAIDML_ASSIGN(auto dev, device(device_index));
  PLAIDML_ASSIGN(uint64_t bytes, checked_byte_size(shape));
  PLAIDML_TRY(budget_of(*dev).check_allocation(shape, bytes));
  auto storage = dev->allocate(bytes);
  if (!storage) {
    return storage.status().with_context(fmt::format("allocating {}: ", shape.to_string()));
  }
  return std::shared_ptr<Buffer>(
      std::make_shared<RuntimeBuffer>(shape, device_index, std::move(*storage)));
}

Expected<std::shared_ptr<Buffer>> RuntimeImpl::upload(int device_index, const Shape& shape,
                                                     const void* data) {
  PLAIDML_ASSIGN(auto buffer, allocate_impl(device_index, shape));
  const auto& storage = static_cast<const RuntimeBuffer*>(buffer.get())->storage();
  ProfileScope timed(profiler_, {"upload constant", "transfer", 0, 0, device_id(device_index), {},
                                 storage.size()});
  if (storage.size() > 0) PLAIDML_TRY(storage.device()->write(storage, 0, data, storage.size()));
  return buffer;
}

Expected<std::shared_ptr<Buffer>> RuntimeImpl::resident(int device_index,
                                                       const ir::ConstantData& constant) {
  PLAIDML_ASSIGN(auto dev, device(device_index));
  // Kernels' vector loads of unaligned bytes would straddle cache lines: such a constant (only
  // adopted caller memory can be one; plaidml's own copies are aligned) is copied instead.
  bool aligned = reinterpret_cast<uintptr_t>(constant.data) % ir::kConstantAlignment == 0;
  if (!dev->can_wrap_host() || !constant.owner || !aligned) {
    return upload(device_index, constant.shape, constant.data);
  }
  PLAIDML_ASSIGN(auto storage, dev->wrap_host(constant.data, constant.byte_size()));
  return std::shared_ptr<Buffer>(
      std::make_shared<RuntimeBuffer>(constant.shape, device_index, std::move(storage)));
}

Expected<const RuntimeBuffer*> RuntimeImpl::own_buffer(const Buffer* buffer,
                                                       const std::string& what) const {
  if (!buffer) return make_error(StatusCode::kInvalidArgument, "{}: buffer is null", what);
  const auto* rb = dynamic_cast<const RuntimeBuffer*>(buffer);
  int index = buffer->device();
  bool mine = false;
  if (rb) {
    std::lock_guard<std::mutex> lock(devices_mutex_);
    mine = index >= 0 && index < static_cast<int>(entries_.size()) && opened_[index] &&
           rb->storage().device() == opened_[index];
  }
  if (!mine) {
    return make_error(StatusCode::kInvalidArgument, "{}: the buffer belongs to another context",
                      what);
  }
  return rb;
}

Status RuntimeImpl::write(Buffer& buffer, const void* data, size_t bytes) {
  return firewall([&]() -> Status {
    PLAIDML_ASSIGN(const RuntimeBuffer* rb, own_buffer(&buffer, "write"));
    uint64_t expected = rb->storage().size();
    if (bytes != expected) {
      return make_error(StatusCode::kInvalidArgument,
                        "write of {} bytes to a buffer of shape {}, which holds {} bytes", bytes,
                        rb->shape().to_string(), expected);
    }
    if (!data && bytes) return Status(StatusCode::kInvalidArgument, "write: data is null");
    ProfileScope timed(profiler_, {"write", "transfer", 0, 0, device_id(rb->device()), {}, bytes});
    return rb->storage().device()->write(rb->storage(), 0, data, bytes);
  });
}

Status RuntimeImpl::read(const Buffer& buffer, void* data, size_t bytes) const {
  return firewall([&]() -> Status {
    PLAIDML_ASSIGN(const RuntimeBuffer* rb, own_buffer(&buffer, "read"));
    uint64_t expected = rb->storage().size();
    if (bytes != expected) {
      return make_error(StatusCode::kInvalidArgument,
                        "read of {} bytes from a buffer of shape {}, which holds {} bytes", bytes,
                        rb->shape().to_string(), expected);
    }
    if (!data && bytes) return Status(StatusCode::kInvalidArgument, "read: data is null");
    ProfileScope timed(profiler_, {"read", "transfer", 0, 0, device_id(rb->device()), {}, bytes});
    return rb->storage().device()->read(rb->storage(), 0, data, bytes);
  });
}

Expected<std::shared_ptr<const Plan>> RuntimeImpl::prepare(
    const std::shared_ptr<const ir::Program>& program, const std::vector<Shape>& input_shapes,
    int device_index) {
  return firewall([&] { return prepare_impl(program, input_shapes, device_index); });
}

Expected<std::shared_ptr<const Plan>> RuntimeImpl::prepare_impl(
    const std::shared_ptr<const ir::Program>& program, const std::vector<Shape>& input_shapes,
    int device_index) {
  if (!program) return Status(StatusCode::kInvalidArgument, "program is null");
  PLAIDML_ASSIGN(auto dev, device(device_index));
  PlanKey key{program->fingerprint(), input_shapes, dev->id()};
  return cache_.get_or_compile(key, [&]() -> Expected<PlanCache::PlanPtr> {
    ProfileScope timed(profiler_, {"compile " + program->name, "compile", 0, 0, dev->id(), {}, 0});
    CompileCaches caches{artifacts_.get(), plans_.get(), &library_, forms_.get()};
    PLAIDML_ASSIGN(auto plan, compile_program(program, input_shapes, dev, device_index, caches));
    logger().debug("plan cache miss: compiled {}", key.to_string());
    return PlanCache::PlanPtr(std::move(plan));
  });
}

MemoryBudget RuntimeImpl::budget_of(const devices::Device& device) const {
  return MemoryBudget(device.id(), device.info(), host_limit_);
}

Expected<uint64_t> RuntimeImpl::memory_budget(int device_index) const {
  return firewall([&]() -> Expected<uint64_t> {
    PLAIDML_ASSIGN(auto dev, device(device_index));
    return budget_of(*dev).bytes();
  });
}

Status RuntimeImpl::check_fits(const ir::Program& program, const Plan& plan) const {
  return firewall([&]() -> Status {
    PLAIDML_ASSIGN(auto dev, device(plan.device()));
    return budget_of(*dev).check_run(program.name, plan.memory());
  });
}

CacheStats RuntimeImpl::stats() const {
  CacheStats s = cache_.stats();
  ArtifactCacheStats a = artifacts_->stats();
  s.kernels_compiled = a.kernels_compiled;
  s.kernel_library_hits = library_.hits();
  s.artifact_memory_hits = a.memory_hits;
  s.disk_hits = a.disk_hits;
  s.disk_misses = a.disk_misses;
  s.disk_invalid = a.disk_invalid;
  s.disk_writes = a.disk_writes;
  s.disk_write_failures = a.disk_write_failures;
  PlanStoreStats p = plans_->stats();
  s.plan_disk_hits = p.hits;
  s.plan_disk_misses = p.misses;
  s.plan_disk_writes = p.writes;
  s.constant_uploads = constants_.uploads();
  s.constant_bytes = constants_.resident_bytes();
  return s;
}

}  // namespace plaidml::jit
