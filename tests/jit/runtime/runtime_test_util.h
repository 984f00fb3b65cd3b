// Helpers for the Runtime tests: parse Tile text, make deterministic inputs, run through the
// Runtime and through the reference interpreter (the oracle), compare.
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "core/types/tensor.h"
#include "jit/io_binding.h"
#include "jit/runtime.h"

namespace plaidml::testing {

using NamedBuffers = std::vector<std::pair<std::string, std::shared_ptr<jit::Buffer>>>;

inline std::shared_ptr<const ir::Program> parse_program(const std::string& text) {
  auto p = parse::parse_tile(text, "test");
  INFO(p.status().message());
  REQUIRE(p.has_value());
  return *p;
}

// cache_dir: the cache folder ("" none); unset, the default (PLAIDML_CACHE_DIR under ctest).
inline std::unique_ptr<jit::Runtime> make_runtime(
    int threads = 2, const std::optional<std::string>& cache_dir = std::nullopt) {
  jit::RuntimeOptions opts;
  opts.num_threads = threads;
  opts.device = "cpu:0";
  opts.cache_dir = cache_dir;
  auto rt = jit::Runtime::create(opts);
  INFO(rt.status().message());
  REQUIRE(rt.has_value());
  return std::move(*rt);
}

// Small integers (exact in every dtype) from a seed, so float sums are exact too.
inline HostTensor random_tensor(const Shape& shape, unsigned seed) {
  HostTensor t(shape);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(-4, 4);
  for (int64_t i = 0; i < t.elements(); ++i) {
    switch (shape.dtype) {
      case DType::F32:
        t.data<float>()[i] = static_cast<float>(dist(gen));
        break;
      case DType::F64:
        t.data<double>()[i] = dist(gen);
        break;
      case DType::I32:
        t.data<int32_t>()[i] = dist(gen);
        break;
      case DType::I64:
        t.data<int64_t>()[i] = dist(gen);
        break;
      default:
        FAIL("random_tensor: unsupported dtype in tests");
    }
  }
  return t;
}

inline std::shared_ptr<jit::Buffer> upload(jit::Runtime& rt, const HostTensor& t) {
  auto b = rt.allocate(0, t.shape);
  REQUIRE(b.has_value());
  REQUIRE(rt.write(**b, t.bytes.data(), t.bytes.size()).is_ok());
  return *b;
}

inline HostTensor download(jit::Runtime& rt, const jit::Buffer& b) {
  HostTensor t(b.shape());
  auto s = rt.read(b, t.bytes.data(), t.bytes.size());
  INFO(s.message());
  REQUIRE(s.is_ok());
  return t;
}

// The oracle: the reference interpreter on the same inputs.
inline std::vector<HostTensor> reference(const std::shared_ptr<const ir::Program>& program,
                                         const std::vector<HostTensor>& inputs) {
  std::vector<Shape> shapes;
  for (const auto& t : inputs) shapes.push_back(t.shape);
  auto bound = ir::bind(program, shapes);
  INFO(bound.status().message());
  REQUIRE(bound.has_value());
  auto out = eval::evaluate(*bound, inputs);
  INFO(out.status().message());
  REQUIRE(out.has_value());
  return *out;
}

inline void check_equal(const HostTensor& got, const HostTensor& want, double tol = 1e-5) {
  REQUIRE(got.shape == want.shape);
  for (int64_t i = 0; i < got.elements(); ++i) {
    double g = 0, w = 0;
    switch (got.shape.dtype) {
      case DType::F32:
        g = got.data<float>()[i];
        w = want.data<float>()[i];
        break;
      case DType::F64:
        g = got.data<double>()[i];
        w = want.data<double>()[i];
        break;
      case DType::I32:
        g = got.data<int32_t>()[i];
        w = want.data<int32_t>()[i];
        break;
      case DType::I64:
        g = double(got.data<int64_t>()[i]);
        w = double(want.data<int64_t>()[i]);
        break;
      case DType::Bool:
        g = got.bytes[i];
        w = want.bytes[i];
        break;
      default:
        FAIL("check_equal: unsupported dtype in tests");
    }
    INFO("element " << i);
    REQUIRE(std::fabs(g - w) <= tol * std::max(1.0, std::fabs(w)));
  }
}

// Runs program on inputs (named in declaration order) and checks every output against the
// interpreter.
inline void run_and_check(jit::Runtime& rt, const std::shared_ptr<const ir::Program>& program,
                          const std::vector<HostTensor>& inputs) {
  NamedBuffers in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    in.emplace_back(program->nodes[program->inputs[i]].name, upload(rt, inputs[i]));
  }
  NamedBuffers out;
  auto s = jit::run_by_name(rt, program, 0, in, &out);
  INFO(s.message());
  REQUIRE(s.is_ok());
  auto want = reference(program, inputs);
  REQUIRE(out.size() == want.size());
  for (size_t i = 0; i < out.size(); ++i) {
    CHECK(out[i].first == program->outputs[i].first);
    check_equal(download(rt, *out[i].second), want[i]);
  }
}

}  // namespace plaidml::testing
