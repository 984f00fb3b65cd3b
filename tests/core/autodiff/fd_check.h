// A finite-difference gradient checker (f64, reference interpreter), reusable by any suite that
// tests gradients (autodiff itself, the op library's ops).
//
// check_gradient(program, "F", inputs, {"X", "W"}) appends FD_L = sum(F * FD_W) with a fixed
// random FD_W of F's shape (so every element of F matters), asks autodiff::gradient for
// d FD_L / d X, prints the gradient program to Tile, parses it back (it must print the same),
// evaluates it, and compares every element with central differences of FD_L.
// Keep inputs away from kinks (relu/abs at 0, ties of max/min) where the two disagree.
#pragma once

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/autodiff/gradient.h"
#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/ir/builder.h"
#include "core/ir/printer.h"
#include "core/parse/parse.h"
#include "support/tensors.h"

namespace plaidml::autodiff::test {

using plaidml::testing::make_tensor;

struct FdInput {
  std::string name;
  HostTensor value;
};

struct FdOptions {
  double step = 1e-6;  // relative to max(1, |x|)
  double rtol = 1e-6;
  double atol = 1e-8;  // scaled by max(1, |loss|): the difference's round-off grows with it
  uint64_t seed = 12345;
};

inline HostTensor f64(std::vector<int64_t> dims, std::vector<double> v) {
  return make_tensor(DType::F64, std::move(dims), std::move(v));
}
inline HostTensor i32(std::vector<int64_t> dims, std::vector<double> v) {
  return make_tensor(DType::I32, std::move(dims), std::move(v));
}
// Uniform in [lo, hi): a fixed sequence per seed.
inline HostTensor rand64(std::vector<int64_t> dims, uint64_t seed, double lo = -1, double hi = 1) {
  plaidml::testing::RandomOptions o;
  o.lo = lo, o.hi = hi;
  return plaidml::testing::random_tensor(Shape(DType::F64, std::move(dims)), seed, o);
}

namespace detail {

// The program's inputs in declaration order, taken by name from `inputs`.
inline std::vector<HostTensor> ordered(const ir::Program& p, const std::vector<FdInput>& inputs) {
  std::vector<HostTensor> out;
  for (ir::ValueId id : p.inputs) {
    const std::string& name = p.nodes[id].name;
    bool found = false;
    for (const FdInput& in : inputs) {
      if (in.name == name) out.push_back(in.value), found = true;
    }
    REQUIRE_MESSAGE(found, "no value for input " << name);
  }
  return out;
}

inline std::vector<Shape> shapes_of(const std::vector<HostTensor>& values) {
  std::vector<Shape> s;
  for (const auto& v : values) s.push_back(v.shape);
  return s;
}

inline std::vector<HostTensor> run(std::shared_ptr<const ir::Program> p,
                                   const std::vector<HostTensor>& values) {
  auto bound = ir::bind(p, shapes_of(values));
  INFO(ir::print_tile(*p));
  REQUIRE_MESSAGE(bound.has_value(), bound.status().message());
  auto out = eval::evaluate(*bound, values);
  REQUIRE_MESSAGE(out.has_value(), out.status().message());
  return *out;
}

// program + `FD_L[] = +(F[i...] * FD_W[i...])`, FD_W an input of F's rank.
inline std::shared_ptr<const ir::Program> with_loss(const ir::Program& p, const std::string& f,
                                                    size_t rank) {
  ir::ProgramBuilder b(p);
  std::vector<std::string> dims(rank, "");
  auto w = b.add_input("FD_W", dims, std::nullopt, {});
  REQUIRE(w.has_value());
  auto out = p.find_output(f);  // by output: an output may alias another value (`F = X`)
  REQUIRE(out.has_value());
  ir::ValueId fid = p.outputs[*out].second;
  ir::Contraction c;
  ir::TensorAccess fa{fid, {}, {}}, wa{*w, {}, {}};
  for (size_t k = 0; k < rank; ++k) {
    auto i = ir::IntExpr::index("i" + std::to_string(k));
    fa.indices.push_back(i), wa.indices.push_back(i);
  }
  c.comb = ir::CombOp::kMul;
  c.inputs = {fa, wa};
  auto l = b.add_contraction(c, {});
  REQUIRE_MESSAGE(l.has_value(), l.status().message());
  REQUIRE(b.assign("FD_L", *l, {}).is_ok());
  REQUIRE(b.add_output("FD_L", {}).is_ok());
  auto done = b.finish();
  REQUIRE(done.has_value());
  return *done;
}

inline HostTensor output(const ir::Program& p, const std::vector<HostTensor>& outs,
                         const std::string& name) {
  auto k = p.find_output(name);
  REQUIRE_MESSAGE(k.has_value(), "no output " << name);
  return outs.at(*k);
}

// The gradient program, printed and parsed back (the printed text must be stable).
inline std::shared_ptr<const ir::Program> gradient_program(const ir::Program& p,
                                                           const std::vector<std::string>& wrt) {
  auto g = autodiff::gradient(p, "FD_L", wrt, {});
  REQUIRE_MESSAGE(g.has_value(), g.status().message());
  std::string text = ir::print_tile(**g);
  INFO(text);
  auto reparsed = parse::parse_tile(text);
  REQUIRE_MESSAGE(reparsed.has_value(), reparsed.status().message());
  CHECK(ir::print_tile(**reparsed) == text);
  return *reparsed;
}

}  // namespace detail

// Checks d sum(F * W) / d X for each X in wrt against central differences.
inline void check_gradient(std::shared_ptr<const ir::Program> program, const std::string& f,
                           const std::vector<FdInput>& inputs, const std::vector<std::string>& wrt,
                           FdOptions o = {}) {
  using namespace detail;  // NOLINT
  INFO(ir::print_tile(*program));
  HostTensor fval = output(*program, run(program, ordered(*program, inputs)), f);
  REQUIRE(dtype_is_float(fval.shape.dtype));
  auto p = with_loss(*program, f, fval.shape.rank());
  std::vector<FdInput> all = inputs;
  all.push_back({"FD_W", rand64(fval.shape.dims, o.seed)});
  std::vector<HostTensor> values = ordered(*p, all);
  auto g = gradient_program(*p, wrt);
  std::vector<HostTensor> gouts = run(g, values);
  INFO(ir::print_tile(*g));
  for (const std::string& x : wrt) {
    size_t k = 0;
    while (p->nodes[p->inputs[k]].name != x) ++k;
    HostTensor grad = output(*g, gouts, x + "_grad");
    REQUIRE(grad.shape.dims == values[k].shape.dims);
    for (int64_t e = 0; e < values[k].elements(); ++e) {
      double x0 = plaidml::testing::element_as_double(values[k], e);
      double h = o.step * std::max(1.0, std::abs(x0));
      std::vector<HostTensor> v = values;
      plaidml::testing::write_element(v[k], e, x0 + h);
      double up = plaidml::testing::element_as_double(output(*p, run(p, v), "FD_L"), 0);
      plaidml::testing::write_element(v[k], e, x0 - h);
      double down = plaidml::testing::element_as_double(output(*p, run(p, v), "FD_L"), 0);
      double fd = (up - down) / (2 * h);
      double an = plaidml::testing::element_as_double(grad, e);
      double tol =
          o.atol * std::max(1.0, std::abs(up)) + o.rtol * std::max(std::abs(fd), std::abs(an));
      CHECK_MESSAGE(std::abs(an - fd) <= tol,
                    fmt::format("d/d{}[{}]: gradient {} vs finite difference {}", x, e, an, fd));
    }
  }
}

inline void check_gradient(const std::string& tile, const std::string& f,
                           const std::vector<FdInput>& inputs, const std::vector<std::string>& wrt,
                           FdOptions o = {}) {
  auto p = parse::parse_tile(tile);
  REQUIRE_MESSAGE(p.has_value(), p.status().message());
  check_gradient(*p, f, inputs, wrt, o);
}

// The error of gradient(program, loss, wrt), for tests of the messages.
inline Status gradient_status(const std::string& tile, const std::string& loss,
                              const std::vector<std::string>& wrt) {
  auto p = parse::parse_tile(tile);
  REQUIRE_MESSAGE(p.has_value(), p.status().message());
  auto g = autodiff::gradient(**p, loss, wrt, {});
  return g.has_value() ? Status::ok() : g.status();
}

}  // namespace plaidml::autodiff::test
