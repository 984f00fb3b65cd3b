// Tensors past 2^31 elements: every index is 64-bit on the CPU, so a kernel that walks more
// elements than a 32-bit offset can hold reads and writes the right ones. Checked against
// hand-computed values (the interpreter would take minutes at this size).
#include <doctest/doctest.h>

#include <cstring>

#include "runtime_test_util.h"

using namespace plaidml;
using namespace plaidml::testing;

TEST_CASE("runtime: a reduction over 2^31 + 100 elements reads every one (64-bit offsets)") {
  const int64_t n = (int64_t{1} << 31) + 100;
  auto rt = make_runtime();
  // X * One[0] promotes to i64, so the sum does not wrap in u8.
  auto program = parse_program(
      "function (X[N], One[M]) -> (S, T) { S[] = +(X[i] * One[0]); T[j : 3] = +(X[N - 3 + j]); }");
  auto one = upload(*rt, [] {
    HostTensor t(Shape(DType::I64, {1}));
    t.data<int64_t>()[0] = 1;
    return t;
  }());
  auto x = rt->allocate(0, Shape(DType::U8, {n}));
  REQUIRE(x.has_value());
  {
    std::vector<uint8_t> host(static_cast<size_t>(n), 1);
    host[static_cast<size_t>(n - 1)] = 7;  // past 2^31: a wrapped offset would miss it
    host[static_cast<size_t>(n - 3)] = 5;
    REQUIRE(rt->write(**x, host.data(), host.size()).is_ok());
  }
  NamedBuffers out;
  Status s = jit::run_by_name(*rt, program, 0, {{"X", *x}, {"One", one}}, &out);
  INFO(s.message());
  REQUIRE(s.is_ok());
  HostTensor sum = download(*rt, *out[0].second);
  CHECK(sum.data<int64_t>()[0] == (n - 2) + 5 + 7);
  HostTensor tail = download(*rt, *out[1].second);
  CHECK(tail.bytes == std::vector<uint8_t>{5, 1, 7});
}
