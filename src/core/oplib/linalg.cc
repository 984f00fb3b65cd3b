// matmul (numpy.matmul), dot (numpy.dot), batch_matmul and gemm (ONNX Gemm): one contraction each.
// Sizes that must agree but are different symbols (the usual case: every input names its own
// dims) are checked when the program is bound, through assertions (OpCall::require): Tile skips
// out-of-range accesses, so an unchecked mismatch would give a wrong answer instead of an error.
#include <algorithm>

#include "core/ir/assertion.h"
#include "core/ir/printer.h"
#include "core/oplib/conv_geometry.h"

namespace plaidml::oplib {
namespace {

using ir::AggOp;
using ir::CombOp;

SymbolicDims slice(const SymbolicDims& d, size_t from, size_t to) {
  return SymbolicDims(d.begin() + from, d.begin() + to);
}

// The index that reads a batch axis of size `size` for output index `i` of size `out`: `i` when
// the sizes are the same, 0 when the axis has size 1, else i * min(size - 1, 1), a bind-time
// constant that makes a size-1 axis read index 0.
IntExprPtr batch_index(const IntExprPtr& i, const IntExprPtr& size, const IntExprPtr& out) {
  if (se::same(*size, *out)) return i;
  auto v = se::literal_value(*size);
  if (v && *v == 1) return se::lit(0);
  return se::mul(i, se::min(se::sub(size, se::lit(1)), se::lit(1)));
}

struct MatmulDims {
  SymbolicDims batch;       // broadcast batch dims of the result
  IntExprPtr m, ka, kb, n;  // m / n null when the operand is 1-D
};

Status check_k(OpCall& call, const IntExprPtr& ka, const IntExprPtr& kb, const SymbolicDims& da,
               const SymbolicDims& db) {
  std::vector<IntExprPtr> args{ka, kb};
  std::string a = dims_placeholder(da, &args);
  std::string b = dims_placeholder(db, &args);
  return call.require(ir::AssertOp::kEq, ka, kb,
                      fmt::format("the summed dimensions differ: 'a' {} has {{0}}, 'b' {} has {{1}}",
                                  a, b),
                      std::move(args));
}

// The indices and sizes of a matmul-like contraction, built axis by axis.
struct Indexing {
  std::vector<IntExprPtr> out, sizes, a, b;
};

// The broadcast batch axes of numpy.matmul: na of a's and nb of b's leading axes, right-aligned.
Status batch_axes(OpCall& call, const SymbolicDims& da, const SymbolicDims& db, size_t na,
                  size_t nb, Indexing* x) {
  size_t nout = std::max(na, nb);
  for (size_t j = 0; j < nout; ++j) {
    IntExprPtr i = call.index();
    IntExprPtr sa = j >= nout - na ? da[j - (nout - na)] : nullptr;
    IntExprPtr sb = j >= nout - nb ? db[j - (nout - nb)] : nullptr;
    if (sa && sb) {
      std::vector<IntExprPtr> args;
      std::string a = dims_placeholder(slice(da, 0, na), &args);
      std::string b = dims_placeholder(slice(db, 0, nb), &args);
      PLAIDML_TRY(call.require(
          ir::AssertOp::kBroadcast, sa, sb,
          fmt::format("batch dimensions of 'a' {} and 'b' {} do not broadcast", a, b), args));
    }
    IntExprPtr size = sa && sb ? se::broadcast(sa, sb) : (sa ? sa : sb);
    x->out.push_back(i);
    x->sizes.push_back(size);
    if (sa) x->a.push_back(batch_index(i, sa, size));
    if (sb) x->b.push_back(batch_index(i, sb, size));
  }
  return Status::ok();
}

// numpy.matmul of operands with dims da, db (both rank >= 1): a 1-D operand has no M (or N)
// axis in the contraction, which is numpy's promotion followed by removal of the added axis.
Expected<ValueId> matmul_of(OpCall& call, const SymbolicDims& da, const SymbolicDims& db) {
  size_t ra = da.size(), rb = db.size();
  Indexing x;
  PLAIDML_TRY(batch_axes(call, da, db, ra >= 2 ? ra - 2 : 0, rb >= 2 ? rb - 2 : 0, &x));
  PLAIDML_TRY(check_k(call, da[ra - 1], db[rb >= 2 ? rb - 2 : 0], da, db));
  IntExprPtr k = call.index();
  if (ra >= 2) {
    IntExprPtr m = call.index();
    x.out.push_back(m);
    x.sizes.push_back(da[ra - 2]);
    x.a.push_back(m);
  }
  x.a.push_back(k);
  x.b.push_back(k);
  if (rb >= 2) {
    IntExprPtr n = call.index();
    x.out.push_back(n);
    x.sizes.push_back(db[rb - 1]);
    x.b.push_back(n);
  }
  ValueId r = call.contract(AggOp::kSum, CombOp::kMul, x.out, x.sizes,
                            {Access{call.operand(0), x.a}, Access{call.operand(1), x.b}});
  return call.finish(r);
}

Status check_not_scalar(OpCall& call, size_t k, const SymbolicDims& d, size_t min_rank) {
  if (d.size() >= min_rank) return Status::ok();
  return call.error(StatusCode::kTypeError,
                    "argument '{}' must have rank {} or more, but it has rank {}",
                    call.operand_name(k), min_rank, d.size());
}

Expected<ValueId> matmul(OpCall& call) {
  PLAIDML_ASSIGN(SymbolicDims da, call.dims(0));
  PLAIDML_ASSIGN(SymbolicDims db, call.dims(1));
  PLAIDML_TRY(check_not_scalar(call, 0, da, 1));
  PLAIDML_TRY(check_not_scalar(call, 1, db, 1));
  return matmul_of(call, da, db);
}

Expected<ValueId> batch_matmul(OpCall& call) {
  PLAIDML_ASSIGN(SymbolicDims da, call.dims(0));
  PLAIDML_ASSIGN(SymbolicDims db, call.dims(1));
  PLAIDML_TRY(check_not_scalar(call, 0, da, 3));
  PLAIDML_TRY(check_not_scalar(call, 1, db, 3));
  return matmul_of(call, da, db);
}

// numpy.dot: a scalar operand multiplies; else sum a's last axis with b's second-to-last (its
// only axis when b is 1-D); the result has a's other axes, then b's.
Expected<ValueId> dot(OpCall& call) {
  PLAIDML_ASSIGN(SymbolicDims da, call.dims(0));
  PLAIDML_ASSIGN(SymbolicDims db, call.dims(1));
  if (da.empty() || db.empty()) return call.finish(call.mul(call.operand(0), call.operand(1)));
  size_t ra = da.size(), rb = db.size(), kb_axis = rb >= 2 ? rb - 2 : 0;
  PLAIDML_TRY(check_k(call, da[ra - 1], db[kb_axis], da, db));
  IntExprPtr k = call.index();
  std::vector<IntExprPtr> out_idx, out_sizes, a_idx, b_idx;
  for (size_t j = 0; j + 1 < ra; ++j) {
    a_idx.push_back(call.index());
    out_idx.push_back(a_idx.back());
    out_sizes.push_back(da[j]);
  }
  a_idx.push_back(k);
  for (size_t j = 0; j < rb; ++j) {
    if (j == kb_axis) {
      b_idx.push_back(k);
      continue;
    }
    b_idx.push_back(call.index());
    out_idx.push_back(b_idx.back());
    out_sizes.push_back(db[j]);
  }
  ValueId r = call.contract(AggOp::kSum, CombOp::kMul, out_idx, out_sizes,
                            {Access{call.operand(0), a_idx}, Access{call.operand(1), b_idx}});
  return call.finish(r);
}

// beta * C: the start of Gemm's contraction. C must broadcast to [M, N] one way; the
// contraction's default check enforces that at bind, this catches literal mismatches now.
Expected<std::optional<ValueId>> gemm_init(OpCall& call, const IntExprPtr& m, const IntExprPtr& n,
                                           double beta) {
  if (!call.has_operand(2)) return std::optional<ValueId>();
  PLAIDML_ASSIGN(SymbolicDims dc, call.dims(2));
  SymbolicDims mn{m, n};
  bool ok = dc.size() <= 2;
  for (size_t j = 0; ok && j < dc.size(); ++j) {
    auto lc = se::literal_value(*dc[j]);
    ok = (lc && *lc == 1) ||
         ir::assertion_known(ir::AssertOp::kEq, *dc[j], *mn[2 - dc.size() + j]) != false;
  }
  if (!ok) {
    return call.error(StatusCode::kTypeError, "argument 'c' {} does not broadcast to [M, N] = {}",
                      dims_string(dc), dims_string(mn));
  }
  ValueId c = beta == 1.0 ? call.operand(2) : call.mul(call.operand(2), call.literal(beta));
  return std::optional<ValueId>(c);
}

// ONNX Gemm. The result starts as beta * C (the contraction's default, whose bind-time check is
// exactly Gemm's unidirectional broadcast of C to [M, N]); alpha scales A.
Expected<ValueId> gemm(OpCall& call) {
  PLAIDML_ASSIGN(SymbolicDims da, call.dims_of_rank(0, 2));
  PLAIDML_ASSIGN(SymbolicDims db, call.dims_of_rank(1, 2));
  PLAIDML_ASSIGN(double alpha, call.get_float("alpha", 1.0));
  PLAIDML_ASSIGN(double beta, call.get_float("beta", 1.0));
  PLAIDML_ASSIGN(bool ta, call.get_bool("trans_a", false));
  PLAIDML_ASSIGN(bool tb, call.get_bool("trans_b", false));
  IntExprPtr m = da[ta ? 1 : 0], ka = da[ta ? 0 : 1], kb = db[tb ? 1 : 0], n = db[tb ? 0 : 1];
  std::vector<IntExprPtr> args{ka, kb};
  std::string a_dims = dims_placeholder(da, &args);
  std::string b_dims = dims_placeholder(db, &args);
  PLAIDML_TRY(call.require(ir::AssertOp::kEq, ka, kb,
                           fmt::format("the summed dimensions differ: op(A) {} has {{0}} columns, "
                                       "op(B) {} has {{1}} rows",
                                       a_dims, b_dims),
                           std::move(args)));
  PLAIDML_ASSIGN(std::optional<ValueId> init, gemm_init(call, m, n, beta));
  ValueId a = alpha == 1.0 ? call.operand(0) : call.mul(call.operand(0), call.literal(alpha));
  IntExprPtr i = call.index(), j = call.index(), k = call.index();
  std::vector<IntExprPtr> ai = ta ? std::vector{k, i} : std::vector{i, k};
  std::vector<IntExprPtr> bi = tb ? std::vector{j, k} : std::vector{k, j};
  ValueId r = call.contract(AggOp::kSum, CombOp::kMul, {i, j}, {m, n},
                            {Access{a, ai}, Access{call.operand(1), bi}}, {}, init);
  return call.finish(r);
}

}  // namespace

std::vector<OpDef> linalg_ops() {
  return {
      {"matmul", {"a", "b"}, 2, matmul},
      {"batch_matmul", {"a", "b"}, 2, batch_matmul},
      {"dot", {"a", "b"}, 2, dot},
      {"gemm", {"a", "b", "c"}, 2, gemm},
  };
}

}  // namespace plaidml::oplib
