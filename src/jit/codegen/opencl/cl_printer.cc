// ClPrinter: loop-IR expressions and statements as OpenCL C (the scalar forms: cl_scalar.h).
#include "jit/codegen/opencl/cl_printer.h"

#include <cctype>
#include <cstdio>

#include <fmt/format.h>

#include "jit/codegen/opencl/cl_scalar.h"

namespace plaidml::jit::opencl {

using loop::Expr;
using loop::ExprKind;
using loop::Stmt;
using loop::StmtKind;

namespace {

std::string pad(int indent) { return std::string(static_cast<size_t>(indent) * 2, ' '); }

}  // namespace

ClPrinter::ClPrinter(const LoweredProgram& program, bool index32,
                     const std::vector<const gpu::GpuKernel*>& scheduled)
    : program_(program), index32_(index32), ranges_(program, scheduled) {
  for (const auto& kernel : program.kernels) {
    for (int s : loop::parameters(kernel)) {
      DType t = program.slots.at(static_cast<size_t>(s)).shape.dtype;
      if (t == DType::F64) uses_f64_ = true;
      if (t == DType::F16) uses_f16_ = true;
    }
  }
}

bool ClPrinter::fits_index32(const LoweredProgram& program,
                             const std::vector<const gpu::GpuKernel*>& scheduled) {
  return gpu::IndexRanges(program, scheduled).fits_int32();
}

std::string ClPrinter::storage_type(DType dtype) { return cl_storage_type(dtype); }
std::string ClPrinter::value_type(DType dtype) { return cl_value_type(dtype); }
std::string ClPrinter::index_type() const { return index32_ ? "int" : "long"; }

void ClPrinter::bind(const std::string& name, std::string c_expr) {
  bound_[name] = std::move(c_expr);
}

// "v_" + the name, '_' doubled and any other character not allowed in C as _XX (hex): distinct
// loop-IR names stay distinct, and no name meets a C keyword or an OpenCL builtin.
std::string ClPrinter::identifier(const std::string& name) {
  std::string out = "v_";
  for (unsigned char c : name) {
    if (std::isalnum(c)) {
      out += static_cast<char>(c);
    } else if (c == '_') {
      out += "__";
    } else {
      out += fmt::format("_{:02x}", c);
    }
  }
  return out;
}

std::string ClPrinter::var_name(const std::string& name) const {
  auto it = bound_.find(name);
  return it != bound_.end() ? it->second : identifier(name);
}

const gpu::WorkgroupArray& ClPrinter::workgroup_array(int slot) {
  size_t i = gpu::workgroup_array_index(slot);
  if (!workgroup_arrays_ || i >= workgroup_arrays_->size()) {
    fail(make_error(StatusCode::kInternal, "OpenCL: workgroup array {} is not declared", i));
    static const gpu::WorkgroupArray kNone{"undeclared", DType::F32, 0};
    return kNone;
  }
  return (*workgroup_arrays_)[i];
}

void ClPrinter::fail(Status status) {
  if (status_.is_ok()) status_ = std::move(status);
}

std::optional<gpu::IndexRange> ClPrinter::int_range(const Expr& e) const {
  if (!index32_) return std::nullopt;
  return ranges_.range(e);
}

std::string ClPrinter::int_index(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kConst: return cl_int_literal(e.int_value, DType::I32);
    case ExprKind::kVar: return var_name(e.name);
    default: break;
  }
  if (e.op == ir::OpKind::Neg) return "(-" + int_index(*e.args[0]) + ")";
  if (e.op == ir::OpKind::Select) {
    return fmt::format("({} ? {} : {})", expr(*e.args[0]), int_index(*e.args[1]),
                       int_index(*e.args[2]));
  }
  if (e.op == ir::OpKind::Min || e.op == ir::OpKind::Max) {
    return fmt::format("{}({}, {})", e.op == ir::OpKind::Min ? "min" : "max",
                       int_index(*e.args[0]), int_index(*e.args[1]));
  }
  const char* op = e.op == ir::OpKind::Add   ? "+"
                   : e.op == ir::OpKind::Sub ? "-"
                   : e.op == ir::OpKind::Mul ? "*"
                   : e.op == ir::OpKind::Div ? "/"
                                             : "%";
  return fmt::format("({} {} {})", int_index(*e.args[0]), op, int_index(*e.args[1]));
}

std::string ClPrinter::index(const Expr& e) {
  if (int_range(e)) return int_index(e);
  return expr(e);
}

std::string ClPrinter::expr(const Expr& e) {
  if (e.dtype == DType::F64) uses_f64_ = true;
  if (e.dtype == DType::I64 && e.kind != ExprKind::kConst && int_range(e)) {
    return "((long)" + int_index(e) + ")";
  }
  switch (e.kind) {
    case ExprKind::kConst: return cl_const(e);
    case ExprKind::kVar: {
      bool int_loop_var = index32_ && e.dtype == DType::I64 && !ranges_.is_local(e.name);
      return int_loop_var ? "((long)" + var_name(e.name) + ")" : var_name(e.name);
    }
    case ExprKind::kLoad:
      if (gpu::is_workgroup_slot(e.slot)) {
        return fmt::format("{}[{}]", workgroup_array(e.slot).name, index(*e.args[0]));
      }
      return load(e.slot, index(*e.args[0]));
    case ExprKind::kCast:
      return cl_cast(expr(*e.args[0]), e.args[0]->dtype, e.dtype, helpers_);
    case ExprKind::kOp: {
      DType operand = e.op == ir::OpKind::Select ? e.args[1]->dtype : e.args[0]->dtype;
      if (operand == DType::F64) uses_f64_ = true;
      // Index comparisons (guards) in int when both sides are int index expressions.
      bool compare = ir::op_category(e.op) == ir::OpCategory::kCompare;
      bool in_int = compare && int_range(*e.args[0]) && int_range(*e.args[1]);
      if (in_int) operand = DType::I32;
      std::vector<std::string> args;
      for (const auto& a : e.args) args.push_back(in_int ? int_index(*a) : expr(*a));
      Expected<std::string> r = cl_op(e.op, operand, args, helpers_);
      if (!r) {
        fail(r.status());
        return "0";
      }
      return *r;
    }
  }
  return "0";
}

std::string ClPrinter::load(int slot, const std::string& index) const {
  return cl_load(program_.slots.at(static_cast<size_t>(slot)).shape.dtype, fmt::format("s{}", slot),
                 index);
}

std::string ClPrinter::store(int slot, const std::string& index, const std::string& value) const {
  return cl_store(program_.slots.at(static_cast<size_t>(slot)).shape.dtype,
                  fmt::format("s{}", slot), index, value, helpers_);
}

// Statements of one C block: declared locals and loop variables shadow bindings until its end.
void ClPrinter::body(const std::vector<loop::StmtPtr>& stmts, int indent, std::string& out) {
  std::map<std::string, std::optional<std::string>> saved;
  for (const auto& s : stmts) {
    if (s->kind == StmtKind::kDeclare) {
      auto it = bound_.find(s->var);
      if (!saved.count(s->var)) {
        saved[s->var] = it == bound_.end() ? std::nullopt : std::optional(it->second);
      }
      // An index local is an int like a loop variable (IndexRanges::is_index_local).
      const bool index_local = index32_ && ranges_.is_index_local(s->var);
      // Before the name is rebound: `x = f(x)` is legal.
      std::string init = index_local ? int_index(*s->value) : expr(*s->value);
      if (it != bound_.end()) bound_.erase(s->var);
      out += fmt::format("{}{} {} = {};\n", pad(indent),
                         index_local ? std::string("int") : value_type(s->value->dtype),
                         identifier(s->var), init);
      continue;
    }
    stmt(*s, indent, out);
  }
  for (auto& [name, value] : saved) {
    if (value) bound_[name] = *value;
  }
}

void ClPrinter::stmt(const Stmt& s, int indent, std::string& out) {
  std::string p = pad(indent);
  switch (s.kind) {
    case StmtKind::kBlock:
      out += p + "{\n";
      body(s.body, indent + 1, out);
      out += p + "}\n";
      return;
    case StmtKind::kFor: {
      std::optional<std::string> saved;
      if (auto it = bound_.find(s.var); it != bound_.end()) {
        saved = it->second;
        bound_.erase(it);
      }
      std::string v = identifier(s.var);
      if (s.unroll > 0) out += p + "#pragma unroll\n";
      out += fmt::format("{}for ({} {} = {}; {} < {}; {} += {}) {{\n", p, index_type(), v,
                         index(*s.lo), v, index(*s.hi), v, s.step);
      body(s.body, indent + 1, out);
      out += p + "}\n";
      if (saved) bound_[s.var] = *saved;
      return;
    }
    case StmtKind::kIf:
      out += fmt::format("{}if ({}) {{\n", p, expr(*s.cond));
      body(s.body, indent + 1, out);
      out += p + "}\n";
      return;
    case StmtKind::kStore:
      if (gpu::is_workgroup_slot(s.slot)) {
        out += fmt::format("{}{}[{}] = {};\n", p, workgroup_array(s.slot).name, index(*s.index),
                           expr(*s.value));
        return;
      }
      out += p + store(s.slot, index(*s.index), expr(*s.value)) + "\n";
      return;
    case StmtKind::kPrefetch: return;  // a CPU cache hint; GPU kernels never carry one
    case StmtKind::kBarrier: out += p + "barrier(CLK_LOCAL_MEM_FENCE);\n"; return;
    case StmtKind::kMatrix:  // the GPU schedule gives OpenCL targets no cooperative matrices
      fail(make_error(StatusCode::kInternal, "OpenCL: a cooperative-matrix operation"));
      return;
    case StmtKind::kDeclare: {
      std::vector<loop::StmtPtr> one = {std::make_shared<Stmt>(s)};
      body(one, indent, out);  // a lone declaration: its scope is the caller's block
      return;
    }
    case StmtKind::kAssign:
      out += fmt::format("{}{} = {};\n", p, var_name(s.var), expr(*s.value));
      return;
  }
}

std::string ClPrinter::preamble(const GpuTarget& target) const {
  std::string out = fmt::format("// plaidml OpenCL C for {}\n", target.device_name);
  // a*b+c may fuse into one FMA (one rounding instead of two): on GPUs that halves the
  // instructions of every multiply-add. Results then differ from the CPU's and the
  // interpreter's in the last bits, within the conformance tolerances (docs/devices.md), as
  // the Vulkan driver's contraction of SPIR-V's OpFMul and OpFAdd does.
  out += "#pragma OPENCL FP_CONTRACT ON\n";
  if (uses_f64_) out += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  for (const auto& [name, definition] : helpers_) out += definition;
  return out + "\n";
}

std::string ClPrinter::signature(const loop::Kernel& kernel, const std::string& attributes) const {
  return signature(kernel.name, loop::parameters(kernel), attributes);
}

std::string ClPrinter::signature(const std::string& name, const std::vector<int>& slots,
                                 const std::string& attributes) const {
  std::vector<std::string> params;
  for (int s : slots) {
    DType t = program_.slots.at(static_cast<size_t>(s)).shape.dtype;
    params.push_back(fmt::format("__global {}* restrict s{}", storage_type(t), s));
  }
  if (params.empty()) params.push_back("void");
  std::string attrs = attributes.empty() ? "" : attributes + " ";
  return fmt::format("__kernel {}void {}({})", attrs, name, fmt::join(params, ", "));
}

}  // namespace plaidml::jit::opencl
