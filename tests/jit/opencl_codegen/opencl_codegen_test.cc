// emit_opencl: the artifact of a whole lowered program, and the f64 check.
#include <doctest/doctest.h>

#include "jit/codegen/opencl/opencl_codegen.h"

using namespace plaidml;
using namespace plaidml::jit;

namespace {

// out[i] = in[i] * 2 for i in [0, n), in dtype t.
LoweredProgram doubling(DType t, int64_t n) {
  LoweredProgram p;
  p.slots.push_back({BufferSlot::Role::kInput, 0, Shape(t, {n})});
  p.slots.push_back({BufferSlot::Role::kOutput, 0, Shape(t, {n})});
  auto i = loop::var("i");
  auto value = loop::op(ir::OpKind::Mul, t, {loop::load(0, t, i), loop::float_const(2, t)});
  loop::Kernel k;
  k.name = "k0_double";
  k.reads = {0};
  k.writes = {1};
  k.work = double(n);
  k.body = loop::block({loop::independent_loop("i", 0, n, {loop::store(1, i, value)}, true)});
  p.kernels.push_back(k);
  return p;
}

}  // namespace

TEST_CASE("opencl codegen: one program source, one entry per kernel with its launch dims") {
  GpuTarget target;
  target.device_name = "test gpu";
  auto artifact = emit_opencl(doubling(DType::F32, 1000), target);
  REQUIRE_MESSAGE(artifact.has_value(), artifact.status().message());
  CHECK(artifact->format == "opencl-c");
  REQUIRE(artifact->kernels.size() == 1);
  const KernelEntry& e = artifact->kernels[0];
  CHECK(e.symbol == "k0_double");
  CHECK(e.parallel_extent == 1000);
  CHECK(e.work == 1000);
  CHECK(e.grid == std::array<uint32_t, 3>{4, 1, 1});
  CHECK(e.workgroup == std::array<uint32_t, 3>{256, 1, 1});
  std::string source(artifact->bytes.begin(), artifact->bytes.end());
  CHECK(source.find("__kernel void k0_double(") != std::string::npos);
  CHECK(source.find("s1[v_i] = (s0[v_i] * 0x1p+1f);") != std::string::npos);
}

TEST_CASE("opencl codegen: f64 on a device without cl_khr_fp64 is unsupported, named") {
  GpuTarget target;
  target.device_name = "test gpu";
  auto artifact = emit_opencl(doubling(DType::F64, 8), target);
  REQUIRE_FALSE(artifact.has_value());
  CHECK(artifact.status().code() == StatusCode::kUnsupported);
  CHECK(artifact.status().message() ==
        "kernel 'k0_double' computes in f64, which test gpu does not support (no cl_khr_fp64)");
  target.fp64 = true;
  auto ok = emit_opencl(doubling(DType::F64, 8), target);
  REQUIRE(ok.has_value());
  std::string source(ok->bytes.begin(), ok->bytes.end());
  CHECK(source.find("#pragma OPENCL EXTENSION cl_khr_fp64 : enable") != std::string::npos);
}
