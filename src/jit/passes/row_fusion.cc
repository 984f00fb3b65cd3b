#include "jit/passes/row_fusion.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "jit/loop/rewrite.h"

namespace plaidml::jit::passes {
namespace {

using loop::Expr;
using loop::ExprKind;
using loop::ExprPtr;
using loop::Kernel;
using loop::Stmt;
using loop::StmtKind;
using loop::StmtPtr;

// A kernel's row loops (row_fusion.h): perfectly nested from its parallel loop, each over
// [0, extent) in steps of 1. Empty when the kernel cannot take part.
struct RowLoops {
  std::vector<const Stmt*> loops;
  std::vector<int64_t> ends;  // ends[i]: the product of the extents of loops 0..i

  bool empty() const { return loops.empty(); }
};

bool is_row_loop(const Stmt& s) {
  return s.kind == StmtKind::kFor && s.step == 1 && s.lo->is_int_const(0) && s.hi->is_const() &&
         s.hi->int_value > 0;
}

RowLoops row_loops(const Kernel& kernel) {
  RowLoops out;
  if (loop::has_vectors(kernel) || kernel.body->body.size() != 1) return out;
  const Stmt* s = kernel.body->body[0].get();
  if (!s->parallel) return out;
  int64_t product = 1;
  while (is_row_loop(*s)) {
    product *= s->hi->int_value;
    out.loops.push_back(s);
    out.ends.push_back(product);
    if (s->body.size() != 1) break;
    s = s->body[0].get();
  }
  return out;
}

// The row counts a kernel can run as: a product of its first loops times a divisor of the next.
std::set<int64_t> row_counts(const RowLoops& rows) {
  std::set<int64_t> out;
  int64_t before = 1;
  for (const Stmt* l : rows.loops) {
    int64_t n = l->hi->int_value;
    for (int64_t d = 1; d * d <= n; ++d) {
      if (n % d != 0) continue;
      out.insert(before * d);
      out.insert(before * (n / d));
    }
    before *= n;
  }
  return out;
}

// The digits of R rows that every member's row loops can be cut into: the members' loop ends
// below R, and R, ascending; empty when they do not divide one another.
std::vector<int64_t> digit_ends(const std::vector<const RowLoops*>& members, int64_t rows) {
  std::set<int64_t> ends = {rows};
  for (const RowLoops* m : members) {
    for (int64_t e : m->ends) {
      if (e < rows) ends.insert(e);
    }
  }
  std::vector<int64_t> out(ends.begin(), ends.end());
  for (size_t k = 1; k < out.size(); ++k) {
    if (out[k] % out[k - 1] != 0) return {};
  }
  return out;
}

// Each digit's extent: the ratio of its end to the previous one.
std::vector<int64_t> digit_extents(const std::vector<int64_t>& ends) {
  std::vector<int64_t> extents;
  int64_t before = 1;
  for (int64_t e : ends) {
    extents.push_back(e / before);
    before = e;
  }
  return extents;
}

std::string digit_name(size_t k) { return fmt::format("row${}", k); }

// A member's body for one row, its row loop variables written in the digits (digit_ends).
StmtPtr member_row(const RowLoops& rows, const std::vector<int64_t>& ends) {
  std::map<std::string, ExprPtr> bindings;
  int64_t total = ends.back();
  size_t k = 0;
  for (size_t i = 0; i < rows.loops.size(); ++i) {
    const Stmt& l = *rows.loops[i];
    int64_t end = std::min(rows.ends[i], total);
    ExprPtr value = loop::int_const(0);
    for (; k < ends.size() && ends[k] <= end; ++k) {
      value = loop::idx_add(value, loop::idx_mul(loop::var(digit_name(k)), end / ends[k]));
    }
    if (rows.ends[i] > total) {  // the loop goes past the rows: its remainder stays inside
      int64_t inner = rows.ends[i] / total;
      std::string name = l.var + "$in";
      bindings[l.var] = loop::idx_add(loop::idx_mul(value, inner), loop::var(name));
      StmtPtr rest =
          loop::independent_loop(name, 0, inner, l.body, /*parallel=*/false);
      rest->independent = l.independent || l.parallel;
      return loop::substitute(rest, bindings);
    }
    bindings[l.var] = value;
    if (end == total) return loop::substitute(loop::block(l.body), bindings);
  }
  return nullptr;  // unreachable: the rows end at a loop end or inside a loop
}

// Whether cutting a member's row loops after `rows` rows keeps its inner loops whole: the cut
// falls between two of its loops, or it splits the member's only loop (a flat elementwise
// kernel) leaving at least kMinInner elements per row. Splitting a loop of a nest would leave
// a few channels of a pixel per row, or one.
constexpr int64_t kMinInner = 8;

bool cut_keeps_loops(const RowLoops& member, int64_t rows) {
  for (int64_t end : member.ends) {
    if (end == rows) return true;
  }
  return member.loops.size() == 1 && member.ends[0] % rows == 0 &&
         member.ends[0] / rows >= kMinInner;
}

bool has_loop(const Stmt& s) {
  if (s.kind == StmtKind::kFor) return true;
  for (const auto& b : s.body) {
    if (has_loop(*b)) return true;
  }
  return false;
}

// One load or store of a group, its index seen over the digits and the inner loop variables.
struct Access {
  int slot = -1;
  size_t member = 0;
  bool write = false;
  bool affine = false;               // an affine index over digits and bounded variables
  std::vector<int64_t> digit_coeffs;  // per digit
  int64_t inner_min = 0, inner_max = 0;
};

class AccessCollector {
 public:
  AccessCollector(const std::vector<int64_t>& extents, std::vector<Access>& out)
      : digits_(extents.size()), out_(out) {
    for (size_t k = 0; k < extents.size(); ++k) ranges_[digit_name(k)] = {0, extents[k] - 1};
  }

  void member(const Stmt& s, size_t m) {
    member_ = m;
    stmt(s);
  }

 private:
  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::kBlock:
        for (const auto& b : s.body) stmt(*b);
        return;
      case StmtKind::kFor: {
        expr(*s.lo);
        expr(*s.hi);
        if (s.lo->is_const() && s.hi->is_const()) {
          ranges_[s.var] = {s.lo->int_value, std::max(s.lo->int_value, s.hi->int_value - 1)};
        }
        for (const auto& b : s.body) stmt(*b);
        ranges_.erase(s.var);
        return;
      }
      case StmtKind::kIf:
        expr(*s.cond);
        for (const auto& b : s.body) stmt(*b);
        return;
      case StmtKind::kStore:
        expr(*s.index);
        expr(*s.value);
        record(s.slot, *s.index, s.value->lanes, true);
        return;
      case StmtKind::kPrefetch: expr(*s.index); return;  // reads nothing the program sees
      case StmtKind::kBarrier:
      case StmtKind::kMatrix: return;
      case StmtKind::kDeclare:
      case StmtKind::kAssign: expr(*s.value); return;
    }
  }

  void expr(const Expr& e) {
    for (const auto& a : e.args) expr(*a);
    if (e.kind == ExprKind::kLoad) record(e.slot, *e.args[0], e.lanes, false);
  }

  void record(int slot, const Expr& index, int lanes, bool write) {
    Access a;
    a.slot = slot;
    a.member = member_;
    a.write = write;
    a.digit_coeffs.assign(digits_, 0);
    std::optional<loop::AffineIndex> form = loop::affine_of(index);
    a.affine = form.has_value();
    if (form) {
      a.inner_min = a.inner_max = form->constant;
      for (const auto& [name, c] : form->coeffs) {
        auto range = ranges_.find(name);
        if (range == ranges_.end()) {
          a.affine = false;
          break;
        }
        size_t k = digit_index(name);
        if (k < digits_) {
          a.digit_coeffs[k] = c;
          continue;
        }
        auto [lo, hi] = range->second;
        a.inner_min += c > 0 ? c * lo : c * hi;
        a.inner_max += c > 0 ? c * hi : c * lo;
      }
      a.inner_max += lanes - 1;
    }
    out_.push_back(std::move(a));
  }

  size_t digit_index(const std::string& name) const {
    for (size_t k = 0; k < digits_; ++k) {
      if (name == digit_name(k)) return k;
    }
    return digits_;
  }

  size_t digits_;
  std::vector<Access>& out_;
  std::map<std::string, std::pair<int64_t, int64_t>> ranges_;
  size_t member_ = 0;
};

// Whether every row touches its own slice of `slot` (row_fusion.h, legality).
bool rows_disjoint(const std::vector<Access>& accesses, int slot,
                   const std::vector<int64_t>& extents) {
  const Access* first = nullptr;
  int64_t lo = 0, hi = 0;
  for (const Access& a : accesses) {
    if (a.slot != slot) continue;
    if (!a.affine) return false;
    if (!first) {
      first = &a;
      lo = a.inner_min;
      hi = a.inner_max;
    }
    for (size_t k = 0; k < extents.size(); ++k) {
      if (extents[k] > 1 && a.digit_coeffs[k] != first->digit_coeffs[k]) return false;
    }
    lo = std::min(lo, a.inner_min);
    hi = std::max(hi, a.inner_max);
  }
  std::vector<std::pair<int64_t, int64_t>> digits;  // (coefficient, extent)
  for (size_t k = 0; k < extents.size(); ++k) {
    if (extents[k] > 1) digits.emplace_back(first->digit_coeffs[k], extents[k]);
  }
  std::sort(digits.begin(), digits.end());
  int64_t span = hi - lo + 1;
  for (auto [coeff, extent] : digits) {
    if (coeff < span) return false;
    span = coeff * (extent - 1) + span;
  }
  return true;
}

// A group of consecutive kernels fused over `rows` rows.
struct Fusion {
  std::vector<int64_t> ends;      // digit_ends; the last is the row count
  std::vector<int64_t> extents;   // digit_extents
  std::vector<StmtPtr> members;   // each member's body for one row
  bool reuses = false;            // a member reads what an earlier one wrote

  int64_t rows() const { return ends.back(); }
};

std::optional<Fusion> plan(const std::vector<const RowLoops*>& members,
                           const std::vector<const Kernel*>& kernels, int64_t rows) {
  Fusion f;
  f.ends = digit_ends(members, rows);
  if (f.ends.empty()) return std::nullopt;
  f.extents = digit_extents(f.ends);
  std::vector<Access> accesses;
  AccessCollector collect(f.extents, accesses);
  bool any_loop = false;
  for (size_t m = 0; m < members.size(); ++m) {
    if (!cut_keeps_loops(*members[m], rows)) return std::nullopt;
    f.members.push_back(member_row(*members[m], f.ends));
    if (!f.members.back()) return std::nullopt;
    any_loop = any_loop || has_loop(*f.members.back());
    collect.member(*f.members.back(), m);
  }
  // Rows of one element each, found through several digits: a division per element and no
  // vectors (each member alone had its loops).
  if (!any_loop && f.ends.size() > 1) return std::nullopt;
  std::map<int, size_t> first_writer;
  for (size_t m = 0; m < kernels.size(); ++m) {
    for (int s : kernels[m]->writes) first_writer.emplace(s, m);
  }
  for (const auto& [slot, writer] : first_writer) {
    if (!rows_disjoint(accesses, slot, f.extents)) return std::nullopt;
    for (const Access& a : accesses) {
      if (a.slot == slot && !a.write && a.member > writer) f.reuses = true;
    }
  }
  return f;
}

// The fused kernel: one parallel loop over the rows, the digits computed from the row.
Kernel fused_kernel(const Fusion& f, const std::vector<const Kernel*>& kernels) {
  std::map<std::string, ExprPtr> digits;
  ExprPtr row = loop::var("row$");
  for (size_t k = 0; k < f.ends.size(); ++k) {
    ExprPtr d = f.ends[k] == f.rows()
                    ? row
                    : loop::op(ir::OpKind::Div, DType::I64,
                               {row, loop::int_const(f.rows() / f.ends[k])});
    if (k > 0) d = loop::op(ir::OpKind::Mod, DType::I64, {d, loop::int_const(f.extents[k])});
    digits[digit_name(k)] = d;
  }
  std::vector<StmtPtr> body;
  for (const auto& m : f.members) body.push_back(loop::substitute(m, digits));
  Kernel out;
  out.name = kernels.back()->name;
  std::set<int> reads, writes;
  std::set<std::string> origins;
  for (const Kernel* k : kernels) {
    for (int s : k->reads) {
      if (reads.insert(s).second) out.reads.push_back(s);
    }
    for (int s : k->writes) {
      if (writes.insert(s).second) out.writes.push_back(s);
    }
    for (const auto& o : k->origins) {
      if (origins.insert(o).second) out.origins.push_back(o);
    }
    out.work += k->work;
  }
  out.body = loop::block(
      {loop::independent_loop("row$", 0, f.rows(), std::move(body), /*parallel=*/true)});
  return out;
}

// Members of one group at most. Each step of growing plans the whole group again, so a long run
// of fusable kernels (a 100,000-op elementwise chain lowers to 1,500 of them) would cost time
// quadratic in its length; real groups are a softmax's or a normalization's six to ten kernels.
constexpr size_t kMaxRowFusionMembers = 32;

// Grows a group from kernels[first]; its fusion (members: the kernels from `first` on), if any.
std::optional<Fusion> grow(const std::vector<Kernel>& kernels,
                                             const std::vector<RowLoops>& rows, size_t first,
                                             const CpuTarget& target) {
  std::vector<const RowLoops*> members = {&rows[first]};
  std::vector<const Kernel*> group = {&kernels[first]};
  std::set<int64_t> counts = row_counts(rows[first]);
  int64_t widest = rows[first].loops[0]->hi->int_value;  // the members' largest parallel loop
  std::optional<Fusion> best;
  size_t end = std::min(kernels.size(), first + kMaxRowFusionMembers);
  for (size_t next = first + 1; next < end && !rows[next].empty(); ++next) {
    std::set<int64_t> common;
    for (int64_t c : row_counts(rows[next])) {
      if (counts.count(c)) common.insert(c);
    }
    int64_t wide = std::max(widest, rows[next].loops[0]->hi->int_value);
    int64_t fewest = std::min<int64_t>(wide, 4 * target.threads);
    members.push_back(&rows[next]);
    group.push_back(&kernels[next]);
    std::optional<Fusion> found;
    for (auto it = common.rbegin(); it != common.rend() && *it >= fewest && !found; ++it) {
      found = plan(members, group, *it);
    }
    if (!found) break;
    best = std::move(found);
    counts = std::move(common);
    widest = wide;
  }
  if (!best || !best->reuses) return std::nullopt;
  return best;
}

std::string describe(const std::vector<Kernel>& kernels, size_t first, size_t count,
                     int64_t rows) {
  std::vector<std::string> names;
  for (size_t k = first; k < first + count; ++k) names.push_back(kernels[k].name);
  return fmt::format("{} -> {} ({} rows)", fmt::join(names, " + "), kernels[first + count - 1].name,
                     rows);
}

}  // namespace

std::vector<std::string> fuse_rows(std::vector<Kernel>& kernels, const CpuTarget& target) {
  std::vector<std::string> log;
  if (target.vector_bits == 0) return log;
  std::vector<RowLoops> rows;
  for (const auto& k : kernels) rows.push_back(row_loops(k));
  std::vector<Kernel> out;
  for (size_t i = 0; i < kernels.size();) {
    if (rows[i].empty()) {
      out.push_back(kernels[i++]);
      continue;
    }
    std::optional<Fusion> fusion = grow(kernels, rows, i, target);
    if (!fusion) {
      out.push_back(kernels[i++]);
      continue;
    }
    size_t count = fusion->members.size();
    std::vector<const Kernel*> group;
    for (size_t k = i; k < i + count; ++k) group.push_back(&kernels[k]);
    log.push_back(describe(kernels, i, count, fusion->rows()));
    out.push_back(fused_kernel(*fusion, group));
    i += count;
  }
  kernels = std::move(out);
  return log;
}

}  // namespace plaidml::jit::passes
