// Gradient checks of op library ops: builds F = op(inputs...) with a
// ProgramBuilder (each input declared with one named dim per axis,
// "<name>_<axis>", and no dtype) and hands it to check_gradient, or asks
// autodiff for the error of an op that has no gradient.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/oplib/oplib.h"
#include "fd_check.h"

namespace plaidml::autodiff::test {

using oplib::Attrs;

// The program `F = op(inputs...)`; inputs are operands in order.
inline std::shared_ptr<const ir::Program> op_program(const std::string &op,
                                                     const std::vector<FdInput> &inputs,
                                                     const Attrs &attrs) {
  ir::ProgramBuilder b("fd_" + op);
  std::vector<ir::ValueId> operands;
  for (const FdInput &in : inputs) {
    std::vector<std::string> dims;
    for (size_t k = 0; k < in.value.shape.rank(); ++k) {
      dims.push_back(in.name + "_" + std::to_string(k));
    }
    auto id = b.add_input(in.name, dims, std::nullopt, {});
    REQUIRE_MESSAGE(id.has_value(), id.status().message());
    operands.push_back(*id);
  }
  auto r = oplib::apply(b, op, operands, attrs);
  REQUIRE_MESSAGE(r.has_value(), r.status().message());
  REQUIRE(b.assign("F", *r, {}).is_ok());
  REQUIRE(b.add_output("F", {}).is_ok());
  auto p = b.finish();
  REQUIRE_MESSAGE(p.has_value(), p.status().message());
  // Parsed back before use: a size expression inside an elementwise call
  // (mean's count) prints inline but parses to separate nodes, so only the
  // parsed form prints stably (fd_check checks).
  auto parsed = parse::parse_tile(ir::print_tile(**p));
  REQUIRE_MESSAGE(parsed.has_value(), parsed.status().message());
  return *parsed;
}

// check_gradient of F = op(inputs...) w.r.t. `wrt`.
inline void check_op(const std::string &op, const std::vector<FdInput> &inputs, const Attrs &attrs,
                     const std::vector<std::string> &wrt, FdOptions o = {}) {
  CAPTURE(op);
  check_gradient(op_program(op, inputs, attrs), "F", inputs, wrt, o);
}

// The error of the gradient of sum(F * W) w.r.t. `wrt`, F = op(inputs...) of
// rank `rank`.
inline Status op_gradient_status(const std::string &op, const std::vector<FdInput> &inputs,
                                 const Attrs &attrs, const std::vector<std::string> &wrt,
                                 size_t rank) {
  auto p = detail::with_loss(*op_program(op, inputs, attrs), "F", rank);
  auto g = autodiff::gradient(*p, "FD_L", wrt, {});
  return g.has_value() ? Status::ok() : g.status();
}

}  // namespace plaidml::autodiff::test
