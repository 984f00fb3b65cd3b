#include "cpu_startup.h"

#include <cstdio>
#include <cstdlib>

#include "bench_capi.h"
#include "bench_report.h"
#include "bench_runner.h"
#include "bench_timing.h"

namespace plaidml_bench {

namespace {

std::string compile_json(const BenchCase& c, const CaseResult& r, int threads) {
  std::string s = "{\"kind\": \"compile\", \"impl\": \"plaidml\", \"case\": " + json_string(c.name);
  s += ", \"threads\": " + std::to_string(threads);
  s += ", \"status\": " + json_string(r.error.empty() ? "ok" : "error");
  if (!r.error.empty()) s += ", \"error\": " + json_string(r.error);
  s += ", \"compile_ms\": " + json_number(r.compile_ms) + compile_fields(r);
  return s + "}";
}

// The context's disk-cache folder as the library resolved it ("" when the cache is off).
std::string cache_dir_of(const plaidml_context* context) {
  const char* dir = nullptr;
  if (plaidml_context_cache_dir(context, &dir) != PLAIDML_STATUS_OK || dir == nullptr) return "?";
  return dir;
}

std::string startup_json(const plaidml_context* context, double context_ms, double total_ms,
                         size_t programs, const plaidml_stats& stats) {
  std::string s = "{\"kind\": \"startup\", \"impl\": \"plaidml\"";
  s += ", \"cache_dir\": " + json_string(cache_dir_of(context));
  s += ", \"context_ms\": " + json_number(context_ms);
  s += ", \"compile_total_ms\": " + json_number(total_ms);
  s += ", \"programs\": " + std::to_string(programs);
  s += ", \"compiles\": " + std::to_string(stats.compiles);
  s += ", \"cache_hits\": " + std::to_string(stats.cache_hits);
  s += ", \"library_compile_ms\": " + json_number(stats.compile_seconds * 1e3);
  s += ", \"kernels_compiled\": " + std::to_string(stats.kernels_compiled);
  s += ", \"disk_hits\": " + std::to_string(stats.disk_hits);
  s += ", \"disk_misses\": " + std::to_string(stats.disk_misses);
  s += ", \"disk_invalid\": " + std::to_string(stats.disk_invalid);
  s += ", \"disk_writes\": " + std::to_string(stats.disk_writes);
  s += ", \"disk_write_failures\": " + std::to_string(stats.disk_write_failures);
  return s + "}";
}

}  // namespace

int run_compile_only(const Options& o, const std::vector<BenchCase>& cases) {
  const int threads = o.threads.front();
  auto start = Clock::now();
  auto context = open_context(o.device, threads);
  const double context_ms = ms_since(start);
  if (!context) {
    std::fprintf(stderr, "plaidml_cpu_bench: %s\n", context.message().c_str());
    return 1;
  }
  bool ok = true;
  double total_ms = 0;
  for (const BenchCase& c : cases) {
    CaseResult r = compile_case(context->get(), c);
    total_ms += r.compile_ms;
    ok = ok && r.error.empty();
    std::printf("%s\n", compile_json(c, r, threads).c_str());
    std::fprintf(stderr, "compile %-40s %9.1f ms %s\n", c.name.c_str(), r.compile_ms,
                 r.error.c_str());
  }
  const plaidml_stats stats = context_stats(context->get());
  std::printf("%s\n",
              startup_json(context->get(), context_ms, total_ms, cases.size(), stats).c_str());
  std::fprintf(stderr,
               "context %.1f ms, %zu programs compiled in %.1f ms (library: %lld compiles, %lld "
               "kernels generated, %lld read from the disk cache %s)\n",
               context_ms, cases.size(), total_ms, static_cast<long long>(stats.compiles),
               static_cast<long long>(stats.kernels_compiled),
               static_cast<long long>(stats.disk_hits), cache_dir_of(context->get()).c_str());
  return ok ? 0 : 1;
}

}  // namespace plaidml_bench
