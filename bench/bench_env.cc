#include "bench_env.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace plaidml_bench {

namespace {

bool cpu_has_flag(const std::string& flags, const std::string& flag) {
  std::istringstream words(flags);
  std::string word;
  while (words >> word) {
    if (word == flag) return true;
  }
  return false;
}

// The OpenBLAS core (its names) whose sgemm kernels suit this CPU best; "" to leave it be.
// Cooperlake and later cores run SkylakeX's f32 kernels in OpenBLAS anyway.
std::string best_openblas_core() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    if (cpu_has_flag(line, "avx512f") && cpu_has_flag(line, "avx512bw")) return "SkylakeX";
    if (cpu_has_flag(line, "avx2") && cpu_has_flag(line, "fma")) return "Haswell";
    return "";
  }
  return "";
}

}  // namespace

std::string use_cache_dir(const std::string& requested) {
  if (!requested.empty()) {
    setenv("PLAIDML_CACHE_DIR", requested.c_str(), 1);
    return "";
  }
  if (std::getenv("PLAIDML_CACHE_DIR") != nullptr) return "";
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/plaidml-bench-cache.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("plaidml_cpu_bench: mkdtemp (the disk cache stays the library's default)");
    return "";
  }
  setenv("PLAIDML_CACHE_DIR", pattern.c_str(), 1);
  return pattern;
}

void pin_openblas_coretype(char** argv) {
  if (std::getenv("PLAIDML_BENCH_KEEP_OPENBLAS_CORETYPE") != nullptr) return;
  const std::string want = best_openblas_core();
  const char* have = std::getenv("OPENBLAS_CORETYPE");
  if (want.empty() || (have != nullptr && want == have)) return;
  const std::string was = have == nullptr ? "(unset)" : have;
  std::fprintf(stderr, "plaidml_cpu_bench: restarting with OPENBLAS_CORETYPE=%s (was %s)\n",
               want.c_str(), was.c_str());
  setenv("PLAIDML_BENCH_OPENBLAS_CORETYPE_WAS", was.c_str(), 1);
  setenv("OPENBLAS_CORETYPE", want.c_str(), 1);
  execv("/proc/self/exe", argv);
  std::perror("plaidml_cpu_bench: execv /proc/self/exe (going on with OpenBLAS's own choice)");
}

}  // namespace plaidml_bench
