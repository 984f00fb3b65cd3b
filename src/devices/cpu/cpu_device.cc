#include "devices/cpu/cpu_device.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/TargetParser/Host.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "core/base/alloc_faults.h"
#include "devices/cpu/orc_loader.h"
#include "devices/cpu/thread_pool.h"

// The opaque handle types of plugin.h, defined here for the CPU.
struct plaidml_plugin_device_s {
  explicit plaidml_plugin_device_s(int threads) : pool(threads) {}
  plaidml::devices::cpu::ThreadPool pool;
  std::mutex loader_mutex;
  std::unique_ptr<plaidml::devices::cpu::OrcLoader> loader;  // made on first load
};

struct plaidml_plugin_buffer_s {
  void* data = nullptr;
  uint64_t size = 0;
  bool wraps_host = false;  // the caller's memory (wrap_host): read-only, never freed here
};

struct plaidml_plugin_executable_s {
  std::unique_ptr<plaidml::devices::cpu::LoadedObject> object;
};

namespace plaidml::devices::cpu {
namespace {

constexpr size_t kAlignment = 64;
constexpr const char* kFormat = "elf-object";

thread_local std::string t_last_error;

plaidml_plugin_status fail(plaidml_plugin_status code, std::string message) {
  t_last_error = std::move(message);
  return code;
}

struct HostInfo {
  std::string name;
  std::string vendor;
  std::string cpu;
  uint64_t memory_bytes = 0;
  uint32_t vector_bits = 128;
};

std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

const HostInfo& host_info() {
  static const HostInfo info = [] {
    HostInfo h;
    {
      AllocFaultPause pause;  // LLVM cannot survive a thrown bad_alloc (core/base/alloc_faults.h)
      h.cpu = llvm::sys::getHostCPUName().str();
    }
    std::string model = cpuinfo_field("model name");
    if (model.empty()) model = "host CPU";
    h.name = model + " (LLVM ORC JIT, " + h.cpu + ")";
    h.vendor = cpuinfo_field("vendor_id");
    if (h.vendor.empty()) h.vendor = "unknown";
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_size > 0) h.memory_bytes = uint64_t(pages) * uint64_t(page_size);
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
      h.vector_bits = 512;
    } else if (__builtin_cpu_supports("avx")) {
      h.vector_bits = 256;
    }
#endif
    return h;
  }();
  return info;
}

const char* last_error() { return t_last_error.c_str(); }

plaidml_plugin_status device_count(uint32_t* out_count) {
  if (!out_count) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "out_count is NULL");
  *out_count = 1;
  return PLAIDML_PLUGIN_OK;
}

void fill_info(plaidml_plugin_device_info* info, uint32_t threads) {
  const HostInfo& h = host_info();
  plaidml_plugin_device_info out{};
  out.struct_size = info->struct_size;
  out.name = h.name.c_str();
  out.vendor = h.vendor.c_str();
  out.kind = "cpu";
  out.artifact_formats = kFormat;
  out.target = h.cpu.c_str();
  out.memory_bytes = h.memory_bytes;
  out.max_allocation_bytes = h.memory_bytes;
  out.local_memory_bytes = 0;
  out.max_workgroup_size = 1;
  out.compute_units = threads;
  out.vector_bits = h.vector_bits;
  out.flags = PLAIDML_PLUGIN_DEVICE_FP64 | PLAIDML_PLUGIN_DEVICE_UNIFIED_MEMORY;
  // Copy only the members the caller's struct has (it may be an older, shorter header).
  size_t n = std::min<size_t>(info->struct_size, sizeof(out));
  std::memcpy(info, &out, n);
}

plaidml_plugin_status describe_device(uint32_t index, plaidml_plugin_device_info* info) {
  if (index != 0) return fail(PLAIDML_PLUGIN_NOT_FOUND, "the CPU plugin has one device (0)");
  if (!info) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "info is NULL");
  try {
    fill_info(info, static_cast<uint32_t>(ThreadPool::default_thread_count()));
  } catch (const std::exception& e) {
    return fail(PLAIDML_PLUGIN_INTERNAL, e.what());
  }
  return PLAIDML_PLUGIN_OK;
}

int thread_option(const plaidml_plugin_option* options, size_t num_options) {
  for (size_t i = 0; i < num_options; ++i) {
    if (options[i].key && options[i].value && std::strcmp(options[i].key, "num_threads") == 0) {
      return std::atoi(options[i].value);
    }
  }
  return 0;
}

plaidml_plugin_status open_device(uint32_t index, const plaidml_plugin_option* options,
                                  size_t num_options, plaidml_plugin_device* out_device) {
  if (index != 0) return fail(PLAIDML_PLUGIN_NOT_FOUND, "the CPU plugin has one device (0)");
  if (!out_device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "out_device is NULL");
  if (num_options > 0 && !options) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "options is NULL");
  try {
    *out_device = new plaidml_plugin_device_s(thread_option(options, num_options));
  } catch (const std::bad_alloc&) {
    return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY, "out of memory opening the CPU device");
  } catch (const std::exception& e) {
    return fail(PLAIDML_PLUGIN_DEVICE_ERROR, std::string("cannot start CPU threads: ") + e.what());
  }
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status query_device(plaidml_plugin_device device, plaidml_plugin_device_info* info) {
  if (!device || !info) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device or info is NULL");
  try {
    fill_info(info, static_cast<uint32_t>(device->pool.num_threads()));
  } catch (const std::exception& e) {
    return fail(PLAIDML_PLUGIN_INTERNAL, e.what());
  }
  return PLAIDML_PLUGIN_OK;
}

void close_device(plaidml_plugin_device device) { delete device; }

plaidml_plugin_status allocate(plaidml_plugin_device device, uint64_t bytes,
                               plaidml_plugin_buffer* out_buffer) {
  if (!device || !out_buffer) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "NULL argument");
  // aligned_alloc wants a multiple of the alignment; a 0-byte buffer still gets a real pointer.
  uint64_t rounded =
      std::max<uint64_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
  if (rounded < bytes) return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY, "buffer size overflows");
  void* data = std::aligned_alloc(kAlignment, rounded);
  auto* buffer = data ? new (std::nothrow) plaidml_plugin_buffer_s{data, bytes} : nullptr;
  if (!buffer) {
    std::free(data);
    return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY,
                "out of host memory allocating " + std::to_string(bytes) + " bytes");
  }
  *out_buffer = buffer;
  return PLAIDML_PLUGIN_OK;
}

void free_buffer(plaidml_plugin_device, plaidml_plugin_buffer buffer) {
  if (!buffer) return;
  if (!buffer->wraps_host) std::free(buffer->data);
  delete buffer;
}

plaidml_plugin_status wrap_host(plaidml_plugin_device device, const void* data, uint64_t bytes,
                                plaidml_plugin_buffer* out_buffer) {
  if (!device || !out_buffer || (!data && bytes)) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "NULL argument to wrap_host");
  }
  // Kernels read the memory and never write it: the const goes away only in the handle.
  auto* buffer =
      new (std::nothrow) plaidml_plugin_buffer_s{const_cast<void*>(data), bytes, true};
  if (!buffer) return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY, "out of host memory");
  *out_buffer = buffer;
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status check_range(plaidml_plugin_buffer buffer, uint64_t offset, uint64_t bytes) {
  if (!buffer) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "buffer is NULL");
  if (offset > buffer->size || bytes > buffer->size - offset) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
                "range [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) +
                    ") is outside a buffer of " + std::to_string(buffer->size) + " bytes");
  }
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status read_only() {
  return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT,
              "the buffer wraps the caller's host memory (wrap_host), which is read-only");
}

plaidml_plugin_status write(plaidml_plugin_device, plaidml_plugin_buffer buffer, uint64_t offset,
                            const void* data, uint64_t bytes) {
  if (auto s = check_range(buffer, offset, bytes)) return s;
  if (bytes && !data) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "data is NULL");
  if (buffer->wraps_host) return read_only();
  if (bytes) std::memcpy(static_cast<char*>(buffer->data) + offset, data, bytes);
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status read(plaidml_plugin_device, plaidml_plugin_buffer buffer, uint64_t offset,
                           void* data, uint64_t bytes) {
  if (auto s = check_range(buffer, offset, bytes)) return s;
  if (bytes && !data) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "data is NULL");
  if (bytes) std::memcpy(data, static_cast<const char*>(buffer->data) + offset, bytes);
  return PLAIDML_PLUGIN_OK;
}

plaidml_plugin_status copy(plaidml_plugin_device, plaidml_plugin_buffer src, uint64_t src_offset,
                           plaidml_plugin_buffer dst, uint64_t dst_offset, uint64_t bytes) {
  if (auto s = check_range(src, src_offset, bytes)) return s;
  if (auto s = check_range(dst, dst_offset, bytes)) return s;
  if (dst->wraps_host) return read_only();
  if (bytes) {
    std::memmove(static_cast<char*>(dst->data) + dst_offset,
                 static_cast<const char*>(src->data) + src_offset, bytes);
  }
  return PLAIDML_PLUGIN_OK;
}

// The ORC loader is made on first use: opening a device must stay cheap (tests, `devices`).
Expected<OrcLoader*> get_loader(plaidml_plugin_device device) {
  std::lock_guard<std::mutex> lock(device->loader_mutex);
  if (!device->loader) {
    PLAIDML_ASSIGN(device->loader, OrcLoader::create());
  }
  return device->loader.get();
}

plaidml_plugin_status status_to_plugin(const Status& s) {
  t_last_error = s.message();
  return static_cast<plaidml_plugin_status>(s.code());
}

plaidml_plugin_status load(plaidml_plugin_device device, const char* format, const void* bytes,
                           uint64_t num_bytes, const char* const* symbols, size_t num_symbols,
                           plaidml_plugin_executable* out_executable) {
  if (!device || !format || (!bytes && num_bytes) || (!symbols && num_symbols) || !out_executable) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "NULL argument to load");
  }
  if (std::strcmp(format, kFormat) != 0) {
    return fail(PLAIDML_PLUGIN_UNSUPPORTED, std::string("the CPU device cannot load format '") +
                                                format + "' (it accepts '" + kFormat + "')");
  }
  try {
    auto loader = get_loader(device);
    if (!loader) return status_to_plugin(loader.status());
    const auto* p = static_cast<const uint8_t*>(bytes);
    std::vector<uint8_t> object(p, p + num_bytes);
    std::vector<std::string> names(symbols, symbols + num_symbols);
    auto loaded = (*loader)->load(object, names);
    if (!loaded) return status_to_plugin(loaded.status());
    *out_executable = new plaidml_plugin_executable_s{std::move(*loaded)};
  } catch (const std::bad_alloc&) {
    return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY, "out of memory loading kernels");
  } catch (const std::exception& e) {
    return fail(PLAIDML_PLUGIN_INTERNAL, e.what());
  }
  return PLAIDML_PLUGIN_OK;
}

void unload(plaidml_plugin_device, plaidml_plugin_executable executable) { delete executable; }

int64_t chunk_count(int64_t extent, double work, int threads) {
  if (threads <= 1 || extent <= 1 || work < kMinParallelWork) return 1;
  // Several chunks per thread even out uneven iterations; each chunk keeps enough work to pay
  // for handing it to another thread.
  int64_t by_work = static_cast<int64_t>(work / (kMinParallelWork / 4));
  return std::max<int64_t>(1, std::min<int64_t>({extent, int64_t(threads) * 4, by_work}));
}

plaidml_plugin_status launch(plaidml_plugin_device device, plaidml_plugin_executable executable,
                             const plaidml_plugin_launch_info* info,
                             const plaidml_plugin_buffer* buffers, size_t num_buffers) {
  if (!device || !executable || !info || (!buffers && num_buffers)) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "NULL argument to launch");
  }
  const auto& kernels = executable->object->kernels();
  if (info->kernel >= kernels.size()) {
    return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "kernel index " + std::to_string(info->kernel) +
                                                     " out of range (executable has " +
                                                     std::to_string(kernels.size()) + ")");
  }
  if (info->parallel_extent <= 0) return PLAIDML_PLUGIN_OK;
  try {
    std::vector<void*> slots(num_buffers);
    for (size_t i = 0; i < num_buffers; ++i) {
      if (!buffers[i]) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "buffer is NULL");
      slots[i] = buffers[i]->data;
    }
    KernelFn fn = kernels[info->kernel];
    void* const* args = slots.data();
    int64_t chunks = chunk_count(info->parallel_extent, info->work, device->pool.num_threads());
    device->pool.parallel_for(info->parallel_extent, chunks,
                              [fn, args](int64_t begin, int64_t end) { fn(args, begin, end); });
  } catch (const std::bad_alloc&) {
    return fail(PLAIDML_PLUGIN_OUT_OF_MEMORY, "out of memory launching a kernel");
  } catch (const std::exception& e) {
    return fail(PLAIDML_PLUGIN_INTERNAL, e.what());
  }
  return PLAIDML_PLUGIN_OK;
}

// Launches run to completion on the calling thread before they return.
plaidml_plugin_status synchronize(plaidml_plugin_device device) {
  if (!device) return fail(PLAIDML_PLUGIN_INVALID_ARGUMENT, "device is NULL");
  return PLAIDML_PLUGIN_OK;
}

}  // namespace

const plaidml_plugin* cpu_plugin() {
  static const plaidml_plugin plugin = {
      PLAIDML_PLUGIN_ABI_VERSION,
      sizeof(plaidml_plugin),
      "cpu",
      last_error,
      device_count,
      describe_device,
      open_device,
      query_device,
      close_device,
      allocate,
      free_buffer,
      write,
      read,
      copy,
      load,
      unload,
      launch,
      synchronize,
      wrap_host,
  };
  return &plugin;
}

}  // namespace plaidml::devices::cpu
