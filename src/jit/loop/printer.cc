#include "jit/loop/printer.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace plaidml::jit::loop {
namespace {

// Operators printed infix; every other op prints as a call (a table, not a switch, because
// only this subset of the op table matters here).
const char* infix_symbol(ir::OpKind op) {
  using ir::OpKind;
  static constexpr std::pair<OpKind, const char*> kInfix[] = {
      {OpKind::Add, "+"},     {OpKind::Sub, "-"},     {OpKind::Mul, "*"},
      {OpKind::Div, "/"},     {OpKind::Mod, "%"},     {OpKind::Eq, "=="},
      {OpKind::Ne, "!="},     {OpKind::Lt, "<"},      {OpKind::Gt, ">"},
      {OpKind::Le, "<="},     {OpKind::Ge, ">="},     {OpKind::BitAnd, "&"},
      {OpKind::BitOr, "|"},   {OpKind::BitXor, "^"},  {OpKind::Shl, "<<"},
      {OpKind::Shr, ">>"},
  };
  for (const auto& [kind, sym] : kInfix) {
    if (kind == op) return sym;
  }
  return nullptr;
}

// "x16" after the dtype of a 16-lane load or cast; nothing for scalars.
std::string lanes_suffix(const Expr& e) {
  return e.lanes == 1 ? "" : fmt::format("x{}", e.lanes);
}

// A masked vector access: "/5" after its lanes, the lanes it touches.
std::string mask_suffix(int mask_lanes) {
  return mask_lanes == 0 ? "" : fmt::format("/{}", mask_lanes);
}

std::string const_to_string(const Expr& e) {
  std::string text;
  if (dtype_is_float(e.dtype)) {
    text = fmt::format("{}", e.float_value);
  } else if (e.dtype == DType::U64) {
    text = fmt::format("{}", static_cast<uint64_t>(e.int_value));
  } else {
    text = fmt::format("{}", e.int_value);
  }
  if (e.dtype == DType::I64) return text;
  return fmt::format("{}:{}", text, dtype_name(e.dtype));
}

// Prints slot s as "s<s>", or, given the kernel's parameters, as "p<position>" (canonical form).
class Printer {
 public:
  explicit Printer(const std::vector<int>* params = nullptr,
                   ParallelBound bound = ParallelBound::kPrinted)
      : params_(params), bound_(bound) {}
  void expr(const Expr& e, std::string& out) const;
  void stmt(const Stmt& s, int depth, std::string& out) const;

 private:
  std::string slot(int s) const;
  std::string matrix(const Stmt& s) const;
  std::string operand(const MatrixOperand& o) const;
  std::string to_string(const Expr& e) const {
    std::string out;
    expr(e, out);
    return out;
  }
  void print_body(const std::vector<StmtPtr>& body, int depth, std::string& out) const {
    for (const auto& child : body) stmt(*child, depth, out);
  }
  const std::vector<int>* params_;
  ParallelBound bound_;
};

std::string Printer::slot(int s) const {
  if (s < 0) return fmt::format("w{}", -1 - s);  // a GPU kernel's workgroup array
  if (!params_) return fmt::format("s{}", s);
  auto it = std::find(params_->begin(), params_->end(), s);
  return fmt::format("p{}", it - params_->begin());
}

// "matrix acc 4x4 of 16x16 f16: zero" / "+= w0[(row) * 40] * w1[col] x2" / "[1, 2] -> w2[at] / 16".
// "w0[0 + (row0, col0) . (40, 1)] < (200, 0)".
std::string Printer::operand(const MatrixOperand& o) const {
  return fmt::format("{}[{} + ({}, {}) . ({}, {})] < ({}, {})", slot(o.slot), to_string(*o.base),
                     to_string(*o.row0), to_string(*o.col0), o.row_stride, o.col_stride, o.rows,
                     o.cols);
}

std::string Printer::matrix(const Stmt& s) const {
  const MatrixOp& m = *s.matrix;
  std::string out =
      fmt::format("matrix {} {}x{} of {}x{}x{} {}{}: ", s.var, m.rows, m.cols, m.frag_m, m.frag_n,
                  m.frag_k, dtype_name(m.input), m.workgroup ? " per workgroup" : "");
  switch (m.kind) {
    case MatrixOp::Kind::kZero: return out + "zero";
    case MatrixOp::Kind::kMulAdd:
      return out + fmt::format("+= {} * {} x{}", operand(m.a), operand(m.b), m.k_steps);
    case MatrixOp::Kind::kFetch:
      return out + fmt::format("fetch {}x{} of {} by {}", m.lines, m.width, operand(m.a),
                               m.threads);
    case MatrixOp::Kind::kDeposit:
      return out + fmt::format("deposit {}x{} -> {} / {} by {}", m.lines, m.width,
                               slot(m.c_slot), m.width + m.ldc, m.threads);
    case MatrixOp::Kind::kStore:
      return out + fmt::format("[{}, {}] -> {}[{}] / {}{}", m.row, m.col, slot(m.c_slot),
                               to_string(*m.c_at), m.ldc,
                               m.stored == DType::F32
                                   ? std::string()
                                   : fmt::format(" as {}", dtype_name(m.stored)));
  }
  return out;
}

void Printer::stmt(const Stmt& s, int depth, std::string& out) const {
  std::string pad(static_cast<size_t>(depth) * 2, ' ');
  switch (s.kind) {
    case StmtKind::kBlock:
      out += pad + "{\n";
      print_body(s.body, depth + 1, out);
      out += pad + "}\n";
      return;
    case StmtKind::kFor:
      out += fmt::format("{}{}for {} in [{}, {}){}{} {{\n", pad,
                         s.parallel ? "parallel " : (s.independent ? "independent " : ""), s.var,
                         to_string(*s.lo),
                         s.parallel && bound_ == ParallelBound::kRunTime ? "end" : to_string(*s.hi),
                         s.step == 1 ? "" : fmt::format(" step {}", s.step),
                         s.unroll == 0 ? "" : fmt::format(" unroll {}", s.unroll));
      print_body(s.body, depth + 1, out);
      out += pad + "}\n";
      return;
    case StmtKind::kIf:
      out += fmt::format("{}if {} {{\n", pad, to_string(*s.cond));
      print_body(s.body, depth + 1, out);
      out += pad + "}\n";
      return;
    case StmtKind::kStore:
      out += fmt::format("{}{}[{}]{} = ", pad, slot(s.slot), to_string(*s.index),
                         mask_suffix(s.mask_lanes));
      expr(*s.value, out);
      out += "\n";
      return;
    case StmtKind::kPrefetch:
      out += fmt::format("{}prefetch {}[{}]\n", pad, slot(s.slot), to_string(*s.index));
      return;
    case StmtKind::kBarrier: out += pad + "barrier\n"; return;
    case StmtKind::kMatrix: out += pad + matrix(s) + "\n"; return;
    case StmtKind::kDeclare:
      out += fmt::format("{}var {}: {}{} = ", pad, s.var, dtype_name(s.value->dtype),
                         lanes_suffix(*s.value));
      expr(*s.value, out);
      out += "\n";
      return;
    case StmtKind::kAssign:
      out += fmt::format("{}{} = ", pad, s.var);
      expr(*s.value, out);
      out += "\n";
      return;
  }
}

std::string join_slots(const std::vector<int>& slots) {
  std::string out;
  for (size_t i = 0; i < slots.size(); ++i) out += fmt::format("{}s{}", i ? ", " : "", slots[i]);
  return out;
}

// Appends to `out` rather than returning each subexpression's text: a returned string is copied
// into its parent's, at a cost of depth x length per expression (fused kernels hold trees
// about 200 levels deep, printed twice per compile for the kernel keys).
void Printer::expr(const Expr& e, std::string& out) const {
  auto put = [&out](auto&&... parts) { (out.append(parts), ...); };
  switch (e.kind) {
    case ExprKind::kConst: return put(const_to_string(e));
    case ExprKind::kVar: return put(e.name);
    case ExprKind::kLoad:
      put(slot(e.slot), "[");
      expr(*e.args[0], out);
      return put("]:", dtype_name(e.dtype), lanes_suffix(e), mask_suffix(e.mask_lanes));
    case ExprKind::kCast:
      if (e.dtype == e.args[0]->dtype) {
        put("splat", std::to_string(e.lanes), "(");
      } else {
        put(dtype_name(e.dtype), lanes_suffix(e), "(");
      }
      expr(*e.args[0], out);
      return put(")");
    case ExprKind::kOp: {
      if (const char* sym = infix_symbol(e.op); sym && e.args.size() == 2) {
        put("(");
        expr(*e.args[0], out);
        put(" ", sym, " ");
        expr(*e.args[1], out);
        return put(")");
      }
      put(ir::op_name(e.op), "(");
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) put(", ");
        expr(*e.args[i], out);
      }
      return put(")");
    }
  }
  put("?");
}

void print_body_of(const Kernel& kernel, const Printer& printer, std::string& out) {
  if (kernel.body) {
    printer.stmt(*kernel.body, 0, out);
  } else {
    out += "{}\n";
  }
}

}  // namespace

std::string to_string(const Expr& e) {
  std::string out;
  Printer().expr(e, out);
  return out;
}

std::string to_string(const Kernel& kernel) {
  std::string out = fmt::format("kernel {}(reads: {}; writes: {}) ", kernel.name,
                                join_slots(kernel.reads), join_slots(kernel.writes));
  print_body_of(kernel, Printer(), out);
  return out;
}

std::string canonical_string(const Kernel& kernel, const std::vector<int>& params,
                             ParallelBound bound) {
  std::string out = "kernel(";
  for (size_t i = 0; i < params.size(); ++i) {
    bool read = std::count(kernel.reads.begin(), kernel.reads.end(), params[i]) > 0;
    bool written = std::count(kernel.writes.begin(), kernel.writes.end(), params[i]) > 0;
    out += fmt::format("{}p{}:{}{}", i ? ", " : "", i, read ? "r" : "", written ? "w" : "");
  }
  out += ") ";
  print_body_of(kernel, Printer(&params, bound), out);
  return out;
}

}  // namespace plaidml::jit::loop
