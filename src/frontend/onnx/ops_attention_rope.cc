// RotaryEmbedding (version 23) and SwiGLU (version 28), as onnx's reference computes them.
#include "ops_attention_util.h"

namespace plaidml::onnx_import::attention {
namespace {

using plaidml::IndexExpr;
using plaidml::Tensor;

// x[..., start:end:step] along the last axis (axis 3).
Tensor slice_last(const Tensor& x, int64_t start, int64_t end, int64_t step) {
  return plaidml::op("slice", {x},
                     plaidml::Attrs()
                         .set("starts", std::vector<int64_t>{start})
                         .set("ends", std::vector<int64_t>{end})
                         .set("axes", std::vector<int64_t>{3})
                         .set("steps", std::vector<int64_t>{step}));
}

Tensor concat(const std::vector<Tensor>& parts, int64_t axis) {
  return plaidml::op("concatenate", parts, plaidml::Attrs().set("axis", axis));
}

// cos_cache or sin_cache (input i) as [B, S, rd/2]: gathered by position_ids when given.
Tensor cache_rows(NodeContext& cx, size_t i, int64_t half) {
  if (cx.dtype(i) != cx.dtype(0)) invalid("cos_cache/sin_cache must have the input's type");
  size_t want = cx.has_input(3) ? 2 : 3;
  if (cx.rank(i) != want)
    invalid("input {} must have rank {}, but it has rank {}", i, want, cx.rank(i));
  int64_t last = cx.size(i, want - 1);
  if (last >= 0 && last != half) {
    invalid("input {}'s last dim {} is not rotary_embedding_dim / 2 = {}", i, last, half);
  }
  if (!cx.has_input(3)) return cx.tensor(i);
  return plaidml::op("gather", {cx.tensor(i), cx.tensor(3)},
                     plaidml::Attrs().set("axis", static_cast<int64_t>(0)));
}

}  // namespace

// Works on X as [B, H, S, D] (4-D input) or [B, S, H, D] (3-D input reshaped), with the caches [B,
// S, rd/2] viewed to broadcast over the heads axis.
void rotary_embedding(NodeContext& cx) {
  cx.check_attrs({"interleaved", "num_heads", "rotary_embedding_dim"});
  cx.require_dtype(0, {PLAIDML_DTYPE_FLOAT16, PLAIDML_DTYPE_BFLOAT16, PLAIDML_DTYPE_FLOAT32});
  size_t rank = cx.rank(0);
  if (rank != 3 && rank != 4) invalid("the input must have rank 3 or 4, but it has rank {}", rank);
  if (cx.has_input(3)) {
    if (cx.dtype(3) != PLAIDML_DTYPE_INT64) invalid("position_ids must be int64");
    if (cx.rank(3) != 2) invalid("position_ids must have rank 2");
  }
  Tensor x = cx.tensor(0);
  int64_t head = -1;
  if (rank == 4) {
    head = cx.size(0, 3);
  } else {
    int64_t heads = cx.attr_int("num_heads", 0);
    if (heads < 1) invalid("a 3-D input needs num_heads of 1 or more");
    int64_t hidden = cx.size(0, 2);
    if (hidden < 0) unsupported("RotaryEmbedding with a hidden size unknown at import");
    if (hidden % heads != 0) invalid("hidden size {} is not a multiple of {} heads", hidden, heads);
    head = hidden / heads;
    x = plaidml::reshape(x, {cx.dim(0, 0), cx.dim(0, 1), cx.literal(heads), cx.literal(head)});
  }
  if (head < 0) unsupported("RotaryEmbedding with a head size unknown at import");
  int64_t rd = cx.attr_int("rotary_embedding_dim", 0);
  if (rd == 0) rd = head;
  if (rd < 0 || rd > head || rd % 2 != 0) {
    invalid("rotary_embedding_dim {} must be even and within the head size {}", rd, head);
  }
  int64_t half = rd / 2;
  Tensor cos = cache_rows(cx, 1, half), sin = cache_rows(cx, 2, half);
  // [B, S, half] -> [B, 1, S, half] (4-D) or [B, S, 1, half] (3-D).
  IndexExpr one = cx.literal(1);
  std::vector<IndexExpr> view = {cos.dim(0), one, cos.dim(1), cx.literal(half)};
  if (rank == 3) view = {cos.dim(0), cos.dim(1), one, cx.literal(half)};
  cos = plaidml::reshape(cos, view);
  sin = plaidml::reshape(sin, view);

  bool interleaved = cx.attr_int("interleaved", 0) != 0;
  Tensor x1 = interleaved ? slice_last(x, 0, rd, 2) : slice_last(x, 0, half, 1);
  Tensor x2 = interleaved ? slice_last(x, 1, rd, 2) : slice_last(x, half, rd, 1);
  Tensor real = cos * x1 - sin * x2;
  Tensor imag = sin * x1 + cos * x2;
  auto rotated = [&]() -> Tensor {
    if (!interleaved) return concat({real, imag}, 3);
    // [.., half] pairs -> [.., half, 2] -> [.., rd]
    std::vector<IndexExpr> d5 = {x.dim(0), x.dim(1), x.dim(2), cx.literal(half), one};
    Tensor pairs = concat({plaidml::reshape(real, d5), plaidml::reshape(imag, d5)}, 4);
    return plaidml::reshape(pairs, {x.dim(0), x.dim(1), x.dim(2), cx.literal(rd)});
  };
  Tensor rot = rotated();
  if (rd < head) rot = concat({rot, slice_last(x, rd, head, 1)}, 3);
  if (rank == 3) rot = plaidml::reshape(rot, dims_of(cx, 0));
  cx.set_output(0, rot, cx.dtype(0));
}

// Y = A * sigmoid(alpha * A) * B (A and B of one shape, no broadcasting).
void swiglu(NodeContext& cx) {
  cx.check_attrs({"alpha"});
  cx.require_dtype(0, float_types());
  plaidml_dtype dt = cx.dtype(0);
  if (cx.dtype(1) != dt) invalid("A and B must have one type");
  if (cx.rank(0) != cx.rank(1)) invalid("A and B must have one shape");
  for (size_t a = 0; a < cx.rank(0); ++a) {
    int64_t sa = cx.size(0, a), sb = cx.size(1, a);
    if (sa >= 0 && sb >= 0 && sa != sb) invalid("A and B must have one shape");
  }
  Tensor a = cx.tensor(0);
  Tensor gate = plaidml::sigmoid(a * scalar(cx, dt, cx.attr_float("alpha", 1.0)));
  cx.set_output(0, a * gate * cx.tensor(1), dt);
}

}  // namespace plaidml::onnx_import::attention
