// The Tile parser's entry point: Tile text (docs/tile.md sections 1-3) -> a graph-IR Program, built
// through ir::ProgramBuilder exactly as the C API builds one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/ir/program.h"

namespace plaidml::parse {

// The data of a constant the text names by its digest only (`constant(f32[64, 3, 7, 7], digest
// "0123456789abcdef")`, as the printer writes large ones): a program file keeps those bytes
// beside the text (core/parse/program_file.h). Its errors are the parse's.
using ConstantResolver = std::function<Expected<std::shared_ptr<const ir::ConstantData>>(
    const Shape& shape, uint64_t digest)>;

// Errors: kParseError for malformed text; the builder's code for structural errors (kNotFound
// for an unknown tensor, dimension or function; kInvalidArgument for reassignment, arity, an
// assign contraction's free index, ...). Every message starts with "line:column: ".
//
// Extensions (not in PlaidML v0): an input may declare its dtype, `A: f32[M, K]`; the printer
// writes it back the same way. A constant, `W = constant(f32[2, 2], [1, 2.5, -3, inf]);`, holds
// its values (as many as its shape has elements, in its dtype's range; inf and nan for floats)
// or its digest (resolved through `resolver`; without one, kParseError saying the data is not
// in the text). A name in backquotes may hold any characters but a newline (`gpu_0/data_0`,
// a doubled backquote for one). source_locations=false leaves the nodes without line:column
// (a program file's text: later errors must not point into a text the user never saw).
Expected<std::shared_ptr<const ir::Program>> parse_tile(std::string_view text,
                                                        std::string program_name = "",
                                                        const ConstantResolver& resolver = {},
                                                        bool source_locations = true);

}  // namespace plaidml::parse
