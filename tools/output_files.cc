#include "output_files.h"

#include <map>

namespace plaidml_cli {

std::string output_file_name(const std::string& output_name) {
  std::string file = output_name;
  for (char& c : file) {
    if (c == '/' || c == '\\' || c == ':' || c == '\0') c = '_';
  }
  return file + ".npy";
}

Result<std::vector<std::string>> output_file_names(const std::vector<std::string>& output_names) {
  std::vector<std::string> files;
  std::map<std::string, std::string> owner;  // file name -> the output first mapped to it
  for (const auto& name : output_names) {
    std::string file = output_file_name(name);
    auto [it, inserted] = owner.emplace(file, name);
    if (!inserted) {
      return runtime_error("outputs '" + it->second + "' and '" + name +
                           "' would both be written to " + file +
                           " (characters a file name cannot hold become '_')");
    }
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace plaidml_cli
