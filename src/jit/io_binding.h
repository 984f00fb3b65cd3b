// Binding what a caller gave for a program's inputs and outputs (values with names, or in
// declaration order) to the program's slots. The one place where names and positions are
// matched, with one set of messages, in the program's terms: the C ABI puts its function's name
// before them (capi::with_fn), as it does before all of its own messages.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/ir/program.h"
#include "core/types/shape.h"
#include "jit/runtime.h"

namespace plaidml::jit {

// The names a caller gave, parallel to its values. Absent: the values follow the program's
// declaration order. An entry std::nullopt stands for a NULL name (an error).
using GivenNames = std::optional<std::vector<std::optional<std::string>>>;

// One shape per program input, in declaration order. Errors (kInvalidArgument unless said):
// a NULL name; more values than the program has inputs; a name the program lacks (kNotFound,
// listing its inputs); a name given twice; inputs not given (listing them and the inputs).
Expected<std::vector<Shape>> bind_input_shapes(const ir::Program& program, const GivenNames& names,
                                               std::vector<Shape> shapes);
// The same for buffers; a null buffer is an error too.
Expected<std::vector<std::shared_ptr<Buffer>>> bind_input_buffers(
    const ir::Program& program, const GivenNames& names,
    std::vector<std::shared_ptr<Buffer>> buffers);

struct BoundOutputs {
  std::vector<size_t> positions;               // per value given: the program output it names
  std::vector<std::shared_ptr<Buffer>> slots;  // per program output: the buffer given, or null
};
// The outputs a caller asks for, each with a buffer to write or null (one is allocated).
// Errors: a NULL name; more values than the program has outputs; a name the program lacks
// (kNotFound, listing its outputs); a name given twice.
Expected<BoundOutputs> bind_outputs(const ir::Program& program, const GivenNames& names,
                                    std::vector<std::shared_ptr<Buffer>> buffers);

// Runtime::run for C++ callers that hold names (tests, the conformance runner): outputs empty
// asks for every output in declaration order; a null buffer is allocated and returned in place.
using NamedBuffers = std::vector<std::pair<std::string, std::shared_ptr<Buffer>>>;
Status run_by_name(Runtime& runtime, const std::shared_ptr<const ir::Program>& program, int device,
                   const NamedBuffers& inputs, NamedBuffers* outputs);

}  // namespace plaidml::jit
