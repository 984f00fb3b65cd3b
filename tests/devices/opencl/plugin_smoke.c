/* plugin_smoke.c: drives the OpenCL plugin module through its C vtable alone (include/plaidml/
 * plugin.h), with no libplaidml: enumerate every device, then on each one move buffers, build two
 * OpenCL C kernels and launch them chained in one queue, and check the results by hand. It needs
 * only the module and an OpenCL ICD, so the same binary checks PoCL in CI and a real GPU driver
 * (the NVIDIA H100 of the device machine) without carrying the rest of plaidml.
 *
 * usage: plugin_smoke PATH/libplaidml_device_opencl.so      (prints "N passed, N failed") */
#include <dlfcn.h>
#include <stdio.h>
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

/* c = a + b; then d = 2 * c, the second launch reading what the first wrote on the device. */
static const char* kSource =
    "__kernel void add(__global const float* a, __global const float* b, __global float* c,\n"
    "                  __global float* d) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < 1000) c[i] = a[i] + b[i];\n"
    "}\n"
    "__kernel void twice(__global const float* a, __global const float* b, __global float* c,\n"
    "                    __global float* d) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < 1000) d[i] = 2.0f * c[i];\n"
    "}\n";

enum { kN = 1000 };

static void run_on_device(const plaidml_plugin* p, uint32_t index) {
  static float a[kN], b[kN], d[kN];
  plaidml_plugin_device dev = NULL;
  plaidml_plugin_buffer bufs[4] = {NULL, NULL, NULL, NULL};
  plaidml_plugin_executable exe = NULL;
  const char* symbols[2] = {"add", "twice"};
  plaidml_plugin_launch_info launch;
  int i, ok = 1;
  for (i = 0; i < kN; ++i) {
    a[i] = (float)i;
    b[i] = (float)(3 * i) + 0.5f;
  }
  check(p->open_device(index, NULL, 0, &dev) == PLAIDML_PLUGIN_OK, "open_device", p);
  if (!dev) return;
  for (i = 0; i < 4; ++i) {
    check(p->allocate(dev, sizeof(a), &bufs[i]) == PLAIDML_PLUGIN_OK, "allocate", p);
  }
  check(p->write(dev, bufs[0], 0, a, sizeof(a)) == PLAIDML_PLUGIN_OK, "write a", p);
  check(p->write(dev, bufs[1], 0, b, sizeof(b)) == PLAIDML_PLUGIN_OK, "write b", p);
  check(p->load(dev, "opencl-c", kSource, strlen(kSource), symbols, 2, &exe) == PLAIDML_PLUGIN_OK,
        "load", p);
  memset(&launch, 0, sizeof(launch));
  launch.struct_size = sizeof(launch);
  launch.grid[0] = (kN + 63) / 64;
  launch.grid[1] = launch.grid[2] = 1;
  launch.workgroup[0] = 64;
  launch.workgroup[1] = launch.workgroup[2] = 1;
  if (exe) {
    launch.kernel = 0;
    check(p->launch(dev, exe, &launch, bufs, 4) == PLAIDML_PLUGIN_OK, "launch add", p);
    launch.kernel = 1;
    check(p->launch(dev, exe, &launch, bufs, 4) == PLAIDML_PLUGIN_OK, "launch twice", p);
    check(p->synchronize(dev) == PLAIDML_PLUGIN_OK, "synchronize", p);
    check(p->read(dev, bufs[3], 0, d, sizeof(d)) == PLAIDML_PLUGIN_OK, "read d", p);
    for (i = 0; i < kN; ++i) ok &= d[i] == 2.0f * (a[i] + b[i]);
    check(ok, "d == 2 * (a + b) on every element", p);
  }
  /* A kernel that cannot build: the status is an error and the message holds the build log. */
  {
    const char* bad = "__kernel void broken(__global float* x) { x[0] = undefined_name; }";
    const char* sym[1] = {"broken"};
    plaidml_plugin_executable none = NULL;
    plaidml_plugin_status s = p->load(dev, "opencl-c", bad, strlen(bad), sym, 1, &none);
    check(s != PLAIDML_PLUGIN_OK && none == NULL, "a broken kernel fails to load", p);
    check(strstr(p->last_error(), "undefined_name") != NULL, "the build log names the error", p);
  }
  p->unload(dev, exe);
  for (i = 0; i < 4; ++i) p->free_buffer(dev, bufs[i]);
  p->close_device(dev);
}

int main(int argc, char** argv) {
  void* module;
  plaidml_plugin_get_v1_fn get;
  const plaidml_plugin* p;
  uint32_t count = 0, i;
  if (argc != 2) {
    fprintf(stderr, "usage: %s PATH/libplaidml_device_opencl.so\n", argv[0]);
    return 2;
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
    printf("opencl:%u  %s | %s | %s | %llu MiB | workgroup %u | local %llu KiB | units %u%s%s\n", i,
           info.name, info.vendor, info.kind, (unsigned long long)(info.memory_bytes >> 20),
           info.max_workgroup_size, (unsigned long long)(info.local_memory_bytes >> 10),
           info.compute_units, (info.flags & PLAIDML_PLUGIN_DEVICE_FP16) ? " fp16" : "",
           (info.flags & PLAIDML_PLUGIN_DEVICE_FP64) ? " fp64" : "");
    run_on_device(p, i);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
