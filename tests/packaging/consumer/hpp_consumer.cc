// The README's C++ example as a user builds it against the installed package: a 2x3 by 3x2
// matmul through plaidml.hpp, checked against the hand-computed product.
#include <plaidml/plaidml.hpp>

#include <cstdio>
#include <vector>

int main() {
  plaidml::Builder b("matmul");
  auto A = b.input("A", {"M", "K"});
  auto B = b.input("B", {"K", "N"});
  auto i = b.index("i"), j = b.index("j"), k = b.index("k");
  auto C = b.contraction({b.dim("M"), b.dim("N")});
  C(i, j) += A(i, k) * B(k, j);
  b.output("C", C);
  plaidml::Program program = b.build();

  plaidml::Context ctx;
  auto a = plaidml::Buffer::from<float>(ctx, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto bb = plaidml::Buffer::from<float>(ctx, {3, 2}, {7, 8, 9, 10, 11, 12});
  std::vector<float> c = ctx.run(program, {{"A", a}, {"B", bb}}).at("C").read<float>();
  const std::vector<float> expected = {58, 64, 139, 154};
  if (c != expected) {
    std::printf("hpp_consumer: wrong product\n");
    return 1;
  }
  std::printf("hpp_consumer: %g %g %g %g\n", c[0], c[1], c[2], c[3]);
  return 0;
}
