// Runs spirv-val (SPIRV-Tools) on a module: the oracle that every generated module is valid
// SPIR-V for Vulkan 1.1.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace plaidml::testing {

// The modules of an artifact (one per kernel, back to back; spirv_codegen.h): each starts with
// the magic word where the previous one's instructions end.
inline std::vector<std::vector<uint8_t>> spirv_modules(const std::vector<uint8_t>& bytes) {
  auto word = [&](size_t i) {
    uint32_t w = 0;
    for (size_t j = 0; j < 4; ++j) w |= uint32_t{bytes[i * 4 + j]} << (8 * j);
    return w;
  };
  const size_t n = bytes.size() / 4;
  std::vector<std::vector<uint8_t>> out;
  size_t start = 0;
  for (size_t at = 5; at <= n;) {
    if (at == n || word(at) == 0x07230203u) {
      out.emplace_back(bytes.begin() + start * 4, bytes.begin() + at * 4);
      start = at;
      at += 5;
      continue;
    }
    uint32_t count = word(at) >> 16;
    if (count == 0) break;  // malformed: spirv-val says why
    at = std::min(at + count, n);
  }
  return out;
}

// The validator: PLAIDML_TEST_SPIRV_VAL names another one (a newer SPIRV-Tools than the
// distribution's, for the cooperative-matrix modules), else the one CMake found.
inline std::string spirv_val_path() {
  const char* path = std::getenv("PLAIDML_TEST_SPIRV_VAL");
  return path && *path ? path : PLAIDML_SPIRV_VAL;
}

// What a command printed (stdout and stderr) and whether it exited 0.
inline bool run_command(const std::string& command, std::string* out) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return false;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out->append(buf.data(), n);
  return pclose(pipe) == 0;
}

// Whether the validator knows SPV_KHR_cooperative_matrix (SPIRV-Tools 2023.4 and later; Debian
// 12 has 2023.1).
inline bool spirv_val_knows_cooperative_matrix() {
  std::string version;
  if (!run_command(spirv_val_path() + " --version", &version)) return false;
  int year = 0, minor = 0;
  const size_t v = version.find(" v");
  if (v == std::string::npos || std::sscanf(version.c_str() + v, " v%d.%d", &year, &minor) != 2) {
    return false;
  }
  return year > 2023 || (year == 2023 && minor >= 4);
}

// Empty when `spirv-val --target-env <env>` accepts every module of the artifact; else what
// it printed.
inline std::string spirv_val_module(const std::vector<uint8_t>& bytes,
                                    const char* env = "vulkan1.1");

inline std::string spirv_val(const std::vector<uint8_t>& bytes, const char* env = "vulkan1.1") {
  std::string out;
  for (const auto& module : spirv_modules(bytes)) out += spirv_val_module(module, env);
  return out;
}

inline std::string spirv_val_module(const std::vector<uint8_t>& bytes, const char* env) {
  char path[] = "/tmp/plaidml_spirv_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return "cannot create a temporary file";
  bool written = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  close(fd);
  if (!written) return "cannot write the temporary file";
  std::string out;
  const bool ok =
      run_command(spirv_val_path() + " --target-env " + env + " " + path, &out);
  unlink(path);
  if (ok) return "";
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
