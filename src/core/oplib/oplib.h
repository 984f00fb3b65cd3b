// The op library: composite ops (conv, pooling, softmax, ...) built from contractions and
// elementwise calls on a ProgramBuilder, named by string so that adding an op never changes the
// C ABI (docs/design.md section 4). Every op sizes its results with symbolic dims
// (ir/symbolic_shape.h), so the programs it makes run at any input shape, like hand-written Tile.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/base/status.h"
#include "core/ir/builder.h"

namespace plaidml::oplib {

// An attribute value: an integer, a list of integers, a float or a string.
using AttrValue = std::variant<int64_t, std::vector<int64_t>, double, std::string>;
using Attrs = std::map<std::string, AttrValue, std::less<>>;

// Applies op `name` to `operands` in builder `b`. Errors name the op and the argument:
//   kNotFound        an unknown op ("unknown op 'conv9d'")
//   kInvalidArgument wrong operand count, an unknown attribute, an attribute of the wrong type
//                    or value ("conv: attribute 'padding' must be one of valid, same_upper, ...")
//   kTypeError       operands that do not fit ("conv: kernel has 3 input channels but input has
//                    4 (channels/groups)"), ranks, axes out of range.
Expected<ir::ValueId> apply(ir::ProgramBuilder& b, std::string_view name,
                            const std::vector<ir::ValueId>& operands, const Attrs& attrs,
                            const ir::SourceLoc& loc = {});

// Every op name, sorted.
const std::vector<std::string>& op_names();

}  // namespace plaidml::oplib
