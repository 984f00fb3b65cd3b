// A small SPIR-V module builder: result ids, cached types and constants, decorations, entry
// points and function bodies, assembled into words in the logical layout order the spec
// requires (capabilities, extensions, imports, memory model, entry points, execution modes,
// annotations, types/constants/globals, functions). Capabilities follow the types asked for
// (an 8-bit int type adds Int8, ...), so a module declares only what it uses.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.hpp11>

namespace plaidml::jit::spirv {

using Id = uint32_t;

class SpvBuilder {
 public:
  Id new_id() { return next_id_++; }

  void capability(spv::Capability c) { capabilities_.insert(static_cast<uint32_t>(c)); }
  void extension(const std::string& name) { extensions_.insert(name); }
  Id glsl_import();  // the GLSL.std.450 extended instruction set

  // Types (cached: asking twice gives the same id).
  Id type_void();
  Id type_bool();
  Id type_int(int bits, bool is_signed);
  Id type_float(int bits);
  Id type_vector(Id component, int count);
  // uvec4: the 16-byte vector that tile copies move (8 f16 elements).
  Id type_uvec4() { return type_vector(type_int(32, false), 4); }
  Id type_pointer(spv::StorageClass storage, Id pointee);
  Id type_void_function();
  // elem[length] (no ArrayStride: for Function and Workgroup storage, which have no layout).
  Id type_array(Id elem, uint32_t length);
  // struct { elem data[]; } decorated Block, member Offset 0, array ArrayStride `stride`.
  Id type_buffer_block(Id elem, int stride);
  // A cooperative matrix (SPV_KHR_cooperative_matrix) at subgroup scope, or at workgroup scope
  // (SPV_NV_cooperative_matrix2): rows x cols of `component`, for `use`
  // (spv_cooperative_matrix.h). The extension requires the Vulkan memory model, which the module
  // then declares.
  Id type_cooperative_matrix(Id component, uint32_t rows, uint32_t cols, uint32_t use,
                             bool workgroup = false);

  // Constants (cached). Integer `value` is the bit pattern, zero- or sign-extended below 32 bits
  // as the spec requires; 64-bit values take two words, low-order first.
  Id const_bool(bool value);
  Id const_int(int bits, bool is_signed, uint64_t value);
  Id const_float(int bits, double value);
  Id const_composite(Id type, const std::vector<Id>& parts);

  Id global_variable(Id pointer_type, spv::StorageClass storage);
  void decorate(Id target, spv::Decoration d, const std::vector<uint32_t>& literals = {});
  void member_decorate(Id type, uint32_t member, spv::Decoration d,
                       const std::vector<uint32_t>& literals = {});
  void name(Id target, const std::string& name);
  void entry_point(Id function, const std::string& name, const std::vector<Id>& interface);
  void local_size(Id function, uint32_t x, uint32_t y, uint32_t z);
  void execution_mode(Id function, spv::ExecutionMode mode, const std::vector<uint32_t>& literals);

  // Function bodies: one at a time. begin_function opens the entry block.
  Id begin_function();
  void end_function();  // the current block must have been terminated
  // A Function-storage variable, placed at the start of the entry block (as required).
  Id local_variable(Id pointee);
  // An instruction with a result type and id; returns the id.
  Id op(spv::Op opcode, Id result_type, const std::vector<uint32_t>& operands);
  // An instruction without result (stores, branches, merges).
  void op_void(spv::Op opcode, const std::vector<uint32_t>& operands);
  Id ext(GLSLstd450 inst, Id result_type, const std::vector<Id>& args);
  // Opens block `label` (the previous block must have been terminated).
  void label(Id label);
  Id current_block() const { return current_block_; }

  // Structured control flow (every branch nested in a construct with its merge block, as
  // Vulkan requires). Both leave the merge block open.
  // if (cond) then(): a selection construct.
  void if_then(Id cond, const std::function<void()>& then);
  // while (*counter < bound()) { body(); *counter += step; }: a loop construct (header with
  // OpLoopMerge -> check -> body -> continue block -> header). `counter` is an initialised
  // Function variable of the signed integer type `type`; `bound` is emitted in the check
  // block, so it is evaluated on every trip.
  // `unroll`: LoopControl Unroll, a hint for a loop of a small constant trip count (a tiled
  // kernel's k steps), which the driver's compiler may then pipeline as OpenCL C compilers do
  // with a constant-bound `for`.
  void counted_loop(Id counter, Id type, const std::function<Id()>& bound, Id step,
                    const std::function<void()>& body, bool unroll = false);
  // OpControlBarrier(Workgroup, Workgroup, AcquireRelease | WorkgroupMemory): GLSL's
  // barrier(), OpenCL's barrier(CLK_LOCAL_MEM_FENCE). Only in workgroup-uniform control flow.
  void workgroup_barrier();

  std::vector<uint32_t> finish(uint32_t version = 0x00010300) const;

 private:
  static void append(std::vector<uint32_t>& out, spv::Op opcode,
                     const std::vector<uint32_t>& operands);
  Id cached_type(spv::Op opcode, const std::vector<uint32_t>& operands);
  Id cached_const(spv::Op opcode, Id type, const std::vector<uint32_t>& words);

  Id next_id_ = 1;
  Id glsl_ = 0;
  bool vulkan_memory_model_ = false;
  std::set<uint32_t> capabilities_;
  std::set<std::string> extensions_;
  std::vector<uint32_t> entry_points_, execution_modes_, names_, annotations_, globals_;
  std::vector<uint32_t> functions_;
  std::map<std::vector<uint32_t>, Id> types_, constants_;
  std::map<Id, Id> buffer_blocks_;
  // The open function: its entry-block variables and the rest of its body.
  std::vector<uint32_t> fn_head_, fn_vars_, fn_body_;
  Id current_block_ = 0;
};

// A string literal as SPIR-V words: UTF-8, nul-terminated, padded to whole words.
std::vector<uint32_t> string_words(const std::string& s);

}  // namespace plaidml::jit::spirv
