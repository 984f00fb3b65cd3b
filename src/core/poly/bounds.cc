// Bounds inference on isl. The constraints become one isl integer set over the index variables
// (named i0, i1, ... so that no user name can collide with isl's keywords); rational expressions
// are scaled by their denominator, and integrality of a rational access is an existential
// `exists e: den*e = den*expr`. isl then gives the exact integer extremes of every index and
// decides, for each constraint, whether the box already implies it.
#include "core/poly/bounds.h"

#include <fmt/format.h>
#include <isl/cpp.h>
#include <isl/ctx.h>
#include <isl/options.h>

#include <limits>
#include <new>
#include <optional>
#include <string>

namespace plaidml::poly {
namespace {

using Wide = __int128;

// Owns one isl_ctx for the duration of one call: isl is not thread-safe within a ctx, and a
// private ctx per call makes infer_bounds safe to call from many threads.
class IslContext {
 public:
  IslContext() : ctx_(isl_ctx_alloc()) {
    if (ctx_) isl_options_set_on_error(ctx_, ISL_ON_ERROR_CONTINUE);
  }
  ~IslContext() {
    if (ctx_) isl_ctx_free(ctx_);
  }
  IslContext(const IslContext&) = delete;
  IslContext& operator=(const IslContext&) = delete;
  isl_ctx* get() const { return ctx_; }

 private:
  isl_ctx* ctx_;
};

// Text of the scaled (integer-coefficient) form of den*expr, in isl's variable names.
class Formatter {
 public:
  Formatter(const std::vector<std::string>& indices) {
    for (size_t i = 0; i < indices.size(); ++i) names_[indices[i]] = fmt::format("i{}", i);
  }

  // den*expr as integer-coefficient text; nullopt (with *error set) on an unknown variable.
  std::optional<std::string> scaled(const Affine& expr, int64_t den, std::string* error) const {
    std::string out;
    for (const auto& [var, c] : expr.terms()) {
      auto it = names_.find(var);
      if (it == names_.end()) {
        *error = fmt::format("constraint '{}' uses '{}', which is not an index variable",
                             expr.to_string(), var);
        return std::nullopt;
      }
      out += fmt::format("{}{}*{}", out.empty() ? "" : " + ", wide_text(c, den), it->second);
    }
    out += fmt::format("{}{}", out.empty() ? "" : " + ", wide_text(expr.constant(), den));
    return out;
  }

  std::string range(const RangeConstraint& c, std::string* error) const {
    int64_t den = c.expr.denominator();
    auto text = scaled(c.expr, den, error);
    if (!text) return "";
    return fmt::format("{} <= {} <= {}", to_text(static_cast<Wide>(c.lo) * den), *text,
                       to_text(static_cast<Wide>(c.hi) * den));
  }

 private:
  static std::string to_text(Wide v) {
    // fmt 9 formats __int128 directly.
    return fmt::format("{}", v);
  }
  static std::string wide_text(Rational r, int64_t den) {
    return to_text(static_cast<Wide>(r.num) * (den / r.den));
  }

  std::map<std::string, std::string> names_;
};

std::string tuple_text(size_t n) {
  std::string out = "[";
  for (size_t i = 0; i < n; ++i) out += fmt::format("{}i{}", i ? ", " : "", i);
  return out + "]";
}

struct SetTexts {
  std::string space;                // "[i0, i1]"
  std::vector<std::string> ranges;  // one per constraint
  std::string integrality;          // "exists (e0, e1 : ...)" formula or "" when none
};

Expected<SetTexts> make_texts(const std::vector<std::string>& indices,
                              const std::vector<RangeConstraint>& constraints,
                              const std::vector<Affine>& integral) {
  Formatter f(indices);
  SetTexts t;
  t.space = tuple_text(indices.size());
  std::string error;
  for (const auto& c : constraints) {
    t.ranges.push_back(f.range(c, &error));
    if (!error.empty()) return Status(StatusCode::kInternal, error);
  }
  std::string vars, eqs;
  int n = 0;
  for (const auto& a : integral) {
    int64_t den = a.denominator();
    if (den == 1) continue;
    auto text = f.scaled(a, den, &error);
    if (!text) return Status(StatusCode::kInternal, error);
    vars += fmt::format("{}e{}", n ? ", " : "", n);
    eqs += fmt::format("{}{}*e{} = {}", n ? " and " : "", den, n, *text);
    ++n;
  }
  if (n > 0) t.integrality = fmt::format("exists ({} : {})", vars, eqs);
  return t;
}

std::string set_text(const SetTexts& t, const std::vector<std::string>& parts) {
  std::string body;
  for (const auto& p : parts) body += fmt::format("{}{}", body.empty() ? "" : " and ", p);
  if (!t.integrality.empty()) {
    body += fmt::format("{}{}", body.empty() ? "" : " and ", t.integrality);
  }
  if (body.empty()) return fmt::format("{{ {} }}", t.space);
  return fmt::format("{{ {} : {} }}", t.space, body);
}

// The value of an isl extreme as int64; nullopt when infinite (unbounded) or not representable.
std::optional<int64_t> to_int(const isl::val& v) {
  if (v.is_nan() || v.is_infty() || v.is_neginfty() || !v.is_int()) return std::nullopt;
  long n = v.get_num_si();
  return static_cast<int64_t>(n);
}

Expected<BoundsResult> solve(isl_ctx* raw, const std::vector<std::string>& indices,
                             const std::vector<RangeConstraint>& constraints,
                             const SetTexts& texts) {
  isl::ctx ctx(raw);
  BoundsResult result;
  result.indices = indices;
  isl::set all(ctx, set_text(texts, texts.ranges));
  if (all.is_empty()) {
    result.empty = true;
    result.ranges.assign(indices.size(), IndexRange{0, -1});
    return result;
  }
  std::vector<std::string> box_parts;
  for (size_t i = 0; i < indices.size(); ++i) {
    auto lo = to_int(all.dim_min_val(static_cast<int>(i)));
    auto hi = to_int(all.dim_max_val(static_cast<int>(i)));
    if (!lo || !hi) {
      return make_error(StatusCode::kTypeError,
                        "index '{}' is unbounded: it appears in no tensor access or constraint "
                        "that limits it",
                        indices[i]);
    }
    result.ranges.push_back(IndexRange{*lo, *hi});
    box_parts.push_back(fmt::format("{} <= i{} <= {}", *lo, i, *hi));
  }
  // A constraint is implied when no point of the box (with integrality) violates it.
  isl::set box(ctx, set_text(texts, box_parts));
  for (size_t c = 0; c < constraints.size(); ++c) {
    isl::set holds(ctx, set_text(SetTexts{texts.space, {}, ""}, {texts.ranges[c]}));
    if (box.subtract(holds).is_empty()) continue;
    bool duplicate = false;
    for (const auto& r : result.residual) {
      duplicate |=
          r.expr == constraints[c].expr && r.lo == constraints[c].lo && r.hi == constraints[c].hi;
    }
    if (!duplicate) result.residual.push_back(constraints[c]);
  }
  return result;
}

}  // namespace

Expected<BoundsResult> infer_bounds(const std::vector<std::string>& indices,
                                    const std::vector<RangeConstraint>& constraints,
                                    const std::vector<Affine>& integral) {
  PLAIDML_ASSIGN(SetTexts texts, make_texts(indices, constraints, integral));
  try {
    IslContext ctx;
    if (!ctx.get()) return Status(StatusCode::kOutOfMemory, "bounds inference: out of memory");
    return solve(ctx.get(), indices, constraints, texts);
  } catch (const isl::exception& e) {
    return make_error(StatusCode::kInternal, "bounds inference failed in isl: {}", e.what());
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "bounds inference: out of memory");
  }
}

}  // namespace plaidml::poly
