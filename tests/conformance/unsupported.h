// The per-device lists of cases a device cannot run: tests/conformance/unsupported/<kind>.txt,
// one "case_name: reason" per line ('#' starts a comment; blank lines are ignored). The line
// "*: reason" skips the whole device kind. A kind without a file runs every case.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace plaidml::conformance {

struct UnsupportedList {
  std::optional<std::string> all_reason;     // the "*" line, if any
  std::map<std::string, std::string> cases;  // case name -> reason
};

// Errors (kParseError, "<file>:<line>: ..."): a line without ':', an empty name or reason, a
// name listed twice.
Expected<UnsupportedList> parse_unsupported(std::string_view text, const std::string& file);

// Reads <dir>/<kind>.txt; a missing file gives an empty list. Read errors: kIoError.
Expected<UnsupportedList> load_unsupported(const std::string& dir, const std::string& kind);

// The device kinds that have a list in dir (the file stems, sorted).
std::vector<std::string> listed_kinds(const std::string& dir);

// Names in the list that are not cases (the list must only name existing cases).
std::vector<std::string> unknown_names(const UnsupportedList& list,
                                       const std::vector<std::string>& case_names);

}  // namespace plaidml::conformance
