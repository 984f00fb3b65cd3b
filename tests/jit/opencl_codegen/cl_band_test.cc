// emit_simple_kernel: how a kernel's band becomes NDRange dimensions and launch dims.
#include <doctest/doctest.h>

#include "jit/codegen/opencl/cl_kernel.h"
#include "support/text.h"

using namespace plaidml;
using namespace plaidml::jit;
using namespace plaidml::jit::opencl;

namespace {

using plaidml::testing::contains;

// A band of independent loops over `extents` (outermost first) storing 1 into slot 0.
loop::Kernel band_kernel(const std::vector<int64_t>& extents) {
  loop::StmtPtr inner = loop::store(0, loop::int_const(0), loop::float_const(1, DType::F32));
  for (size_t d = extents.size(); d-- > 0;) {
    inner = loop::independent_loop("i" + std::to_string(d), 0, extents[d], {inner}, d == 0);
  }
  loop::Kernel k;
  k.name = "k";
  k.body = loop::block({inner});
  return k;
}

struct Emitted {
  LaunchDims dims;
  std::string source;
};

Emitted emit(const loop::Kernel& k, int max_workgroup = 256) {
  LoweredProgram p;
  p.slots.push_back({BufferSlot::Role::kOutput, 0, Shape(DType::F32, {1})});
  p.kernels = {k};
  ClPrinter printer(p, ClPrinter::fits_index32(p));
  GpuTarget target;
  target.max_workgroup_size = max_workgroup;
  std::string out;
  auto dims = emit_simple_kernel(p.kernels[0], target, printer, out);
  INFO(dims.status().message());
  REQUIRE(dims.has_value());
  return {*dims, out};
}

using Dims3 = std::array<uint32_t, 3>;

}  // namespace

TEST_CASE("opencl band: one loop takes dim 0, the ragged edge returns") {
  Emitted e = emit(band_kernel({1000}));
  CHECK(e.dims.workgroup == Dims3{256, 1, 1});
  CHECK(e.dims.grid == Dims3{4, 1, 1});
  CHECK(contains(e.source, "const int g0 = (int)get_global_id(0);"));
  CHECK(contains(e.source, "if (g0 >= 1000) return;"));
  CHECK(contains(e.source, "const int v_i0 = (int)(g0);"));
}

TEST_CASE("opencl band: a power-of-two workgroup near a small extent, the rest to dim 1") {
  Emitted e = emit(band_kernel({1000, 3}));  // i0 outer (dim 1), i1 inner (dim 0)
  CHECK(e.dims.workgroup == Dims3{4, 64, 1});
  CHECK(e.dims.grid == Dims3{1, 16, 1});
  CHECK(contains(e.source, "if (g0 >= 3 || g1 >= 1000) return;"));
  CHECK(contains(e.source, "const int v_i1 = (int)(g0);"));
  CHECK(contains(e.source, "const int v_i0 = (int)(g1);"));
}

TEST_CASE("opencl band: outer loops flatten into dim 2, decoded innermost first") {
  Emitted e = emit(band_kernel({5, 7, 2, 300}));
  // dim 0: i3 (300), dim 1: i2 (2), dim 2: i0 * 7 + i1 (35)
  CHECK(e.dims.workgroup == Dims3{256, 1, 1});
  CHECK(e.dims.grid == Dims3{2, 2, 35});
  CHECK(contains(e.source, "if (g0 >= 300) return;"));  // dims 1 and 2 are exact
  CHECK(contains(e.source, "const int v_i1 = (int)((g2 % 7));"));
  CHECK(contains(e.source, "const int v_i0 = (int)((g2 / 7));"));
}

TEST_CASE("opencl band: exact extents need no guard, the workgroup respects the device limit") {
  Emitted e = emit(band_kernel({16, 64}), /*max_workgroup=*/32);
  CHECK(e.dims.workgroup == Dims3{32, 1, 1});
  CHECK(e.dims.grid == Dims3{2, 16, 1});
  CHECK_FALSE(contains(e.source, "return;"));
  Emitted odd = emit(band_kernel({9, 9, 9}), /*max_workgroup=*/100);  // budget: 64
  uint32_t threads = odd.dims.workgroup[0] * odd.dims.workgroup[1] * odd.dims.workgroup[2];
  CHECK(threads <= 64);
  CHECK(odd.dims.workgroup == Dims3{16, 4, 1});
}

TEST_CASE("opencl band: lower bounds and steps map ids to loop values") {
  loop::Kernel k = band_kernel({1});
  auto loop = std::make_shared<loop::Stmt>(*k.body->body[0]);
  loop->lo = loop::int_const(2);
  loop->hi = loop::int_const(11);
  loop->step = 3;  // 2, 5, 8
  k.body = loop::block({loop});
  Emitted e = emit(k);
  CHECK(e.dims.workgroup == Dims3{4, 1, 1});
  CHECK(e.dims.grid == Dims3{1, 1, 1});
  CHECK(contains(e.source, "if (g0 >= 3) return;"));
  CHECK(contains(e.source, "const int v_i0 = (int)(2 + g0 * 3);"));
}

TEST_CASE("opencl band: a kernel without a parallel loop runs as one work-item") {
  loop::Kernel k;
  k.name = "k";
  k.body = loop::block({loop::for_loop(
      "i", 0, 10, {loop::store(0, loop::int_const(0), loop::float_const(1, DType::F32))})});
  Emitted e = emit(k);
  CHECK(e.dims.workgroup == Dims3{1, 1, 1});
  CHECK(e.dims.grid == Dims3{1, 1, 1});
  CHECK_FALSE(contains(e.source, "get_global_id"));
  CHECK(contains(e.source, "for (int v_i = 0; v_i < 10; v_i += 1) {"));
}

TEST_CASE("opencl band: statements after the band are kept: the guard wraps the body") {
  loop::Kernel k = band_kernel({10});
  k.body->body.push_back(loop::store(0, loop::int_const(0), loop::float_const(2, DType::F32)));
  Emitted e = emit(k);
  CHECK(contains(e.source, "if (!(g0 >= 10)) {"));
  CHECK_FALSE(contains(e.source, "return;"));
}

TEST_CASE("opencl band: an empty band loop launches one workgroup that does nothing") {
  Emitted e = emit(band_kernel({0}));
  CHECK(e.dims.grid == Dims3{1, 1, 1});
  CHECK(contains(e.source, "if (g0 >= 0) return;"));
}
