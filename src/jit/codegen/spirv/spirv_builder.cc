// SpvBuilder (spirv_builder.h): instruction encoding and the module's section layout.
#include "jit/codegen/spirv/spirv_builder.h"

#include <cstring>

#include "jit/codegen/spirv/spv_cooperative_matrix.h"

namespace plaidml::jit::spirv {

std::vector<uint32_t> string_words(const std::string& s) {
  std::vector<uint32_t> words(s.size() / 4 + 1, 0);  // always room for the nul
  std::memcpy(words.data(), s.data(), s.size());    // little-endian byte order, as required
  return words;
}

void SpvBuilder::append(std::vector<uint32_t>& out, spv::Op opcode,
                        const std::vector<uint32_t>& operands) {
  uint32_t count = static_cast<uint32_t>(operands.size() + 1);
  out.push_back((count << spv::WordCountShift) | static_cast<uint32_t>(opcode));
  out.insert(out.end(), operands.begin(), operands.end());
}

Id SpvBuilder::glsl_import() {
  if (glsl_ == 0) glsl_ = new_id();
  return glsl_;
}

Id SpvBuilder::cached_type(spv::Op opcode, const std::vector<uint32_t>& operands) {
  std::vector<uint32_t> key = {static_cast<uint32_t>(opcode)};
  key.insert(key.end(), operands.begin(), operands.end());
  auto it = types_.find(key);
  if (it != types_.end()) return it->second;
  Id id = new_id();
  std::vector<uint32_t> ops = {id};
  ops.insert(ops.end(), operands.begin(), operands.end());
  append(globals_, opcode, ops);
  types_[key] = id;
  return id;
}

Id SpvBuilder::type_void() { return cached_type(spv::Op::OpTypeVoid, {}); }
Id SpvBuilder::type_bool() { return cached_type(spv::Op::OpTypeBool, {}); }

Id SpvBuilder::type_int(int bits, bool is_signed) {
  if (bits == 8) capability(spv::Capability::Int8);
  if (bits == 16) capability(spv::Capability::Int16);
  if (bits == 64) capability(spv::Capability::Int64);
  return cached_type(spv::Op::OpTypeInt,
                     {static_cast<uint32_t>(bits), static_cast<uint32_t>(is_signed ? 1 : 0)});
}

Id SpvBuilder::type_float(int bits) {
  if (bits == 16) capability(spv::Capability::Float16);
  if (bits == 64) capability(spv::Capability::Float64);
  return cached_type(spv::Op::OpTypeFloat, {static_cast<uint32_t>(bits)});
}

Id SpvBuilder::type_cooperative_matrix(Id component, uint32_t rows, uint32_t cols, uint32_t use,
                                       bool workgroup) {
  capability(kCooperativeMatrixCapability);
  extension("SPV_KHR_cooperative_matrix");
  capability(spv::Capability::VulkanMemoryModel);
  extension("SPV_KHR_vulkan_memory_model");  // core only from SPIR-V 1.5
  vulkan_memory_model_ = true;
  // Workgroup scope needs no capability of its own: the Vulkan feature allows it.
  if (workgroup) extension("SPV_NV_cooperative_matrix2");
  const Id scope = const_int(
      32, false, static_cast<uint32_t>(workgroup ? spv::Scope::Workgroup : spv::Scope::Subgroup));
  return cached_type(kOpTypeCooperativeMatrix,
                     {component, scope, const_int(32, false, rows), const_int(32, false, cols),
                      const_int(32, false, use)});
}

Id SpvBuilder::type_vector(Id component, int count) {
  return cached_type(spv::Op::OpTypeVector, {component, static_cast<uint32_t>(count)});
}

Id SpvBuilder::type_pointer(spv::StorageClass storage, Id pointee) {
  return cached_type(spv::Op::OpTypePointer, {static_cast<uint32_t>(storage), pointee});
}

Id SpvBuilder::type_void_function() {
  return cached_type(spv::Op::OpTypeFunction, {type_void()});
}

Id SpvBuilder::type_array(Id elem, uint32_t length) {
  return cached_type(spv::Op::OpTypeArray, {elem, const_int(32, false, length)});
}

Id SpvBuilder::type_buffer_block(Id elem, int stride) {
  auto it = buffer_blocks_.find(elem);
  if (it != buffer_blocks_.end()) return it->second;
  Id array = cached_type(spv::Op::OpTypeRuntimeArray, {elem});
  decorate(array, spv::Decoration::ArrayStride, {static_cast<uint32_t>(stride)});
  // Structs are not cached by structure: each Block struct is its own type.
  Id block = new_id();
  append(globals_, spv::Op::OpTypeStruct, {block, array});
  decorate(block, spv::Decoration::Block);
  member_decorate(block, 0, spv::Decoration::Offset, {0});
  buffer_blocks_[elem] = block;
  return block;
}

Id SpvBuilder::cached_const(spv::Op opcode, Id type, const std::vector<uint32_t>& words) {
  std::vector<uint32_t> key = {static_cast<uint32_t>(opcode), type};
  key.insert(key.end(), words.begin(), words.end());
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second;
  Id id = new_id();
  std::vector<uint32_t> ops = {type, id};
  ops.insert(ops.end(), words.begin(), words.end());
  append(globals_, opcode, ops);
  constants_[key] = id;
  return id;
}

Id SpvBuilder::const_bool(bool value) {
  return cached_const(value ? spv::Op::OpConstantTrue : spv::Op::OpConstantFalse, type_bool(), {});
}

Id SpvBuilder::const_int(int bits, bool is_signed, uint64_t value) {
  Id type = type_int(bits, is_signed);
  if (bits == 64) {
    return cached_const(spv::Op::OpConstant, type,
                        {static_cast<uint32_t>(value), static_cast<uint32_t>(value >> 32)});
  }
  uint32_t word = static_cast<uint32_t>(value);
  if (bits < 32) {
    uint32_t mask = (1u << bits) - 1;
    word &= mask;
    bool negative = is_signed && (word >> (bits - 1)) != 0;
    if (negative) word |= ~mask;
  }
  return cached_const(spv::Op::OpConstant, type, {word});
}

Id SpvBuilder::const_float(int bits, double value) {
  Id type = type_float(bits);
  if (bits == 64) {
    uint64_t b;
    std::memcpy(&b, &value, sizeof b);
    return cached_const(spv::Op::OpConstant, type,
                        {static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32)});
  }
  float f = static_cast<float>(value);
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return cached_const(spv::Op::OpConstant, type, {b});
}

Id SpvBuilder::const_composite(Id type, const std::vector<Id>& parts) {
  return cached_const(spv::Op::OpConstantComposite, type, parts);
}

Id SpvBuilder::global_variable(Id pointer_type, spv::StorageClass storage) {
  Id id = new_id();
  append(globals_, spv::Op::OpVariable, {pointer_type, id, static_cast<uint32_t>(storage)});
  return id;
}

void SpvBuilder::decorate(Id target, spv::Decoration d, const std::vector<uint32_t>& literals) {
  std::vector<uint32_t> ops = {target, static_cast<uint32_t>(d)};
  ops.insert(ops.end(), literals.begin(), literals.end());
  append(annotations_, spv::Op::OpDecorate, ops);
}

void SpvBuilder::member_decorate(Id type, uint32_t member, spv::Decoration d,
                                 const std::vector<uint32_t>& literals) {
  std::vector<uint32_t> ops = {type, member, static_cast<uint32_t>(d)};
  ops.insert(ops.end(), literals.begin(), literals.end());
  append(annotations_, spv::Op::OpMemberDecorate, ops);
}

void SpvBuilder::name(Id target, const std::string& name) {
  std::vector<uint32_t> ops = {target};
  for (uint32_t w : string_words(name)) ops.push_back(w);
  append(names_, spv::Op::OpName, ops);
}

void SpvBuilder::entry_point(Id function, const std::string& name,
                             const std::vector<Id>& interface) {
  std::vector<uint32_t> ops = {static_cast<uint32_t>(spv::ExecutionModel::GLCompute), function};
  for (uint32_t w : string_words(name)) ops.push_back(w);
  ops.insert(ops.end(), interface.begin(), interface.end());
  append(entry_points_, spv::Op::OpEntryPoint, ops);
}

void SpvBuilder::local_size(Id function, uint32_t x, uint32_t y, uint32_t z) {
  append(execution_modes_, spv::Op::OpExecutionMode,
         {function, static_cast<uint32_t>(spv::ExecutionMode::LocalSize), x, y, z});
}

void SpvBuilder::execution_mode(Id function, spv::ExecutionMode mode,
                                const std::vector<uint32_t>& literals) {
  std::vector<uint32_t> ops = {function, static_cast<uint32_t>(mode)};
  ops.insert(ops.end(), literals.begin(), literals.end());
  append(execution_modes_, spv::Op::OpExecutionMode, ops);
}

Id SpvBuilder::begin_function() {
  Id fn = new_id();
  fn_head_.clear();
  fn_vars_.clear();
  fn_body_.clear();
  append(fn_head_, spv::Op::OpFunction,
         {type_void(), fn, static_cast<uint32_t>(spv::FunctionControlMask::MaskNone),
          type_void_function()});
  current_block_ = new_id();
  append(fn_head_, spv::Op::OpLabel, {current_block_});
  return fn;
}

void SpvBuilder::end_function() {
  functions_.insert(functions_.end(), fn_head_.begin(), fn_head_.end());
  functions_.insert(functions_.end(), fn_vars_.begin(), fn_vars_.end());
  functions_.insert(functions_.end(), fn_body_.begin(), fn_body_.end());
  append(functions_, spv::Op::OpFunctionEnd, {});
  current_block_ = 0;
}

Id SpvBuilder::local_variable(Id pointee) {
  Id type = type_pointer(spv::StorageClass::Function, pointee);
  Id id = new_id();
  append(fn_vars_, spv::Op::OpVariable,
         {type, id, static_cast<uint32_t>(spv::StorageClass::Function)});
  return id;
}

Id SpvBuilder::op(spv::Op opcode, Id result_type, const std::vector<uint32_t>& operands) {
  Id id = new_id();
  std::vector<uint32_t> ops = {result_type, id};
  ops.insert(ops.end(), operands.begin(), operands.end());
  append(fn_body_, opcode, ops);
  return id;
}

void SpvBuilder::op_void(spv::Op opcode, const std::vector<uint32_t>& operands) {
  append(fn_body_, opcode, operands);
}

Id SpvBuilder::ext(GLSLstd450 inst, Id result_type, const std::vector<Id>& args) {
  std::vector<uint32_t> ops = {glsl_import(), static_cast<uint32_t>(inst)};
  ops.insert(ops.end(), args.begin(), args.end());
  return op(spv::Op::OpExtInst, result_type, ops);
}

void SpvBuilder::label(Id label) {
  append(fn_body_, spv::Op::OpLabel, {label});
  current_block_ = label;
}

void SpvBuilder::if_then(Id cond, const std::function<void()>& then) {
  Id then_label = new_id(), merge = new_id();
  op_void(spv::Op::OpSelectionMerge, {merge, 0 /* SelectionControl None */});
  op_void(spv::Op::OpBranchConditional, {cond, then_label, merge});
  label(then_label);
  then();
  op_void(spv::Op::OpBranch, {merge});
  label(merge);
}

void SpvBuilder::counted_loop(Id counter, Id type, const std::function<Id()>& bound, Id step,
                              const std::function<void()>& body, bool unroll) {
  Id header = new_id(), check = new_id(), loop_body = new_id();
  Id cont = new_id(), merge = new_id();
  op_void(spv::Op::OpBranch, {header});
  label(header);
  const uint32_t control = static_cast<uint32_t>(unroll ? spv::LoopControlMask::Unroll
                                                        : spv::LoopControlMask::MaskNone);
  op_void(spv::Op::OpLoopMerge, {merge, cont, control});
  op_void(spv::Op::OpBranch, {check});
  label(check);
  Id hi = bound();
  Id v = op(spv::Op::OpLoad, type, {counter});
  Id more = op(spv::Op::OpSLessThan, type_bool(), {v, hi});
  op_void(spv::Op::OpBranchConditional, {more, loop_body, merge});
  label(loop_body);
  body();
  op_void(spv::Op::OpBranch, {cont});
  label(cont);
  Id now = op(spv::Op::OpLoad, type, {counter});
  op_void(spv::Op::OpStore, {counter, op(spv::Op::OpIAdd, type, {now, step})});
  op_void(spv::Op::OpBranch, {header});
  label(merge);
}

void SpvBuilder::workgroup_barrier() {
  Id workgroup = const_int(32, false, static_cast<uint32_t>(spv::Scope::Workgroup));
  uint32_t semantics = static_cast<uint32_t>(spv::MemorySemanticsMask::AcquireRelease |
                                             spv::MemorySemanticsMask::WorkgroupMemory);
  op_void(spv::Op::OpControlBarrier, {workgroup, workgroup, const_int(32, false, semantics)});
}

std::vector<uint32_t> SpvBuilder::finish(uint32_t version) const {
  std::vector<uint32_t> out = {spv::MagicNumber, version, 0 /* generator */, next_id_, 0};
  for (uint32_t c : capabilities_) append(out, spv::Op::OpCapability, {c});
  for (const std::string& e : extensions_) append(out, spv::Op::OpExtension, string_words(e));
  if (glsl_ != 0) {
    std::vector<uint32_t> ops = {glsl_};
    for (uint32_t w : string_words("GLSL.std.450")) ops.push_back(w);
    append(out, spv::Op::OpExtInstImport, ops);
  }
  append(out, spv::Op::OpMemoryModel,
         {static_cast<uint32_t>(spv::AddressingModel::Logical),
          static_cast<uint32_t>(vulkan_memory_model_ ? spv::MemoryModel::Vulkan
                                                     : spv::MemoryModel::GLSL450)});
  for (const auto* section :
       {&entry_points_, &execution_modes_, &names_, &annotations_, &globals_, &functions_}) {
    out.insert(out.end(), section->begin(), section->end());
  }
  return out;
}

}  // namespace plaidml::jit::spirv
