// Explicit compiles and executions with inputs and outputs given by name or position. These
// functions only turn the C arrays into jit/io_binding.h's form: names are matched there.
#include <algorithm>

#include "capi/errors.h"
#include "capi/handles.h"
#include "jit/io_binding.h"

namespace plaidml::capi {
namespace {

using Buffers = std::vector<std::shared_ptr<jit::Buffer>>;

// names NULL: declaration order. A NULL entry stays one, for the binding to report.
jit::GivenNames given_names(size_t count, const char* const* names) {
  if (names == nullptr) return std::nullopt;
  std::vector<std::optional<std::string>> result;
  for (size_t i = 0; i < count; ++i) {
    result.push_back(names[i] ? std::optional<std::string>(names[i]) : std::nullopt);
  }
  return result;
}

// Shapes given by name or position, in the program's declaration order (Runtime::prepare's).
Expected<std::vector<Shape>> shapes_in_order(const char* fn, const ir::Program& program,
                                             size_t count, const char* const* names,
                                             const plaidml_tensor_shape* shapes) {
  std::vector<Shape> given;
  for (size_t i = 0; i < count; ++i) {
    PLAIDML_ASSIGN(Shape shape, to_shape(fn, shapes[i].dtype, shapes[i].rank, shapes[i].dims));
    given.push_back(std::move(shape));
  }
  return with_fn(fn, jit::bind_input_shapes(program, given_names(count, names), given));
}

// A NULL handle stays a null buffer: the binding refuses an input's, allocates an output's.
// (A buffer of another context is refused by the runtime, which owns buffers.)
Buffers given_buffers(size_t count, plaidml_buffer* const* buffers) {
  Buffers result;
  for (size_t i = 0; i < count; ++i) result.push_back(buffers[i] ? buffers[i]->buffer : nullptr);
  return result;
}

}  // namespace
}  // namespace plaidml::capi

extern "C" {

plaidml_status plaidml_compile(plaidml_context* context, const plaidml_program* program,
                               size_t input_count, const char* const* input_names,
                               const plaidml_tensor_shape* input_shapes) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(program);
    if (input_count > 0) PLAIDML_CAPI_REQUIRE(input_shapes);
    PLAIDML_ASSIGN(auto shapes, capi::shapes_in_order(fn, *program->program, input_count,
                                                      input_names, input_shapes));
    PLAIDML_ASSIGN(auto plan,
                   context->runtime->prepare(program->program, shapes, context->device.load()));
    // A program that cannot run at these shapes is reported now, not at the first execute.
    return context->runtime->check_fits(*program->program, *plan);
  });
}

plaidml_status plaidml_program_memory(plaidml_context* context, const plaidml_program* program,
                                      size_t input_count, const char* const* input_names,
                                      const plaidml_tensor_shape* input_shapes,
                                      plaidml_memory* out_memory) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(program);
    PLAIDML_CAPI_REQUIRE(out_memory);
    if (input_count > 0) PLAIDML_CAPI_REQUIRE(input_shapes);
    PLAIDML_TRY(
        capi::check_struct_size(fn, out_memory->struct_size, "out_memory", "plaidml_memory"));
    PLAIDML_ASSIGN(auto shapes, capi::shapes_in_order(fn, *program->program, input_count,
                                                      input_names, input_shapes));
    int device = context->device.load();
    PLAIDML_ASSIGN(auto plan, context->runtime->prepare(program->program, shapes, device));
    const jit::MemoryFigures& m = plan->memory();
    plaidml_memory full{};
    full.constants_bytes = m.constants_bytes;
    full.arena_bytes = m.arena_bytes;
    full.unshared_bytes = m.unshared_bytes;
    full.inputs_bytes = m.inputs_bytes;
    full.outputs_bytes = m.outputs_bytes;
    full.peak_bytes = m.peak_bytes();
    // The context's device only: listing every device would load the GPU plugins.
    PLAIDML_ASSIGN(jit::DeviceDescription described, context->runtime->device_description(device));
    full.device_memory_bytes = static_cast<uint64_t>(std::max<int64_t>(described.memory_bytes, 0));
    PLAIDML_ASSIGN(full.budget_bytes, context->runtime->memory_budget(device));
    capi::copy_versioned(out_memory, full, out_memory->struct_size);
    return Status::ok();
  });
}

plaidml_status plaidml_execute(plaidml_context* context, const plaidml_program* program,
                               size_t input_count, const char* const* input_names,
                               plaidml_buffer* const* inputs, size_t output_count,
                               const char* const* output_names, plaidml_buffer** outputs) {
  using namespace plaidml;
  return capi::guard(__func__, [&](const char* fn) -> Status {
    PLAIDML_CAPI_REQUIRE(context);
    PLAIDML_CAPI_REQUIRE(program);
    if (input_count > 0) PLAIDML_CAPI_REQUIRE(inputs);
    if (output_count > 0) PLAIDML_CAPI_REQUIRE(outputs);
    const ir::Program& p = *program->program;
    PLAIDML_ASSIGN(auto in, capi::with_fn(fn, jit::bind_input_buffers(
                                                  p, capi::given_names(input_count, input_names),
                                                  capi::given_buffers(input_count, inputs))));
    PLAIDML_ASSIGN(auto out, capi::with_fn(fn, jit::bind_outputs(
                                                   p, capi::given_names(output_count, output_names),
                                                   capi::given_buffers(output_count, outputs))));
    // Wrappers for new outputs are made before running so that handing them out cannot fail.
    std::vector<std::unique_ptr<plaidml_buffer>> fresh(output_count);
    for (size_t i = 0; i < output_count; ++i) {
      if (outputs[i] == nullptr) fresh[i] = std::make_unique<plaidml_buffer>();
    }
    PLAIDML_TRY(context->runtime->run(program->program, context->device.load(), in, &out.slots));
    for (size_t i = 0; i < output_count; ++i) {
      if (!fresh[i]) continue;
      fresh[i]->runtime = context->runtime;
      fresh[i]->buffer = out.slots[out.positions[i]];
      outputs[i] = fresh[i].release();
    }
    return Status::ok();
  });
}

}  // extern "C"
