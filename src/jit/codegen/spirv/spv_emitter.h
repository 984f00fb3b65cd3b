// Loop-IR expressions and statements as SPIR-V instructions inside one function (the SPIR-V
// twin of opencl::ClPrinter): loops become structured loops (OpLoopMerge, a continue block
// stepping a Function-storage loop variable), ifs selections (OpSelectionMerge), locals
// Function-storage variables, loads and stores access chains into the slots' storage buffers.
// Kernel emitters bind band variables to computed values before emitting the band's body.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "jit/codegen/spirv/spv_scalar.h"
#include "jit/lower/lower.h"

namespace plaidml::jit::spirv {

class SpvEmitter {
 public:
  // slot_vars[k]: the StorageBuffer variable of slot k. index32: every slot has fewer than 2^31
  // elements, so in-bounds indices are narrowed to i32 for the access chains.
  SpvEmitter(const LoweredProgram& program, SpvScalar& scalar, std::vector<Id> slot_vars,
             bool index32);

  // Loop variable `name` (I64) is the value `id` from now on (until rebound).
  void bind_value(const std::string& name, Id id);
  // Variable `name` of dtype `t` lives in the Function variable `ptr` (loaded on each use,
  // assignable), as a declared local does.
  void bind_pointer(const std::string& name, Id ptr, DType t);
  // Runs `f`, then restores every binding as it was before (what `f` bound is forgotten).
  void scoped(const std::function<void()>& f);

  // Consulted for every load: a value (of the load's dtype) replaces the buffer read, as the
  // tiled kernel reads staged loads from shared memory; nullopt reads the buffer. Empty: none.
  using LoadHook = std::function<std::optional<Id>(const loop::Expr& load)>;
  void set_load_hook(LoadHook hook) { load_hook_ = std::move(hook); }

  Id expr(const loop::Expr& e);
  void stmt(const loop::Stmt& s);
  // Statements of one scope: the locals they declare are gone after it.
  void body(const std::vector<loop::StmtPtr>& stmts);

  // The first error met (an op the loop IR never holds): check after each kernel.
  const Status& status() const { return status_; }
  SpvScalar& scalar() { return scalar_; }

 private:
  struct Binding {
    Id id = 0;
    bool pointer = false;  // a Function variable (loaded on use) rather than a value
    DType dtype = DType::I64;
  };

  Id element_pointer(int slot, const loop::Expr& index);
  Id load(const loop::Expr& e);
  Id op(const loop::Expr& e);
  Id lazy_select(const loop::Expr& e);  // select whose branches load: only one runs
  Id var(const loop::Expr& e);
  void for_loop(const loop::Stmt& s);
  void if_then(const loop::Stmt& s);
  void store(const loop::Stmt& s);
  void declare(const loop::Stmt& s);
  void fail(Status status);

  const LoweredProgram& program_;
  SpvScalar& scalar_;
  SpvBuilder& b_;
  std::vector<Id> slot_vars_;
  bool index32_;
  std::map<std::string, Binding> bound_;
  LoadHook load_hook_;
  Status status_;
};

}  // namespace plaidml::jit::spirv
