// The names in a folder, for code that scans one (plugin folders, the program cache).
// std::filesystem::directory_iterator is not used for this: in libstdc++ 12 its constructor
// calls std::terminate when an allocation inside it fails (both overloads), so running out of
// memory while listing a folder would kill the process instead of reaching the caller.
#pragma once

#include <string>
#include <vector>

namespace plaidml {

// The names of folder's entries ("." and ".." left out), in no particular order; none when the
// folder cannot be opened or read. Out of memory is std::bad_alloc, as anywhere else.
std::vector<std::string> folder_entries(const std::string& folder);

}  // namespace plaidml
