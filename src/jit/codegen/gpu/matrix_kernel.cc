// schedule_matrix (matrix_kernel.h): the qualifying test, the layout and the kernel as loop IR.
#include "jit/codegen/gpu/matrix_kernel.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "jit/codegen/gpu/kernel_builders.h"
#include "jit/codegen/gpu/tiled_layout.h"
#include "jit/loop/printer.h"
#include "jit/loop/rewrite.h"

namespace plaidml::jit::gpu {

using loop::Expr;
using loop::ExprKind;
using loop::ExprPtr;
using loop::MatrixOp;
using loop::Stmt;
using loop::StmtPtr;

namespace {

using namespace build;  // NOLINT: the short builders are this file's vocabulary

const char* const kBlock = "@frags";  // the subgroup's accumulator block
const char* const kChunk = "@k0";
const char* const kPoint = "@e";     // a work-item's point within a fragment
const char* const kAcc = "@acc";     // one point's sum, in the epilogue
constexpr int64_t kPad = 8;          // elements of padding per staged row (16 bytes of f16)

// `e` without casts to f16 or f32 (they keep an f16 value as it is).
const Expr& strip_casts(const Expr& e) {
  const bool keeps = e.dtype == DType::F16 || e.dtype == DType::F32;
  return e.kind == ExprKind::kCast && keeps ? strip_casts(*e.args[0]) : e;
}

bool is_zero(const Expr& e) {
  return e.kind == ExprKind::kConst && e.int_value == 0 && e.float_value == 0;
}

// acc = acc + (a * b) with a and b the two staged loads (any casts between): the sum of
// products a cooperative matrix computes.
bool sums_products(const RegisterForm& form, const TiledPlan& plan) {
  const Expr& value = *form.assign->value;
  if (value.kind != ExprKind::kOp || value.op != ir::OpKind::Add || value.args.size() != 2) {
    return false;
  }
  const Expr& acc = *value.args[0];
  if (acc.kind != ExprKind::kVar || acc.name != form.declare->var) return false;
  const Expr& product = strip_casts(*value.args[1]);
  if (product.kind != ExprKind::kOp || product.op != ir::OpKind::Mul ||
      (product.dtype != DType::F16 && product.dtype != DType::F32)) {
    return false;
  }
  const std::string x = loop::to_string(strip_casts(*product.args[0]));
  const std::string y = loop::to_string(strip_casts(*product.args[1]));
  const std::string& a = plan.tiles[0].load.key;
  const std::string& b = plan.tiles[1].load.key;
  return (x == a && y == b) || (x == b && y == a);
}

// The plan, with tiles[0] the m side and tiles[1] the n side, when the kernel qualifies.
std::optional<TiledPlan> matrix_plan(const loop::Kernel& kernel, DType* input) {
  std::optional<RegisterForm> form = match_register_form(kernel);
  if (!form || !form->has_m() || form->path.size() != 1) return std::nullopt;
  std::optional<TiledPlan> plan = plan_tiled(*form);
  if (!plan || plan->tiles.size() != 2 || !plan->point_guards.empty() ||
      !plan->uniform_ifs.empty()) {
    return std::nullopt;
  }
  if (plan->tiles[0].load.side == LoadSide::kN) std::swap(plan->tiles[0], plan->tiles[1]);
  const StagedTile& a = plan->tiles[0];
  const StagedTile& b = plan->tiles[1];
  if (a.load.side != LoadSide::kM || b.load.side != LoadSide::kN) return std::nullopt;
  *input = a.load.load->dtype;
  if ((*input != DType::F16 && *input != DType::BF16) || b.load.load->dtype != *input) {
    return std::nullopt;
  }
  if (plan->form.declare->value->dtype != DType::F32 || !is_zero(*plan->form.declare->value) ||
      !sums_products(plan->form, *plan)) {
    return std::nullopt;
  }
  return plan;
}

// 16 x 16 x 16 where the device has it, else its first subgroup shape of the input dtype.
std::optional<MatrixShape> pick_shape(const GpuTarget& target, DType input) {
  std::optional<MatrixShape> out;
  for (const MatrixShape& s : target.matrix_shapes) {
    if (s.input != input || s.workgroup > 0 || s.m % 8 != 0 || s.n % 8 != 0 || s.k % 8 != 0) {
      continue;
    }
    if (!out || (s.m == 16 && s.n == 16 && s.k == 16)) out = s;
  }
  return out;
}

int64_t tiles_along(int64_t extent, int64_t block) { return (extent + block - 1) / block; }

// 2 x 4 subgroups of 4 x 4 fragments (128 x 256 with 16 x 16 fragments: on the H200 the
// fastest of 13 layouts tried at 2048 and 4096, bench/RESULTS.md), 4 x 2 where N is at most
// 128, and half the fragments along m when the tiles would leave more than half the compute
// units idle (at 2048, 128 tiles on the H200's 132 units ran 1.85x faster than 256 half tiles).
std::optional<MatrixTiles> pick_tiles(const TileProblem& p, const GpuTarget& target,
                                      MatrixShape frag) {
  MatrixTiles t;
  t.frag = frag;
  t.bk = 2 * frag.k;
  if (p.n <= 128) t.fn = 2;  // a 256-wide tile would be mostly past N
  if (2 * tiles_along(p.m, t.bm()) * tiles_along(p.n, t.bn()) * p.uniform <= target.compute_units) {
    t.fm = 2;
  }
  if (int64_t{t.subgroups()} * target.subgroup_size > target.max_workgroup_size) {
    return std::nullopt;
  }
  const int64_t bytes = 2 * (t.bm() * (t.bk + kPad) + t.bk * (t.bn() + kPad)) +
                        4 * int64_t{t.subgroups()} * frag.m * frag.n;
  if (bytes > target.local_memory_bytes) return std::nullopt;
  // One fragment's points split evenly over a subgroup's work-items, a chunk's elements over
  // the workgroup's.
  const int64_t threads = int64_t{t.subgroups()} * target.subgroup_size;
  if ((frag.m * frag.n) % target.subgroup_size != 0 || (t.bm() * t.bk) % threads != 0 ||
      (t.bk * t.bn()) % threads != 0) {
    return std::nullopt;
  }
  return t;
}

// Workgroup-scope tiles (VK_NV_cooperative_matrix2) where the device has a shape of `input`
// for a workgroup it can launch: one fragment of the largest of 128 x 256, 128 x 128, 64 x 128
// and 64 x 64 that divides the extents and leaves at most half the compute units idle (else
// the smallest that divides them), k in chunks of two 64-deep steps where K allows, else one
// of 64, else one of 32. On the H200, 128 x 256 tiles ran f16 matmul 4096 in 0.45-0.50 ms
// with two 64-deep steps a chunk, 0.48 with one, 0.47-0.50 with four chunks of one unrolled,
// 0.51 with four steps and 0.74 with two 32-deep ones (bench/RESULTS.md).
std::optional<MatrixTiles> workgroup_tiles(const TileProblem& p, const GpuTarget& target,
                                           DType input) {
  // The largest workgroup (NVIDIA lists 32 to 256 invocations; one subgroup's worth cannot
  // hold a 128 x 256 block of accumulators).
  std::optional<MatrixShape> granularity;
  for (const MatrixShape& s : target.matrix_shapes) {
    if (s.input == input && s.workgroup > 0 && s.workgroup <= target.max_workgroup_size &&
        s.workgroup % target.subgroup_size == 0 &&
        (!granularity || s.workgroup > granularity->workgroup)) {
      granularity = s;
    }
  }
  if (!granularity) return std::nullopt;
  const int bk = p.k % 128 == 0 ? 128 : p.k % 64 == 0 ? 64 : 32;
  const int step = std::min(bk, 64);
  std::optional<MatrixTiles> out;
  for (auto [bm, bn] : {std::pair{128, 256}, {128, 128}, {64, 128}, {64, 64}}) {
    if (bm % granularity->m != 0 || bn % granularity->n != 0 || step % granularity->k != 0 ||
        p.m % bm != 0 || p.n % bn != 0 || p.k % bk != 0) {
      continue;
    }
    MatrixTiles t;
    t.frag = {input, bm, bn, step, granularity->workgroup};
    t.sm = t.sn = t.fm = t.fn = 1;
    t.bk = bk;
    out = t;
    if (2 * (p.m / bm) * (p.n / bn) * p.uniform >= target.compute_units) break;
  }
  return out;
}

// The position stride of a group of loops (outermost first) in an affine index, when the group
// walks it as one flat dimension (each loop's stride the next inner one's times its trips);
// nullopt otherwise.
std::optional<int64_t> group_stride(const loop::AffineIndex& index,
                                    const std::vector<const Stmt*>& loops) {
  int64_t stride = 0, expected = 0;
  for (size_t i = loops.size(); i-- > 0;) {
    const int64_t s = index.coeff(loops[i]->var) * loops[i]->step;
    if (i + 1 == loops.size()) {
      stride = expected = s;
    } else {
      expected *= loop::trip_count(*loops[i + 1]);
      if (s != expected) return std::nullopt;
    }
  }
  return stride;
}

// `index` (an element index of `slot`) as a matrix operand, when it is affine in the `rows`
// and `cols` loop groups and the uniform band variables, with unit stride along one of them and
// every row or column and the base 16-byte aligned (8 f16 elements), as cooperative-matrix loads
// and stores want; the rows, columns and limits are the caller's.
std::optional<loop::MatrixOperand> affine_matrix(const RegisterForm& form, int slot,
                                                 const ExprPtr& index_expr,
                                                 const std::vector<const Stmt*>& rows,
                                                 const std::vector<const Stmt*>& cols,
                                                 const Bindings& uniform) {
  std::optional<loop::AffineIndex> index = loop::affine_of(*index_expr);
  if (!index) return std::nullopt;
  std::map<std::string, const Stmt*> known;
  for (const auto* group : {&rows, &cols}) {
    for (const Stmt* l : *group) known[l->var] = l;
  }
  for (size_t i = 0; i < form.uniform_band_count(); ++i) known[form.band[i]->var] = form.band[i];
  int64_t constant = index->constant;
  Bindings at_origin = uniform;
  for (const auto& [var, coeff] : index->coeffs) {
    auto it = known.find(var);
    if (coeff != 0 && it == known.end()) return std::nullopt;
    if (it == known.end()) continue;
    constant += coeff * it->second->lo->int_value;
    if (!uniform.count(var)) at_origin[var] = c(it->second->lo->int_value);
    if (uniform.count(var) && (coeff * it->second->step) % 8 != 0) return std::nullopt;
  }
  std::optional<int64_t> rs = group_stride(*index, rows), cs = group_stride(*index, cols);
  if (!rs || !cs || constant % 8 != 0) return std::nullopt;
  if (!((*cs == 1 && *rs > 0 && *rs % 8 == 0) || (*rs == 1 && *cs > 0 && *cs % 8 == 0))) {
    return std::nullopt;
  }
  loop::MatrixOperand o;
  o.slot = slot;
  o.base = loop::substitute(index_expr, at_origin);
  o.row_stride = *rs;
  o.col_stride = *cs;
  return o;
}

// Tile `tile`'s load (0: A, its rows the m group and its columns k; 1: B, rows k and columns n)
// as an operand read straight from its buffer (affine_matrix).
std::optional<loop::MatrixOperand> affine_operand(const TiledPlan& plan, size_t tile,
                                                  const Bindings& uniform) {
  const RegisterForm& form = plan.form;
  const StagedTile& st = plan.tiles[tile];
  const Expr& load = *st.load.load;
  if (!st.safety.empty() || load.lanes != 1) return std::nullopt;
  const std::vector<const Stmt*> k = {&form.k_loop()};
  const std::vector<const Stmt*> rows = tile == 0 ? form.m_loops() : k;
  const std::vector<const Stmt*> cols = tile == 0 ? k : std::vector<const Stmt*>{&form.n_loop()};
  return affine_matrix(form, load.slot, load.args[0], rows, cols, uniform);
}

// The output as a row-major matrix operand (rows m, columns n), when the epilogue only stores
// the sum, as f32 or converted to f16, at an index affine_matrix takes; *stored is its dtype.
std::optional<loop::MatrixOperand> plain_output(const RegisterForm& form, const Bindings& uniform,
                                                DType* stored) {
  if (form.epilogue.size() != 1) return std::nullopt;
  const Stmt& s = *form.epilogue[0];
  if (s.kind != loop::StmtKind::kStore || s.slot < 0 || s.mask_lanes != 0 || !s.value ||
      (s.value->dtype != DType::F16 && s.value->dtype != DType::F32) || s.value->lanes != 1) {
    return std::nullopt;
  }
  const Expr& sum = strip_casts(*s.value);
  if (sum.kind != ExprKind::kVar || sum.name != form.declare->var) return std::nullopt;
  std::optional<loop::MatrixOperand> out =
      affine_matrix(form, s.slot, s.index, form.m_loops(), {&form.n_loop()}, uniform);
  if (!out || out->col_stride != 1) return std::nullopt;
  *stored = s.value->dtype;
  return out;
}

class MatrixBuilder {
 public:
  MatrixBuilder(const TiledPlan& plan, const MatrixTiles& tiles, int subgroup_size)
      : plan_(plan),
        form_(plan.form),
        t_(tiles),
        lanes_(subgroup_size),
        uniform_(uniform_band_values(form_)) {
    const TileProblem& p = plan.problem;
    std::optional<loop::MatrixOperand> a = affine_operand(plan, 0, uniform_);
    std::optional<loop::MatrixOperand> b = affine_operand(plan, 1, uniform_);
    if (workgroup()) {
      // The caller checked that every operand and the output qualify.
      a_direct_ = a;
      b_direct_ = b;
      output_ = plain_output(form_, uniform_, &stored_);
    } else if (a && b && p.k % t_.bk == 0 && copy_fits(*a, *b)) {
      a_copied_ = a;
      b_copied_ = b;
    } else if (a && b && p.m % t_.frag.m == 0 && p.n % t_.frag.n == 0 && p.k % t_.frag.k == 0) {
      // Fragments never straddle an extent: read from memory.
      a_direct_ = a;
      b_direct_ = b;
      t_.bk = p.k % (2 * t_.frag.k) == 0 ? 2 * t_.frag.k : t_.frag.k;
    }
  }

  // Both operands straight from their buffers: no staging, no barrier in the k loop.
  bool direct() const { return a_direct_ && b_direct_; }
  // Workgroup-scope fragments: read from the buffers, stored straight into the output.
  bool workgroup() const { return t_.frag.workgroup > 0; }
  // Both operands copied into workgroup arrays 16 bytes at a time, the next chunk's copy read
  // into registers while this one is multiplied.
  bool copied() const { return a_copied_ && b_copied_; }

  std::vector<StmtPtr> body() const {
    std::vector<StmtPtr> out;
    MatrixOp zero = op(MatrixOp::Kind::kZero);
    out.push_back(loop::matrix(kBlock, zero));
    std::vector<StmtPtr> chunk;
    if (copied()) {
      out.push_back(fetch(0, c(0)));
      out.push_back(fetch(1, c(0)));
      const ExprPtr next = add(id(kChunk), c(t_.bk));
      chunk = {deposit(0),
               deposit(1),
               loop::barrier(),
               loop::if_then(less(next, c(plan_.problem.k)), {fetch(0, next), fetch(1, next)}),
               multiply(),
               loop::barrier()};
    } else if (direct()) {
      chunk = {multiply()};
    } else {
      chunk = {stage(0), stage(1), loop::barrier(), multiply(), loop::barrier()};
    }
    out.push_back(counted(kChunk, c(0), c(plan_.problem.k), t_.bk, std::move(chunk)));
    for (int i = 0; i < t_.fm; ++i) {
      for (int j = 0; j < t_.fn; ++j) {
        if (workgroup()) {
          out.push_back(store_output(i, j));
          continue;
        }
        for (StmtPtr& s : epilogue(i, j)) out.push_back(std::move(s));
      }
    }
    return out;
  }

  std::vector<WorkgroupArray> arrays() const {
    const DType input = plan_.tiles[0].load.load->dtype;
    WorkgroupArray scratch{"c", DType::F32, int64_t{t_.subgroups()} * fragment_points()};
    if (workgroup()) return {};
    if (direct()) return {scratch};
    if (copied()) {
      const Copy a = copy(0), b = copy(1);
      return {{"a", input, a.lines * (a.width + kPad), ArrayForm::kStorageVectors},
              {"b", input, b.lines * (b.width + kPad), ArrayForm::kStorageVectors},
              scratch};
    }
    return {{"a", input, t_.bm() * a_stride(), ArrayForm::kStorage},
            {"b", input, t_.bk * b_stride(), ArrayForm::kStorage},
            scratch};
  }

 private:
  // A copied side in memory order: `lines` lines of `width` elements along its unit stride,
  // whether those lines are the side's rows (A: m; B: k), and the element strides of the
  // workgroup array for the fragments' (row, column).
  struct Copy {
    int64_t lines = 0, width = 0;
    bool lines_are_rows = true;
    int64_t row_stride = 0, col_stride = 0;
  };
  Copy copy(size_t side) const { return copy_of(side == 0 ? *a_copied_ : *b_copied_, side); }
  Copy copy_of(const loop::MatrixOperand& o, size_t side) const {
    const int64_t rows = side == 0 ? t_.bm() : t_.bk, cols = side == 0 ? t_.bk : t_.bn();
    Copy out;
    out.lines_are_rows = o.col_stride == 1;
    out.lines = out.lines_are_rows ? rows : cols;
    out.width = out.lines_are_rows ? cols : rows;
    out.row_stride = out.lines_are_rows ? out.width + kPad : 1;
    out.col_stride = out.lines_are_rows ? 1 : out.width + kPad;
    return out;
  }
  // Every work-item copies the same number of 16-byte segments of each side; a side whose
  // segments run along m or n needs that extent a multiple of 8 (a segment is then wholly in
  // or out of it).
  bool copy_fits(const loop::MatrixOperand& a, const loop::MatrixOperand& b) const {
    bool fits = true;
    for (const Copy& k : {copy_of(a, 0), copy_of(b, 1)}) {
      fits = fits && (k.lines * k.width / 8) % threads() == 0;
    }
    if (a.col_stride != 1) fits = fits && plan_.problem.m % 8 == 0;
    if (b.col_stride == 1) fits = fits && plan_.problem.n % 8 == 0;
    return fits;
  }
  // Side `side`'s chunk at k position `k` into its registers: lines past the extents read
  // line 0, segments past them segment 0 (both only reach outputs never stored).
  StmtPtr fetch(size_t side, ExprPtr k) const {
    const Copy cp = copy(side);
    MatrixOp m = op(MatrixOp::Kind::kFetch);
    m.a = side == 0 ? *a_copied_ : *b_copied_;
    const ExprPtr origin = side == 0 ? m0() : n0();
    const int64_t extent = side == 0 ? plan_.problem.m : plan_.problem.n;
    // Side 0: rows m, columns k; side 1: rows k, columns n.
    const bool lines_are_k = (side == 0) != cp.lines_are_rows;
    m.a.row0 = lines_are_k ? k : origin;
    m.a.col0 = lines_are_k ? origin : k;
    const int64_t line_stride = cp.lines_are_rows ? m.a.row_stride : m.a.col_stride;
    m.a.row_stride = line_stride;
    m.a.col_stride = 1;
    m.a.rows = lines_are_k ? 0 : extent;
    m.a.cols = lines_are_k ? extent : 0;
    m.lines = cp.lines;
    m.width = cp.width;
    m.threads = static_cast<int>(threads());
    m.thread = id(local_id(0));
    return loop::matrix(side == 0 ? "@copy_a" : "@copy_b", std::move(m));
  }
  StmtPtr deposit(size_t side) const {
    const Copy cp = copy(side);
    MatrixOp m = op(MatrixOp::Kind::kDeposit);
    m.c_slot = workgroup_slot(side);
    m.lines = cp.lines;
    m.width = cp.width;
    m.ldc = kPad;
    m.threads = static_cast<int>(threads());
    m.thread = id(local_id(0));
    return loop::matrix(side == 0 ? "@copy_a" : "@copy_b", std::move(m));
  }

  int c_slot() const { return workgroup_slot(direct() ? 0 : 2); }
  static ExprPtr id(const std::string& name) { return loop::var(name); }
  int64_t threads() const { return int64_t{t_.subgroups()} * lanes_; }
  int64_t a_stride() const { return t_.bk + kPad; }
  int64_t b_stride() const { return t_.bn() + kPad; }
  int64_t fragment_points() const { return int64_t{t_.frag.m} * t_.frag.n; }
  // The subgroup's first row and column within the workgroup's tile.
  ExprPtr sub_row() const {
    if (workgroup()) return c(0);
    return mul(index_op(ir::OpKind::Div, id(subgroup_id()), c(t_.sn)), t_.fm * t_.frag.m);
  }
  ExprPtr sub_col() const {
    if (workgroup()) return c(0);
    return mul(index_op(ir::OpKind::Mod, id(subgroup_id()), c(t_.sn)), t_.fn * t_.frag.n);
  }
  ExprPtr m0() const { return mul(id(group_id(1)), t_.bm()); }
  ExprPtr n0() const { return mul(id(group_id(0)), t_.bn()); }

  MatrixOp op(MatrixOp::Kind kind) const {
    MatrixOp m;
    m.kind = kind;
    m.rows = t_.fm;
    m.cols = t_.fn;
    m.frag_m = t_.frag.m;
    m.frag_n = t_.frag.n;
    m.frag_k = t_.frag.k;
    m.workgroup = workgroup();
    m.input = t_.frag.input;
    return m;
  }

  // Side tile (0: A [BM][BK], 1: B [BK][BN]) of the chunk at kChunk: element e = tid + s *
  // threads, k fastest where the load is contiguous along k (else the side), so neighbouring
  // work-items read neighbouring addresses; zero outside the extents, the load's own guards
  // kept.
  StmtPtr stage(size_t tile) const {
    const StagedTile& st = plan_.tiles[tile];
    const bool m_side = tile == 0;
    const int64_t side = m_side ? t_.bm() : t_.bn();
    const int64_t elements = side * t_.bk;
    const int64_t steps = elements / threads();
    const std::string step = m_side ? "@sa" : "@sb";
    ExprPtr e = add(id(local_id(0)), mul(id(step), threads()));
    const bool k_fastest = st.k_fastest;
    ExprPtr kk = k_fastest ? index_op(ir::OpKind::Mod, e, c(t_.bk))
                           : index_op(ir::OpKind::Div, e, c(side));
    ExprPtr pos = k_fastest ? index_op(ir::OpKind::Div, e, c(t_.bk))
                            : index_op(ir::OpKind::Mod, e, c(side));
    const ExprPtr k_at = add(id(kChunk), kk);
    const ExprPtr side_at = add(m_side ? m0() : n0(), pos);
    Bindings at = uniform_;
    at[form_.k_loop().var] = value_of(form_.k_loop(), k_at);
    ExprPtr in_range = less(k_at, c(plan_.problem.k));
    if (m_side) {
      in_range = both(in_range, less(side_at, c(plan_.problem.m)));
      bind_m(form_, side_at, at);
    } else {
      in_range = both(in_range, less(side_at, c(plan_.problem.n)));
      at[form_.n_loop().var] = value_of(form_.n_loop(), side_at);
    }
    for (const ExprPtr& g : st.safety) in_range = both(in_range, loop::substitute(g, at));
    ExprPtr where = m_side ? add(mul(pos, a_stride()), kk) : add(mul(kk, b_stride()), pos);
    const int slot = workgroup_slot(tile);
    const DType input = st.load.load->dtype;
    ExprPtr value = loop::substitute(std::make_shared<Expr>(*st.load.load), at);
    std::vector<StmtPtr> body = {loop::store(slot, where, loop::zero(input)),
                                 loop::if_then(in_range, {loop::store(slot, where, value)})};
    return counted(step, c(0), c(steps), 1, std::move(body), steps > 1 ? int(steps) : 0);
  }

  StmtPtr multiply() const {
    MatrixOp m = op(MatrixOp::Kind::kMulAdd);
    if (direct()) {
      m.a = *a_direct_;
      m.a.row0 = add(m0(), sub_row());
      m.a.col0 = id(kChunk);
      m.a.rows = plan_.problem.m;
      m.b = *b_direct_;
      m.b.row0 = id(kChunk);
      m.b.col0 = add(n0(), sub_col());
      m.b.cols = plan_.problem.n;
    } else if (copied()) {
      const Copy a = copy(0), b = copy(1);
      m.a = {workgroup_slot(0), c(0), sub_row(), c(0), a.row_stride, a.col_stride, 0, 0};
      m.b = {workgroup_slot(1), c(0), c(0), sub_col(), b.row_stride, b.col_stride, 0, 0};
    } else {
      m.a = {workgroup_slot(0), c(0), sub_row(), c(0), a_stride(), 1, 0, 0};
      m.b = {workgroup_slot(1), c(0), c(0), sub_col(), b_stride(), 1, 0, 0};
    }
    m.k_steps = static_cast<int>(t_.bk / t_.frag.k);
    return loop::matrix(kBlock, std::move(m));
  }

  // Fragment (i, j): stored into the subgroup's scratch, then each work-item runs the
  // epilogue at its points of it. Barriers (in uniform control flow: every subgroup runs the
  // same fragments) order the scratch's writes and reads.
  std::vector<StmtPtr> epilogue(int i, int j) const {
    MatrixOp store = op(MatrixOp::Kind::kStore);
    store.row = i;
    store.col = j;
    store.c_slot = c_slot();
    store.c_at = mul(id(subgroup_id()), fragment_points());
    store.ldc = t_.frag.n;
    const ExprPtr p = add(id(subgroup_lane()), mul(id(kPoint), lanes_));
    const ExprPtr r = index_op(ir::OpKind::Div, p, c(t_.frag.n));
    const ExprPtr col = index_op(ir::OpKind::Mod, p, c(t_.frag.n));
    const ExprPtr m = add(add(m0(), sub_row()), add(c(int64_t{i} * t_.frag.m), r));
    const ExprPtr n = add(add(n0(), sub_col()), add(c(int64_t{j} * t_.frag.n), col));
    Bindings b = uniform_;
    b[form_.n_loop().var] = value_of(form_.n_loop(), n);
    bind_m(form_, m, b);
    b[form_.declare->var] = loop::var(kAcc, DType::F32);
    std::vector<StmtPtr> point = {loop::declare(
        kAcc, loop::load(c_slot(), DType::F32, add(mul(id(subgroup_id()),
                                                                fragment_points()), p)))};
    for (const Stmt* s : form_.epilogue) point.push_back(rebind(*s, b));
    const ExprPtr valid = both(less(m, c(plan_.problem.m)), less(n, c(plan_.problem.n)));
    const int64_t per_lane = fragment_points() / lanes_;
    StmtPtr points = counted(kPoint, c(0), c(per_lane), 1, {loop::if_then(valid, point)},
                             per_lane > 1 ? int(per_lane) : 0);
    return {loop::matrix(kBlock, std::move(store)), loop::barrier(), std::move(points),
            loop::barrier()};
  }

  // Fragment (i, j) of a workgroup-scope block straight into the output (plain_output).
  StmtPtr store_output(int i, int j) const {
    MatrixOp store = op(MatrixOp::Kind::kStore);
    store.row = i;
    store.col = j;
    store.c_slot = output_->slot;
    const ExprPtr row = add(m0(), c(int64_t{i} * t_.frag.m));
    const ExprPtr col = add(n0(), c(int64_t{j} * t_.frag.n));
    store.c_at = add(output_->base, add(mul(row, output_->row_stride), col));
    store.ldc = output_->row_stride;
    store.stored = stored_;
    return loop::matrix(kBlock, std::move(store));
  }

  const TiledPlan& plan_;
  const RegisterForm& form_;
  MatrixTiles t_;
  int lanes_;
  Bindings uniform_;
  std::optional<loop::MatrixOperand> a_direct_, b_direct_, a_copied_, b_copied_, output_;
  DType stored_ = DType::F32;
};

}  // namespace

std::optional<GpuKernel> schedule_matrix(const loop::Kernel& kernel, const GpuTarget& target,
                                         int64_t max_groups) {
  if (target.matrix_shapes.empty() || target.subgroup_size <= 0) return std::nullopt;
  DType input = DType::F16;
  std::optional<TiledPlan> plan = matrix_plan(kernel, &input);
  if (!plan) return std::nullopt;
  const TileProblem& p = plan->problem;
  std::optional<MatrixTiles> tiles;
  const Bindings uniform = uniform_band_values(plan->form);
  DType stored = DType::F32;
  if (affine_operand(*plan, 0, uniform) && affine_operand(*plan, 1, uniform) &&
      plain_output(plan->form, uniform, &stored)) {
    tiles = workgroup_tiles(p, target, input);
  }
  if (!tiles) {
    std::optional<MatrixShape> frag = pick_shape(target, input);
    if (!frag) return std::nullopt;
    tiles = pick_tiles(p, target, *frag);
  }
  if (!tiles) return std::nullopt;
  constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
  if (p.m + tiles->bm() > kMax32 || p.n + tiles->bn() > kMax32 || p.k + tiles->bk > kMax32 ||
      tiles_along(p.n, tiles->bn()) > max_groups || tiles_along(p.m, tiles->bm()) > max_groups ||
      p.uniform > max_groups) {
    return std::nullopt;
  }
  GpuKernel out = scheduled_from(kernel);
  MatrixBuilder builder(*plan, *tiles, target.subgroup_size);
  out.kernel.body = loop::block(builder.body());
  out.arrays = builder.arrays();
  const int threads =
      tiles->frag.workgroup > 0 ? tiles->frag.workgroup : tiles->subgroups() * target.subgroup_size;
  out.subgroups = threads / target.subgroup_size;
  out.subgroup_size = target.subgroup_size;
  out.launch.workgroup = {static_cast<uint32_t>(threads), 1, 1};
  out.launch.grid = {static_cast<uint32_t>(tiles_along(p.n, tiles->bn())),
                     static_cast<uint32_t>(tiles_along(p.m, tiles->bm())),
                     static_cast<uint32_t>(p.uniform)};
  return out;
}

}  // namespace plaidml::jit::gpu
