// Constant tensors (weights) of a program: making one from host bytes, and its Tile text.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "core/base/status.h"
#include "core/ir/program.h"

namespace plaidml::ir {

// Constants of at most this many elements print their values (and parse back); larger ones
// print their digest, which identifies them but does not carry them.
inline constexpr int64_t kMaxPrintedConstantElements = 16;

// Where copy_constant puts its copy: a cache line, the widest vector. The CPU device reads
// constants so aligned in place (jit/runtime_impl.h); others it copies once to aligned memory.
inline constexpr size_t kConstantAlignment = 64;

// A constant holding a copy of `bytes` (shape.byte_size() of them), aligned to
// kConstantAlignment. Hashes them once.
// Errors: kOutOfMemory.
Expected<std::shared_ptr<const ConstantData>> copy_constant(const Shape& shape, const void* bytes);

// A constant over the caller's memory, which must stay valid and unchanged until `release` is
// called (exactly once, when the last program holding the constant goes). Hashes it once.
// file_backed: the memory is a read-only file mapping (ConstantData::file_backed).
std::shared_ptr<const ConstantData> adopt_constant(const Shape& shape, const void* bytes,
                                                   std::function<void()> release,
                                                   bool file_backed = false);

// Tile text of a constant's value: `constant(f32[2], [1.5, -2])` for a small one,
// `constant(f32[64, 3, 7, 7], digest "0123456789abcdef")` for a large one.
std::string constant_text(const ConstantData& constant);

// What identifies a constant's data: its digest and its shape's text (equal bytes may be
// constants of several shapes). Program files, the program cache and plan entries match
// constants by it.
std::pair<uint64_t, std::string> constant_identity(const ConstantData& constant);

// Element i of a constant as a double (bool 0/1, f16/bf16 widened, integers converted).
double constant_element(const ConstantData& constant, int64_t i);

}  // namespace plaidml::ir
