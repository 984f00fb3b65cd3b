// SpvBuilder: word encoding, caching, capabilities following the types, and a minimal compute
// module that spirv-val accepts.
#include <doctest/doctest.h>

#include <algorithm>

#include "jit/codegen/spirv/spirv_builder.h"
#include "spirv_val.h"

namespace plaidml::jit::spirv {
namespace {

uint32_t word0(spv::Op op, uint32_t count) { return (count << 16) | static_cast<uint32_t>(op); }

// Index of the first instruction `op` in `words` (after the 5-word header), or -1.
long find_op(const std::vector<uint32_t>& words, spv::Op op) {
  for (size_t i = 5; i < words.size(); i += words[i] >> 16) {
    if ((words[i] & 0xFFFF) == static_cast<uint32_t>(op)) return static_cast<long>(i);
    if ((words[i] >> 16) == 0) break;
  }
  return -1;
}

bool has_capability(const std::vector<uint32_t>& words, spv::Capability c) {
  for (size_t i = 5; i < words.size(); i += words[i] >> 16) {
    if (words[i] == word0(spv::Op::OpCapability, 2) && words[i + 1] == uint32_t(c)) return true;
    if ((words[i] >> 16) == 0) break;
  }
  return false;
}

// An empty GLCompute kernel "main" with LocalSize 1 1 1.
void add_empty_kernel(SpvBuilder& b) {
  b.capability(spv::Capability::Shader);
  Id fn = b.begin_function();
  b.op_void(spv::Op::OpReturn, {});
  b.end_function();
  b.entry_point(fn, "main", {});
  b.local_size(fn, 1, 1, 1);
}

TEST_CASE("spirv builder: strings are nul-terminated little-endian words") {
  CHECK(string_words("") == std::vector<uint32_t>{0});
  CHECK(string_words("abc") == std::vector<uint32_t>{0x00636261});
  CHECK(string_words("abcd") == std::vector<uint32_t>{0x64636261, 0});
}

TEST_CASE("spirv builder: types and constants are cached, capabilities follow the types") {
  SpvBuilder b;
  CHECK(b.type_int(32, true) == b.type_int(32, true));
  CHECK(b.type_int(32, true) != b.type_int(32, false));
  CHECK(b.const_int(32, true, 7) == b.const_int(32, true, 7));
  CHECK(b.const_float(32, 1.5) != b.const_float(64, 1.5));
  std::vector<uint32_t> before = b.finish();
  CHECK_FALSE(has_capability(before, spv::Capability::Int8));
  b.type_int(8, false);
  b.type_float(64);
  std::vector<uint32_t> after = b.finish();
  CHECK(has_capability(after, spv::Capability::Int8));
  CHECK(has_capability(after, spv::Capability::Float64));
  CHECK_FALSE(has_capability(after, spv::Capability::Int16));
}

TEST_CASE("spirv builder: narrow signed constants are sign-extended, unsigned zero-extended") {
  SpvBuilder b;
  Id minus_one = b.const_int(8, true, ~uint64_t{0});
  Id u255 = b.const_int(8, false, 255);
  Id big = b.const_int(64, false, 0x123456789ull);
  std::vector<uint32_t> w = b.finish();
  auto literal_of = [&](Id id) -> std::vector<uint32_t> {
    for (size_t i = 5; i < w.size(); i += w[i] >> 16) {
      if ((w[i] & 0xFFFF) == uint32_t(spv::Op::OpConstant) && w[i + 2] == id) {
        return std::vector<uint32_t>(w.begin() + long(i) + 3, w.begin() + long(i + (w[i] >> 16)));
      }
    }
    return {};
  };
  CHECK(literal_of(minus_one) == std::vector<uint32_t>{0xFFFFFFFFu});
  CHECK(literal_of(u255) == std::vector<uint32_t>{0xFFu});
  CHECK(literal_of(big) == std::vector<uint32_t>{0x23456789u, 0x1u});
}

TEST_CASE("spirv builder: sections come in the logical layout order and the module validates") {
  SpvBuilder b;
  add_empty_kernel(b);
  std::vector<uint32_t> w = b.finish();
  CHECK(w[0] == spv::MagicNumber);
  CHECK(w[1] == 0x00010300u);
  long cap = find_op(w, spv::Op::OpCapability), model = find_op(w, spv::Op::OpMemoryModel);
  long entry = find_op(w, spv::Op::OpEntryPoint), mode = find_op(w, spv::Op::OpExecutionMode);
  long fn = find_op(w, spv::Op::OpFunction);
  CHECK((cap >= 0 && cap < model && model < entry && entry < mode && mode < fn));
  std::string errors = testing::spirv_val(testing::to_bytes(w));
  CHECK_MESSAGE(errors.empty(), errors);
}

TEST_CASE("spirv builder: spirv-val rejects a broken module (the oracle is live)") {
  SpvBuilder b;
  add_empty_kernel(b);
  std::vector<uint32_t> w = b.finish();
  w[find_op(w, spv::Op::OpMemoryModel)] = word0(spv::Op::OpNop, 3);  // no memory model
  CHECK_FALSE(testing::spirv_val(testing::to_bytes(w)).empty());
}

TEST_CASE("spirv builder: local variables go to the start of the entry block") {
  SpvBuilder b;
  b.capability(spv::Capability::Shader);
  Id fn = b.begin_function();
  Id i32 = b.type_int(32, true);
  Id next = b.new_id();
  b.op_void(spv::Op::OpBranch, {next});
  b.label(next);
  Id v = b.local_variable(i32);  // asked for in a later block
  b.op_void(spv::Op::OpStore, {v, b.const_int(32, true, 3)});
  b.op_void(spv::Op::OpReturn, {});
  b.end_function();
  b.entry_point(fn, "main", {});
  b.local_size(fn, 1, 1, 1);
  std::string errors = testing::spirv_val(testing::to_bytes(b.finish()));
  CHECK_MESSAGE(errors.empty(), errors);
}

}  // namespace
}  // namespace plaidml::jit::spirv
