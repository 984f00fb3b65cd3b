// Every tile choice the measured search may pick (gpu::tiled_candidates, jit/tile_measure.h)
// computes the interpreter's answer: the search times them on scratch buffers and keeps the
// fastest, so none may be wrong. Run on lavapipe for a large GPU's limits, where the candidate
// list is longest; the OpenCL emitter prints the same schedule.
#include <doctest/doctest.h>

#include "jit/codegen/gpu/gpu_schedule.h"
#include "jit/gpu_lowering.h"
#include "lavapipe_device.h"
#include "tiled_cases.h"

namespace plaidml::jit {
namespace {

TEST_CASE("spirv tiled lavapipe: every tile candidate of the measured search is right") {
  testing::Device dev;
  const SpirvTarget target = testing::tiled_target(1024, 49152, 132);  // a large GPU
  int runs = 0;
  for (const testing::TiledCase& c : testing::tiled_cases()) {
    CAPTURE(c.name);
    LoweredProgram lowered = testing::lower_gpu(c.tile, c.shapes);
    const std::vector<HostTensor> inputs = testing::case_inputs(c, 31);
    for (const loop::Kernel& kernel : lowered.kernels) {
      const std::vector<gpu::TileChoice> candidates =
          gpu::tiled_candidates(kernel, target.limits(), spirv_dispatch_limits(), 6);
      for (size_t i = 1; i < candidates.size(); ++i) {  // 0 is the model's: the other tests run it
        const gpu::TileChoice& t = candidates[i];
        CAPTURE(t.tx);
        CAPTURE(t.ty);
        CAPTURE(t.rn);
        CAPTURE(t.rm);
        CAPTURE(t.bk);
        gpu::TileHints hints;
        hints.by_kernel[kernel.name] = t;
        std::string report =
            testing::run_spirv(dev, c.tile, inputs, target, c.tolerance, nullptr, hints);
        CHECK_MESSAGE(report.empty(), c.name << ": " << report);
        ++runs;
      }
    }
  }
  MESSAGE(runs << " candidate kernels run");
  CHECK(runs >= 10);
}

}  // namespace
}  // namespace plaidml::jit
