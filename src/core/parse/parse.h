// The Tile parser's entry point: Tile text (docs/tile.md sections 1-3) -> a graph-IR Program, built
// through ir::ProgramBuilder exactly as the C API builds one.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/ir/program.h"

namespace plaidml::parse {

// Errors: kParseError for malformed text; the builder's code for structural errors (kNotFound
// for an unknown tensor, dimension or function; kInvalidArgument for reassignment, arity, an
// assign contraction's free index, ...). Every message starts with "line:column: ".
//
// Extension (not in PlaidML v0): an input may declare its dtype, `A: f32[M, K]`; the printer
// writes it back the same way.
Expected<std::shared_ptr<const ir::Program>> parse_tile(std::string_view text,
                                                        std::string program_name = "");

}  // namespace plaidml::parse
