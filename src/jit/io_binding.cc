#include "jit/io_binding.h"

#include <fmt/format.h>

namespace plaidml::jit {
namespace {

// One side of a call: the word for it and the program's names, in declaration order.
struct Side {
  const char* what;  // "input" or "output"
  std::vector<std::string> declared;
};

Side inputs_of(const ir::Program& program) {
  Side side{"input", {}};
  for (ir::ValueId id : program.inputs) side.declared.push_back(program.nodes[id].name);
  return side;
}

Side outputs_of(const ir::Program& program) {
  Side side{"output", {}};
  for (const auto& [name, id] : program.outputs) side.declared.push_back(name);
  return side;
}

std::string quoted(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "'" : ", '") + name + "'";
  return out.empty() ? "none" : out;
}

// The declared position of the i-th value given.
Expected<size_t> position_of(const Side& side, const GivenNames& names, size_t i) {
  if (!names) return i;
  const std::optional<std::string>& name = (*names)[i];
  if (!name) {
    return make_error(StatusCode::kInvalidArgument, "{}_names[{}] is NULL", side.what, i);
  }
  for (size_t pos = 0; pos < side.declared.size(); ++pos) {
    if (side.declared[pos] == *name) return pos;
  }
  return make_error(StatusCode::kNotFound, "the program has no {} '{}' ({}s: {})", side.what, *name,
                    side.what, quoted(side.declared));
}

// Per value given, its declared position; each position at most once.
Expected<std::vector<size_t>> positions(const Side& side, const GivenNames& names, size_t count) {
  if (!names && count > side.declared.size()) {
    return make_error(StatusCode::kInvalidArgument, "{} {}s given but the program has {} ({})",
                      count, side.what, side.declared.size(), quoted(side.declared));
  }
  std::vector<size_t> result;
  std::vector<bool> taken(side.declared.size(), false);
  for (size_t i = 0; i < count; ++i) {
    PLAIDML_ASSIGN(size_t pos, position_of(side, names, i));
    if (taken[pos]) {
      return make_error(StatusCode::kInvalidArgument, "{} '{}' is given twice", side.what,
                        side.declared[pos]);
    }
    taken[pos] = true;
    result.push_back(pos);
  }
  return result;
}

// The values in declaration order; every declared position must be filled.
template <typename T>
Expected<std::vector<T>> in_order(const Side& side, const GivenNames& names,
                                  std::vector<T> values) {
  PLAIDML_ASSIGN(std::vector<size_t> pos, positions(side, names, values.size()));
  std::vector<std::optional<T>> slots(side.declared.size());
  for (size_t i = 0; i < values.size(); ++i) slots[pos[i]] = std::move(values[i]);
  std::vector<std::string> missing;
  for (size_t s = 0; s < slots.size(); ++s) {
    if (!slots[s]) missing.push_back(side.declared[s]);
  }
  if (!missing.empty()) {
    return make_error(StatusCode::kInvalidArgument, "missing {}{} {}; the program's {}s are {}",
                      side.what, missing.size() == 1 ? "" : "s", quoted(missing), side.what,
                      quoted(side.declared));
  }
  std::vector<T> result;
  for (auto& slot : slots) result.push_back(std::move(*slot));
  return result;
}

// Named buffers in the form a caller with names gives them.
std::vector<std::shared_ptr<Buffer>> split(const NamedBuffers& named, GivenNames* names) {
  std::vector<std::shared_ptr<Buffer>> buffers;
  names->emplace();
  for (const auto& [name, buffer] : named) {
    (*names)->push_back(name);
    buffers.push_back(buffer);
  }
  return buffers;
}

}  // namespace

Expected<std::vector<Shape>> bind_input_shapes(const ir::Program& program, const GivenNames& names,
                                               std::vector<Shape> shapes) {
  return in_order(inputs_of(program), names, std::move(shapes));
}

Expected<std::vector<std::shared_ptr<Buffer>>> bind_input_buffers(
    const ir::Program& program, const GivenNames& names,
    std::vector<std::shared_ptr<Buffer>> buffers) {
  Side side = inputs_of(program);
  PLAIDML_ASSIGN(auto ordered, in_order(side, names, std::move(buffers)));
  for (size_t i = 0; i < ordered.size(); ++i) {
    if (!ordered[i]) {
      return make_error(StatusCode::kInvalidArgument, "the buffer for input '{}' is NULL",
                        side.declared[i]);
    }
  }
  return ordered;
}

Expected<BoundOutputs> bind_outputs(const ir::Program& program, const GivenNames& names,
                                    std::vector<std::shared_ptr<Buffer>> buffers) {
  BoundOutputs bound;
  PLAIDML_ASSIGN(bound.positions, positions(outputs_of(program), names, buffers.size()));
  bound.slots.resize(program.outputs.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    bound.slots[bound.positions[i]] = std::move(buffers[i]);
  }
  return bound;
}

Status run_by_name(Runtime& runtime, const std::shared_ptr<const ir::Program>& program, int device,
                   const NamedBuffers& inputs, NamedBuffers* outputs) {
  if (!program) return Status(StatusCode::kInvalidArgument, "program is null");
  if (!outputs) return Status(StatusCode::kInvalidArgument, "outputs is null");
  GivenNames in_names;
  auto in_buffers = split(inputs, &in_names);
  PLAIDML_ASSIGN(auto in, bind_input_buffers(*program, in_names, std::move(in_buffers)));
  NamedBuffers wanted = *outputs;
  if (wanted.empty()) {
    for (const auto& [name, id] : program->outputs) wanted.emplace_back(name, nullptr);
  }
  GivenNames out_names;
  auto out_buffers = split(wanted, &out_names);
  PLAIDML_ASSIGN(BoundOutputs out, bind_outputs(*program, out_names, std::move(out_buffers)));
  PLAIDML_TRY(runtime.run(program, device, in, &out.slots));
  for (size_t i = 0; i < wanted.size(); ++i) wanted[i].second = out.slots[out.positions[i]];
  *outputs = std::move(wanted);
  return Status::ok();
}

}  // namespace plaidml::jit
