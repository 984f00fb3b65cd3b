// plaidml_gpu_bench: matmul (f32, f16) and ResNet-50 conv timings on one device, through the
// public C API only (the library as an application sees it).
//
//   plaidml_gpu_bench [--device opencl:0] [--warmup 3] [--warmup-seconds 1] [--repeat 20]
//                     [--max-seconds 20] [--cases matmul_1024,conv3x3_56x56x64_n1] [--seed 1]
//                     [--list]
//
// Warm-up is at least --warmup runs and --warmup-seconds of them: the GPU's clock rises from
// idle while it runs. On the H200 through Vulkan that takes up to half a second of steady load
// after each case's set-up (GPU timestamps: f16 matmul 8192 ran 16.7 ms a run for 0.15 s, at
// the 345 MHz idle clock, then 9.8 ms for 0.2 s, then 3.3 ms), so a shorter warm-up timed a
// case at a fifth or a third of its speed now and then; a second leaves a margin.
//
// One JSON line per case on stdout (bench/compare_gpu.py joins them with bench/torch_gpu.py's),
// a table on stderr. Exit status: 0 when every case ran and passed its spot check, 1 when one did
// not (its JSON line says why), 2 for a bad command line.
#include <plaidml/plaidml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "bench_capi.h"
#include "bench_cases.h"
#include "bench_cli.h"
#include "bench_report.h"
#include "bench_runner.h"

namespace plaidml_bench {
namespace {

struct Options {
  std::string device = "opencl:0";
  RunSettings run = [] {
    RunSettings r;
    r.warmup_seconds = 1;
    return r;
  }();
  std::set<std::string> cases;  // empty: all
  bool list = false;
};

constexpr const char* kUsage =
    "usage: plaidml_gpu_bench [--device ID] [--warmup N] [--warmup-seconds S] [--repeat N]\n"
    "                         [--max-seconds S] [--cases NAME,NAME...] [--seed N] [--list]\n";

// Applies one "--flag value" pair; false for an unknown flag or a bad value.
bool apply_flag(const std::string& flag, const std::string& value, Options& o) {
  long long n = 0;
  if (flag == "--device") {
    o.device = value;
  } else if (flag == "--cases") {
    o.cases = split_names(value);
  } else if (flag == "--max-seconds") {
    return parse_seconds(value, &o.run.max_seconds);
  } else if (flag == "--warmup-seconds") {
    return parse_seconds(value, &o.run.warmup_seconds);
  } else if (flag == "--warmup" && parse_int(value, 0, &n)) {
    o.run.warmup = int(n);
  } else if (flag == "--repeat" && parse_int(value, 1, &n)) {
    o.run.repeat = int(n);
    o.run.min_repeat = std::min(o.run.min_repeat, o.run.repeat);
  } else if (flag == "--seed" && parse_int(value, 0, &n)) {
    o.run.seed = uint64_t(n);
  } else {
    return false;
  }
  return true;
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--list") {
      o.list = true;
      continue;
    }
    if (i + 1 >= argc || !apply_flag(flag, argv[i + 1], o)) {
      std::fprintf(stderr, "plaidml_gpu_bench: bad argument '%s'\n%s", flag.c_str(), kUsage);
      return false;
    }
    ++i;
  }
  return true;
}

int run(const Options& o, const std::vector<BenchCase>& cases) {
  auto context = open_context(o.device);
  if (!context) {
    std::fprintf(stderr, "plaidml_gpu_bench: %s\n", context.message().c_str());
    return 1;
  }
  RunInfo info{o.device, selected_device_name(context->get()), plaidml_version()};
  std::fprintf(stderr, "plaidml %s on %s (%s): warm-up %d, up to %d timed runs per case\n",
               info.version.c_str(), info.device_id.c_str(), info.device_name.c_str(), o.run.warmup,
               o.run.repeat);
  std::fprintf(stderr, "%s\n", table_header().c_str());
  int failures = 0;
  for (const BenchCase& c : cases) {
    CaseResult r = run_case(context->get(), c, o.run);
    if (!r.error.empty() || r.check.failed > 0) ++failures;
    std::printf("%s\n", json_line(info, c, r).c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", table_row(c.name, c, r).c_str());
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace plaidml_bench

int main(int argc, char** argv) {
  using namespace plaidml_bench;
  Options options;
  if (!parse_args(argc, argv, options)) return 2;
  std::vector<BenchCase> cases;
  if (!select_cases("plaidml_gpu_bench", gpu_cases(), options.cases, cases)) return 2;
  if (options.list) {
    for (const BenchCase& c : cases) std::printf("%s  %s\n", c.name.c_str(), c.shape.c_str());
    return 0;
  }
  return run(options, cases);
}
