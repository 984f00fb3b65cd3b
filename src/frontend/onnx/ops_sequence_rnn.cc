// RNN, GRU and LSTM, unrolled over the time steps (the sequence length must be known at import):
// each step is a few small contractions (input and recurrent projections of every gate at once)
// and elementwise gate arithmetic. Directions forward, reverse and bidirectional; the layout
// attribute; activations with their alpha/beta; clip; GRU's linear_before_reset; LSTM's
// peepholes. sequence_lens (known or not) masks the steps at or beyond each batch entry's length:
// their Y rows are 0 and the state is carried through unchanged, so Y_h/Y_c hold the state after
// the entry's last step (the reverse direction starts at the entry's last element).
#include <algorithm>
#include <cctype>

#include "ops_sequence_util.h"

namespace plaidml::onnx_import::sequence {
namespace {

using plaidml::Tensor;

// One activation function with its parameters.
struct Act {
  std::string name;  // lower case
  double alpha = 0;
  double beta = 0;
};

bool takes_alpha(const std::string& n) {
  return n == "affine" || n == "leakyrelu" || n == "thresholdedrelu" || n == "scaledtanh" ||
         n == "hardsigmoid" || n == "elu";
}
bool takes_beta(const std::string& n) {
  return n == "affine" || n == "scaledtanh" || n == "hardsigmoid";
}

// Defaults of the parameters (those of the ONNX operators of the same name); Affine and
// ScaledTanh have none that implementations agree on, so they need explicit values.
Act make_act(std::string name, const double* alpha, const double* beta) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::vector<std::string> known = {"relu",     "tanh",        "sigmoid",
                                                 "affine",   "leakyrelu",   "thresholdedrelu",
                                                 "scaledtanh", "hardsigmoid", "elu",
                                                 "softsign", "softplus"};
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    unsupported("activation '{}' is not supported", name);
  }
  Act a{name};
  if (name == "leakyrelu") a.alpha = 0.01;
  if (name == "thresholdedrelu" || name == "elu") a.alpha = 1.0;
  if (name == "hardsigmoid") a.alpha = 0.2, a.beta = 0.5;
  if ((name == "affine" || name == "scaledtanh") && (alpha == nullptr || beta == nullptr)) {
    unsupported("activation '{}' needs explicit activation_alpha and activation_beta", name);
  }
  if (alpha) a.alpha = *alpha;
  if (beta) a.beta = *beta;
  return a;
}

Tensor apply(NodeContext& cx, plaidml_dtype dt, const Act& a, const Tensor& x) {
  const std::string& n = a.name;
  auto k = [&](double v) { return scalar(cx, dt, v); };
  if (n == "relu") return plaidml::relu(x);
  if (n == "tanh") return plaidml::tanh(x);
  if (n == "sigmoid") return plaidml::sigmoid(x);
  if (n == "affine") return x * a.alpha + a.beta;
  if (n == "leakyrelu") return plaidml::select(x < 0.0, x * a.alpha, x);
  if (n == "thresholdedrelu") return plaidml::select(x > a.alpha, x, k(0));
  if (n == "scaledtanh") return plaidml::tanh(x * a.beta) * a.alpha;
  if (n == "hardsigmoid") {
    Tensor t = x * a.alpha + a.beta;
    t = plaidml::select(t < 0.0, k(0), t);
    return plaidml::select(t > 1.0, k(1), t);
  }
  if (n == "elu") return plaidml::select(x < 0.0, (plaidml::exp(x) - 1.0) * a.alpha, x);
  if (n == "softsign") return x / (plaidml::abs(x) + 1.0);
  // softplus: max(x, 0) + log(1 + exp(-|x|)), which never overflows.
  return plaidml::relu(x) + plaidml::log(plaidml::exp(-plaidml::abs(x)) + 1.0);
}

enum class Kind { kRnn, kGru, kLstm };

struct Spec {
  Kind kind = Kind::kRnn;
  size_t gates = 1;      // 1, 3, 4
  size_t fns = 1;        // activations per direction: 1, 2, 3
  int64_t dirs = 1;   // 1 or 2
  bool reverse = false;  // a single reverse direction
  int64_t hidden = 0;
  int64_t steps = 0;
  bool batch_first = false;  // layout 1
  std::optional<double> clip;
  bool linear_before_reset = false;
  std::vector<std::vector<Act>> acts;  // per direction
};

// activations / activation_alpha / activation_beta, as lists over both directions. A parameter
// list given when some activation does not take that parameter is ambiguous (positional or
// consumed in order?), so it is refused.
void read_acts(NodeContext& cx, Spec& s, const std::vector<std::string>& defaults) {
  std::vector<std::string> names;
  if (cx.has_attr("activations")) {
    for (const auto& a : cx.node().attribute()) {
      if (a.name() == "activations") names.assign(a.strings().begin(), a.strings().end());
    }
    if (names.size() != s.fns * static_cast<size_t>(s.dirs)) {
      invalid("attribute 'activations' has {} entries; {} needed", names.size(),
              s.fns * static_cast<size_t>(s.dirs));
    }
  } else {
    for (int64_t d = 0; d < s.dirs; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  std::vector<double> alphas = cx.attr_floats("activation_alpha");
  std::vector<double> betas = cx.attr_floats("activation_beta");
  auto lower = [](std::string n) {
    std::transform(n.begin(), n.end(), n.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return n;
  };
  for (const auto& n : names) {
    if (!alphas.empty() && !takes_alpha(lower(n))) {
      unsupported("activation_alpha with activation '{}' (which takes none) is ambiguous", n);
    }
    if (!betas.empty() && !takes_beta(lower(n))) {
      unsupported("activation_beta with activation '{}' (which takes none) is ambiguous", n);
    }
  }
  if ((!alphas.empty() && alphas.size() != names.size()) ||
      (!betas.empty() && betas.size() != names.size())) {
    unsupported("activation_alpha/activation_beta must have one value per activation");
  }
  s.acts.assign(s.dirs, {});
  for (size_t i = 0; i < names.size(); ++i) {
    s.acts[i / s.fns].push_back(make_act(names[i], alphas.empty() ? nullptr : &alphas[i],
                                         betas.empty() ? nullptr : &betas[i]));
  }
}

Spec read_spec(NodeContext& cx, Kind kind) {
  Spec s;
  s.kind = kind;
  s.gates = kind == Kind::kRnn ? 1 : kind == Kind::kGru ? 3 : 4;
  s.fns = kind == Kind::kRnn ? 1 : kind == Kind::kGru ? 2 : 3;
  std::vector<std::string> known = {"activation_alpha", "activation_beta", "activations", "clip",
                                    "direction", "hidden_size"};
  if (cx.version() >= 14) known.push_back("layout");
  if (kind == Kind::kGru) known.push_back("linear_before_reset");
  if (kind == Kind::kLstm) known.push_back("input_forget");
  cx.check_attrs(known);
  if (cx.attr_int("input_forget", 0) != 0) unsupported("input_forget=1 is not supported");
  std::string dir = cx.attr_string("direction", "forward");
  if (dir == "bidirectional") {
    s.dirs = 2;
  } else if (dir == "reverse") {
    s.reverse = true;
  } else if (dir != "forward") {
    invalid("attribute 'direction' is '{}'", dir);
  }
  int64_t layout = cx.attr_int("layout", 0);
  if (layout != 0 && layout != 1) invalid("attribute 'layout' must be 0 or 1");
  s.batch_first = layout == 1;
  if (cx.has_attr("clip")) {
    s.clip = cx.attr_float("clip", 0);
    if (!(*s.clip > 0)) invalid("attribute 'clip' must be positive");
  }
  s.linear_before_reset = cx.attr_int("linear_before_reset", 0) != 0;
  // hidden_size: the attribute, else R's last dim.
  int64_t r_hidden = cx.rank(2) == 3 ? cx.size(2, 2) : -1;
  s.hidden = cx.attr_int("hidden_size", r_hidden);
  if (s.hidden <= 0) unsupported("hidden_size must be known at import (the attribute or R's shape)");
  if (r_hidden >= 0 && r_hidden != s.hidden) invalid("R's last dim is not hidden_size");
  if (cx.rank(0) != 3 || cx.rank(1) != 3 || cx.rank(2) != 3) invalid("X, W and R must be 3-D");
  s.steps = cx.size(0, s.batch_first ? 1 : 0);
  if (s.steps < 0) unsupported("the sequence length must be known at import (it is unrolled)");
  if (s.steps == 0) unsupported("an empty sequence is not supported");
  int64_t wd = cx.size(1, 0), wn = cx.size(1, 1);
  if ((wd >= 0 && wd != s.dirs) ||
      (wn >= 0 && wn != static_cast<int64_t>(s.gates) * s.hidden)) {
    invalid("W has shape [{}, {}, _], expected [{}, {}, _]", wd, wn, s.dirs,
            static_cast<int64_t>(s.gates) * s.hidden);
  }
  if (kind == Kind::kRnn) read_acts(cx, s, {"Tanh"});
  if (kind == Kind::kGru) read_acts(cx, s, {"Sigmoid", "Tanh"});
  if (kind == Kind::kLstm) read_acts(cx, s, {"Sigmoid", "Tanh", "Tanh"});
  return s;
}

// The converter's state: inputs, widened to the compute dtype.
struct Ctx {
  NodeContext& cx;
  const Spec& s;
  plaidml_dtype dtype;  // compute dtype
  Tensor x, w, r;
  std::optional<Tensor> bias;     // [D, 2*G*H]
  std::optional<Tensor> lens;     // [B] int
  std::optional<Tensor> h0, c0;   // [D, B, H] or [B, D, H]
  std::optional<Tensor> peep;     // [D, 3H]
  plaidml::IndexExpr batch;
  std::optional<Tensor> zeros;  // [B, H]
};

// X at step t: [B, I].
Tensor step_input(Ctx& c, int64_t t) {
  auto ix = indices(c.cx, "x", 2);
  Tensor& x = c.x;
  plaidml::Contraction k = c.cx.builder().contraction({c.batch, x.dim(2)});
  if (c.s.batch_first) {
    k(ix[0], ix[1]) = x(ix[0], t, ix[1]);
  } else {
    k(ix[0], ix[1]) = x(t, ix[0], ix[1]);
  }
  return k;
}

// out[b, n] = sum_k a[b, k] * m[d, off + n, k], n < count: a gate block of a projection.
Tensor project(Ctx& c, const Tensor& a, const Tensor& m, int64_t d, int64_t off, int64_t count) {
  auto ix = indices(c.cx, "p", 3);
  plaidml::Contraction k = c.cx.builder().contraction({a.dim(0), c.cx.literal(count)});
  k(ix[0], ix[1]) += a(ix[0], ix[2]) * m(d, ix[1] + off, ix[2]);
  return k;
}

// v[d, off + n], n < count: a 1-D piece of a bias or peephole row.
Tensor row(Ctx& c, const Tensor& v, int64_t d, int64_t off, int64_t count) {
  auto ix = indices(c.cx, "r", 1);
  plaidml::Contraction k = c.cx.builder().contraction({c.cx.literal(count)});
  k(ix[0]) = v(d, ix[0] + off);
  return k;
}

// The initial state of direction d ([B, H]); zeros when absent.
Tensor initial(Ctx& c, const std::optional<Tensor>& s0, int64_t d) {
  if (!s0) return *c.zeros;
  auto ix = indices(c.cx, "i", 2);
  plaidml::Contraction k = c.cx.builder().contraction({c.batch, c.cx.literal(c.s.hidden)});
  if (c.s.batch_first) {
    k(ix[0], ix[1]) = (*s0)(ix[0], d, ix[1]);
  } else {
    k(ix[0], ix[1]) = (*s0)(d, ix[0], ix[1]);
  }
  return k;
}

Tensor act(Ctx& c, int64_t d, size_t i, Tensor x) {
  if (c.s.clip) {
    double v = *c.s.clip;
    x = plaidml::select(x < -v, scalar(c.cx, c.dtype, -v), x);
    x = plaidml::select(x > v, scalar(c.cx, c.dtype, v), x);
  }
  return apply(c.cx, c.dtype, c.s.acts[d][i], x);
}

// Gate block g (of G) of the input plus recurrent projections with both biases.
struct StepIn {
  Tensor xt, h;
};
Tensor gate(Ctx& c, const StepIn& in, int64_t d, int64_t g, bool with_recurrent = true) {
  int64_t H = c.s.hidden, G = static_cast<int64_t>(c.s.gates);
  Tensor v = project(c, in.xt, c.w, d, g * H, H);
  if (with_recurrent) v = v + project(c, in.h, c.r, d, g * H, H);
  if (c.bias) {
    v = v + row(c, *c.bias, d, g * H, H);
    if (with_recurrent) v = v + row(c, *c.bias, d, (G + g) * H, H);
  }
  return v;
}

struct State {
  Tensor h;
  std::optional<Tensor> c;
};

State rnn_step(Ctx& c, const StepIn& in, const State&, int64_t d) {
  return {act(c, d, 0, gate(c, in, d, 0)), std::nullopt};
}

// GRU gates z, r, h (W/R rows in that order).
State gru_step(Ctx& c, const StepIn& in, const State&, int64_t d) {
  int64_t H = c.s.hidden, G = 3;
  Tensor z = act(c, d, 0, gate(c, in, d, 0));
  Tensor r = act(c, d, 0, gate(c, in, d, 1));
  Tensor hx = gate(c, in, d, 2, /*with_recurrent=*/false);  // Xt*Wh + Wbh
  // The recurrent part of h: (r * H) * Rh + Rbh, or r * (H * Rh + Rbh) linear before reset.
  Tensor hh = project(c, c.s.linear_before_reset ? in.h : r * in.h, c.r, d, 2 * H, H);
  if (c.bias) hh = hh + row(c, *c.bias, d, (G + 2) * H, H);
  if (c.s.linear_before_reset) hh = r * hh;
  Tensor ht = act(c, d, 1, hx + hh);
  return {(1.0 - z) * ht + z * in.h, std::nullopt};
}

// LSTM gates i, o, f, c (W/R rows in that order); peepholes P = [Pi, Po, Pf].
State lstm_step(Ctx& c, const StepIn& in, const State& prev, int64_t d) {
  int64_t H = c.s.hidden;
  Tensor gi = gate(c, in, d, 0), go = gate(c, in, d, 1), gf = gate(c, in, d, 2);
  Tensor gc = gate(c, in, d, 3);
  if (c.peep) {
    gi = gi + row(c, *c.peep, d, 0, H) * *prev.c;
    gf = gf + row(c, *c.peep, d, 2 * H, H) * *prev.c;
  }
  Tensor i = act(c, d, 0, gi), f = act(c, d, 0, gf), cc = act(c, d, 1, gc);
  Tensor ct = f * *prev.c + i * cc;
  if (c.peep) go = go + row(c, *c.peep, d, H, H) * ct;
  Tensor o = act(c, d, 0, go);
  return {o * act(c, d, 2, ct), ct};
}

// Runs direction d over every step; ys[t] is the [B, H] output of step t (in time order).
State run_direction(Ctx& c, int64_t d, bool backward, std::vector<Tensor>& ys) {
  State st{initial(c, c.h0, d), std::nullopt};
  if (c.s.kind == Kind::kLstm) st.c = initial(c, c.c0, d);
  ys.assign(c.s.steps, st.h);
  for (int64_t k = 0; k < c.s.steps; ++k) {
    int64_t t = backward ? c.s.steps - 1 - k : k;
    StepIn in{step_input(c, t), st.h};
    State next = c.s.kind == Kind::kRnn   ? rnn_step(c, in, st, d)
                 : c.s.kind == Kind::kGru ? gru_step(c, in, st, d)
                                          : lstm_step(c, in, st, d);
    if (c.lens) {
      // valid[b] = t < lens[b], as [B, 1] broadcast over the hidden units.
      Tensor valid = plaidml::reshape(*c.lens > t, {c.batch, c.cx.literal(1)});
      ys[t] = plaidml::select(valid, next.h, *c.zeros);
      next.h = plaidml::select(valid, next.h, st.h);
      if (next.c) next.c = plaidml::select(valid, *next.c, *st.c);
    } else {
      ys[t] = next.h;
    }
    st = next;
  }
  return st;
}

void load_inputs(Ctx& c) {
  NodeContext& cx = c.cx;
  auto opt = [&](size_t i) -> std::optional<Tensor> {
    if (!cx.has_input(i)) return std::nullopt;
    if (cx.dtype(i) != cx.dtype(0)) invalid("input {} must have X's type", i);
    return widen(cx.tensor(i), cx.dtype(0));
  };
  c.bias = opt(3);
  c.h0 = opt(5);
  if (c.s.kind == Kind::kLstm) {
    c.c0 = opt(6);
    c.peep = opt(7);
  }
  if (cx.has_input(4)) {
    cx.require_dtype(4, {PLAIDML_DTYPE_INT32});
    auto known = cx.known_ints(4);
    bool full = known && std::all_of(known->begin(), known->end(),
                                     [&](int64_t v) { return v == c.s.steps; });
    if (known && !full) {
      for (int64_t v : *known) {
        if (v < 0 || v > c.s.steps) invalid("sequence_lens value {} is out of [0, {}]", v, c.s.steps);
      }
    }
    if (!full) c.lens = cx.tensor(4);
  }
}

// Stacks the per-step, per-direction [B, H] outputs into Y and the final states into Y_h / Y_c.
void set_outputs(Ctx& c, const std::vector<std::vector<Tensor>>& ys,
                 const std::vector<State>& finals, plaidml_dtype dtype) {
  NodeContext& cx = c.cx;
  auto one = cx.literal(1), hid = cx.literal(c.s.hidden);
  bool bf = c.s.batch_first;
  if (cx.wants_output(0)) {
    std::vector<Tensor> per_t;
    for (int64_t t = 0; t < c.s.steps; ++t) {
      std::vector<Tensor> per_d;
      for (int64_t d = 0; d < c.s.dirs; ++d) {
        per_d.push_back(bf ? plaidml::reshape(ys[d][t], {c.batch, one, one, hid})
                           : plaidml::reshape(ys[d][t], {one, one, c.batch, hid}));
      }
      per_t.push_back(concat(per_d, bf ? 2 : 1));
    }
    cx.set_output(0, narrow(concat(per_t, bf ? 1 : 0), dtype), dtype);
  }
  for (size_t out = 1; out <= 2; ++out) {
    if (!cx.wants_output(out)) continue;
    if (out == 2 && c.s.kind != Kind::kLstm) invalid("this operator has no output Y_c");
    std::vector<Tensor> per_d;
    for (int64_t d = 0; d < c.s.dirs; ++d) {
      const Tensor& v = out == 1 ? finals[d].h : *finals[d].c;
      per_d.push_back(bf ? plaidml::reshape(v, {c.batch, one, hid})
                         : plaidml::reshape(v, {one, c.batch, hid}));
    }
    cx.set_output(out, narrow(concat(per_d, bf ? 1 : 0), dtype), dtype);
  }
}

void recurrent(NodeContext& cx, Kind kind) {
  cx.require_dtype(0, float_types());
  for (size_t i : {1, 2}) {
    if (cx.dtype(i) != cx.dtype(0)) invalid("W and R must have X's type");
  }
  Spec s = read_spec(cx, kind);
  plaidml_dtype dtype = cx.dtype(0);
  Tensor x = widen(cx.tensor(0), dtype);
  Ctx c{cx, s, compute_dtype(dtype), x, widen(cx.tensor(1), dtype), widen(cx.tensor(2), dtype),
        {}, {}, {}, {}, {}, x.dim(s.batch_first ? 0 : 1), {}};
  load_inputs(c);
  {
    auto ix = indices(cx, "z", 2);
    plaidml::Contraction k = cx.builder().contraction({c.batch, cx.literal(s.hidden)});
    Tensor zero = scalar(cx, c.dtype, 0.0);
    plaidml::OutputAccess(&k, ix) = plaidml::Access(zero, {});
    c.zeros = k;
  }
  std::vector<std::vector<Tensor>> ys(s.dirs);
  std::vector<State> finals;
  for (int64_t d = 0; d < s.dirs; ++d) {
    bool backward = s.reverse || d == 1;
    finals.push_back(run_direction(c, d, backward, ys[d]));
  }
  set_outputs(c, ys, finals, dtype);
}

void rnn(NodeContext& cx) { recurrent(cx, Kind::kRnn); }
void gru(NodeContext& cx) { recurrent(cx, Kind::kGru); }
void lstm(NodeContext& cx) { recurrent(cx, Kind::kLstm); }

}  // namespace

std::vector<ConverterEntry> rnn_converters() {
  return {
      {"RNN", {7, 14, 22}, rnn},
      {"GRU", {7, 14, 22}, gru},
      {"LSTM", {7, 14, 22}, lstm},
  };
}

}  // namespace plaidml::onnx_import::sequence
