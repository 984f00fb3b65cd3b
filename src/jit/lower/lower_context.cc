#include "jit/lower/lower_context.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "jit/loop/rewrite.h"

namespace plaidml::jit {

using loop::ExprPtr;
using loop::StmtPtr;

namespace {

DType widest_of_domain(DType t) {
  if (t == DType::Bool) return t;
  if (dtype_is_float(t)) return DType::F64;
  return dtype_is_signed(t) ? DType::I64 : DType::U64;
}

std::string symbol_safe(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

}  // namespace

LowerContext::LowerContext(const ir::BoundProgram& bound, const LowerOptions& options)
    : bound_(bound), options_(options), node_slot_(bound.nodes.size(), -1) {}

DType LowerContext::value_dtype(ir::ValueId v) const {
  const ir::BoundNode& b = bnode(v);
  return b.weak ? widest_of_domain(b.shape.dtype) : b.shape.dtype;
}

int LowerContext::add_slot(BufferSlot::Role role, int index, Shape shape) {
  out_.slots.push_back(BufferSlot{role, index, std::move(shape)});
  return static_cast<int>(out_.slots.size()) - 1;
}

ExprPtr LowerContext::literal(ir::ValueId v, DType dtype) const {
  const ir::Node& n = node(v);
  ExprPtr value = n.literal_is_float ? loop::float_const(n.literal_float, DType::F64)
                                     : loop::int_const(ir::bound_literal_int(bound_, v), DType::I64);
  return loop::cast(dtype, value);
}

ExprPtr LowerContext::value_at(ir::ValueId v, ExprPtr index, DType dtype) const {
  if (node(v).kind == ir::NodeKind::kLiteral) return literal(v, dtype);
  int slot = node_slot_[v];
  return loop::cast(dtype, loop::load(slot, slot_dtype(slot), std::move(index)));
}

ExprPtr LowerContext::broadcast_index(const std::vector<int64_t>& from,
                                      const std::vector<int64_t>& to,
                                      const std::vector<ExprPtr>& coords) {
  std::vector<int64_t> strides(from.size(), 1);
  for (size_t k = from.size(); k-- > 1;) strides[k - 1] = strides[k] * from[k];
  ExprPtr index = loop::int_const(0);
  size_t offset = to.size() - from.size();
  for (size_t k = 0; k < from.size(); ++k) {
    if (from[k] != 1) index = loop::idx_add(index, loop::idx_mul(coords[k + offset], strides[k]));
  }
  return index;
}

ExprPtr LowerContext::linear_index(const std::vector<int64_t>& dims,
                                   const std::vector<ExprPtr>& coords) {
  return broadcast_index(dims, dims, coords);
}

StmtPtr LowerContext::nest(
    const std::vector<int64_t>& dims, const std::string& prefix,
    const std::function<std::vector<StmtPtr>(const std::vector<ExprPtr>&)>& body) const {
  std::vector<ExprPtr> coords;
  std::vector<size_t> looped;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) {
      coords.push_back(loop::int_const(0));
    } else {
      coords.push_back(loop::var(fmt::format("{}{}", prefix, d)));
      looped.push_back(d);
    }
  }
  std::vector<StmtPtr> stmts = body(coords);
  for (size_t k = looped.size(); k-- > 0;) {
    size_t d = looped[k];
    stmts = {loop::independent_loop(coords[d]->name, 0, dims[d], std::move(stmts), k == 0)};
  }
  return loop::block(std::move(stmts));
}

void LowerContext::add_kernel(ir::ValueId v, const std::string& suffix, StmtPtr body,
                              double work) {
  add_kernel(node(v).name + suffix, std::move(body), work);
  out_.kernels.back().origins = origins_of(v);
}

// The origins of the nodes a kernel emitted at v computes: v, its contraction and epilogue
// when v ends a fused chain, and the elementwise nodes inlined into any of those.
std::vector<std::string> LowerContext::origins_of(ir::ValueId v) const {
  std::vector<ir::ValueId> work = {v};
  if (fusion_.host[v] >= 0) {
    ir::ValueId c = fusion_.host[v];
    work = fusion_.epilogue.at(c);
    work.push_back(c);
  }
  std::set<ir::ValueId> seen(work.begin(), work.end());
  std::vector<std::string> origins;
  while (!work.empty()) {
    ir::ValueId n = work.back();
    work.pop_back();
    const std::string& origin = node(n).origin;
    if (!origin.empty() && std::find(origins.begin(), origins.end(), origin) == origins.end()) {
      origins.push_back(origin);
    }
    for (ir::ValueId u : node(n).operands) {
      if (fusion_.inlined[u] && seen.insert(u).second) work.push_back(u);
    }
  }
  return origins;
}

void LowerContext::add_kernel(const std::string& base, StmtPtr body, double work) {
  loop::Kernel kernel;
  kernel.name = fmt::format("k{}_{}", out_.kernels.size(), symbol_safe(base));
  std::set<int> reads, writes;
  loop::collect_slots(*body, reads, writes);
  kernel.reads.assign(reads.begin(), reads.end());
  kernel.writes.assign(writes.begin(), writes.end());
  kernel.body = std::move(body);
  kernel.work = std::max(1.0, work);
  out_.kernels.push_back(std::move(kernel));
}

}  // namespace plaidml::jit
