// Where the disk cache lives (docs/design.md section 6), decided once per context.
#pragma once

#include <optional>
#include <string>

namespace plaidml::jit {

// The cache folder, "" when the disk cache is off. In order:
//   option, when given (the context option PLAIDML_CONTEXT_OPTION_CACHE_DIR; "" turns it off);
//   else PLAIDML_CACHE_DIR, when set ("" turns it off);
//   else $XDG_CACHE_HOME/plaidml when XDG_CACHE_HOME is an absolute path (the XDG rule);
//   else $HOME/.cache/plaidml when HOME is set; else "" (off).
// A relative folder is made absolute against the working directory now, so a later chdir does
// not move the cache.
std::string resolve_cache_dir(const std::optional<std::string>& option);

}  // namespace plaidml::jit
