#include "bench_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench_oracle.h"

namespace plaidml_bench {

namespace {

// Output elements to check: the first, the last, and a spread of others in between.
std::vector<int64_t> spot_indices(int64_t count, int n) {
  std::vector<int64_t> indices = {0, count - 1};
  uint64_t h = 0x243F6A8885A308D3ull;
  for (int i = 2; i < n; ++i) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    indices.push_back(int64_t((h >> 17) % uint64_t(count)));
  }
  return indices;
}

// float32 accumulation over K terms is off by a few ulps of the sum of |terms| in practice;
// 1e-4 of it leaves room for any summation order and still catches a wrong element.
constexpr double kRelativeTolerance = 1e-4;
// An f16 output is the f32 sum rounded to f16: half an f16 ulp (2^-11) of the value, at most of
// the sum of |terms|.
constexpr double kHalfTolerance = 1e-3;

// Outputs of the bench's cases are sums of many products; their float32 differences stay far
// below 1e-4 of the largest output (a wrong element, a missed tap at a border, is far above it).
constexpr double kAgreementTolerance = 1e-4;

std::string describe_mismatch(int64_t index, double got, double want) {
  char text[160];
  std::snprintf(text, sizeof text, "element %lld: got %.9g, want %.9g",
                static_cast<long long>(index), got, want);
  return text;
}

}  // namespace

SpotCheck spot_check(const BenchCase& c, const HostInputs& inputs, const std::vector<float>& got,
                     int n) {
  SpotCheck check;
  const int64_t count = element_count(c.output_dims);
  if (count == 0 || int64_t(got.size()) != count) return check;
  for (int64_t index : spot_indices(count, n)) {
    Reference want = reference(c, inputs, index);
    double error = std::fabs(double(got[size_t(index)]) - want.value);
    double relative = error / (want.scale > 0 ? want.scale : 1.0);
    ++check.checked;
    check.max_error = std::max(check.max_error, std::isnan(relative) ? INFINITY : relative);
    if (!(relative <= (c.half ? kHalfTolerance : kRelativeTolerance)) && check.failed++ == 0) {
      check.first_failure = describe_mismatch(index, got[size_t(index)], want.value);
    }
  }
  return check;
}

Agreement compare_outputs(const std::string& peer, const std::vector<float>& got,
                          const std::vector<float>& want) {
  Agreement a;
  a.with = peer;
  if (got.size() != want.size()) {
    a.ok = false;
    a.first_failure = "sizes differ: " + std::to_string(got.size()) + " and " +
                      std::to_string(want.size()) + " elements";
    return a;
  }
  double largest = 0;
  for (float w : want) largest = std::max(largest, double(std::fabs(w)));
  a.tolerance = kAgreementTolerance * largest;
  for (size_t i = 0; i < got.size(); ++i) {
    double diff = std::fabs(double(got[i]) - double(want[i]));
    if (std::isnan(diff)) diff = INFINITY;
    a.max_abs_diff = std::max(a.max_abs_diff, diff);
    if (diff > a.tolerance && a.ok) {
      a.ok = false;
      a.first_failure = describe_mismatch(int64_t(i), got[i], want[i]) + " (" + peer + ")";
    }
  }
  return a;
}

std::string check_status(const CaseResult& r) {
  if (r.check.failed > 0 || !r.agreement.ok) return "FAIL";
  return r.check.checked == 0 && r.agreement.with.empty() ? "none" : "ok";
}

}  // namespace plaidml_bench
