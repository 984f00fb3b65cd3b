// concatenate, slice, pad, tile, repeat against naive loops over row-major arrays.
#include <functional>
#include <limits>

#include "oplib_harness.h"

namespace plaidml::oplib::test {
namespace {

using Ints = Dims;

// Row-major multi-index of flat position `flat`.
int64_t flatten(const Ints& idx, const Ints& dims) {
  int64_t f = 0;
  for (size_t k = 0; k < dims.size(); ++k) f = f * dims[k] + idx[k];
  return f;
}

// out[o] = value(source(o)) where source gives the input flat index, or -1 for `fill`.
HostTensor build(const Ints& out_dims, const std::vector<double>& in,
                 const std::function<int64_t(const Ints&)>& source, double fill = 0) {
  std::vector<double> out(count(out_dims));
  for (int64_t f = 0; f < count(out_dims); ++f) {
    int64_t s = source(unflatten(f, out_dims));
    out[f] = s < 0 ? fill : in[s];
  }
  return f32(out_dims, out);
}

TEST_CASE("concatenate: axes, several inputs, size-0 slabs") {
  auto a = Input{"A", f32({2, 3}, iota(6, 0))};
  auto b = Input{"B", f32({1, 3}, iota(3, 100))};
  auto c = Input{"C", f32({0, 3}, {})};
  check_tensor(run_ok("concatenate", {a, b, c}), f32({3, 3}, {0, 1, 2, 3, 4, 5, 100, 101, 102}));
  auto d = Input{"D", f32({2, 2}, iota(4, 100))};
  check_tensor(run_ok("concatenate", {a, d}, {{"axis", int64_t{-1}}}),
               f32({2, 5}, {0, 1, 2, 100, 101, 3, 4, 5, 102, 103}));
  check_tensor(run_ok("concatenate", {a}, {{"axis", int64_t{1}}}), f32({2, 3}, iota(6, 0)));
  // Three inputs along the middle axis of rank 3.
  Ints da = {2, 1, 3}, db = {2, 2, 3}, dc = {2, 3, 3};
  std::vector<double> va = iota(6, 0), vb = iota(12, 10), vc = iota(18, 30);
  std::vector<double> all;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 6; ++j) {
      for (int64_t k = 0; k < 3; ++k) {
        if (j < 1)
          all.push_back(va[flatten({i, j, k}, da)]);
        else if (j < 3)
          all.push_back(vb[flatten({i, j - 1, k}, db)]);
        else
          all.push_back(vc[flatten({i, j - 3, k}, dc)]);
      }
    }
  }
  check_tensor(run_ok("concatenate", {{"A", f32(da, va)}, {"B", f32(db, vb)}, {"C", f32(dc, vc)}},
                      {{"axis", int64_t{1}}}),
               f32({2, 6, 3}, all));
}

TEST_CASE("layout ops keep integer dtypes") {
  check_tensor(run_ok("concatenate", {{"A", i32({2}, {1, 2})}, {"B", i32({1}, {3})}}),
               i32({3}, {1, 2, 3}));
  check_tensor(run_ok("slice", {{"X", i32({4}, {1, 2, 3, 4})}},
                      {{"starts", Ints{-1}}, {"ends", Ints{0}}, {"steps", Ints{-2}}}),
               i32({2}, {4, 2}));
  check_tensor(run_ok("tile", {{"X", i32({2}, {1, 2})}}, {{"reps", Ints{2}}}),
               i32({4}, {1, 2, 1, 2}));
  check_tensor(
      run_ok("pad", {{"X", i32({3}, {1, 2, 3})}}, {{"pads", Ints{2, 2}}, {"mode", "reflect"}}),
      i32({7}, {3, 2, 1, 2, 3, 2, 1}));
}

TEST_CASE("concatenate: errors") {
  auto a = Input{"A", f32({2, 3}, iota(6, 0))};
  check_op_error("concatenate", {}, {}, StatusCode::kInvalidArgument,
                 "concatenate: takes 1 or more operands (inputs...), got 0");
  check_op_error("concatenate", {a, {"B", f32({3}, iota(3, 0))}}, {}, StatusCode::kTypeError,
                 "concatenate: argument 'inputs[1]' has rank 1 but 'inputs[0]' has rank 2");
  check_op_error("concatenate", {{"S", f32({}, {1})}}, {}, StatusCode::kTypeError,
                 "concatenate: argument 'inputs[0]' is a scalar; it needs rank 1 or more");
  check_op_error("concatenate", {a}, {{"axis", int64_t{2}}}, StatusCode::kTypeError,
                 "concatenate: attribute 'axis' is 2, out of range for rank 2");
  // Symbolic non-concat dims that differ: a bind error, also when a slab is empty.
  check_run_error(run_op("concatenate", {a, {"B", f32({1, 4}, iota(4, 0))}}),
                  StatusCode::kTypeError,
                  "2:3: concatenate: argument 'inputs[1]' has size 4 on axis 1 but 'inputs[0]' "
                  "has size 3");
  check_run_error(run_op("concatenate", {a, {"B", f32({0, 5}, {})}}), StatusCode::kTypeError,
                  "2:3: concatenate: argument 'inputs[1]' has size 5 on axis 1 but 'inputs[0]' "
                  "has size 3");
  check_run_error(run_op("concatenate", {{"A", f32({0, 3}, {})}, {"B", f32({2, 0}, {})}}),
                  StatusCode::kTypeError,
                  "2:3: concatenate: argument 'inputs[1]' has size 0 on axis 1 but 'inputs[0]' "
                  "has size 3");
  // Literal dims (made by reshape) that differ: an error while building.
  OpRun r = run_chain({a, {"B", f32({8}, iota(8, 0))}}, {{"reshape", {1}, {{"shape", Ints{2, 4}}}},
                                                         {"reshape", {0}, {{"shape", Ints{2, 3}}}},
                                                         {"concatenate", {3, 2}, {}}});
  CHECK(r.status.code() == StatusCode::kTypeError);
  CHECK(r.status.message() ==
        "concatenate: argument 'inputs[1]' has size 4 on axis 1 but 'inputs[0]' has size 3");
}

// numpy/ONNX slice of one axis: the indices read.
Ints slice_indices(int64_t d, int64_t start, int64_t end, int64_t step) {
  auto fix = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v += d;
    return std::clamp(v, lo, hi);
  };
  Ints out;
  if (step > 0) {
    for (int64_t i = fix(start, 0, d); i < fix(end, 0, d); i += step) out.push_back(i);
  } else {
    for (int64_t i = fix(start, 0, d - 1); i > fix(end, -1, d - 1); i += step) out.push_back(i);
  }
  return out;
}

void check_slice_1d(int64_t d, int64_t start, int64_t end, int64_t step) {
  INFO(d << " " << start << " " << end << " " << step);
  Ints idx = slice_indices(d, start, end, step);
  std::vector<double> want;
  for (int64_t i : idx) want.push_back(static_cast<double>(i));
  check_tensor(run_ok("slice", {{"X", f32({d}, iota(d, 0))}},
                      {{"starts", Ints{start}}, {"ends", Ints{end}}, {"steps", Ints{step}}}),
               f32({static_cast<int64_t>(want.size())}, want));
}

TEST_CASE("slice: ONNX semantics on one axis") {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (int64_t d : Ints{0, 1, 5, 7}) {
    for (int64_t start : Ints{0, 1, 3, -1, -3, -10, 10, kMax, kMin}) {
      for (int64_t end : Ints{0, 2, 5, -1, -2, -10, 10, kMax, kMin}) {
        for (int64_t step : Ints{1, 2, 3, -1, -2}) check_slice_1d(d, start, end, step);
      }
    }
  }
}

TEST_CASE("slice: axes, defaults and several axes at once") {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  Ints dims = {3, 4, 5};
  std::vector<double> x = iota(60, 0);
  // numpy X[1:3, :, ::-2], given as axes {2, 0}.
  Ints i0 = slice_indices(3, 1, 3, 1), i2 = slice_indices(5, -1, kMin, -2);
  Ints out = {static_cast<int64_t>(i0.size()), 4, static_cast<int64_t>(i2.size())};
  check_tensor(run_ok("slice", {{"X", f32(dims, x)}},
                      {{"starts", Ints{-1, 1}},
                       {"ends", Ints{kMin, 3}},
                       {"axes", Ints{2, -3}},
                       {"steps", Ints{-2, 1}}}),
               build(out, x, [&](const Ints& o) {
                 return flatten({i0[o[0]], o[1], i2[o[2]]}, dims);
               }));
  // Default axes 0..n-1 (for as many as starts gives) and steps 1: X[1:, 0:2].
  check_tensor(
      run_ok("slice", {{"X", f32(dims, x)}}, {{"starts", Ints{1, 0}}, {"ends", Ints{9, 2}}}),
      build({2, 2, 5}, x, [&](const Ints& o) {
        return flatten({o[0] + 1, o[1], o[2]}, dims);
      }));
}

TEST_CASE("slice: errors") {
  auto x = Input{"X", f32({2, 3}, iota(6, 0))};
  check_op_error("slice", {x}, {{"ends", Ints{1}}}, StatusCode::kInvalidArgument,
                 "slice: attribute 'starts' (a list of integers) is required");
  check_op_error("slice", {x}, {{"starts", Ints{1}}}, StatusCode::kInvalidArgument,
                 "slice: attribute 'ends' (a list of integers) is required");
  check_op_error("slice", {x}, {{"starts", Ints{1}}, {"ends", Ints{1, 2}}},
                 StatusCode::kInvalidArgument,
                 "slice: attributes 'starts', 'ends', 'axes' and 'steps' must have the same "
                 "length, got 1, 2, 1 and 1");
  check_op_error("slice", {x}, {{"starts", Ints{1}}, {"ends", Ints{2}}, {"steps", Ints{0}}},
                 StatusCode::kInvalidArgument, "slice: attribute 'steps' has a 0 at position 0");
  check_op_error("slice", {x}, {{"starts", Ints{1}}, {"ends", Ints{2}}, {"axes", Ints{2}}},
                 StatusCode::kTypeError, "slice: attribute 'axes' is 2, out of range for rank 2");
  check_op_error("slice", {x},
                 {{"starts", Ints{1, 0}}, {"ends", Ints{2, 1}}, {"axes", Ints{1, -1}}},
                 StatusCode::kInvalidArgument, "slice: attribute 'axes' names axis 1 twice");
}

// numpy.pad of one axis index: the input index an output index reads, or -1 (constant).
int64_t pad_source(int64_t o, int64_t lo, int64_t d, const std::string& mode) {
  int64_t i = o - lo;
  if (i >= 0 && i < d) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return i < 0 ? 0 : d - 1;
  return i < 0 ? -i : 2 * (d - 1) - i;  // reflect, pad < d
}

HostTensor naive_pad(const Ints& dims, const std::vector<double>& x, const Ints& pads,
                     const std::string& mode, double value) {
  size_t n = dims.size();
  Ints out(n);
  for (size_t a = 0; a < n; ++a) out[a] = dims[a] + pads[a] + pads[a + n];
  return build(
      out, x,
      [&](const Ints& o) -> int64_t {
        Ints i(n);
        for (size_t a = 0; a < n; ++a) {
          i[a] = pad_source(o[a], pads[a], dims[a], mode);
          if (i[a] < 0) return -1;
        }
        return flatten(i, dims);
      },
      value);
}

TEST_CASE("pad: constant, edge and reflect") {
  struct Case {
    Ints dims, pads;
  };
  for (const Case& c : {Case{{5}, {2, 3}}, Case{{3, 4}, {1, 2, 2, 0}}, Case{{3, 4}, {0, 3, 2, 1}},
                        Case{{2, 3, 4}, {1, 0, 2, 1, 2, 3}}, Case{{1, 3}, {0, 2, 0, 1}}}) {
    std::vector<double> x = iota(count(c.dims), 1);
    for (std::string mode : {"constant", "edge", "reflect"}) {
      bool reflect_ok = true;
      for (size_t a = 0; a < c.dims.size(); ++a) {
        if (std::max(c.pads[a], c.pads[a + c.dims.size()]) >= c.dims[a]) reflect_ok = false;
      }
      if (mode == "reflect" && !reflect_ok) continue;
      INFO(mode);
      check_tensor(run_ok("pad", {{"X", f32(c.dims, x)}}, {{"pads", c.pads}, {"mode", mode}}),
                   naive_pad(c.dims, x, c.pads, mode, 0.0));
    }
    check_tensor(run_ok("pad", {{"X", f32(c.dims, x)}}, {{"pads", c.pads}, {"value", -2.5}}),
                 naive_pad(c.dims, x, c.pads, "constant", -2.5));
  }
  // Constant padding of an empty axis, and an integer input.
  check_tensor(
      run_ok("pad", {{"X", f32({0, 2}, {})}}, {{"pads", Ints{1, 0, 1, 1}}, {"value", 7.0}}),
      f32({2, 3}, {7, 7, 7, 7, 7, 7}));
  check_tensor(run_ok("pad", {{"X", i32({2}, {4, 5})}}, {{"pads", Ints{1, 1}}, {"value", 3.0}}),
               i32({4}, {3, 4, 5, 3}));
  check_tensor(
      run_ok("pad", {{"X", f32({2}, {4, 5})}}, {{"pads", Ints{0, 0}}, {"mode", "reflect"}}),
      f32({2}, {4, 5}));
}

TEST_CASE("pad: errors") {
  auto x = Input{"X", f32({2, 3}, iota(6, 0))};
  check_op_error("pad", {x}, {}, StatusCode::kInvalidArgument,
                 "pad: attribute 'pads' (a list of integers) is required");
  check_op_error("pad", {x}, {{"pads", Ints{1, 1}}}, StatusCode::kInvalidArgument,
                 "pad: attribute 'pads' has 2 entries but the input has rank 2 (needs 4)");
  check_op_error("pad", {x}, {{"pads", Ints{1, 1, -1, 0}}}, StatusCode::kInvalidArgument,
                 "pad: attribute 'pads' has -1 at position 2; pads must be >= 0");
  check_op_error("pad", {x}, {{"pads", Ints{1, 1, 1, 0}}, {"mode", "wrap"}},
                 StatusCode::kInvalidArgument,
                 "pad: attribute 'mode' must be constant, edge or reflect, got 'wrap'");
  check_op_error("pad", {x}, {{"pads", Ints{1, 1, 1, 0}}, {"mode", "edge"}, {"value", 1.0}},
                 StatusCode::kInvalidArgument,
                 "pad: attribute 'value' applies to mode 'constant' only, not 'edge'");
  // Sizes too small for the mode: at bind for symbolic sizes, also for an empty input...
  check_run_error(run_op("pad", {x}, {{"pads", Ints{0, 3, 0, 0}}, {"mode", "reflect"}}),
                  StatusCode::kTypeError,
                  "2:3: pad: mode 'reflect' needs size >= 4 on axis 1 (pads 3 and 0), but it is 3");
  check_run_error(run_op("pad", {x}, {{"pads", Ints{0, 0, 0, 3}}, {"mode", "reflect"}}),
                  StatusCode::kTypeError,
                  "2:3: pad: mode 'reflect' needs size >= 4 on axis 1 (pads 0 and 3), but it is 3");
  check_run_error(
      run_op("pad", {{"X", f32({0, 2}, {})}}, {{"pads", Ints{1, 0, 0, 0}}, {"mode", "edge"}}),
      StatusCode::kTypeError,
      "2:3: pad: mode 'edge' needs size >= 1 on axis 0 (pads 1 and 0), but it is 0");
  // ...and while building for a literal size (made by reshape).
  OpRun r = run_chain({x}, {{"reshape", {0}, {{"shape", Ints{3, 2}}}},
                            {"pad", {1}, {{"pads", Ints{0, 2, 0, 0}}, {"mode", "reflect"}}}});
  CHECK(r.status.code() == StatusCode::kTypeError);
  CHECK(r.status.message() ==
        "pad: mode 'reflect' needs size >= 3 on axis 1 (pads 2 and 0), but it is 2");
}

HostTensor naive_tile(const Ints& dims, const std::vector<double>& x, Ints reps) {
  Ints d = dims;
  while (d.size() < reps.size()) d.insert(d.begin(), 1);
  while (reps.size() < d.size()) reps.insert(reps.begin(), 1);
  Ints out(d.size());
  for (size_t a = 0; a < d.size(); ++a) out[a] = d[a] * reps[a];
  return build(out, x, [&](const Ints& o) {
    Ints i(d.size());
    for (size_t a = 0; a < d.size(); ++a) i[a] = o[a] % d[a];
    return flatten(i, d);
  });
}

TEST_CASE("tile: numpy.tile") {
  for (Ints dims : {Ints{3}, Ints{2, 3}, Ints{1, 2}}) {
    std::vector<double> x = iota(count(dims), 1);
    for (Ints reps : {Ints{2}, Ints{1}, Ints{2, 3}, Ints{3, 1, 2}, Ints{0, 2}, Ints{}}) {
      check_tensor(run_ok("tile", {{"X", f32(dims, x)}}, {{"reps", reps}}),
                   naive_tile(dims, x, reps));
    }
  }
  check_op_error("tile", {{"X", f32({2}, {1, 2})}}, {{"reps", Ints{2, -1}}},
                 StatusCode::kInvalidArgument,
                 "tile: attribute 'reps' has -1 at position 1; reps must be >= 0");
  check_op_error("tile", {{"X", f32({2}, {1, 2})}}, {}, StatusCode::kInvalidArgument,
                 "tile: attribute 'reps' (a list of integers) is required");
}

TEST_CASE("repeat: numpy.repeat with and without an axis") {
  Ints dims = {2, 3};
  std::vector<double> x = iota(6, 1);
  check_tensor(run_ok("repeat", {{"X", f32(dims, x)}}, {{"repeats", int64_t{2}}}),
               f32({12}, {1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}));
  check_tensor(
      run_ok("repeat", {{"X", f32(dims, x)}}, {{"repeats", int64_t{2}}, {"axis", int64_t{0}}}),
      f32({4, 3}, {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  check_tensor(
      run_ok("repeat", {{"X", f32(dims, x)}}, {{"repeats", int64_t{3}}, {"axis", int64_t{-1}}}),
      build({2, 9}, x, [&](const Ints& o) {
        return flatten({o[0], o[1] / 3}, dims);
      }));
  check_tensor(
      run_ok("repeat", {{"X", f32(dims, x)}}, {{"repeats", int64_t{0}}, {"axis", int64_t{1}}}),
      f32({2, 0}, {}));
  check_tensor(run_ok("repeat", {{"X", f32({}, {4})}}, {{"repeats", int64_t{3}}}),
               f32({3}, {4, 4, 4}));
  check_op_error("repeat", {{"X", f32(dims, x)}}, {}, StatusCode::kInvalidArgument,
                 "repeat: attribute 'repeats' (an integer) is required");
  check_op_error("repeat", {{"X", f32(dims, x)}}, {{"repeats", int64_t{-1}}},
                 StatusCode::kInvalidArgument,
                 "repeat: attribute 'repeats' is -1; it must be >= 0");
  check_op_error("repeat", {{"X", f32(dims, x)}}, {{"repeats", int64_t{1}}, {"axis", int64_t{2}}},
                 StatusCode::kTypeError, "repeat: attribute 'axis' is 2, out of range for rank 2");
}

}  // namespace
}  // namespace plaidml::oplib::test
