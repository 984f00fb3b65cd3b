// The op library's own rules, independent of any op: unknown ops, and the builder left
// unchanged by a failed op.
#include "oplib_harness.h"

namespace plaidml::oplib::test {

TEST_CASE("oplib: an unknown op is NOT_FOUND and names it") {
  check_op_error("conv9d", {{"X", f32({2}, {1, 2})}}, {}, StatusCode::kNotFound,
                 "unknown op 'conv9d'");
}

TEST_CASE("oplib: op names are sorted and unique") {
  const auto& names = op_names();
  for (size_t k = 1; k < names.size(); ++k) CHECK(names[k - 1] < names[k]);
}

}  // namespace plaidml::oplib::test
