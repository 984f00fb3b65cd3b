// Tile text -> loop IR in the GPU form (LowerOptions{gpu = true}) after the loop passes, as the
// OpenCL and SPIR-V code generators receive it.
#pragma once

#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "jit/lower/lower.h"
#include "jit/passes/pipeline.h"

namespace plaidml::jit::testing {

inline LoweredProgram lower_gpu(const std::string& text, const std::vector<Shape>& shapes) {
  auto program = parse::parse_tile(text);
  REQUIRE_MESSAGE(program.has_value(), program.status().message());
  auto bound = ir::bind(*program, shapes);
  REQUIRE_MESSAGE(bound.has_value(), bound.status().message());
  LowerOptions options;
  options.gpu = true;
  auto lowered = lower(*bound, options);
  REQUIRE_MESSAGE(lowered.has_value(), lowered.status().message());
  passes::PipelineOptions pipeline;
  pipeline.dump = false;
  Status status = passes::run_pipeline(*lowered, pipeline);
  REQUIRE_MESSAGE(status.is_ok(), status.message());
  return std::move(*lowered);
}

}  // namespace plaidml::jit::testing
