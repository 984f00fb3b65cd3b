#include "core/oplib/op_call.h"

namespace plaidml::oplib {

std::vector<OpDef> pool_ops() { return {}; }

}  // namespace plaidml::oplib
