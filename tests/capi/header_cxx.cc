// plaidml.h must compile as C++ (with warnings as errors) and keep C linkage there.
#include <plaidml/plaidml.h>

#include <cstdio>
#include <type_traits>

static_assert(std::is_same_v<plaidml_status, int32_t>, "plaidml_status is a fixed-width int");
static_assert(sizeof(plaidml_value) == 4 && sizeof(plaidml_expr) == 4, "value types stay small");
static_assert(PLAIDML_STATUS_IO_ERROR == 9, "status values are append-only");
static_assert(PLAIDML_DTYPE_FLOAT64 == 13, "dtype values are append-only");

// Taking the address of each function checks that the declarations are usable from C++.
const void* plaidml_header_cxx_check[] = {
    reinterpret_cast<const void*>(&plaidml_version),
    reinterpret_cast<const void*>(&plaidml_execute),
    reinterpret_cast<const void*>(&plaidml_builder_add_contraction),
};

int main() {
  // The C++ view of the same ABI: a status is an int and the version macros match the library.
  bool ok =
      plaidml_header_cxx_check[0] != nullptr && plaidml_status_name(PLAIDML_STATUS_OK) != nullptr;
  std::printf("%d passed, %d failed\n", ok ? 1 : 0, ok ? 0 : 1);
  return ok ? 0 : 1;
}
