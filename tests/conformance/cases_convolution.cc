// Convolutions written as Tile contractions (docs/tile.md section 2), NHWC data and HWIO kernels:
// 1-d and 2-d, valid and padded ("same"), strided, dilated, grouped and depthwise, and
// transposed (rational indices). Padding is expressed the Tile way: accesses outside the input
// are not counted.
#include "conformance_case.h"

namespace plaidml::conformance {

namespace {

// The CPU's vector code computes a * b + c as one FMA and splits short reductions over several
// accumulators (loop_ir.h, docs/cpu-schedule.md): a sum of 80 products of [-1, 1) values, with
// cancellation, then differs from the separately rounded interpreter by about 1e-6 absolute
// (K * eps * sum |a * b|), beyond the default's 1e-6 + 1e-5 * |value| for small values. Which
// cases meet it depends on the host's vector width (conv1d_stride2 did on AVX-512).
const testing::Tolerance kLongSums{1e-4, 1e-5};

std::vector<Case> conv1d_family() {
  std::vector<Case> cs;
  // Shape sets: I[N, X, CI], K[KX, CI, CO].
  const std::vector<ShapeSet> sets = {{{1, 1, 1}, {1, 1, 1}},   {{1, 7, 3}, {3, 3, 5}},
                                      {{2, 16, 4}, {3, 4, 16}}, {{1, 17, 16}, {5, 16, 17}},
                                      {{2, 31, 2}, {2, 2, 64}}, {{1, 65, 3}, {3, 3, 7}}};
  cs.push_back({"conv1d_valid", R"(
function (I[N, X, CI], K[KX, CI, CO]) -> (O) {
  O[n, x, co : N, X - KX + 1, CO] = +(I[n, x + k, ci] * K[k, ci, co]);
})",
                sets, {DType::F32}, {}, kLongSums});
  cs.push_back({"conv1d_stride2", R"(
function (I[N, X, CI], K[KX, CI, CO]) -> (O) {
  O[n, x, co : N, (X - KX) / 2 + 1, CO] = +(I[n, 2 * x + k, ci] * K[k, ci, co]);
})",
                sets, {DType::F32}, {}, kLongSums});
  cs.push_back({"conv1d_dilation2",
                R"(
function (I[N, X, CI], K[KX, CI, CO]) -> (O) {
  O[n, x, co : N, X - 2 * (KX - 1), CO] = +(I[n, x + 2 * k, ci] * K[k, ci, co]);
})",
                {{{1, 3, 1}, {2, 1, 1}},
                 {{1, 7, 3}, {3, 3, 5}},
                 {{2, 16, 4}, {3, 4, 16}},
                 {{1, 33, 16}, {5, 16, 17}}},
                {DType::F32},
                {},
                kLongSums});
  cs.push_back({"conv1d_same_pad1",
                R"(
function (I[N, X, CI], K[KX, CI, CO]) -> (O) {
  O[n, x, co : N, X, CO] = +(I[n, x + k - 1, ci] * K[k, ci, co]);
})",
                {{{1, 1, 1}, {3, 1, 1}},
                 {{1, 7, 3}, {3, 3, 5}},
                 {{2, 16, 4}, {3, 4, 16}},
                 {{1, 17, 16}, {3, 16, 17}},
                 {{1, 65, 2}, {3, 2, 3}}},
                {DType::F32},
                {},
                kLongSums});
  cs.push_back({"conv1d_stride2_pad2_dilation2",
                R"(
function (I[N, X, CI], K[KX, CI, CO]) -> (O) {
  O[n, x, co : N, (X + 4 - 2 * (KX - 1) - 1) / 2 + 1, CO] =
      +(I[n, 2 * x + 2 * k - 2, ci] * K[k, ci, co]);
})",
                {{{1, 1, 1}, {3, 1, 1}},
                 {{1, 7, 3}, {3, 3, 5}},
                 {{2, 16, 4}, {3, 4, 16}},
                 {{1, 17, 16}, {2, 16, 17}}},
                {DType::F32},
                {},
                kLongSums});
  return cs;
}

std::vector<Case> conv2d_family() {
  std::vector<Case> cs;
  // Shape sets: I[N, X, Y, CI], K[KX, KY, CI, CO].
  const std::vector<ShapeSet> sets = {
      {{1, 1, 1, 1}, {1, 1, 1, 1}},   {{1, 7, 5, 3}, {3, 3, 3, 4}},
      {{2, 9, 8, 1}, {3, 2, 1, 16}},  {{1, 6, 6, 16}, {3, 3, 16, 17}},
      {{1, 17, 3, 2}, {1, 1, 2, 15}}, {{1, 10, 10, 4}, {5, 5, 4, 8}}};
  cs.push_back({"conv2d_valid", R"(
function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {
  O[n, x, y, co : N, X - KX + 1, Y - KY + 1, CO] = +(I[n, x + i, y + j, ci] * K[i, j, ci, co]);
})",
                sets});
  cs.push_back({"conv2d_stride2", R"(
function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {
  O[n, x, y, co : N, (X - KX) / 2 + 1, (Y - KY) / 2 + 1, CO] =
      +(I[n, 2 * x + i, 2 * y + j, ci] * K[i, j, ci, co]);
})",
                sets});
  cs.push_back({"conv2d_dilation2",
                R"(
function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {
  O[n, x, y, co : N, X - 2 * KX + 2, Y - 2 * KY + 2, CO] =
      +(I[n, x + 2 * i, y + 2 * j, ci] * K[i, j, ci, co]);
})",
                {{{1, 3, 3, 1}, {2, 2, 1, 1}},
                 {{1, 7, 9, 3}, {3, 3, 3, 4}},
                 {{1, 8, 7, 16}, {2, 3, 16, 17}}}});
  // "Same" padding for 3x3 kernels: every output pixel exists, border points are not counted.
  cs.push_back({"conv2d_same_3x3",
                R"(
function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {
  O[n, x, y, co : N, X, Y, CO] = +(I[n, x + i - 1, y + j - 1, ci] * K[i, j, ci, co]);
})",
                {{{1, 1, 1, 1}, {3, 3, 1, 1}},
                 {{1, 7, 5, 3}, {3, 3, 3, 4}},
                 {{2, 8, 9, 1}, {3, 3, 1, 16}},
                 {{1, 6, 6, 16}, {3, 3, 16, 17}},
                 {{1, 17, 2, 2}, {3, 3, 2, 15}}}});
  // A ResNet-style stem: 7x7, stride 2, padding 3.
  cs.push_back({"conv2d_7x7_stride2_pad3",
                R"(
function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {
  O[n, x, y, co : N, (X + 1) / 2, (Y + 1) / 2, CO] =
      +(I[n, 2 * x + i - 3, 2 * y + j - 3, ci] * K[i, j, ci, co]);
})",
                {{{1, 1, 1, 3}, {7, 7, 3, 2}},
                 {{1, 13, 16, 3}, {7, 7, 3, 16}},
                 {{1, 17, 9, 3}, {7, 7, 3, 5}}}});
  cs.push_back({"conv2d_bias_relu",
                R"(
function (I[N, X, Y, CI], K[KX, KY, CI, CO], B[CO]) -> (R) {
  O[n, x, y, co : N, X - KX + 1, Y - KY + 1, CO] = +(I[n, x + i, y + j, ci] * K[i, j, ci, co]);
  R = relu(O + B);
})",
                {{{1, 7, 5, 3}, {3, 3, 3, 4}, {4}},
                 {{1, 6, 6, 16}, {3, 3, 16, 17}, {17}},
                 {{2, 5, 5, 2}, {1, 1, 2, 1}, {1}}}});
  return cs;
}

std::vector<Case> grouped_family() {
  std::vector<Case> cs;
  // Flat NHWC channels C = G * CIG; the kernel carries the group dim: K[KX, KY, CIG, G, COG].
  cs.push_back({"conv2d_groups",
                R"(
function (I[N, X, Y, C], K[KX, KY, CIG, G, COG]) -> (O) {
  O[n, x, y, g * COG + co : N, X - KX + 1, Y - KY + 1, G * COG] =
      +(I[n, x + i, y + j, g * CIG + ci] * K[i, j, ci, g, co]);
})",
                {{{1, 5, 5, 4}, {3, 3, 2, 2, 3}},
                 {{1, 7, 6, 6}, {3, 3, 2, 3, 5}},
                 {{2, 8, 8, 32}, {3, 3, 2, 16, 1}},
                 {{1, 6, 5, 17}, {2, 2, 1, 17, 2}}}});
  cs.push_back({"conv2d_depthwise_same",
                R"(
function (I[N, X, Y, C], K[KX, KY, C]) -> (O) {
  O[n, x, y, c : N, X, Y, C] = +(I[n, x + i - 1, y + j - 1, c] * K[i, j, c]);
})",
                {{{1, 1, 1, 1}, {3, 3, 1}},
                 {{1, 7, 5, 3}, {3, 3, 3}},
                 {{2, 8, 9, 16}, {3, 3, 16}},
                 {{1, 6, 6, 17}, {3, 3, 17}},
                 {{1, 4, 4, 64}, {3, 3, 64}}}});
  cs.push_back({"conv2d_grouped_5d",
                R"(
function (I[N, X, Y, G, CI], K[KX, KY, G, CI, CO]) -> (O) {
  O[n, x, y, g, co : N, X - KX + 1, Y - KY + 1, G, CO] =
      +(I[n, x + i, y + j, g, ci] * K[i, j, g, ci, co]);
})",
                {{{1, 5, 5, 2, 3}, {3, 3, 2, 3, 4}}, {{1, 6, 7, 4, 16}, {2, 2, 4, 16, 3}}}});
  // Transposed 2-d convolution, stride 2: output points reach input points only on even offsets.
  cs.push_back({"conv2d_transposed_stride2",
                R"(
function (I[N, X, Y, CI], K[KX, KY, CI, CO]) -> (O) {
  O[n, x, y, co : N, 2 * X + KX - 2, 2 * Y + KY - 2, CO] =
      +(I[n, (x - i) / 2, (y - j) / 2, ci] * K[i, j, ci, co]);
})",
                {{{1, 1, 1, 1}, {2, 2, 1, 1}},
                 {{1, 5, 4, 3}, {3, 3, 3, 2}},
                 {{1, 8, 8, 16}, {4, 4, 16, 3}}}});
  return cs;
}

}  // namespace

Family convolution_cases() {
  Family f{"convolutions", {}};
  for (auto part : {conv1d_family(), conv2d_family(), grouped_family()}) {
    for (Case& c : part) f.cases.push_back(std::move(c));
  }
  return f;
}

}  // namespace plaidml::conformance
