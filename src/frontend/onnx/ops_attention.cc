// Attention (versions 23, 24, 25), following onnx's reference (onnx/reference/ops/op_attention.py)
// step by step: Q and K scaled by sqrt(scale) in T1, present K/V = past ++ new along the sequence
// axis, scores = Q K^T as one contraction (grouped-query heads read their shared K/V head: Q is
// viewed as [B, kv_heads, group, S, D]), softcap, an additive bias (the mask, causal and window
// frontiers, the nonpad padding: 0 or -inf), a softmax that maps an all -inf row to zeros, the
// fully-masked-row guard decided on the bias, and P V as a second contraction.
#include "ops_attention_util.h"

namespace plaidml::onnx_import {
namespace attention {
namespace {

using plaidml::IndexExpr;
using plaidml::Tensor;

// Q, K or V as [B, heads, S, head size], with its dims.
struct Heads {
  Tensor t;
  std::vector<IndexExpr> dims;  // B, H, S, D
  int64_t head_size = -1;       // D when known
};

// A 3-D input [B, S, H * D] becomes [B, H, S, D]; a 4-D one is taken as it is.
Heads to_4d(NodeContext& cx, size_t i, int64_t heads) {
  if (cx.rank(i) == 4) return {cx.tensor(i), dims_of(cx, i), cx.size(i, 3)};
  int64_t hidden = cx.size(i, 2);
  if (hidden >= 0 && hidden % heads != 0) {
    invalid("input {}'s hidden size {} is not a multiple of its {} heads", i, hidden, heads);
  }
  if (hidden < 0) {  // else the reshape into heads would fail at bind with a message of its own
    cx.require(PLAIDML_ASSERT_MULTIPLE, cx.dim(i, 2), cx.literal(heads),
               fmt::format("input {}'s hidden size {{0}} is not a multiple of its {} heads", i,
                           heads),
               {cx.dim(i, 2)});
  }
  int64_t d = hidden >= 0 ? hidden / heads : -1;
  IndexExpr dd = d >= 0 ? cx.literal(d) : cx.dim(i, 2) / heads;
  Tensor t = plaidml::reshape(cx.tensor(i), {cx.dim(i, 0), cx.dim(i, 1), cx.literal(heads), dd});
  t = plaidml::op("transpose", {t}, plaidml::Attrs().set("perm", std::vector<int64_t>{0, 2, 1, 3}));
  return {t, {cx.dim(i, 0), cx.literal(heads), cx.dim(i, 1), dd}, d};
}

struct Config {
  plaidml_dtype dt;           // T1: Q, K, Y
  int64_t q_heads, kv_heads;  // known at import
  bool is_3d;
  bool causal;
  int64_t left = -1, right = -1;  // window bounds (version 25), -1 unbounded
  double softcap;
  int64_t mode;              // qk_matmul_output_mode
  plaidml_dtype softmax_dt;  // softmax_precision (dt when absent)
};

plaidml_dtype softmax_dtype(NodeContext& cx, plaidml_dtype dt) {
  if (!cx.has_attr("softmax_precision")) return dt;
  switch (cx.attr_int("softmax_precision", 1)) {
    case 1: return PLAIDML_DTYPE_FLOAT32;
    case 10: return PLAIDML_DTYPE_FLOAT16;
    case 11: return PLAIDML_DTYPE_FLOAT64;
    case 16: return PLAIDML_DTYPE_BFLOAT16;
    default:
      invalid("softmax_precision {} is not 1, 10, 11 or 16", cx.attr_int("softmax_precision", 1));
  }
}

// Head counts: attributes for 3-D inputs, Q's and K's axis 1 for 4-D ones (known at import).
void read_heads(NodeContext& cx, Config& c) {
  bool has_q = cx.has_attr("q_num_heads"), has_kv = cx.has_attr("kv_num_heads");
  if (c.is_3d) {
    if (!has_q || !has_kv) invalid("3-D Q, K, V need q_num_heads and kv_num_heads");
    c.q_heads = cx.attr_int("q_num_heads", 0);
    c.kv_heads = cx.attr_int("kv_num_heads", 0);
  } else {
    if (cx.version() >= 25 && (has_q || has_kv)) {
      invalid("q_num_heads and kv_num_heads must not be given for 4-D inputs");
    }
    c.q_heads = cx.size(0, 1);
    c.kv_heads = cx.size(1, 1);
    if (c.q_heads < 0 || c.kv_heads < 0) {
      unsupported("Attention with head counts (axis 1 of Q and K) unknown at import");
    }
    // Versions 23/24 read the attributes for 4-D inputs too: only agreeing ones are imported.
    if ((has_q && cx.attr_int("q_num_heads", 0) != c.q_heads) ||
        (has_kv && cx.attr_int("kv_num_heads", 0) != c.kv_heads)) {
      unsupported(
          "Attention with q_num_heads/kv_num_heads that differ from "
          "the 4-D inputs' heads");
    }
  }
  if (c.q_heads < 1 || c.kv_heads < 1) invalid("head counts must be 1 or more");
  if (c.q_heads % c.kv_heads != 0) {
    invalid("q_num_heads {} is not a multiple of kv_num_heads {}", c.q_heads, c.kv_heads);
  }
  if (!c.is_3d && cx.size(2, 1) >= 0 && cx.size(2, 1) != c.kv_heads) {
    invalid("K has {} heads but V has {}", c.kv_heads, cx.size(2, 1));
  }
}

Config read_config(NodeContext& cx) {
  std::vector<std::string> known = {
      "is_causal", "kv_num_heads", "q_num_heads",      "qk_matmul_output_mode",
      "scale",     "softcap",      "softmax_precision"};
  if (cx.version() >= 25) {
    known.push_back("left_window_size");
    known.push_back("right_window_size");
  }
  cx.check_attrs(known);
  Config c;
  cx.require_dtype(0, float_types());
  c.dt = cx.dtype(0);
  if (cx.dtype(1) != c.dt) invalid("Q and K must have one type");
  cx.require_dtype(2, float_types());
  if (cx.dtype(2) != c.dt) {
    unsupported(
        "Attention with V of type {} and Q of type {} (the reference "
        "promotes them)",
        dtype_text(cx.dtype(2)), dtype_text(c.dt));
  }
  size_t rank = cx.rank(0);
  if (rank != 3 && rank != 4) invalid("Q must have rank 3 or 4, but it has rank {}", rank);
  if (cx.rank(1) != rank || cx.rank(2) != rank) invalid("Q, K and V must have one rank");
  c.is_3d = rank == 3;
  read_heads(cx, c);
  c.causal = cx.attr_int("is_causal", 0) != 0;
  c.left = cx.attr_int("left_window_size", -1);
  c.right = cx.attr_int("right_window_size", -1);
  if (c.left < -1 || c.right < -1) invalid("window sizes must be -1 or more");
  c.softcap = cx.attr_float("softcap", 0.0);
  c.mode = cx.attr_int("qk_matmul_output_mode", 0);
  if (c.mode < 0 || c.mode > 3) invalid("qk_matmul_output_mode {} is not 0..3", c.mode);
  if (c.mode == 0 && c.softcap > 0 && cx.wants_output(3)) {
    // The spec says the raw product, the reference returns it soft-capped.
    unsupported(
        "Attention qk_matmul_output mode 0 with softcap (spec and "
        "reference disagree)");
  }
  c.softmax_dt = softmax_dtype(cx, c.dt);
  return c;
}

// S[b, g*R + r, i, j] = sum_d Q[b, g*R + r, i, d] K[b, g, j, d] (R = q heads per kv head).
Tensor scores(NodeContext& cx, const Config& c, const Heads& q, const Heads& k) {
  plaidml::Builder& b = cx.builder();
  int64_t r = c.q_heads / c.kv_heads;
  IndexExpr bb = q.dims[0], g = cx.literal(c.kv_heads), rr = cx.literal(r), sq = q.dims[2],
            skv = k.dims[2];
  Tensor q5 = plaidml::reshape(q.t, {bb, g, rr, sq, q.dims[3]});
  auto ib = b.index("b"), ig = b.index("g"), ir = b.index("r"), ii = b.index("i"),
       ij = b.index("j"), id = b.index("d");
  plaidml::Contraction s = b.contraction({bb, g, rr, sq, skv});
  plaidml::OutputAccess(&s, {ib, ig, ir, ii, ij}) +=
      plaidml::Access(q5, {ib, ig, ir, ii, id}) * plaidml::Access(k.t, {ib, ig, ij, id});
  return plaidml::reshape(s, {bb, cx.literal(c.q_heads), sq, skv});
}

// Y = P V, as [B, H, S, Dv] (4-D inputs) or [B, S, H * Dv] (3-D).
Tensor weighted(NodeContext& cx, const Config& c, const Tensor& p, const Heads& q, const Heads& v) {
  plaidml::Builder& b = cx.builder();
  int64_t r = c.q_heads / c.kv_heads;
  IndexExpr bb = q.dims[0], g = cx.literal(c.kv_heads), rr = cx.literal(r), sq = q.dims[2],
            skv = v.dims[2], dv = v.dims[3];
  Tensor p5 = plaidml::reshape(p, {bb, g, rr, sq, skv});
  auto ib = b.index("b"), ig = b.index("g"), ir = b.index("r"), ii = b.index("i"),
       ij = b.index("j"), ie = b.index("e");
  std::vector<IndexExpr> out_idx = {ib, ig, ir, ii, ie}, out_dims = {bb, g, rr, sq, dv};
  if (c.is_3d) {  // written directly in [B, S, kv_heads, R, Dv] order
    out_idx = {ib, ii, ig, ir, ie};
    out_dims = {bb, sq, g, rr, dv};
  }
  plaidml::Contraction y = b.contraction(out_dims);
  plaidml::OutputAccess(&y, out_idx) +=
      plaidml::Access(p5, {ib, ig, ir, ii, ij}) * plaidml::Access(v.t, {ib, ig, ij, ie});
  if (c.is_3d) return plaidml::reshape(y, {bb, sq, cx.literal(c.q_heads) * dv});
  return plaidml::reshape(y, {bb, cx.literal(c.q_heads), sq, dv});
}

// attn_mask as an additive bias in T1 (bool: True 0, False -inf), its last axis padded to the key
// count with -inf as the reference does.
Tensor mask_bias(NodeContext& cx, const Config& c, const IndexExpr& skv, int64_t skv_known) {
  plaidml_dtype mdt = cx.dtype(3);
  size_t rank = cx.rank(3);
  if (rank < 1 || rank > 4) invalid("attn_mask must have rank 1 to 4, but it has rank {}", rank);
  Tensor neg_inf = scalar(cx, c.dt, -INFINITY);
  Tensor m = cx.tensor(3);
  if (mdt == PLAIDML_DTYPE_BOOL) {
    m = plaidml::select(m, scalar(cx, c.dt, 0.0), neg_inf);
  } else if (mdt != c.dt) {
    unsupported("attn_mask of type {} with Q of type {} (only bool or Q's type)", dtype_text(mdt),
                dtype_text(c.dt));
  }
  // Right-aligned, each known mask dim is 1 or the scores' [B, H, Sq] dim (keys: checked below).
  std::vector<int64_t> want = {cx.size(0, 0), c.q_heads, cx.size(0, c.is_3d ? 1 : 2)};
  for (size_t a = 0; a + 1 < rank; ++a) {
    int64_t m_size = cx.size(3, a), s_size = want[want.size() - (rank - 1) + a];
    if (m_size >= 0 && m_size != 1 && s_size >= 0 && m_size != s_size) {
      invalid("attn_mask dim {} of size {} does not broadcast to the scores' {}", a, m_size,
              s_size);
    }
  }
  int64_t len = cx.size(3, rank - 1);
  if (len >= 0 && skv_known >= 0 && len > skv_known) {
    invalid("attn_mask covers {} keys, more than the {} keys", len, skv_known);
  }
  if (len >= 0 && len == skv_known) return m;
  // out[..., j] = m[..., j] where j is in m, else the default -inf.
  plaidml::Builder& b = cx.builder();
  std::vector<IndexExpr> idx, dims = dims_of(cx, 3);
  for (size_t a = 0; a < rank; ++a) idx.push_back(b.index("m" + std::to_string(a)));
  dims[rank - 1] = skv;
  plaidml::Contraction pad = b.contraction(dims);
  pad.set_default(neg_inf);
  plaidml::OutputAccess(&pad, idx) = plaidml::Access(m, idx);
  return pad;
}

// Where key j is allowed for query i by the causal and window frontiers and the nonpad padding
// (nullopt when none applies). `s` gives the index shape [B, H, Sq, Skv].
std::optional<Tensor> frontier(NodeContext& cx, const Config& c, const Tensor& s,
                               const IndexExpr& sq, bool has_past) {
  bool nonpad = cx.has_input(6);
  bool window = c.left >= 0 || c.right >= 0;
  if (!c.causal && !window && !nonpad) return std::nullopt;
  Tensor i = plaidml::index(s, 2), j = plaidml::index(s, 3);
  // The query block's offset: past length, nonpad - Sq per batch, or 0.
  std::optional<Tensor> lens, offset;
  if (nonpad) {
    if (cx.dtype(6) != PLAIDML_DTYPE_INT64) invalid("nonpad_kv_seqlen must be int64");
    if (cx.rank(6) != 1) invalid("nonpad_kv_seqlen must have rank 1");
    IndexExpr one = cx.literal(1);
    lens = plaidml::reshape(cx.tensor(6), {cx.dim(6, 0), one, one, one});
    offset = *lens - size_value(sq);
  } else if (has_past) {
    offset = size_value(cx.dim(4, 2));
  }
  Tensor pos = offset ? i + *offset : i;  // the query's absolute position
  std::optional<Tensor> allowed;
  auto both = [&](const Tensor& t) { allowed = allowed ? (*allowed & t) : t; };
  if (c.causal) both(j <= pos);
  if (c.left >= 0) both(pos - j <= c.left);
  if (c.right >= 0) both(j - pos <= c.right);
  if (nonpad) both(j < *lens);
  return allowed;
}

// softmax over the last axis; a row of all -inf gives zeros (the reference's _softmax).
Tensor row_softmax(NodeContext& cx, const Tensor& x, plaidml_dtype dt) {
  auto keep_last = plaidml::Attrs().set("axes", std::vector<int64_t>{-1}).set("keepdims", 1);
  Tensor zero = scalar(cx, dt, 0.0);
  Tensor m = plaidml::op("max", {x}, keep_last);
  Tensor safe = plaidml::select(plaidml::eq(m, scalar(cx, dt, -INFINITY)), zero, m);
  Tensor e = plaidml::exp(x - safe);
  Tensor sum = plaidml::op("sum", {e}, keep_last);
  sum = plaidml::select(plaidml::eq(sum, zero), scalar(cx, dt, 1.0), sum);
  return e / sum;
}

}  // namespace

void attention_op(NodeContext& cx) {
  Config c = read_config(cx);
  bool has_pk = cx.has_input(4), has_pv = cx.has_input(5);
  if (has_pk != has_pv) invalid("past_key and past_value must be given together");
  if (cx.version() < 24 && cx.input_count() > 6) invalid("Attention-23 has 6 inputs");
  if (cx.has_input(6) && has_pk) invalid("nonpad_kv_seqlen cannot be combined with past_key");
  if (has_pk && (cx.dtype(4) != c.dt || cx.dtype(5) != cx.dtype(2))) {
    invalid("past_key/past_value must have the types of K/V");
  }
  Heads q = to_4d(cx, 0, c.q_heads);
  Heads k = to_4d(cx, 1, c.kv_heads);
  Heads v = to_4d(cx, 2, c.kv_heads);
  if (q.head_size >= 0 && k.head_size >= 0 && q.head_size != k.head_size) {
    invalid("Q's head size {} differs from K's {}", q.head_size, k.head_size);
  }
  int64_t past_len = has_pk ? cx.size(4, 2) : 0;
  int64_t k_len = cx.size(1, c.is_3d ? 1 : 2);
  int64_t skv_known = past_len >= 0 && k_len >= 0 ? past_len + k_len : -1;
  auto concat_past = [&](Heads h, size_t past) {
    if (!has_pk) return h;
    if (cx.rank(past) != 4) invalid("input {} (past) must have rank 4", past);
    h.t = plaidml::op("concatenate", {cx.tensor(past), h.t},
                      plaidml::Attrs().set("axis", static_cast<int64_t>(2)));
    h.dims[2] = cx.dim(past, 2) + h.dims[2];
    return h;
  };
  k = concat_past(k, 4);
  v = concat_past(v, 5);
  cx.set_output(1, k.t, c.dt);
  cx.set_output(2, v.t, cx.dtype(2));

  // Q and K each scaled by sqrt(scale), rounded to T1 (the reference's order).
  double scale;
  if (cx.has_attr("scale")) {
    scale = cx.attr_float("scale", 1.0);
  } else {
    if (q.head_size < 0) unsupported("Attention's default scale needs Q's head size at import");
    scale = 1.0 / std::sqrt(static_cast<double>(q.head_size));
  }
  Tensor root = scalar(cx, c.dt, std::sqrt(scale));
  Heads qs = q, ks = k;
  qs.t = q.t * root;
  ks.t = k.t * root;
  Tensor s = scores(cx, c, qs, ks);
  if (c.softcap > 0) {
    Tensor cap = scalar(cx, c.dt, c.softcap);
    s = plaidml::tanh(s / cap) * cap;
  }
  Tensor qk_out = s;  // modes 0 and 1

  // The additive bias: mask + (0 where the frontiers allow, else -inf).
  std::optional<Tensor> bias;
  if (cx.has_input(3)) bias = mask_bias(cx, c, k.dims[2], skv_known);
  if (auto allowed = frontier(cx, c, s, q.dims[2], has_pk)) {
    Tensor f = plaidml::select(*allowed, scalar(cx, c.dt, 0.0), scalar(cx, c.dt, -INFINITY));
    bias = bias ? *bias + f : f;
  }
  if (bias) s = s + *bias;
  if (c.mode == 2) qk_out = s;

  Tensor p = row_softmax(cx, c.softmax_dt == c.dt ? s : to_float(s, c.softmax_dt), c.softmax_dt);
  if (bias) {  // rows whose bias is all -inf attend nothing: zeros
    auto keep_last = plaidml::Attrs().set("axes", std::vector<int64_t>{-1}).set("keepdims", 1);
    Tensor row_max = plaidml::op("max", {*bias}, keep_last);
    Tensor empty = plaidml::eq(row_max, scalar(cx, c.dt, -INFINITY));
    p = plaidml::select(empty, scalar(cx, c.softmax_dt, 0.0), p);
  }
  if (c.softmax_dt != c.dt) p = to_float(p, c.dt);
  if (c.mode == 3) qk_out = p;
  cx.set_output(0, weighted(cx, c, p, q, v), c.dt);
  if (cx.wants_output(3)) cx.set_output(3, qk_out, c.dt);
}

}  // namespace attention

std::vector<ConverterEntry> attention_converters() {
  using namespace attention;  // NOLINT: the converters of this group
  return {
      {"Attention", {23, 24, 25}, attention_op},
      {"RotaryEmbedding", {23}, rotary_embedding},
      {"SwiGLU", {28}, swiglu},
  };
}

}  // namespace plaidml::onnx_import
