/* plugin_smoke.c: drives the Vulkan plugin module through its C vtable alone (include/plaidml/
 * plugin.h), with no libplaidml: enumerate every device, then on each one move buffers, load a
 * SPIR-V module with two entry points and launch them chained in one submit, and check the
 * results by hand. It needs only the module, a Vulkan loader and a driver, so the same binary
 * checks lavapipe in CI and a real GPU driver (the device machine's NVIDIA H100).
 *
 * usage: plugin_smoke PATH/libplaidml_device_vulkan.so PATH/add_then_twice.spv [--release-at-exit]
 * (prints "N passed, N failed"). --release-at-exit leaves the last device and its buffers open
 * and releases them from an exit handler registered before the device was opened, as a static
 * object's destructor would: it runs after the plugin's own exit handler (src/devices/vulkan/
 * vk_exit.h), so the plugin must release them without calling the driver, and exit cleanly. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plaidml/plugin.h"

static int passed = 0;
static int failed = 0;

static void check(int ok, const char* what, const plaidml_plugin* p) {
  if (ok) {
    ++passed;
    return;
  }
  ++failed;
  printf("FAIL: %s: %s\n", what, p ? p->last_error() : "");
}

enum { kN = 1000, kMaxModule = 1 << 20 };

static unsigned char module_bytes[kMaxModule];
static size_t module_size = 0;

static int read_module(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  module_size = fread(module_bytes, 1, sizeof(module_bytes), f);
  fclose(f);
  return module_size > 0;
}

/* b = a + 1 (entry add_one), then c = 2 * b (entry twice), the second reading what the first
 * wrote on the device; see add_then_twice.spvasm. */
static void run_kernels(const plaidml_plugin* p, plaidml_plugin_device dev,
                        plaidml_plugin_buffer* bufs, const float* a) {
  static float c[kN];
  const char* symbols[2] = {"add_one", "twice"};
  plaidml_plugin_executable exe = NULL;
  plaidml_plugin_launch_info launch;
  int i, ok = 1;
  check(p->load(dev, "spirv", module_bytes, module_size, symbols, 2, &exe) == PLAIDML_PLUGIN_OK,
        "load", p);
  if (!exe) return;
  memset(&launch, 0, sizeof(launch));
  launch.struct_size = sizeof(launch);
  launch.grid[0] = (kN + 63) / 64;
  launch.grid[1] = launch.grid[2] = 1;
  launch.workgroup[0] = 64;
  launch.workgroup[1] = launch.workgroup[2] = 1;
  check(p->launch(dev, exe, &launch, bufs, 3) == PLAIDML_PLUGIN_OK, "launch add_one", p);
  launch.kernel = 1;
  launch.grid[0] = (kN + 31) / 32;
  launch.workgroup[0] = 32;
  check(p->launch(dev, exe, &launch, bufs, 3) == PLAIDML_PLUGIN_OK, "launch twice", p);
  check(p->synchronize(dev) == PLAIDML_PLUGIN_OK, "synchronize", p);
  check(p->read(dev, bufs[2], 0, c, sizeof(c)) == PLAIDML_PLUGIN_OK, "read c", p);
  for (i = 0; i < kN; ++i) ok &= c[i] == 2.0f * (a[i] + 1.0f);
  check(ok, "c == 2 * (a + 1) on every element", p);
  p->unload(dev, exe);
}

/* --release-at-exit: what release_at_exit() frees. */
static int release_at_exit_mode = 0;
static const plaidml_plugin* held_plugin = NULL;
static plaidml_plugin_device held_device = NULL;
static plaidml_plugin_buffer held_buffers[3] = {NULL, NULL, NULL};

static void release_at_exit(void) {
  int i;
  if (!held_device) return;
  for (i = 0; i < 3; ++i) held_plugin->free_buffer(held_device, held_buffers[i]);
  held_plugin->close_device(held_device);
}

static void release(const plaidml_plugin* p, plaidml_plugin_device dev,
                    plaidml_plugin_buffer* bufs) {
  int i;
  uint32_t count = 0;
  if (release_at_exit_mode) {
    release_at_exit(); /* the previous device, if any */
    held_plugin = p;
    held_device = dev;
    for (i = 0; i < 3; ++i) held_buffers[i] = bufs[i];
    return;
  }
  for (i = 0; i < 3; ++i) p->free_buffer(dev, bufs[i]);
  p->close_device(dev);
  /* What the validation layer reported while closing (a Vulkan object left alive at
     vkDestroyDevice) fails the next call. */
  check(p->device_count(&count) == PLAIDML_PLUGIN_OK, "closing left no validation error", p);
}

static void run_on_device(const plaidml_plugin* p, uint32_t index) {
  static float a[kN];
  plaidml_plugin_device dev = NULL;
  plaidml_plugin_buffer bufs[3] = {NULL, NULL, NULL};
  int i;
  for (i = 0; i < kN; ++i) a[i] = (float)i * 0.5f - 100.0f;
  check(p->open_device(index, NULL, 0, &dev) == PLAIDML_PLUGIN_OK, "open_device", p);
  if (!dev) return;
  for (i = 0; i < 3; ++i) {
    check(p->allocate(dev, sizeof(a), &bufs[i]) == PLAIDML_PLUGIN_OK, "allocate", p);
  }
  check(p->write(dev, bufs[0], 0, a, sizeof(a)) == PLAIDML_PLUGIN_OK, "write a", p);
  if (bufs[0] && bufs[1] && bufs[2]) run_kernels(p, dev, bufs, a);
  /* Bytes that are not SPIR-V: an error status with the reason, not a crash. */
  {
    const char* sym[1] = {"k"};
    unsigned char junk[16] = {0};
    plaidml_plugin_executable none = NULL;
    plaidml_plugin_status s = p->load(dev, "spirv", junk, sizeof(junk), sym, 1, &none);
    check(s != PLAIDML_PLUGIN_OK && none == NULL, "junk fails to load", p);
    check(strstr(p->last_error(), "not a SPIR-V module") != NULL, "the error says why", p);
  }
  release(p, dev, bufs);
}

int main(int argc, char** argv) {
  void* module;
  plaidml_plugin_get_v1_fn get;
  const plaidml_plugin* p;
  uint32_t count = 0, i;
  if (argc == 4 && strcmp(argv[3], "--release-at-exit") == 0) {
    release_at_exit_mode = 1;
    atexit(release_at_exit);
  } else if (argc != 3) {
    fprintf(stderr,
            "usage: %s PATH/libplaidml_device_vulkan.so PATH/add_then_twice.spv "
            "[--release-at-exit]\n",
            argv[0]);
    return 2;
  }
  if (!read_module(argv[2])) {
    printf("FAIL: cannot read %s\n0 passed, 1 failed\n", argv[2]);
    return 1;
  }
  module = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!module) {
    printf("FAIL: dlopen: %s\n0 passed, 1 failed\n", dlerror());
    return 1;
  }
  *(void**)(&get) = dlsym(module, PLAIDML_PLUGIN_ENTRY_V1);
  p = get ? get() : NULL;
  check(p != NULL && p->abi_version == PLAIDML_PLUGIN_ABI_VERSION, "plugin entry and ABI", NULL);
  if (!p) return 1;
  check(p->device_count(&count) == PLAIDML_PLUGIN_OK && count > 0, "device_count", p);
  for (i = 0; i < count; ++i) {
    plaidml_plugin_device_info info;
    memset(&info, 0, sizeof(info));
    info.struct_size = sizeof(info);
    check(p->describe_device(i, &info) == PLAIDML_PLUGIN_OK, "describe_device", p);
    printf("vulkan:%u  %s | %s | %s | %llu MiB | workgroup %u | local %llu KiB | subgroup %u | "
           "heaps: %s |%s%s%s%s%s\n",
           i, info.name, info.vendor, info.kind, (unsigned long long)(info.memory_bytes >> 20),
           info.max_workgroup_size, (unsigned long long)(info.local_memory_bytes >> 10),
           info.subgroup_size, info.memory_heaps ? info.memory_heaps : "?",
           (info.flags & PLAIDML_PLUGIN_DEVICE_FP16) ? " f16" : "",
           (info.flags & PLAIDML_PLUGIN_DEVICE_FP64) ? " f64" : "",
           (info.flags & PLAIDML_PLUGIN_DEVICE_INT8) ? " i8" : "",
           (info.flags & PLAIDML_PLUGIN_DEVICE_INT16) ? " i16" : "",
           (info.flags & PLAIDML_PLUGIN_DEVICE_INT64) ? " i64" : "");
    run_on_device(p, i);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
