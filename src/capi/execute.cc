// Explicit compiles and executions with inputs and outputs bound by name.
#include <algorithm>
#include <set>

#include "capi/errors.h"
#include "capi/handles.h"

namespace plaidml::capi {
namespace {

using NamedBuffers = std::vector<std::pair<std::string, std::shared_ptr<jit::Buffer>>>;

std::string name_list(const ir::Program& program) {
  std::string names;
  for (ir::ValueId id : program.inputs) {
    if (!names.empty()) names += ", ";
    names += "'" + program.nodes[id].name + "'";
  }
  return names.empty() ? "none" : names;
}

// The i-th name the caller gave, or the program's declaration order when names is NULL.
Expected<std::string> input_name(const char* fn, const ir::Program& program, size_t count,
                                 const char* const* names, size_t i) {
  if (names == nullptr) {
    if (count > program.inputs.size()) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: {} inputs given but the program has {} ({})", fn, count,
                        program.inputs.size(), name_list(program));
    }
    return program.nodes[program.inputs[i]].name;
  }
  if (names[i] == nullptr) return null_argument(fn, "input_names[i]");
  return std::string(names[i]);
}

// Orders shapes given by name into the program's declaration order (Runtime::prepare's form).
Expected<std::vector<Shape>> shapes_in_order(const char* fn, const ir::Program& program,
                                             size_t count, const char* const* names,
                                             const plaidml_tensor_shape* shapes) {
  std::vector<std::optional<Shape>> slots(program.inputs.size());
  for (size_t i = 0; i < count; ++i) {
    PLAIDML_ASSIGN(std::string name, input_name(fn, program, count, names, i));
    auto input = program.find_input(name);
    if (!input) {
      return make_error(StatusCode::kNotFound, "{}: the program has no input '{}' (inputs: {})", fn,
                        name, name_list(program));
    }
    size_t slot = 0;
    while (program.inputs[slot] != *input) ++slot;
    if (slots[slot]) {
      return make_error(StatusCode::kInvalidArgument, "{}: input '{}' is given twice", fn, name);
    }
    PLAIDML_ASSIGN(slots[slot], to_shape(fn, shapes[i].dtype, shapes[i].rank, shapes[i].dims));
  }
  std::vector<Shape> result;
  for (size_t slot = 0; slot < slots.size(); ++slot) {
    if (!slots[slot]) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: missing input '{}'; the program's inputs are {}", fn,
                        program.nodes[program.inputs[slot]].name, name_list(program));
    }
    result.push_back(*slots[slot]);
  }
  return result;
}

Expected<NamedBuffers> named_inputs(const char* fn, const plaidml_context& context,
                                    const ir::Program& program, size_t count,
                                    const char* const* names, plaidml_buffer* const* inputs) {
  NamedBuffers result;
  for (size_t i = 0; i < count; ++i) {
    PLAIDML_ASSIGN(std::string name, input_name(fn, program, count, names, i));
    if (inputs[i] == nullptr) {
      return make_error(StatusCode::kInvalidArgument, "{}: the buffer for input '{}' is NULL", fn,
                        name);
    }
    if (inputs[i]->runtime != context.runtime) {
      return make_error(StatusCode::kInvalidArgument,
                        "{}: the buffer for input '{}' belongs to another context", fn, name);
    }
    result.emplace_back(std::move(name), inputs[i]->buffer);
  }
  return result;
}

Expected<NamedBuffers> named_outputs(const char* fn, const plaidml_context& context,
                                     const ir::Program& program, size_t count,
                                     const char* const* names, plaidml_buffer* const* outputs) {
  if (names == nullptr && count > program.outputs.size()) {
    return make_error(StatusCode::kInvalidArgument,
                      "{}: {} outputs asked for but the program "
                      "has {}",
                      fn, count, program.outputs.size());
  }
  NamedBuffers result;
  for (size_t i = 0; i < count; ++i) {
    std::string name;
    if (names == nullptr) {
      name = program.outputs[i].first;
    } else if (names[i] == nullptr) {
      return null_argument(fn, "output_names[i]");
    } else {
      name = names[i];
    }
    std::shared_ptr<jit::Buffer> buffer;
    if (outputs[i] != nullptr) {
      if (outputs[i]->runtime != context.runtime) {
        return make_error(StatusCode::kInvalidArgument,
                          "{}: the buffer for output '{}' belongs to another context", fn, name);
      }
      buffer = outputs[i]->buffer;
    }
    result.emplace_back(std::move(name), std::move(buffer));
  }
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
    (void)plan;
    return Status::ok();
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
    PLAIDML_ASSIGN(auto in, capi::named_inputs(fn, *context, p, input_count, input_names, inputs));
    PLAIDML_ASSIGN(auto out,
                   capi::named_outputs(fn, *context, p, output_count, output_names, outputs));
    // Wrappers for new outputs are made before running so that handing them out cannot fail.
    std::vector<std::unique_ptr<plaidml_buffer>> fresh(output_count);
    for (size_t i = 0; i < output_count; ++i) {
      if (outputs[i] == nullptr) fresh[i] = std::make_unique<plaidml_buffer>();
    }
    PLAIDML_TRY(context->runtime->run(program->program, context->device.load(), in, &out));
    for (size_t i = 0; i < output_count; ++i) {
      if (!fresh[i]) continue;
      fresh[i]->runtime = context->runtime;
      fresh[i]->buffer = out[i].second;
      outputs[i] = fresh[i].release();
    }
    return Status::ok();
  });
}

}  // extern "C"
