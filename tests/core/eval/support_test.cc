// The shared test helpers of tests/support/tensors.h.
#include <doctest/doctest.h>

#include <cmath>

#include "support/tensors.h"

namespace plaidml::testing {
namespace {

TEST_CASE("make_tensor and to_doubles round-trip, rounding to the dtype") {
  HostTensor t = make_tensor(DType::F16, {2}, {1.0, 1.7});
  CHECK(to_doubles(t) == std::vector<double>{1.0, 1.7001953125});
  HostTensor b = make_tensor(DType::Bool, {3}, {0, 2, -1});
  CHECK(to_doubles(b) == std::vector<double>{0, 1, 1});
  HostTensor i = make_tensor(DType::I64, {1}, {-5});
  CHECK(read_element(i, 0).i == -5);
}

TEST_CASE("compare_tensors: equal tensors give an empty report") {
  HostTensor a = make_tensor(DType::F32, {2, 2}, {1, 2, 3, 4});
  CHECK(compare_tensors(a, a).empty());
  HostTensor n = make_tensor(DType::F64, {2}, {NAN, INFINITY});
  CHECK(compare_tensors(n, n).empty());  // NaN matches NaN; inf matches the same inf
}

TEST_CASE("compare_tensors: the report names the first differing index") {
  HostTensor a = make_tensor(DType::F32, {2, 3}, {1, 2, 3, 4.5, 5, 7});
  HostTensor e = make_tensor(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(compare_tensors(a, e) ==
        "2 of 6 elements differ (f32[2, 3], rtol 1e-05, atol 1e-06); first at index [1, 0] "
        "(flat 3): actual 4.5, expected 4");
}

TEST_CASE("compare_tensors: shape and dtype mismatches") {
  HostTensor a = make_tensor(DType::F32, {2, 3}, {});
  HostTensor b = make_tensor(DType::F32, {3, 2}, {});
  CHECK(compare_tensors(a, b) == "shape mismatch: actual f32[2, 3], expected f32[3, 2]");
  HostTensor c = make_tensor(DType::F64, {2, 3}, {});
  CHECK(compare_tensors(a, c) == "shape mismatch: actual f32[2, 3], expected f64[2, 3]");
}

TEST_CASE("compare_tensors: integers are exact, floats use per-dtype tolerances") {
  CHECK_FALSE(compare_tensors(make_tensor(DType::I32, {1}, {1}), make_tensor(DType::I32, {1}, {2}))
                  .empty());
  // One f16 ulp at 1.0 (2^-10) passes for f16 but the same values in f32 do not.
  double next = 1.0 + std::ldexp(1.0, -10);
  CHECK(compare_tensors(make_tensor(DType::F16, {1}, {next}), make_tensor(DType::F16, {1}, {1}))
            .empty());
  CHECK_FALSE(
      compare_tensors(make_tensor(DType::F32, {1}, {next}), make_tensor(DType::F32, {1}, {1}))
          .empty());
  CHECK(compare_tensors(make_tensor(DType::F32, {1}, {next}), make_tensor(DType::F32, {1}, {1}),
                        Tolerance{1e-2, 0})
            .empty());
  CHECK_FALSE(compare_tensors(make_tensor(DType::F32, {1}, {INFINITY}),
                              make_tensor(DType::F32, {1}, {-INFINITY}))
                  .empty());
  CHECK_FALSE(
      compare_tensors(make_tensor(DType::F32, {1}, {NAN}), make_tensor(DType::F32, {1}, {0}))
          .empty());
}

TEST_CASE("random_tensor: deterministic per seed, within range, for every dtype") {
  const DType all[] = {DType::Bool, DType::I8,  DType::I16, DType::I32, DType::I64,
                       DType::U8,   DType::U16, DType::U32, DType::U64, DType::F16,
                       DType::BF16, DType::F32, DType::F64};
  for (DType d : all) {
    CAPTURE(dtype_name(d));
    Shape s(d, {64});
    HostTensor a = random_tensor(s, 5), b = random_tensor(s, 5), c = random_tensor(s, 6);
    CHECK(a.bytes == b.bytes);
    CHECK(a.bytes != c.bytes);
    std::vector<double> v = to_doubles(a);
    double lo = dtype_is_float(d) ? -1 : (d == DType::Bool || !dtype_is_signed(d) ? 0 : -8);
    double hi = dtype_is_float(d) ? 1 : (d == DType::Bool ? 1 : 8);
    bool saw_low_half = false, saw_high_half = false;
    for (double x : v) {
      CHECK(x >= lo);
      CHECK(x <= hi);
      saw_low_half |= x < (lo + hi) / 2;
      saw_high_half |= x > (lo + hi) / 2;
    }
    CHECK(saw_low_half);
    CHECK(saw_high_half);
  }
  HostTensor wide = random_tensor(Shape(DType::I8, {256}), 1, {.int_lo = -1000, .int_hi = 1000});
  for (double x : to_doubles(wide)) CHECK((x >= -128 && x <= 127));
}

}  // namespace
}  // namespace plaidml::testing
