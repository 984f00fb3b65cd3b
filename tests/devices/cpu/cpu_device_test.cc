// The CPU device through the C++ Device view (devices/device.h) and through its raw vtable.
#include "devices/cpu/cpu_device.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "devices/device.h"

using plaidml::StatusCode;
using plaidml::devices::Device;

#if defined(__SANITIZE_ADDRESS__)
// The out-of-memory tests ask for absurd sizes: ASan must return NULL rather than abort.
extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}
#endif

namespace {

std::shared_ptr<Device> open_cpu(int threads = 2) {
  auto dev = Device::open(plaidml::devices::cpu::cpu_plugin(), 0, "cpu:0",
                          {{"num_threads", std::to_string(threads)}});
  REQUIRE(dev.has_value());
  return *dev;
}

}  // namespace

TEST_CASE("cpu device: vtable header and description") {
  const plaidml_plugin* p = plaidml::devices::cpu::cpu_plugin();
  CHECK(p->abi_version == PLAIDML_PLUGIN_ABI_VERSION);
  CHECK(p->struct_size == sizeof(plaidml_plugin));
  CHECK(std::string(p->name) == "cpu");
  uint32_t count = 0;
  REQUIRE(p->device_count(&count) == PLAIDML_PLUGIN_OK);
  CHECK(count == 1);
  plaidml_plugin_device_info info{};
  info.struct_size = sizeof(info);
  REQUIRE(p->describe_device(0, &info) == PLAIDML_PLUGIN_OK);
  CHECK(std::string(info.kind) == "cpu");
  CHECK(std::string(info.artifact_formats) == "elf-object");
  CHECK(info.memory_bytes > 0);
  CHECK(info.vector_bits >= 128);
  CHECK(info.compute_units >= 1);
  CHECK((info.flags & PLAIDML_PLUGIN_DEVICE_FP64) != 0);
  CHECK(p->describe_device(1, &info) == PLAIDML_PLUGIN_NOT_FOUND);
  CHECK(std::string(p->last_error()) == "the CPU plugin has one device (0)");
}

TEST_CASE("cpu device: an older, shorter info struct is filled only up to its size") {
  const plaidml_plugin* p = plaidml::devices::cpu::cpu_plugin();
  plaidml_plugin_device_info info;
  std::memset(&info, 0xAB, sizeof(info));
  info.struct_size = offsetof(plaidml_plugin_device_info, memory_bytes);
  REQUIRE(p->describe_device(0, &info) == PLAIDML_PLUGIN_OK);
  CHECK(std::string(info.name).size() > 0);
  CHECK(info.memory_bytes == 0xABABABABABABABABULL);  // untouched
}

TEST_CASE("cpu device: open honours num_threads") {
  auto dev = open_cpu(3);
  CHECK(dev->info().compute_units == 3);
  CHECK(dev->info().accepts("elf-object"));
  CHECK_FALSE(dev->info().accepts("spirv"));
  CHECK(dev->id() == "cpu:0");
}

TEST_CASE("cpu device: buffers are 64-byte aligned and round-trip bytes") {
  auto dev = open_cpu();
  for (uint64_t size : {0ull, 1ull, 63ull, 64ull, 1000ull, 1ull << 20}) {
    auto buf = dev->allocate(size);
    REQUIRE(buf.has_value());
    CHECK((*buf)->size() == size);
    // The CPU's handles point at the host bytes' owner; alignment is checked via the data.
    std::vector<uint8_t> in(size), out(size, 0);
    std::iota(in.begin(), in.end(), uint8_t(7));
    REQUIRE(dev->write(**buf, 0, in.data(), size).is_ok());
    REQUIRE(dev->read(**buf, 0, out.data(), size).is_ok());
    CHECK(in == out);
  }
  auto buf = dev->allocate(256);
  REQUIRE(buf.has_value());
  // The handle's first member is the data pointer (cpu_device.cc); check its alignment.
  void* data = *reinterpret_cast<void* const*>((*buf)->handle());
  CHECK(reinterpret_cast<uintptr_t>(data) % 64 == 0);
}

TEST_CASE("cpu device: partial writes and reads at offsets, and copies") {
  auto dev = open_cpu();
  auto a = dev->allocate(16);
  auto b = dev->allocate(16);
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  std::vector<uint8_t> zeros(16, 0), four = {1, 2, 3, 4}, out(16);
  REQUIRE(dev->write(**a, 0, zeros.data(), 16).is_ok());
  REQUIRE(dev->write(**a, 10, four.data(), 4).is_ok());
  REQUIRE(dev->copy(**a, **b, 16).is_ok());
  REQUIRE(dev->read(**b, 0, out.data(), 16).is_ok());
  CHECK(out == std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0, 0});
  std::vector<uint8_t> two(2);
  REQUIRE(dev->read(**a, 11, two.data(), 2).is_ok());
  CHECK(two == std::vector<uint8_t>{2, 3});
}

TEST_CASE("cpu device: wrap_host reads the caller's memory in place and never writes it") {
  auto dev = open_cpu();
  REQUIRE(dev->can_wrap_host());
  std::vector<uint8_t> host = {9, 8, 7, 6, 5, 4, 3, 2};
  auto wrapped = dev->wrap_host(host.data(), host.size());
  REQUIRE(wrapped.has_value());
  CHECK((*wrapped)->size() == 8);
  // The handle's data is the caller's pointer (no copy): a later change shows through.
  CHECK(*reinterpret_cast<void* const*>((*wrapped)->handle()) == host.data());
  host[0] = 42;
  std::vector<uint8_t> out(8);
  REQUIRE(dev->read(**wrapped, 0, out.data(), 8).is_ok());
  CHECK(out[0] == 42);
  // It copies out like any buffer, and refuses to be written.
  auto copy = dev->allocate(8);
  REQUIRE(copy.has_value());
  REQUIRE(dev->copy(**wrapped, **copy, 8).is_ok());
  std::vector<uint8_t> zeros(8, 0);
  auto s = dev->write(**wrapped, 0, zeros.data(), 8);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "device cpu:0: write: the buffer wraps the caller's host memory "
                       "(wrap_host), which is read-only");
  s = dev->copy(**copy, **wrapped, 8);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(host[1] == 8);
  wrapped->reset();  // freeing it leaves the memory to its owner
  CHECK(host[7] == 2);
  const plaidml_plugin* p = plaidml::devices::cpu::cpu_plugin();
  plaidml_plugin_buffer raw = nullptr;
  CHECK(p->wrap_host(nullptr, host.data(), 8, &raw) == PLAIDML_PLUGIN_INVALID_ARGUMENT);
  CHECK(std::string(p->last_error()) == "NULL argument to wrap_host");
}

TEST_CASE("cpu device: out-of-range copies are errors with the plugin's message") {
  auto dev = open_cpu();
  auto a = dev->allocate(16);
  REQUIRE(a.has_value());
  std::vector<uint8_t> data(32);
  auto s = dev->write(**a, 8, data.data(), 16);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "device cpu:0: write: range [8, 24) is outside a buffer of 16 bytes");
  s = dev->read(**a, 17, data.data(), 0);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "device cpu:0: read: range [17, 17) is outside a buffer of 16 bytes");
}

TEST_CASE("cpu device: an impossible allocation is out of memory, not a crash") {
  auto dev = open_cpu();
  auto huge = dev->allocate(uint64_t(1) << 62);
  REQUIRE_FALSE(huge.has_value());
  CHECK(huge.status().code() == StatusCode::kOutOfMemory);
  CHECK(huge.status().message() ==
        "device cpu:0: allocate: out of host memory allocating 4611686018427387904 bytes");
}

TEST_CASE("cpu device: loading a format it does not accept is unsupported") {
  auto dev = open_cpu();
  auto exe = dev->load("spirv", {1, 2, 3}, {"main"});
  REQUIRE_FALSE(exe.has_value());
  CHECK(exe.status().code() == StatusCode::kUnsupported);
  CHECK(exe.status().message() ==
        "device cpu:0: load: the CPU device cannot load format 'spirv' (it accepts 'elf-object')");
}

TEST_CASE("cpu device: garbage object bytes are an error, not a crash") {
  auto dev = open_cpu();
  auto exe = dev->load("elf-object", {1, 2, 3, 4}, {"k0"});
  REQUIRE_FALSE(exe.has_value());
  CHECK(exe.status().code() != StatusCode::kOk);
  CHECK(exe.status().message().rfind("device cpu:0: load: ", 0) == 0);
}
