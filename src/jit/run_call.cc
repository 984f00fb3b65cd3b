// Runtime::run: takes the inputs and outputs in the program's order (callers match names to
// them in jit/io_binding.h), prepares (or finds) the plan, allocates what the caller did not
// give, launches the kernels. Every check happens before the first launch,
// so on error no output buffer is written.
#include <fmt/format.h>

#include <algorithm>

#include "jit/launch_params.h"
#include "jit/lower/panel_packing.h"
#include "jit/runtime_impl.h"

namespace plaidml::jit {

using Buffers = std::vector<std::shared_ptr<Buffer>>;

class RunCall {
 public:
  RunCall(RuntimeImpl& rt, const std::shared_ptr<const ir::Program>& program, int device)
      : rt_(rt), program_(program), device_index_(device) {}

  Status run(const Buffers& inputs, Buffers* outputs);

 private:
  Status adopt_inputs(const Buffers& inputs);
  Status adopt_outputs(const Buffers& outputs);
  Status check_given_output(size_t position, const std::shared_ptr<Buffer>& buffer);
  Status check_fits() const;
  Status poison_temporaries(size_t kernel, const std::vector<const devices::DeviceBuffer*>& slots);
  Status launch();
  Expected<std::shared_ptr<Buffer>> resident_constant(const BufferSlot& slot);

  RuntimeImpl& rt_;
  const std::shared_ptr<const ir::Program>& program_;
  int device_index_;
  std::shared_ptr<devices::Device> device_;
  std::shared_ptr<const CompiledPlan> plan_;
  std::vector<const RuntimeBuffer*> inputs_;  // parallel to program inputs
  // Per program output: where the kernels write, and the user's buffer when it aliases an
  // input (then the result is written to a temporary and copied over after the last kernel).
  std::vector<std::shared_ptr<Buffer>> output_targets_;
  std::vector<const RuntimeBuffer*> copy_back_;
  std::vector<std::shared_ptr<Buffer>> keep_alive_;
  CompiledPlan::Arena arena_;  // the intermediates' blocks (MemoryPlan)
};

// The inputs as this runtime's buffers on the program's device.
Status RunCall::adopt_inputs(const Buffers& inputs) {
  const auto& decl = program_->inputs;
  if (inputs.size() != decl.size()) {
    return make_error(StatusCode::kInvalidArgument, "{} inputs for a program of {}",
                      inputs.size(), decl.size());
  }
  inputs_.assign(decl.size(), nullptr);
  for (size_t i = 0; i < decl.size(); ++i) {
    const std::string& name = program_->nodes[decl[i]].name;
    PLAIDML_ASSIGN(inputs_[i], rt_.own_buffer(inputs[i].get(), fmt::format("input '{}'", name)));
    if (inputs_[i]->device() != device_index_) {
      return make_error(StatusCode::kInvalidArgument,
                        "input '{}' is on device {}, but the program runs on {}", name,
                        rt_.device_id(inputs_[i]->device()), device_->id());
    }
  }
  return Status::ok();
}

Status RunCall::check_given_output(size_t position, const std::shared_ptr<Buffer>& buffer) {
  const std::string& name = program_->outputs[position].first;
  PLAIDML_ASSIGN(const RuntimeBuffer* rb,
                 rt_.own_buffer(buffer.get(), fmt::format("output '{}'", name)));
  const Shape& want = plan_->output_shapes()[position];
  if (rb->device() != device_index_) {
    return make_error(StatusCode::kInvalidArgument,
                      "output '{}' is on device {}, but the program runs on {}", name,
                      rt_.device_id(rb->device()), device_->id());
  }
  if (!(rb->shape() == want)) {
    return make_error(StatusCode::kTypeError,
                      "output '{}' has shape {}, but the buffer given has shape {}", name,
                      want.to_string(), rb->shape().to_string());
  }
  for (size_t j = 0; j < output_targets_.size(); ++j) {
    if (output_targets_[j].get() == buffer.get() || copy_back_[j] == rb) {
      return make_error(StatusCode::kInvalidArgument, "outputs '{}' and '{}' share one buffer",
                        program_->outputs[j].first, name);
    }
  }
  return Status::ok();
}

Status RunCall::adopt_outputs(const Buffers& outputs) {
  size_t n = program_->outputs.size();
  output_targets_.assign(n, nullptr);
  copy_back_.assign(n, nullptr);
  for (size_t pos = 0; pos < n; ++pos) {
    const std::shared_ptr<Buffer>& buffer = outputs[pos];
    if (!buffer) continue;
    PLAIDML_TRY(check_given_output(pos, buffer));
    bool aliases_input =
        std::find(inputs_.begin(), inputs_.end(),
                  static_cast<const RuntimeBuffer*>(buffer.get())) != inputs_.end();
    if (aliases_input) {
      copy_back_[pos] = static_cast<const RuntimeBuffer*>(buffer.get());
    } else {
      output_targets_[pos] = buffer;
    }
  }
  // Outputs not given (or aliasing an input) get fresh buffers.
  for (size_t i = 0; i < n; ++i) {
    if (output_targets_[i]) continue;
    PLAIDML_ASSIGN(output_targets_[i], rt_.allocate_impl(device_index_, plan_->output_shapes()[i]));
  }
  return Status::ok();
}

Expected<std::shared_ptr<Buffer>> RunCall::resident_constant(const BufferSlot& slot) {
  // Lowering made the slot from this node, or a plan entry's slot was bound to a node of the
  // same digest and (source) shape (bind_constant_slots), whose size the entry's packing matches.
  const auto& constant = program_->nodes.at(static_cast<size_t>(slot.index)).constant;
  return rt_.constants_.get(
      constant, device_index_, slot.packing,
      [&](const ir::ConstantData& c) -> Expected<std::shared_ptr<Buffer>> {
        if (!slot.packing.packed()) return rt_.resident(device_index_, c);
        std::vector<uint8_t> packed = pack_panels(c.data, dtype_size(c.shape.dtype), slot.packing);
        auto buffer = rt_.upload(device_index_, slot.shape, packed.data());
        drop_file_pages(c);
        return buffer;
      });
}

// A program that cannot fit the device's budget fails here, before anything is allocated or
// launched.
Status RunCall::check_fits() const {
  return rt_.budget_of(*device_).check_run(program_->name, plan_->memory());
}

// poison_arena(): the blocks of the temporaries kernel k touches first.
Status RunCall::poison_temporaries(size_t kernel,
                                   const std::vector<const devices::DeviceBuffer*>& slots) {
  const MemoryPlan& m = plan_->memory_plan();
  bool waited = false;
  for (size_t s = 0; s < slots.size(); ++s) {
    if (m.first_kernel[s] != static_cast<int>(kernel)) continue;
    if (!waited) PLAIDML_TRY(device_->synchronize());  // earlier kernels are done with the blocks
    waited = true;
    std::vector<uint8_t> junk(slots[s]->size(), 0xff);
    PLAIDML_TRY(device_->write(*slots[s], 0, junk.data(), junk.size()));
  }
  return Status::ok();
}

Status RunCall::launch() {
  PLAIDML_ASSIGN(arena_, plan_->acquire_arena([&](uint64_t bytes) {
    return rt_.allocate_impl(device_index_, Shape(DType::U8, {static_cast<int64_t>(bytes)}));
  }));
  std::vector<const devices::DeviceBuffer*> slots;
  for (const BufferSlot& slot : plan_->slots()) {
    switch (slot.role) {
      case BufferSlot::Role::kInput:
        slots.push_back(&inputs_.at(slot.index)->storage());
        break;
      case BufferSlot::Role::kOutput:
        slots.push_back(
            &static_cast<const RuntimeBuffer*>(output_targets_.at(slot.index).get())->storage());
        break;
      case BufferSlot::Role::kConstant: {
        PLAIDML_ASSIGN(auto constant, resident_constant(slot));
        keep_alive_.push_back(constant);
        slots.push_back(&static_cast<const RuntimeBuffer*>(constant.get())->storage());
        break;
      }
      case BufferSlot::Role::kTemp: {
        int block = plan_->memory_plan().block_of.at(&slot - plan_->slots().data());
        slots.push_back(&static_cast<const RuntimeBuffer*>(arena_.at(block).get())->storage());
        break;
      }
    }
  }
  const auto& calls = plan_->calls();
  Profiler& profiler = rt_.profiler_;
  std::vector<const devices::DeviceBuffer*> args;
  for (size_t k = 0; k < calls.size(); ++k) {
    const LoadedKernel& kernel = plan_->kernels()[static_cast<size_t>(calls[k].kernel)];
    const KernelEntry& entry = kernel.entry;
    const devices::LaunchParams params = launch_params(entry, kernel.index, calls[k]);
    args.clear();
    for (int s : calls[k].args) args.push_back(slots[static_cast<size_t>(s)]);
    if (poison_arena()) PLAIDML_TRY(poison_temporaries(k, slots));
    if (!profiler.enabled()) {
      PLAIDML_TRY(device_->launch(*kernel.executable, params, args));
      continue;
    }
    const LaunchInfo& info = plan_->launch_info()[k];
    ProfileScope timed(profiler, {entry.symbol, "kernel", 0, 0, device_->id(), info.origins,
                                  info.bytes, calls[k].work});
    PLAIDML_TRY(device_->launch(*kernel.executable, params, args));
    PLAIDML_TRY(device_->synchronize());
  }
  PLAIDML_TRY(device_->synchronize());
  // Every kernel has finished: the arena may serve the next execute. (After an error it is
  // dropped, not reused, as a kernel might still be using it.)
  plan_->release_arena(std::move(arena_));
  for (size_t i = 0; i < copy_back_.size(); ++i) {
    if (!copy_back_[i]) continue;
    const auto& src = static_cast<const RuntimeBuffer*>(output_targets_[i].get())->storage();
    PLAIDML_TRY(device_->copy(src, copy_back_[i]->storage(), src.size()));
  }
  return Status::ok();
}

Status RunCall::run(const Buffers& inputs, Buffers* outputs) {
  if (!program_) return Status(StatusCode::kInvalidArgument, "program is null");
  if (!outputs) return Status(StatusCode::kInvalidArgument, "outputs is null");
  size_t n = program_->outputs.size();
  Buffers result = outputs->empty() ? Buffers(n) : *outputs;
  if (result.size() != n) {
    return make_error(StatusCode::kInvalidArgument, "{} outputs for a program of {}",
                      result.size(), n);
  }
  PLAIDML_ASSIGN(device_, rt_.device(device_index_));
  PLAIDML_TRY(adopt_inputs(inputs));
  std::vector<Shape> shapes;
  for (const RuntimeBuffer* b : inputs_) shapes.push_back(b->shape());
  PLAIDML_ASSIGN(auto plan, rt_.prepare_impl(program_, shapes, device_index_));
  plan_ = std::dynamic_pointer_cast<const CompiledPlan>(plan);
  if (!plan_) return Status(StatusCode::kInternal, "plan cache holds a foreign plan");
  PLAIDML_TRY(check_fits());
  PLAIDML_TRY(adopt_outputs(result));
  PLAIDML_TRY(launch());
  for (size_t i = 0; i < n; ++i) {
    if (!result[i]) result[i] = output_targets_[i];
  }
  *outputs = std::move(result);
  return Status::ok();
}

Status RuntimeImpl::run(const std::shared_ptr<const ir::Program>& program, int device,
                        const Buffers& inputs, Buffers* outputs) {
  return firewall([&] { return RunCall(*this, program, device).run(inputs, outputs); });
}

}  // namespace plaidml::jit
