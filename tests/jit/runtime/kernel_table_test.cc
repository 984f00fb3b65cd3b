// Identical kernels compiled once (jit/kernel_table.h): a program of repeated layers compiles
// one kernel per distinct layer and launches it once per layer on that layer's buffers, with
// results equal to the reference interpreter's; a layer of another width is its own kernel.
#include <doctest/doctest.h>

#include <set>

#include "jit/compiler.h"
#include "jit/kernel_table.h"
#include "jit/loop/printer.h"
#include "runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

namespace {

// Three layers of one width, then one of another: H = relu(X W + B) each.
constexpr const char* kLayers = R"(
function (X[N, K], W1[K, K], B1[K], W2[K, K], B2[K], W3[K, K], B3[K], W4[K, J], B4[J]) -> (Y) {
  M1[n, j : N, K] = +(X[n, k] * W1[k, j]);
  H1 = relu(M1 + B1);
  M2[n, j : N, K] = +(H1[n, k] * W2[k, j]);
  H2 = relu(M2 + B2);
  M3[n, j : N, K] = +(H2[n, k] * W3[k, j]);
  H3 = relu(M3 + B3);
  M4[n, j : N, J] = +(H3[n, k] * W4[k, j]);
  Y = relu(M4 + B4);
}
)";

std::vector<HostTensor> layer_inputs(int64_t n, int64_t k, int64_t j) {
  std::vector<HostTensor> in = {random_tensor({DType::F32, {n, k}}, 1)};
  for (int layer = 0; layer < 3; ++layer) {
    in.push_back(random_tensor({DType::F32, {k, k}}, 10 + layer));
    in.push_back(random_tensor({DType::F32, {k}}, 20 + layer));
  }
  in.push_back(random_tensor({DType::F32, {k, j}}, 30));
  in.push_back(random_tensor({DType::F32, {j}}, 31));
  return in;
}

}  // namespace

TEST_CASE("kernel table: repeated layers compile once and launch on their own buffers") {
  auto rt = make_runtime();
  auto program = parse_program(kLayers);
  // 16 columns: a register-blocked kernel on AVX2 and AVX-512 alike (8 columns, shorter than an
  // AVX-512 vector, left the layers scalar, and row fusion made them one kernel).
  std::vector<HostTensor> inputs = layer_inputs(5, 16, 3);
  std::vector<Shape> shapes;
  for (const auto& t : inputs) shapes.push_back(t.shape);
  auto prepared = rt->prepare(program, shapes, 0);
  REQUIRE(prepared.has_value());
  auto plan = std::dynamic_pointer_cast<const jit::CompiledPlan>(*prepared);
  REQUIRE(plan);
  const auto& calls = plan->calls();
  // One launch per layer; layers 1-3 share a kernel, layer 4 (another width) has its own.
  REQUIRE(calls.size() == 4);
  CHECK(plan->kernels().size() == 2);
  CHECK(plan->kernel_count() == 4);
  CHECK(calls[0].kernel == calls[1].kernel);
  CHECK(calls[1].kernel == calls[2].kernel);
  CHECK(calls[3].kernel != calls[0].kernel);
  std::set<std::vector<int>> arg_lists;
  for (const auto& c : calls) arg_lists.insert(c.args);
  CHECK(arg_lists.size() == 4);  // each launch has its own weights
  run_and_check(*rt, program, inputs);
}

TEST_CASE("kernel table: parameters in order of first use, canonical forms name positions") {
  using namespace jit::loop;
  // s7[i] = s4[i] + s2[i]: parameters 4, 2, 7 (loads of the value first, then the store).
  auto body = block({for_loop("i", 0, 4,
                              {store(7, var("i"),
                                     op(ir::OpKind::Add, DType::F32,
                                        {load(4, DType::F32, var("i")),
                                         load(2, DType::F32, var("i"))}))})});
  Kernel k;
  k.name = "k0";
  k.reads = {2, 4};
  k.writes = {7};
  k.body = body;
  CHECK(parameters(k) == std::vector<int>{4, 2, 7});
  std::string form = canonical_string(k, parameters(k));
  CHECK(form.find("p2[i] = (p0[i]:f32 + p1[i]:f32)") != std::string::npos);
  CHECK(form.find("k0") == std::string::npos);
  CHECK(form.find("p0:r, p1:r, p2:w") != std::string::npos);
}
