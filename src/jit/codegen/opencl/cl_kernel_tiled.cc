// The tiled contraction kernel (PlaidML v0's scheme): an output tile of BM x BN points per
// workgroup, TX x TY threads with an RM x RN register block each (thread (tx, ty) owns
// n = n0 + tx + rn*TX, m = m0 + ty + rm*TY: coalesced global access, conflict-free local
// reads), the innermost reduction loop k walked in chunks of BK whose loads are staged through
// __local tiles by all threads (barrier, compute, barrier). Every statement of the loop IR is
// printed as written (ClPrinter), with variables bound to the point's expressions, so any
// aggregation, combination, guard and epilogue keeps its exact semantics.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "jit/codegen/opencl/cl_kernel.h"
#include "jit/codegen/gpu/tiled_layout.h"
#include "jit/loop/printer.h"

namespace plaidml::jit::opencl {

using gpu::LoadSide;
using gpu::RegisterForm;
using gpu::StagedTile;
using gpu::TileChoice;
using gpu::TiledPlan;
using loop::Stmt;
using loop::StmtKind;

namespace {

class TiledEmitter {
 public:
  TiledEmitter(const loop::Kernel& kernel, const TiledPlan& plan, const TileChoice& tiles,
               ClPrinter& printer)
      : kernel_(kernel), plan_(plan), form_(plan.form), c_(tiles), p_(printer),
        ix_(printer.index_type()) {}

  LaunchDims emit(std::string& out);

 private:
  void line(int indent, const std::string& text);
  void header();
  void points();
  void tile_declarations();
  void accumulators();
  void reduction();
  // trips: the k extent, or 0 where a uniform guard fails.
  void chunk_loop(int indent, const std::string& trips);
  void stage(const StagedTile& tile, int indent);
  void compute(int indent);
  void epilogue();
  // Binds the band variables m and n to the point (rm, rn) of this thread.
  void bind_point(int rm, int rn);
  std::string point_valid(int rm, int rn) const;
  // "lo + (base) * step" for a loop of constant bounds.
  std::string value_of(const Stmt& loop, const std::string& position) const;
  std::string acc_name(int rm, int rn) const { return fmt::format("acc_{}_{}", rm, rn); }
  std::string tile_width(const StagedTile& t) const;
  // Tile element kk of this thread's register row r (rm or rn, by the tile's side).
  std::string tile_read(const StagedTile& t, int r) const;
  void operand_registers(int indent);
  static std::string operand_name(size_t tile, int r) { return fmt::format("t{}_{}", tile, r); }
  // Binds through the shared printer, remembering the name so that unbind_all() can give the
  // next kernel a printer without this kernel's bindings.
  void bind(const std::string& name, std::string c_expr);
  void unbind_all();

  const loop::Kernel& kernel_;
  const TiledPlan& plan_;
  const RegisterForm& form_;
  TileChoice c_;
  ClPrinter& p_;
  std::string ix_;  // index type
  std::string out_;
  std::vector<std::string> bound_;
};

void TiledEmitter::bind(const std::string& name, std::string c_expr) {
  bound_.push_back(name);
  p_.bind(name, std::move(c_expr));
}

void TiledEmitter::unbind_all() {
  for (const auto& name : bound_) p_.bind(name, ClPrinter::identifier(name));
  bound_.clear();
}

void TiledEmitter::line(int indent, const std::string& text) {
  out_ += std::string(static_cast<size_t>(indent) * 2, ' ') + text + "\n";
}

std::string TiledEmitter::value_of(const Stmt& loop, const std::string& position) const {
  return fmt::format("(({}){} + ({}) * {})", ix_, loop.lo->int_value, position, loop.step);
}

void TiledEmitter::header() {
  std::string attr = fmt::format("__attribute__((reqd_work_group_size({}, {}, 1)))", c_.tx, c_.ty);
  out_ += p_.signature(kernel_, attr) + " {\n";
  line(1, "const int tx = (int)get_local_id(0);");
  line(1, "const int ty = (int)get_local_id(1);");
  line(1, fmt::format("const int tid = ty * {} + tx;", c_.tx));
  line(1, fmt::format("const {0} n0 = ({0})get_group_id(0) * {1};", ix_, c_.bn()));
  line(1, fmt::format("const {0} m0 = ({0})get_group_id(1) * {1};", ix_, c_.bm()));
  if (form_.uniform_band_count() == 0) return;
  // The other band loops, one workgroup per value: decode dim 2, innermost loop fastest.
  line(1, fmt::format("{0} g2 = ({0})get_group_id(2);", ix_));
  for (size_t i = form_.uniform_band_count(); i-- > 0;) {
    const Stmt& loop = *form_.band[i];
    std::string name = fmt::format("u{}", i);
    line(1, fmt::format("const {} {} = {};", ix_, name,
                        value_of(loop, fmt::format("g2 % {}", loop::trip_count(loop)))));
    line(1, fmt::format("g2 /= {};", loop::trip_count(loop)));
    bind(loop.var, name);
  }
}

void TiledEmitter::points() {
  const int64_t n_extent = loop::trip_count(form_.n_loop());
  for (int rn = 0; rn < c_.rn; ++rn) {
    std::string at = fmt::format("n0 + tx + {}", rn * c_.tx);
    line(1, fmt::format("const {} pn{} = {};", ix_, rn, value_of(form_.n_loop(), at)));
    line(1, fmt::format("const bool nv{} = {} < {};", rn, at, n_extent));
  }
  if (!form_.has_m()) return;
  const int64_t m_extent = loop::trip_count(form_.m_loop());
  for (int rm = 0; rm < c_.rm; ++rm) {
    std::string at = fmt::format("m0 + ty + {}", rm * c_.ty);
    line(1, fmt::format("const {} pm{} = {};", ix_, rm, value_of(form_.m_loop(), at)));
    line(1, fmt::format("const bool mv{} = {} < {};", rm, at, m_extent));
  }
}

std::string TiledEmitter::tile_width(const StagedTile& t) const {
  // One element of padding: a column walk (k fastest) then hits different banks.
  return std::to_string((t.load.side == LoadSide::kM ? c_.bm() : c_.bn()) + 1);
}

void TiledEmitter::tile_declarations() {
  for (const StagedTile& t : plan_.tiles) {
    std::string type = ClPrinter::value_type(t.load.load->dtype);
    if (t.load.side == LoadSide::kK) {
      line(1, fmt::format("__local {} {}[{}];", type, t.name, c_.bk));
    } else {
      line(1, fmt::format("__local {} {}[{}][{}];", type, t.name, c_.bk, tile_width(t)));
    }
  }
}

void TiledEmitter::bind_point(int rm, int rn) {
  bind(form_.n_loop().var, fmt::format("pn{}", rn));
  if (form_.has_m()) bind(form_.m_loop().var, fmt::format("pm{}", rm));
  bind(form_.declare->var, acc_name(rm, rn));
}

std::string TiledEmitter::point_valid(int rm, int rn) const {
  return form_.has_m() ? fmt::format("mv{} && nv{}", rm, rn) : fmt::format("nv{}", rn);
}

// Points outside the output extents keep a zero and never touch memory.
void TiledEmitter::accumulators() {
  std::string type = ClPrinter::value_type(form_.declare->value->dtype);
  for (int rm = 0; rm < c_.rm; ++rm) {
    for (int rn = 0; rn < c_.rn; ++rn) {
      bind_point(rm, rn);
      line(1, fmt::format("{} {} = ({})0;", type, acc_name(rm, rn), type));
      line(1, fmt::format("if ({}) {} = {};", point_valid(rm, rn), acc_name(rm, rn),
                          p_.expr(*form_.declare->value)));
    }
  }
}

// The reduction loops outside k stay serial loops (every thread runs the same trips). The
// uniform guards among them do not become `if`s around the barriers, which some OpenCL
// implementations (PoCL's cpu driver) mishandle even when uniform: they set the chunk loop's
// trip count to zero instead, and the barriers stay in loops of uniform trip counts.
void TiledEmitter::reduction() {
  int indent = 1;
  size_t opened = 0;
  std::vector<std::string> uniform_conds;
  for (size_t i = 0; i < form_.k_pos; ++i) {
    const Stmt& s = *form_.path[i];
    if (s.kind == StmtKind::kFor) {
      std::string name = fmt::format("r{}", i);
      line(indent, fmt::format("for ({0} {1} = {2}; {1} < {3}; {1} += {4}) {{", ix_, name,
                               s.lo->int_value, s.hi->int_value, s.step));
      bind(s.var, name);
      ++indent;
      ++opened;
    } else if (plan_.uniform_ifs.count(i)) {
      uniform_conds.push_back("(" + p_.expr(*s.cond) + ")");
    }
  }
  std::string trips = std::to_string(loop::trip_count(form_.k_loop()));
  if (!uniform_conds.empty()) {
    trips = fmt::format("(({}) ? {} : 0)", fmt::join(uniform_conds, " && "), trips);
  }
  chunk_loop(indent, trips);
  for (size_t i = 0; i < opened; ++i) line(--indent, "}");
}

void TiledEmitter::chunk_loop(int indent, const std::string& trips) {
  line(indent, fmt::format("for ({0} k0 = 0; k0 < {1}; k0 += {2}) {{", ix_, trips, c_.bk));
  for (const StagedTile& t : plan_.tiles) stage(t, indent + 1);
  line(indent + 1, "barrier(CLK_LOCAL_MEM_FENCE);");
  compute(indent + 1);
  line(indent + 1, "barrier(CLK_LOCAL_MEM_FENCE);");
  line(indent, "}");
}

// All threads fill the tile; elements outside the extents, or where the guards that protect
// this access fail, get 0 (their value is never used: the point's guards are evaluated again
// at compute time).
void TiledEmitter::stage(const StagedTile& t, int indent) {
  const bool sided = t.load.side != LoadSide::kK;
  const int64_t width = t.load.side == LoadSide::kM ? c_.bm() : c_.bn();
  const int64_t elements = sided ? c_.bk * width : c_.bk;
  const std::string type = ClPrinter::value_type(t.load.load->dtype);
  line(indent, fmt::format("for (int e = tid; e < {}; e += {}) {{", elements, c_.tx * c_.ty));
  std::string side_pos = "0";
  if (!sided) {
    line(indent + 1, "const int kk = e;");
  } else if (t.k_fastest) {
    line(indent + 1, fmt::format("const int kk = e % {0}, s = e / {0};", c_.bk));
  } else {
    line(indent + 1, fmt::format("const int kk = e / {0}, s = e % {0};", width));
  }
  std::string in_range = fmt::format("k0 + kk < {}", loop::trip_count(form_.k_loop()));
  const Stmt* side_loop = nullptr;
  // m_loop() exists only when the band has two loops: ask it only for an m-side tile.
  bool side_is_m = sided && t.load.side == LoadSide::kM;
  if (sided) {
    side_loop = side_is_m ? &form_.m_loop() : &form_.n_loop();
    in_range += fmt::format(" && {} + s < {}", side_is_m ? "m0" : "n0", loop::trip_count(*side_loop));
  }
  line(indent + 1, fmt::format("{} v = ({})0;", type, type));
  line(indent + 1, fmt::format("if ({}) {{", in_range));
  line(indent + 2, fmt::format("const {} sk = {};", ix_, value_of(form_.k_loop(), "k0 + kk")));
  bind(form_.k_loop().var, "sk");
  if (side_loop) {
    std::string base = side_is_m ? "m0 + s" : "n0 + s";
    line(indent + 2, fmt::format("const {} ss = {};", ix_, value_of(*side_loop, base)));
    bind(side_loop->var, "ss");
  }
  std::string safe = "1";
  for (const auto& g : t.safety) safe += " && (" + p_.expr(*g) + ")";
  line(indent + 2, fmt::format("if ({}) v = {};", safe, p_.expr(*t.load.load)));
  line(indent + 1, "}");
  line(indent + 1, sided ? fmt::format("{}[kk][s] = v;", t.name) : t.name + "[kk] = v;");
  line(indent, "}");
}

std::string TiledEmitter::tile_read(const StagedTile& t, int r) const {
  switch (t.load.side) {
    case LoadSide::kM: return fmt::format("{}[kk][ty + {}]", t.name, r * c_.ty);
    case LoadSide::kN: return fmt::format("{}[kk][tx + {}]", t.name, r * c_.tx);
    default: return t.name + "[kk]";
  }
}

// The staged operands of one k step in registers, read from the tiles once: RM values of each
// m-side tile, RN of each n-side tile, one of a k-only tile. The RM x RN points then use them.
void TiledEmitter::operand_registers(int indent) {
  for (size_t i = 0; i < plan_.tiles.size(); ++i) {
    const StagedTile& t = plan_.tiles[i];
    const std::string type = ClPrinter::value_type(t.load.load->dtype);
    for (int r = 0; r < gpu::operand_register_count(t, c_); ++r) {
      line(indent, fmt::format("const {} {} = {};", type, operand_name(i, r), tile_read(t, r)));
    }
  }
}

// Every point of the register block, in the reference's order along k; the guards of the path
// (other than the uniform ones) are evaluated here, at each point, unless the plan has none
// (TiledPlan::unguarded_points).
void TiledEmitter::compute(int indent) {
  const int64_t k_extent = loop::trip_count(form_.k_loop());
  if (k_extent % c_.bk == 0) {
    // Whole chunks only: a constant trip count the OpenCL compiler can unroll.
    line(indent, fmt::format("for (int kk = 0; kk < {}; ++kk) {{", c_.bk));
  } else {
    line(indent, fmt::format("const int kn = (int)min(({0}){1}, ({0}){2} - k0);", ix_, c_.bk,
                             k_extent));
    line(indent, "for (int kk = 0; kk < kn; ++kk) {");
  }
  line(indent + 1, fmt::format("const {} pk = {};", ix_, value_of(form_.k_loop(), "k0 + kk")));
  bind(form_.k_loop().var, "pk");
  operand_registers(indent + 1);
  int cur_rm = 0, cur_rn = 0;
  p_.set_load_hook([&](const loop::Expr& load) -> std::optional<std::string> {
    std::string key = loop::to_string(load);
    for (size_t i = 0; i < plan_.tiles.size(); ++i) {
      const StagedTile& t = plan_.tiles[i];
      if (t.load.key == key) return operand_name(i, gpu::operand_register_index(t, cur_rm, cur_rn));
    }
    return std::nullopt;
  });
  for (int rm = 0; rm < c_.rm; ++rm) {
    for (int rn = 0; rn < c_.rn; ++rn) {
      cur_rm = rm;
      cur_rn = rn;
      bind_point(rm, rn);
      if (plan_.unguarded_points) {
        p_.stmt(*form_.assign, indent + 1, out_);
        continue;
      }
      std::string cond = point_valid(rm, rn);
      for (const auto& g : plan_.point_guards) cond += " && (" + p_.expr(*g) + ")";
      line(indent + 1, fmt::format("if ({}) {{", cond));
      p_.stmt(*form_.assign, indent + 2, out_);
      line(indent + 1, "}");
    }
  }
  p_.set_load_hook(nullptr);
  line(indent, "}");
}

void TiledEmitter::epilogue() {
  for (int rm = 0; rm < c_.rm; ++rm) {
    for (int rn = 0; rn < c_.rn; ++rn) {
      bind_point(rm, rn);
      line(1, fmt::format("if ({}) {{", point_valid(rm, rn)));
      for (const Stmt* s : form_.epilogue) p_.stmt(*s, 2, out_);
      line(1, "}");
    }
  }
}

LaunchDims TiledEmitter::emit(std::string& out) {
  header();
  points();
  tile_declarations();
  accumulators();
  reduction();
  epilogue();
  unbind_all();
  out_ += "}\n\n";
  out += out_;
  return gpu::tiled_launch(plan_, c_);
}

}  // namespace

LaunchDims emit_tiled_kernel(const loop::Kernel& kernel, const gpu::TiledSchedule& schedule,
                             ClPrinter& printer, std::string& out) {
  TiledEmitter emitter(kernel, schedule.plan, schedule.tiles, printer);
  return emitter.emit(out);
}

}  // namespace plaidml::jit::opencl
