#include "cpu_bench_options.h"

#include <algorithm>
#include <cstdio>

#include "bench_cli.h"

namespace plaidml_bench {

namespace {

constexpr const char* kUsage =
    "usage: plaidml_cpu_bench [--threads 1,2] [--impls plaidml,onednn,openblas] [--cases A,B]\n"
    "                         [--warmup N] [--repeat N] [--max-seconds S] [--seed N]\n"
    "                         [--dispatch-calls N] [--cache-dir DIR] [--device ID]\n"
    "                         [--compile-only] [--list]\n";

// "1,2" -> {1, 2}, in the order given; every entry a whole number >= 1.
bool parse_threads(const std::string& text, std::vector<int>& out) {
  std::vector<int> threads;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = std::min(text.find(',', pos), text.size());
    long long n = 0;
    if (!parse_int(text.substr(pos, comma - pos), 1, &n)) return false;
    threads.push_back(int(n));
    pos = comma + 1;
  }
  out = threads;
  return !out.empty();
}

bool parse_impls(const std::string& text, std::set<std::string>& out) {
  out = split_names(text);
  for (const std::string& name : out) {
    if (name != "plaidml" && name != "onednn" && name != "openblas") return false;
  }
  return true;
}

bool apply_run_flag(const std::string& flag, const std::string& value, RunSettings& run) {
  long long n = 0;
  if (flag == "--max-seconds") return parse_seconds(value, &run.max_seconds);
  if (flag == "--warmup" && parse_int(value, 0, &n)) {
    run.warmup = int(n);
  } else if (flag == "--repeat" && parse_int(value, 1, &n)) {
    run.repeat = int(n);
    run.min_repeat = std::min(run.min_repeat, run.repeat);
  } else if (flag == "--seed" && parse_int(value, 0, &n)) {
    run.seed = uint64_t(n);
  } else {
    return false;
  }
  return true;
}

// Applies one "--flag value" pair; false for an unknown flag or a bad value.
bool apply_flag(const std::string& flag, const std::string& value, Options& o) {
  long long n = 0;
  if (flag == "--threads") return parse_threads(value, o.threads);
  if (flag == "--impls") return parse_impls(value, o.impls);
  if (flag == "--cases") {
    o.cases = split_names(value);
  } else if (flag == "--device") {
    o.device = value;
  } else if (flag == "--cache-dir") {
    o.cache_dir = value;
  } else if (flag == "--dispatch-calls" && parse_int(value, 0, &n)) {
    o.dispatch_calls = int(n);
  } else {
    return apply_run_flag(flag, value, o.run);
  }
  return true;
}

}  // namespace

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--list" || flag == "--compile-only") {
      (flag == "--list" ? o.list : o.compile_only) = true;
      continue;
    }
    if (i + 1 >= argc || !apply_flag(flag, argv[i + 1], o)) {
      std::fprintf(stderr, "plaidml_cpu_bench: bad argument '%s'\n%s", flag.c_str(), kUsage);
      return false;
    }
    ++i;
  }
  return true;
}

}  // namespace plaidml_bench
