// Runs spirv-val (SPIRV-Tools) on a module: the oracle that every generated module is valid
// SPIR-V for Vulkan 1.1.
#pragma once

#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace plaidml::testing {

// Empty when `spirv-val --target-env vulkan1.1` accepts the module; else what it printed.
inline std::string spirv_val(const std::vector<uint8_t>& bytes) {
  char path[] = "/tmp/plaidml_spirv_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return "cannot create a temporary file";
  bool written = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  close(fd);
  if (!written) return "cannot write the temporary file";
  std::string command = std::string(PLAIDML_SPIRV_VAL) + " --target-env vulkan1.1 " + path + " 2>&1";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "cannot run spirv-val";
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  int rc = pclose(pipe);
  unlink(path);
  if (rc == 0) return "";
  return out.empty() ? "spirv-val failed without a message" : out;
}

inline std::vector<uint8_t> to_bytes(const std::vector<uint32_t>& words) {
  std::vector<uint8_t> bytes(words.size() * 4);
  for (size_t i = 0; i < words.size(); ++i) {
    for (size_t j = 0; j < 4; ++j) bytes[i * 4 + j] = static_cast<uint8_t>(words[i] >> (8 * j));
  }
  return bytes;
}

}  // namespace plaidml::testing
