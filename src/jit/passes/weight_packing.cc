#include "jit/passes/weight_packing.h"

#include <set>

#include "jit/lower/panel_packing.h"

namespace plaidml::jit::passes {
namespace {

using loop::Expr;
using loop::ExprKind;
using loop::ExprPtr;
using loop::Stmt;

void collect_loads(const ExprPtr& e, std::vector<ExprPtr>& out) {
  if (e->kind == ExprKind::kLoad) out.push_back(e);
  for (const auto& a : e->args) collect_loads(a, out);
}

// The row of an index cols * rho + j, or nullopt when the index is not of that form (only the
// reduction loops' variables may appear beside j, each with a multiple of cols).
std::optional<loop::AffineIndex> row_of(const Expr& index, const std::string& j, int64_t cols,
                                        const std::set<std::string>& reduction_vars) {
  auto a = loop::affine_of(index);
  if (!a || a->coeff(j) != 1 || a->constant < 0 || a->constant % cols != 0) return std::nullopt;
  loop::AffineIndex rho;
  rho.constant = a->constant / cols;
  for (const auto& [v, c] : a->coeffs) {
    if (v == j) continue;
    if (!reduction_vars.count(v) || c % cols != 0) return std::nullopt;
    rho.coeffs[v] = c / cols;
  }
  return rho;
}

}  // namespace

std::optional<PackableLoad> find_packable_load(const Match& m, int64_t width,
                                               const std::vector<BufferSlot>& slots) {
  if (m.j_lo != 0 || width <= 0) return std::nullopt;
  std::set<std::string> reduction_vars;
  for (const Stmt* s : m.chain) {
    if (s->kind == loop::StmtKind::kFor) reduction_vars.insert(s->var);
  }
  std::vector<ExprPtr> loads;
  collect_loads(m.value, loads);
  for (const ExprPtr& l : loads) {
    if (l->slot < 0 || static_cast<size_t>(l->slot) >= slots.size()) continue;
    const BufferSlot& slot = slots[static_cast<size_t>(l->slot)];
    if (slot.role != BufferSlot::Role::kConstant || slot.packing.packed()) continue;
    if (slot.shape.dtype != m.dtype || slot.shape.dims.empty()) continue;
    int64_t cols = slot.shape.dims.back();
    if (cols < m.j_hi) continue;
    auto rho = row_of(*l->args[0], m.j, cols, reduction_vars);
    if (!rho) continue;
    return PackableLoad{l, l->slot, slot.shape.elements() / cols, cols, *rho};
  }
  return std::nullopt;
}

int packed_slot(const PackableLoad& load, int64_t width, std::vector<BufferSlot>& slots) {
  const BufferSlot& source = slots[static_cast<size_t>(load.source_slot)];
  BufferSlot packed;
  packed.role = BufferSlot::Role::kConstant;
  packed.index = source.index;
  packed.packing = PanelPacking{load.rows, load.cols, width, source.shape};
  packed.shape = Shape(source.shape.dtype, {packed_elements(packed.packing)});
  for (size_t s = 0; s < slots.size(); ++s) {
    const BufferSlot& o = slots[s];
    if (o.role == packed.role && o.index == packed.index && o.packing == packed.packing) {
      return static_cast<int>(s);
    }
  }
  slots.push_back(std::move(packed));
  return static_cast<int>(slots.size() - 1);
}

ExprPtr packed_index(const PackableLoad& load, int64_t width, ExprPtr tile_start,
                     int64_t offset) {
  // Panel p = tile_start / width starts at p * rows * width = tile_start * rows.
  ExprPtr index = loop::idx_mul(std::move(tile_start), load.rows);
  index = loop::idx_add(index, loop::int_const(load.rho.constant * width + offset));
  for (const auto& [v, c] : load.rho.coeffs) {
    index = loop::idx_add(index, loop::idx_mul(loop::var(v), c * width));
  }
  return index;
}

}  // namespace plaidml::jit::passes
