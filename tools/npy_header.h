// The header of a .npy file is a Python dict literal:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// This is a small parser for exactly that grammar (string keys; string, bool and int-tuple
// values), so that the CLI never evaluates Python.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace plaidml_cli {

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// `source` names the file in error messages.
Result<NpyHeader> parse_npy_header(std::string_view text, std::string_view source);

}  // namespace plaidml_cli
