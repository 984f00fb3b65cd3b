// Every user-facing error of jit::Runtime: status code and message text.
#include <doctest/doctest.h>

#include <cstdlib>

#include "runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

#if defined(__SANITIZE_ADDRESS__)
// The out-of-memory tests ask for absurd sizes: ASan must return NULL rather than abort.
extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}
#endif

namespace {

constexpr const char* kAdd = R"(
function (A[N], B[N]) -> (C, D) {
  C = A + B;
  D = A * B;
}
)";

struct Fixture {
  std::unique_ptr<jit::Runtime> rt = make_runtime();
  std::shared_ptr<const ir::Program> program = parse_program(kAdd);
  std::shared_ptr<jit::Buffer> a = upload(*rt, random_tensor({DType::F32, {4}}, 1));
  std::shared_ptr<jit::Buffer> b = upload(*rt, random_tensor({DType::F32, {4}}, 2));

  Status run(const NamedBuffers& in, NamedBuffers* out) {
    return jit::run_by_name(*rt, program, 0, in, out);
  }
};

void check_status(const Status& s, StatusCode code, const std::string& message) {
  CHECK(s.code() == code);
  CHECK(s.message() == message);
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

}  // namespace

// Names are matched in jit/io_binding.h (tests/jit/runtime/io_binding_test.cc); run takes the
// program's order and checks only that it has one buffer per slot, each this runtime's.
TEST_CASE("runtime errors: inputs and outputs not one per slot, a null input buffer") {
  Fixture f;
  std::vector<std::shared_ptr<jit::Buffer>> out;
  check_status(f.rt->run(f.program, 0, {f.a}, &out), StatusCode::kInvalidArgument,
               "1 inputs for a program of 2");
  check_status(f.rt->run(f.program, 0, {f.a, nullptr}, &out), StatusCode::kInvalidArgument,
               "input 'B': buffer is null");
  out.resize(1);
  check_status(f.rt->run(f.program, 0, {f.a, f.b}, &out), StatusCode::kInvalidArgument,
               "1 outputs for a program of 2");
  CHECK(out == std::vector<std::shared_ptr<jit::Buffer>>{nullptr});
  out.clear();
  REQUIRE(f.rt->run(f.program, 0, {f.a, f.b}, &out).is_ok());
  CHECK(out.size() == 2);
}

TEST_CASE("runtime errors: shared output buffers, null outputs") {
  Fixture f;
  NamedBuffers out;
  auto shared = f.rt->allocate(0, {DType::F32, {4}});
  REQUIRE(shared.has_value());
  out = {{"C", *shared}, {"D", *shared}};
  check_status(f.run({{"A", f.a}, {"B", f.b}}, &out), StatusCode::kInvalidArgument,
               "outputs 'C' and 'D' share one buffer");
  check_status(f.run({{"A", f.a}, {"B", f.b}}, nullptr), StatusCode::kInvalidArgument,
               "outputs is null");
  std::vector<std::shared_ptr<jit::Buffer>> inputs = {f.a, f.b};
  check_status(f.rt->run(f.program, 0, inputs, nullptr), StatusCode::kInvalidArgument,
               "outputs is null");
}

TEST_CASE("runtime errors: an output buffer of the wrong shape, nothing is written") {
  Fixture f;
  auto wrong = f.rt->allocate(0, {DType::F32, {2, 2}});
  REQUIRE(wrong.has_value());
  auto right = f.rt->allocate(0, {DType::F32, {4}});
  REQUIRE(right.has_value());
  std::vector<float> sentinel = {7, 7, 7, 7};
  REQUIRE(f.rt->write(**right, sentinel.data(), 16).is_ok());
  NamedBuffers out = {{"C", *right}, {"D", *wrong}};
  check_status(f.run({{"A", f.a}, {"B", f.b}}, &out), StatusCode::kTypeError,
               "output 'D' has shape f32[4], but the buffer given has shape f32[2, 2]");
  std::vector<float> after(4);
  REQUIRE(f.rt->read(**right, after.data(), 16).is_ok());
  CHECK(after == sentinel);
  auto wrong_dtype = f.rt->allocate(0, {DType::F64, {4}});
  REQUIRE(wrong_dtype.has_value());
  out = {{"C", *wrong_dtype}};
  check_status(f.run({{"A", f.a}, {"B", f.b}}, &out), StatusCode::kTypeError,
               "output 'C' has shape f32[4], but the buffer given has shape f64[4]");
}

TEST_CASE("runtime errors: binding errors pass through (mismatched dims)") {
  Fixture f;
  auto b5 = upload(*f.rt, random_tensor({DType::F32, {5}}, 3));
  NamedBuffers out;
  auto s = f.run({{"A", f.a}, {"B", b5}}, &out);
  CHECK(s.code() == StatusCode::kTypeError);
  CHECK(s.message().find("N") != std::string::npos);
  CHECK(f.rt->stats().compiles == 0);
}

TEST_CASE("runtime errors: write and read sizes must match the buffer") {
  Fixture f;
  std::vector<float> data(8);
  check_status(f.rt->write(*f.a, data.data(), 12), StatusCode::kInvalidArgument,
               "write of 12 bytes to a buffer of shape f32[4], which holds 16 bytes");
  check_status(f.rt->read(*f.a, data.data(), 32), StatusCode::kInvalidArgument,
               "read of 32 bytes from a buffer of shape f32[4], which holds 16 bytes");
  check_status(f.rt->write(*f.a, nullptr, 16), StatusCode::kInvalidArgument, "write: data is null");
}

TEST_CASE("runtime errors: buffers of another runtime are refused") {
  Fixture f;
  Fixture other;
  NamedBuffers out;
  check_status(f.run({{"A", f.a}, {"B", other.b}}, &out), StatusCode::kInvalidArgument,
               "input 'B': the buffer belongs to another context");
  std::vector<float> data(4);
  check_status(f.rt->read(*other.a, data.data(), 16), StatusCode::kInvalidArgument,
               "read: the buffer belongs to another context");
}

TEST_CASE("runtime errors: null program, bad device index, bad shapes") {
  Fixture f;
  std::vector<std::shared_ptr<jit::Buffer>> out;
  check_status(f.rt->run(nullptr, 0, {}, &out), StatusCode::kInvalidArgument, "program is null");
  check_status(f.rt->prepare(nullptr, {}, 0).status(), StatusCode::kInvalidArgument,
               "program is null");
  check_status(f.rt->run(f.program, 9, {f.a, f.b}, &out), StatusCode::kInvalidArgument,
               "device index 9 out of range (1 devices)");
  check_status(f.rt->allocate(0, {DType::F32, {2, -1}}).status(), StatusCode::kInvalidArgument,
               "buffer shape f32[2, -1] has a negative dimension");
  check_status(f.rt->allocate(0, {DType::F32, {1 << 30, 1 << 30, 1 << 30}}).status(),
               StatusCode::kInvalidArgument,
               "buffer shape f32[1073741824, 1073741824, 1073741824] is too large: its byte size "
               "overflows 64-bit integers");
  check_status(f.rt->allocate(0, {DType::F32, {0, 1 << 30, 1 << 30, 1 << 30}}).status(),
               StatusCode::kInvalidArgument,
               "buffer shape f32[0, 1073741824, 1073741824, 1073741824] is too large: a "
               "dimension's byte stride overflows 64-bit integers");
  // Within 64 bits but beyond the memory limit (physical memory at most): refused before the
  // device is asked.
  auto huge = f.rt->allocate(0, {DType::F32, {int64_t(1) << 60}});
  CHECK(huge.status().code() == StatusCode::kOutOfMemory);
  CHECK(huge.status().message().rfind(
            "a buffer of shape f32[1152921504606846976] needs 4.0 EiB, but the context's memory "
            "limit is ",
            0) == 0);
}

TEST_CASE("runtime errors: device selection") {
  ScopedEnv env("PLAIDML_DEVICE", nullptr);
  jit::RuntimeOptions opts;
  opts.device = "gpu:7";
  auto rt = jit::Runtime::create(opts);
  REQUIRE_FALSE(rt.has_value());
  check_status(rt.status(), StatusCode::kNotFound,
               "the device option: unknown device 'gpu:7'; available devices: cpu:0");
  {
    ScopedEnv bad("PLAIDML_DEVICE", "opencl:3");
    auto from_env = jit::Runtime::create({});
    check_status(from_env.status(), StatusCode::kNotFound,
                 "PLAIDML_DEVICE: unknown device 'opencl:3'; available devices: cpu:0");
    opts.device = "cpu:0";  // the API beats the environment
    CHECK(jit::Runtime::create(opts).has_value());
  }
  opts.num_threads = -2;
  check_status(jit::Runtime::create(opts).status(), StatusCode::kInvalidArgument,
               "num_threads must be 0 (automatic) or positive, got -2");
  auto rt2 = make_runtime();
  CHECK(rt2->find_device("").value() == 0);
  CHECK(rt2->find_device("cpu:0").value() == 0);
  check_status(rt2->find_device("cpu:1").status(), StatusCode::kNotFound,
               "unknown device 'cpu:1'; available devices: cpu:0");
}

TEST_CASE("runtime: device list describes the CPU") {
  ScopedEnv env("PLAIDML_DEVICE", nullptr);
  auto rt = make_runtime(3);
  const auto& devs = rt->devices();
  REQUIRE(devs.size() >= 1);
  CHECK(devs[0].id == "cpu:0");
  CHECK(devs[0].kind == "cpu");
  CHECK(devs[0].available);
  CHECK(devs[0].threads == 3);
  CHECK(devs[0].memory_bytes > 0);
  CHECK(devs[0].name.find("LLVM ORC JIT") != std::string::npos);
}
