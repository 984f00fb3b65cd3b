// Tile text from the graph IR. print_tile(parse_tile(t)) parses back to a program that prints
// the same text, so the printed form is the program's canonical identity (Program::fingerprint
// hashes it) and the form the user sees in dumps and error reports.
#pragma once

#include <string>

#include "core/ir/program.h"

namespace plaidml::ir {

// The whole program: `function (inputs) -> (outputs) { statements }`, one statement per
// non-literal node; generated temporaries ("_T3") are their own statements; literals with
// generated names are written inline where they are used. A size subexpression that several
// places share and that is too big to repeat is written once, as `size _S0 = ...;` first in the
// body, and by its name where used: sizes over symbolic dims (an exported transformer's) share
// subterms so widely that their trees written out grow exponentially.
std::string print_tile(const Program& program);

// An integer expression with the fewest parentheses that parse back to the same tree:
// "(i - j + 1) / 2", "max(0, N - 2)", "2 * x + i".
std::string print_int_expr(const IntExpr& expr);

// With `names` (SizeNames, program.h), a node found there prints as its name.
std::string print_int_expr(const IntExpr& expr, const SizeNames* names);

// True for names the builder generates ("_T0", "_T17").
bool is_generated_name(const std::string& name);

// A tensor or dimension name as Tile text writes it: as is when it is a plain name (a capital
// letter or '_', then letters, digits and '_'), else in backquotes with each backquote doubled
// (`gpu_0/data_0`, as ONNX names are), which the parser reads back as that name.
std::string tile_name(const std::string& name);

}  // namespace plaidml::ir
