// Tile text -> tokens. Comments (`#` and `//` to end of line) and whitespace are dropped.
#pragma once

#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/parse/token.h"

namespace plaidml::parse {

// The token list always ends with one kEnd token placed after the last character.
// Errors (kParseError, "line:col: ..."): a character that starts no token, a malformed number.
Expected<std::vector<Token>> lex(std::string_view text);

}  // namespace plaidml::parse
