// plaidml_cpu_bench: plaidml on the CPU (public C API only) beside oneDNN and OpenBLAS, measured
// in the same process and run: square and skinny matmuls, the ResNet-50 conv layers, a fused
// conv + bias + relu and a softmax, each at every thread count of --threads; then the dispatch
// overhead of a tiny kernel on a plan-cache hit. --compile-only measures the start-up instead:
// every case's program compiled once (run it twice on one --cache-dir for a cached start).
//
//   plaidml_cpu_bench [--threads 1,2] [--impls plaidml,onednn,openblas] [--cases A,B]
//                     [--warmup 3] [--repeat 100] [--max-seconds 4] [--seed 1]
//                     [--dispatch-calls 2000] [--cache-dir DIR] [--compile-only] [--list]
//
// --cache-dir DIR is the on-disk kernel cache; without it (and without PLAIDML_CACHE_DIR) the
// bench uses a fresh temporary folder, so its compile times are cold.
//
// JSON lines on stdout (bench/compare_cpu.py makes the tables), a human table on stderr. Exit
// status: 0 when everything that ran passed its checks, 1 otherwise, 2 for a bad command line.
#include <plaidml/plaidml.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bench_capi.h"
#include "bench_cases.h"
#include "bench_check.h"
#include "bench_cli.h"
#include "bench_contention.h"
#include "bench_dispatch.h"
#include "bench_env.h"
#include "bench_report.h"
#include "bench_runner.h"
#include "bench_timing.h"
#include "cpu_bench_options.h"
#include "cpu_peers.h"
#include "cpu_run_info.h"
#include "cpu_startup.h"

namespace plaidml_bench {
namespace {

constexpr int kLabelWidth = 46;
constexpr int kSettleMs = 150;

// The results of one case at one thread count: plaidml's first, then each selected peer's.
struct CaseRow {
  std::vector<RunInfo> infos;
  std::vector<CaseResult> results;
};

// plaidml's whole output against the first peer that produced one (oneDNN, else OpenBLAS).
void compare_with_peers(CaseRow& row) {
  if (row.infos.empty() || row.infos[0].impl != "plaidml" || !row.results[0].error.empty()) return;
  for (size_t i = 1; i < row.results.size(); ++i) {
    const CaseResult& peer = row.results[i];
    if (!peer.error.empty() || !peer.not_applicable.empty() || peer.output.empty()) continue;
    row.results[0].agreement =
        compare_outputs(row.infos[i].impl, row.results[0].output, peer.output);
    return;
  }
}

// Runs one implementation's case with the machine's load measured around it. With several
// threads, idle worker threads of the implementation before (OpenBLAS spins for a while after a
// call) would take a core from this one: a short pause lets them go to sleep first.
CaseResult measured(const std::function<CaseResult()>& run, int threads) {
  if (threads > 1) std::this_thread::sleep_for(std::chrono::milliseconds(kSettleMs));
  ContentionMeter meter;
  CaseResult r = run();
  r.others_cores = meter.others_cores();
  r.self_cores = meter.self_cores();
  return r;
}

bool passed(const CaseResult& r) {
  return !r.not_applicable.empty() || (r.error.empty() && check_status(r) != "FAIL");
}

// Runs one case on plaidml and the peers; prints its lines; false when something failed.
bool run_one(const Options& o, const RunInfo& base, plaidml_context* context,
             const std::vector<Peer>& peers, const BenchCase& c, int threads) {
  RunSettings settings = o.run;
  settings.keep_output = true;
  CaseRow row;
  if (o.impls.count("plaidml")) {
    row.infos.push_back(base);
    row.results.push_back(measured([&] { return run_case(context, c, settings); }, threads));
  }
  for (const Peer& peer : peers) {
    if (!o.impls.count(peer.name) || !peer.absent.empty()) continue;
    row.infos.push_back(
        RunInfo{base.device_id, base.device_name, peer.version, peer.name, threads});
    row.results.push_back(measured([&] { return peer.run(c, threads, settings); }, threads));
  }
  compare_with_peers(row);
  bool ok = true;
  for (size_t i = 0; i < row.results.size(); ++i) {
    std::printf("%s\n", json_line(row.infos[i], c, row.results[i]).c_str());
    std::string label = c.name + " t" + std::to_string(threads) + " " + row.infos[i].impl;
    std::fprintf(stderr, "%s\n", table_row(label, c, row.results[i], kLabelWidth).c_str());
    ok = ok && passed(row.results[i]);
  }
  std::fflush(stdout);
  return ok;
}

// Every case at one thread count, then the dispatch overhead there; false when one failed.
bool run_threads(const Options& o, const std::vector<BenchCase>& cases,
                 const std::vector<Peer>& peers, int threads) {
  auto context = open_context(o.device, threads);
  if (!context) {
    std::fprintf(stderr, "plaidml_cpu_bench: %s\n", context.message().c_str());
    return false;
  }
  RunInfo base{o.device, selected_device_name(context->get()), plaidml_version(), "plaidml",
               threads};
  bool ok = true;
  for (const BenchCase& c : cases) ok = run_one(o, base, context->get(), peers, c, threads) && ok;
  if (o.dispatch_calls > 0 && o.impls.count("plaidml")) {
    DispatchResult d = measure_dispatch(context->get(), o.dispatch_calls);
    std::printf("%s\n", dispatch_json(d, threads).c_str());
    std::fprintf(stderr, "dispatch t%d: add of 4 floats, median %.2f us, min %.2f us (%s)\n",
                 threads, d.median_us, d.min_us, d.error.empty() ? "ok" : d.error.c_str());
    ok = ok && d.error.empty() && d.output_ok && d.compiles == 0;
  }
  return ok;
}

int run(const Options& o, const std::vector<BenchCase>& cases) {
  std::vector<Peer> peers = cpu_peers();
  std::printf("%s\n", run_json(o, peers).c_str());
  std::fprintf(stderr, "%s", run_banner(o, peers).c_str());
  std::fprintf(stderr, "%s\n", table_header(kLabelWidth).c_str());
  ContentionMeter meter;
  auto start = Clock::now();
  bool ok = true;
  for (int threads : o.threads) ok = run_threads(o, cases, peers, threads) && ok;
  std::printf("%s\n", end_json(ms_since(start) / 1e3, meter.others_cores()).c_str());
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace plaidml_bench

int main(int argc, char** argv) {
  using namespace plaidml_bench;
  pin_openblas_coretype(argv);
  Options options;
  if (!parse_args(argc, argv, options)) return 2;
  std::vector<BenchCase> cases;
  if (!select_cases("plaidml_cpu_bench", cpu_cases(), options.cases, cases)) return 2;
  if (options.list) {
    for (const BenchCase& c : cases) std::printf("%s  %s\n", c.name.c_str(), c.shape.c_str());
    return 0;
  }
  // Before any context exists: the library reads its cache folder when a context starts.
  const std::string temporary = use_cache_dir(options.cache_dir);
  int status = options.compile_only ? run_compile_only(options, cases) : run(options, cases);
  if (!temporary.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(temporary, ignored);
  }
  return status;
}
