#include "jit/memory_plan.h"

#include <algorithm>

#include "core/base/env.h"

namespace plaidml::jit {
namespace {

constexpr int kUnused = -1;

// Per slot, the first and last kernel that reads or writes it (kUnused when none does).
struct Lifetimes {
  std::vector<int> first, last;
};

Lifetimes lifetimes(const LoweredProgram& lowered) {
  size_t n = lowered.slots.size();
  Lifetimes life{std::vector<int>(n, kUnused), std::vector<int>(n, kUnused)};
  auto touch = [&](int slot, int k) {
    auto s = static_cast<size_t>(slot);
    if (life.first[s] == kUnused) life.first[s] = k;
    life.last[s] = k;
  };
  for (size_t k = 0; k < lowered.kernels.size(); ++k) {
    for (int s : lowered.kernels[k].reads) touch(s, static_cast<int>(k));
    for (int s : lowered.kernels[k].writes) touch(s, static_cast<int>(k));
  }
  return life;
}

// The free block that best holds `bytes`: the smallest that is large enough, else the largest
// (to be grown); -1 when none is free.
int best_free_block(const std::vector<int>& free_blocks, const std::vector<uint64_t>& sizes,
                    uint64_t bytes) {
  int fit = -1, largest = -1;
  for (int b : free_blocks) {
    if (sizes[b] >= bytes && (fit < 0 || sizes[b] < sizes[fit])) fit = b;
    if (largest < 0 || sizes[b] > sizes[largest]) largest = b;
  }
  return fit >= 0 ? fit : largest;
}

}  // namespace

MemoryPlan plan_memory(const LoweredProgram& lowered) {
  MemoryPlan plan;
  size_t n = lowered.slots.size();
  plan.block_of.assign(n, -1);
  plan.first_kernel.assign(n, -1);
  Lifetimes life = lifetimes(lowered);
  // Temporaries by the kernel that first touches them (one no kernel touches counts as kernel 0).
  size_t kernels = std::max<size_t>(lowered.kernels.size(), 1);
  std::vector<std::vector<int>> starting(kernels), ending(kernels);
  for (size_t s = 0; s < n; ++s) {
    if (lowered.slots[s].role != BufferSlot::Role::kTemp) continue;
    int first = std::max(life.first[s], 0), last = std::max(life.last[s], 0);
    starting[static_cast<size_t>(first)].push_back(static_cast<int>(s));
    plan.first_kernel[s] = first;
    ending[static_cast<size_t>(last)].push_back(static_cast<int>(s));
    plan.unshared_bytes = MemoryFigures::add_saturated(
        plan.unshared_bytes, static_cast<uint64_t>(lowered.slots[s].shape.byte_size()));
  }
  std::vector<int> free_blocks;
  for (size_t k = 0; k < kernels; ++k) {
    for (int s : starting[k]) {
      auto bytes = static_cast<uint64_t>(lowered.slots[static_cast<size_t>(s)].shape.byte_size());
      int b = best_free_block(free_blocks, plan.block_bytes, bytes);
      if (b < 0) {
        b = static_cast<int>(plan.block_bytes.size());
        plan.block_bytes.push_back(0);
      } else {
        free_blocks.erase(std::find(free_blocks.begin(), free_blocks.end(), b));
      }
      plan.block_bytes[static_cast<size_t>(b)] = std::max(plan.block_bytes[b], bytes);
      plan.block_of[static_cast<size_t>(s)] = b;
    }
    for (int s : ending[k]) free_blocks.push_back(plan.block_of[static_cast<size_t>(s)]);
  }
  for (uint64_t b : plan.block_bytes) {
    plan.arena_bytes = MemoryFigures::add_saturated(plan.arena_bytes, b);
  }
  return plan;
}

MemoryFigures memory_figures(const LoweredProgram& lowered, const MemoryPlan& plan) {
  MemoryFigures f;
  f.arena_bytes = plan.arena_bytes;
  f.unshared_bytes = plan.unshared_bytes;
  for (const BufferSlot& slot : lowered.slots) {
    auto bytes = static_cast<uint64_t>(slot.shape.byte_size());
    uint64_t* total = nullptr;
    switch (slot.role) {
      case BufferSlot::Role::kInput: total = &f.inputs_bytes; break;
      case BufferSlot::Role::kOutput: total = &f.outputs_bytes; break;
      case BufferSlot::Role::kConstant: total = &f.constants_bytes; break;
      case BufferSlot::Role::kTemp: break;
    }
    if (total) *total = MemoryFigures::add_saturated(*total, bytes);
  }
  return f;
}

bool poison_arena() {
  static const bool on = env_string("PLAIDML_DEBUG_POISON_ARENA", "") == "1";
  return on;
}

}  // namespace plaidml::jit
