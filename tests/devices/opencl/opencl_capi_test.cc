// The build-tree libplaidml.so finds the OpenCL plugin next to itself (<its directory>/plaidml/
// devices), with no PLAIDML_PLUGIN_PATH: what `plaidml devices` shows a user of the build tree.
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "plaidml/plaidml.h"

TEST_CASE("opencl capi: libplaidml lists opencl:0 without PLAIDML_PLUGIN_PATH") {
  unsetenv("PLAIDML_PLUGIN_PATH");
  plaidml_context* ctx = nullptr;
  REQUIRE(plaidml_context_create(nullptr, &ctx) == PLAIDML_STATUS_OK);
  size_t count = 0;
  REQUIRE(plaidml_device_count(ctx, &count) == PLAIDML_STATUS_OK);
  const char* id = nullptr;
  REQUIRE(plaidml_device_id(ctx, 0, &id) == PLAIDML_STATUS_OK);
  CHECK(std::string(id) == "cpu:0");
  bool found = false;
  for (size_t i = 1; i < count; ++i) {
    REQUIRE(plaidml_device_id(ctx, i, &id) == PLAIDML_STATUS_OK);
    if (std::string(id) != "opencl:0") continue;
    found = true;
    bool available = false;
    const char* reason = nullptr;
    REQUIRE(plaidml_device_available(ctx, i, &available, &reason) == PLAIDML_STATUS_OK);
    INFO(reason);
    CHECK(available);
  }
  CHECK(found);
  // Selecting it works; compiling for it does not exist yet (the runtime tests cover that).
  CHECK(plaidml_context_select_device(ctx, "opencl:0") == PLAIDML_STATUS_OK);
  plaidml_context_destroy(ctx);
}

namespace {

// Whether the OpenCL plugin module is mapped into this process (RTLD_NOLOAD loads nothing).
bool opencl_module_loaded() {
  void* handle = dlopen(PLAIDML_TEST_OPENCL_MODULE, RTLD_NOW | RTLD_NOLOAD);
  if (handle) dlclose(handle);
  return handle != nullptr;
}

}  // namespace

TEST_CASE("opencl capi: a CPU-only run never loads the OpenCL plugin") {
  // NOTES.md: PoCL installs a SIGFPE handler in the host process; CPU users must not get it.
  unsetenv("PLAIDML_PLUGIN_PATH");
  unsetenv("PLAIDML_DEVICE");
  REQUIRE_FALSE(opencl_module_loaded());
  plaidml_context* ctx = nullptr;
  REQUIRE(plaidml_context_create(nullptr, &ctx) == PLAIDML_STATUS_OK);
  plaidml_program* program = nullptr;
  REQUIRE(plaidml_program_from_tile("function (A[N]) -> (B) { B = A * 2; }", &program) ==
          PLAIDML_STATUS_OK);
  const float a[3] = {1, 2, 3};
  const int64_t dims[1] = {3};
  plaidml_buffer* input = nullptr;
  REQUIRE(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, 1, dims, a, sizeof(a),
                                          &input) == PLAIDML_STATUS_OK);
  const char* names[1] = {"A"};
  plaidml_buffer* output = nullptr;
  REQUIRE(plaidml_execute(ctx, program, 1, names, &input, 1, nullptr, &output) ==
          PLAIDML_STATUS_OK);
  float b[3] = {0, 0, 0};
  REQUIRE(plaidml_buffer_read(output, b, sizeof(b)) == PLAIDML_STATUS_OK);
  CHECK(b[2] == 6.0f);
  CHECK_FALSE(opencl_module_loaded());

  // Listing the devices is what loads it.
  size_t count = 0;
  REQUIRE(plaidml_device_count(ctx, &count) == PLAIDML_STATUS_OK);
  CHECK(count >= 2);
  CHECK(opencl_module_loaded());
  plaidml_buffer_destroy(output);
  plaidml_buffer_destroy(input);
  plaidml_program_destroy(program);
  plaidml_context_destroy(ctx);
}

TEST_CASE("opencl capi: asking for opencl:0 by id loads the plugin on demand") {
  unsetenv("PLAIDML_PLUGIN_PATH");
  plaidml_context* ctx = nullptr;
  REQUIRE(plaidml_context_create(nullptr, &ctx) == PLAIDML_STATUS_OK);
  CHECK_FALSE(opencl_module_loaded());
  CHECK(plaidml_context_select_device(ctx, "opencl:0") == PLAIDML_STATUS_OK);
  CHECK(opencl_module_loaded());
  plaidml_context_destroy(ctx);
}
