// Einsum: the equation becomes sum-of-products contractions (one for one or two operands, a
// chain of pairwise ones for more). A label repeated within an operand reads its diagonal. An
// ellipsis stands for right-aligned broadcast axes: their sizes must be known at import; an
// operand's size-1 axis broadcasts by being read at index 0.
#include <algorithm>
#include <map>
#include <set>

#include "ops_nn_util.h"

namespace plaidml::onnx_import::nn {
namespace {

constexpr int kEllipsisBase = 1000;  // label of ellipsis axis j: kEllipsisBase + j

int letter_label(char ch) {
  if (ch >= 'a' && ch <= 'z') return ch;
  if (ch >= 'A' && ch <= 'Z') return ch;
  invalid("Einsum equation has an invalid character '{}'", ch);
}

// The labels of one term, with "..." expanded to `ell` labels ending at kEllipsisBase + total.
std::vector<int> parse_term(const std::string& term, size_t rank, size_t* ell_rank, bool is_output,
                            size_t total_ell) {
  std::vector<int> labels;
  size_t dots = term.find("...");
  size_t letters = term.size() - (dots == std::string::npos ? 0 : 3);
  if (dots != std::string::npos && term.find("...", dots + 1) != std::string::npos) {
    invalid("Einsum term '{}' has two ellipses", term);
  }
  size_t ell = 0;
  if (dots != std::string::npos) {
    if (is_output) {
      ell = total_ell;
    } else {
      if (rank < letters) invalid("Einsum term '{}' has more labels than rank {}", term, rank);
      ell = rank - letters;
    }
  } else if (!is_output && rank != letters) {
    invalid("Einsum term '{}' has {} labels for an operand of rank {}", term, letters, rank);
  }
  if (ell_rank) *ell_rank = ell;
  for (size_t p = 0; p < term.size(); ++p) {
    if (p == dots) {
      size_t first = total_ell - ell;
      for (size_t j = 0; j < ell; ++j) labels.push_back(kEllipsisBase + static_cast<int>(first + j));
      p += 2;
      continue;
    }
    labels.push_back(letter_label(term[p]));
  }
  return labels;
}

struct Operand {
  plaidml::Tensor tensor;
  std::vector<int> labels;
  std::vector<int64_t> sizes;  // known sizes, -1 symbolic
  std::vector<plaidml::IndexExpr> dims;
};

struct Equation {
  std::vector<std::string> inputs;
  std::optional<std::string> output;
};

Equation split(std::string eq) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  Equation e;
  std::string lhs = eq;
  if (size_t arrow = eq.find("->"); arrow != std::string::npos) {
    lhs = eq.substr(0, arrow);
    e.output = eq.substr(arrow + 2);
  }
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    e.inputs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return e;
}

// One contraction: out_labels of `a` (and `b`) summed over the rest.
Operand contract(NodeContext& cx, const std::vector<const Operand*>& ops,
                 const std::vector<int>& out_labels, const std::map<int, Operand const*>& owner,
                 const std::map<int, int64_t>& label_size) {
  plaidml::Builder& b = cx.builder();
  std::map<int, plaidml::IndexExpr> idx;
  auto index_of = [&](int label) {
    auto it = idx.find(label);
    if (it == idx.end()) it = idx.emplace(label, b.index("e" + std::to_string(label))).first;
    return it->second;
  };
  Operand result{cx.tensor(0), out_labels, {}, {}};
  std::vector<plaidml::IndexExpr> out_idx;
  for (int l : out_labels) {
    const Operand* o = owner.at(l);
    size_t pos = std::find(o->labels.begin(), o->labels.end(), l) - o->labels.begin();
    result.dims.push_back(o->dims[pos]);
    result.sizes.push_back(label_size.at(l));
    out_idx.push_back(index_of(l));
  }
  std::vector<plaidml::Access> accesses;
  for (const Operand* o : ops) {
    std::vector<plaidml::IndexExpr> in;
    for (size_t p = 0; p < o->labels.size(); ++p) {
      // A size-1 axis against a larger label size broadcasts: read at 0.
      bool bcast = o->sizes[p] == 1 && label_size.at(o->labels[p]) != 1;
      in.push_back(bcast ? cx.literal(0) : index_of(o->labels[p]));
    }
    accesses.emplace_back(o->tensor, in);
  }
  plaidml::Contraction c = b.contraction(result.dims);
  if (accesses.size() == 1) {
    plaidml::OutputAccess(&c, out_idx) += accesses[0];
  } else {
    plaidml::OutputAccess(&c, out_idx) += accesses[0] * accesses[1];
  }
  result.tensor = c;
  return result;
}

}  // namespace

void einsum(NodeContext& cx) {
  cx.check_attrs({"equation"});
  if (!cx.has_attr("equation")) invalid("attribute 'equation' is required");
  Equation eq = split(cx.attr_string("equation", ""));
  size_t n = cx.input_count();
  if (eq.inputs.size() != n || n == 0) {
    invalid("Einsum equation has {} operands, the node {}", eq.inputs.size(), n);
  }
  cx.require_dtype(0, numeric_types());
  size_t total_ell = 0;
  for (size_t i = 0; i < n; ++i) {
    if (cx.dtype(i) != cx.dtype(0)) invalid("Einsum operands have different types");
    size_t ell = 0;
    parse_term(eq.inputs[i], cx.rank(i), &ell, false, 0);
    total_ell = std::max(total_ell, ell);
  }
  std::vector<Operand> ops;
  std::map<int, int> count;
  std::map<int, int64_t> label_size;
  for (size_t i = 0; i < n; ++i) {
    Operand o{cx.tensor(i), parse_term(eq.inputs[i], cx.rank(i), nullptr, false, total_ell), {}, {}};
    for (size_t p = 0; p < o.labels.size(); ++p) {
      int l = o.labels[p];
      int64_t s = cx.size(i, p);
      o.sizes.push_back(s);
      o.dims.push_back(cx.dim(i, p));
      ++count[l];
      auto [it, fresh] = label_size.emplace(l, s);
      if (fresh) continue;
      if (l >= kEllipsisBase && (s < 0 || it->second < 0)) {
        unsupported("Einsum broadcasts ellipsis axes of sizes unknown at import");
      }
      if (it->second == 1 && l >= kEllipsisBase) {
        it->second = s;
      } else if (s >= 0 && it->second >= 0 && s != it->second && !(l >= kEllipsisBase && s == 1)) {
        invalid("Einsum label sizes differ ({} and {})", it->second, s);
      } else if (it->second < 0) {
        it->second = s;
      }
    }
    ops.push_back(o);
  }
  std::vector<int> out_labels;
  if (eq.output) {
    out_labels = parse_term(*eq.output, 0, nullptr, true, total_ell);
    std::set<int> seen;
    for (int l : out_labels) {
      if (!count.count(l)) invalid("Einsum output label is not in any input");
      if (!seen.insert(l).second) invalid("Einsum output repeats a label");
    }
  } else {
    for (size_t j = 0; j < total_ell; ++j) out_labels.push_back(kEllipsisBase + static_cast<int>(j));
    for (auto [l, c] : count) {  // std::map: ASCII order, as numpy
      if (l < kEllipsisBase && c == 1) out_labels.push_back(l);
    }
  }
  // The operand that provides each label's size: one where it is not a broadcast 1.
  std::map<int, const Operand*> owner;
  // Contract left to right, keeping the labels still needed (output or later operands).
  Operand acc = ops[0];
  for (size_t i = 0; i < n; ++i) {
    std::vector<const Operand*> pair = {&acc};
    if (i > 0) pair.push_back(&ops[i]);
    else if (n > 1) continue;
    std::set<int> needed(out_labels.begin(), out_labels.end());
    for (size_t j = i + 1; j < n; ++j) needed.insert(ops[j].labels.begin(), ops[j].labels.end());
    std::vector<int> keep;
    owner.clear();
    for (const Operand* o : pair) {
      for (size_t p = 0; p < o->labels.size(); ++p) {
        int l = o->labels[p];
        bool big = o->sizes[p] != 1 || label_size.at(l) == 1;
        if (big && !owner.count(l)) owner[l] = o;
        if (i + 1 < n && needed.count(l) &&
            std::find(keep.begin(), keep.end(), l) == keep.end()) {
          keep.push_back(l);
        }
      }
    }
    acc = contract(cx, pair, i + 1 < n ? keep : out_labels, owner, label_size);
  }
  cx.set_output(0, acc.tensor, cx.dtype(0));
}

}  // namespace plaidml::onnx_import::nn
