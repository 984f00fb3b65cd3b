// The conformance suite: one doctest case per family runs every case on every selected device
// (see runner.h); the rest checks the case list and the per-device unsupported lists themselves.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "conformance_case.h"
#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "runner.h"
#include "unsupported.h"

using namespace plaidml;
using namespace plaidml::conformance;

namespace {

std::vector<std::string> all_case_names() {
  std::vector<std::string> names;
  for (const Family& f : all_families()) {
    for (const Case& c : f.cases) names.push_back(c.name);
  }
  return names;
}

}  // namespace

TEST_CASE("conformance: contractions") { run_family(contraction_cases()); }
TEST_CASE("conformance: convolutions") { run_family(convolution_cases()); }
TEST_CASE("conformance: pooling and reductions") { run_family(pooling_reduction_cases()); }
TEST_CASE("conformance: elementwise functions and broadcasting") {
  run_family(elementwise_cases());
}
TEST_CASE("conformance: dtypes") { run_family(dtype_cases()); }
TEST_CASE("conformance: structural ops and program structure") { run_family(structural_cases()); }

TEST_CASE("conformance: edge values and edge indexing") { run_family(edge_cases()); }

TEST_CASE("conformance list: names are unique and every case binds at every shape set") {
  std::set<std::string> seen;
  int shape_sets = 0;
  for (const Family& f : all_families()) {
    for (const Case& c : f.cases) {
      CAPTURE(c.name);
      CHECK_MESSAGE(seen.insert(c.name).second, "duplicate case name " << c.name);
      CHECK(!c.shapes.empty());
      CHECK((c.dtypes.size() == 1 || c.dtypes.size() == c.shapes.at(0).size()));
      auto program = parse::parse_tile(c.tile, c.name);
      CHECK_MESSAGE(program.has_value(), program.status().message());
      if (!program) continue;
      for (size_t s = 0; s < c.shapes.size(); ++s) {
        std::vector<HostTensor> inputs = make_inputs(c, s);
        std::vector<Shape> shapes;
        for (const HostTensor& t : inputs) shapes.push_back(t.shape);
        auto bound = ir::bind(*program, shapes);
        CHECK_MESSAGE(bound.has_value(), describe_inputs(**program, inputs)
                                             << ": " << bound.status().message());
        ++shape_sets;
      }
    }
  }
  MESSAGE(seen.size() << " cases, " << shape_sets << " shape sets");
  CHECK(seen.size() >= 200);
}

TEST_CASE("conformance list: inputs are seeded, so every run sees the same values") {
  const Case c = contraction_cases().cases.at(0);
  auto a = make_inputs(c, 1), b = make_inputs(c, 1), other = make_inputs(c, 2);
  REQUIRE(a.size() == 2);
  CHECK(a[0].bytes == b[0].bytes);
  CHECK(a[1].bytes == b[1].bytes);
  CHECK(a[0].bytes != a[1].bytes);  // each input its own stream
  CHECK(make_inputs(c, 1, /*salt=*/1)[0].bytes != a[0].bytes);
  CHECK(a[0].shape != other[0].shape);
}

TEST_CASE("conformance list: every unsupported file parses and names only existing cases") {
  std::vector<std::string> kinds = listed_kinds(unsupported_dir());
  CHECK(std::set<std::string>(kinds.begin(), kinds.end()).count("cpu") == 1);
  std::vector<std::string> names = all_case_names();
  for (const std::string& kind : kinds) {
    CAPTURE(kind);
    auto list = load_unsupported(unsupported_dir(), kind);
    REQUIRE_MESSAGE(list.has_value(), list.status().message());
    std::vector<std::string> unknown = unknown_names(*list, names);
    CHECK_MESSAGE(unknown.empty(), "unsupported/" << kind << ".txt names cases that do not exist: "
                                                  << fmt::format("{}", fmt::join(unknown, ", ")));
  }
  // No device skips the whole suite any more.
  for (const std::string& kind : kinds) {
    auto list = load_unsupported(unsupported_dir(), kind);
    REQUIRE(list.has_value());
    CHECK_MESSAGE(!list->all_reason.has_value(), kind << " skips every case");
  }
}

TEST_CASE("unsupported lists: format, comments, the wildcard and errors") {
  auto ok = parse_unsupported("# header\n\nmatmul: no f64 # why\n  fn_erf :  no erf\n*: later\n",
                              "x.txt");
  REQUIRE(ok.has_value());
  CHECK(ok->cases.size() == 2);
  CHECK(ok->cases.at("matmul") == "no f64");
  CHECK(ok->cases.at("fn_erf") == "no erf");
  CHECK(*ok->all_reason == "later");
  CHECK(unknown_names(*ok, {"matmul"}) == std::vector<std::string>{"fn_erf"});

  auto no_colon = parse_unsupported("\nmatmul no reason\n", "gpu.txt");
  REQUIRE_FALSE(no_colon.has_value());
  CHECK(no_colon.status().code() == StatusCode::kParseError);
  CHECK(no_colon.status().message() ==
        "gpu.txt:2: expected 'case_name: reason', got 'matmul no reason' (no ':')");

  auto empty_reason = parse_unsupported("matmul:   \n", "gpu.txt");
  REQUIRE_FALSE(empty_reason.has_value());
  CHECK(empty_reason.status().message() == "gpu.txt:1: the reason is empty in 'matmul:'");

  auto empty_name = parse_unsupported(" : why\n", "gpu.txt");
  REQUIRE_FALSE(empty_name.has_value());
  CHECK(empty_name.status().message() == "gpu.txt:1: the case name is empty in ': why'");

  auto twice = parse_unsupported("a: x\nb: y\na: z\n", "gpu.txt");
  REQUIRE_FALSE(twice.has_value());
  CHECK(twice.status().message() == "gpu.txt:3: case 'a' is listed twice");

  auto star_twice = parse_unsupported("*: x\n*: y\n", "gpu.txt");
  REQUIRE_FALSE(star_twice.has_value());
  CHECK(star_twice.status().message() == "gpu.txt:2: '*' is listed twice");

  auto missing = load_unsupported(unsupported_dir(), "no-such-kind");
  REQUIRE(missing.has_value());
  CHECK(missing->cases.empty());
  CHECK_FALSE(missing->all_reason.has_value());
}

TEST_CASE("device selection: PLAIDML_CONFORMANCE_DEVICES ids, unknown and unavailable ids") {
  std::vector<jit::DeviceDescription> devices(3);
  devices[0].id = "cpu:0";
  devices[0].kind = "cpu";
  devices[1].id = "opencl:0";
  devices[1].kind = "cpu";  // PoCL: an OpenCL device whose hardware type is the CPU
  devices[2].id = "vulkan:0";
  devices[2].kind = "vulkan";
  devices[2].available = false;
  devices[2].unavailable_reason = "no Vulkan loader";

  auto all = select_targets(devices, "");
  REQUIRE(all.has_value());
  REQUIRE(all->size() == 2);
  CHECK((*all)[1].id == "opencl:0");
  CHECK((*all)[1].index == 1);

  auto picked = select_targets(devices, " opencl:0 ,, ");
  REQUIRE(picked.has_value());
  REQUIRE(picked->size() == 1);
  CHECK((*picked)[0].kind == "opencl");

  auto unknown = select_targets(devices, "cpu:0,gpu:7");
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.status().code() == StatusCode::kNotFound);
  CHECK(unknown.status().message() ==
        "PLAIDML_CONFORMANCE_DEVICES names 'gpu:7', which is not a device (devices: cpu:0, "
        "opencl:0, vulkan:0)");

  auto unavailable = select_targets(devices, "vulkan:0");
  REQUIRE_FALSE(unavailable.has_value());
  CHECK(unavailable.status().message() ==
        "PLAIDML_CONFORMANCE_DEVICES names 'vulkan:0', which is not available: no Vulkan loader");
}

// The oracle and the comparison are what every case trusts: check both on hand-computed values.
TEST_CASE("runner: the oracle gives hand-computed values and a wrong result is reported") {
  Case c{"tile_md_rational",
         "function (I[N], K[M]) -> (O) { O[i : 5] = +(I[(i - j + 1) / 2] * K[j]); }",
         {{{3}, {3}}}};
  auto program = parse::parse_tile(c.tile, c.name);
  REQUIRE(program.has_value());
  std::vector<HostTensor> in = {testing::make_tensor(DType::F32, {3}, {1, 2, 3}),
                                testing::make_tensor(DType::F32, {3}, {1, 2, 3})};
  auto bound = ir::bind(*program, {in[0].shape, in[1].shape});
  REQUIRE(bound.has_value());
  auto out = eval::evaluate(*bound, in);
  REQUIRE(out.has_value());
  CHECK(testing::to_doubles(out->at(0)) == std::vector<double>{2, 5, 4, 9, 6});  // docs/tile.md

  auto rt = jit::Runtime::create({});
  REQUIRE(rt.has_value());
  auto cpu_index = (*rt)->find_device("cpu:0");
  REQUIRE(cpu_index.has_value());
  Target cpu{*cpu_index, "cpu:0", "cpu"};
  CHECK(run_and_compare(**rt, cpu, c, *program, in, *out) == "");
  std::vector<HostTensor> wrong = *out;
  testing::write_element(wrong[0], 3, 9.5);
  CHECK(run_and_compare(**rt, cpu, c, *program, in, wrong) ==
        "output O: 1 of 5 elements differ (f32[5], rtol 1e-05, atol 1e-06); first at index [3] "
        "(flat 3): actual 9, expected 9.5");
  in.pop_back();
  std::string missing = run_and_compare(**rt, cpu, c, *program, in, *out);
  CHECK(missing.rfind("run failed (", 0) == 0);
}
