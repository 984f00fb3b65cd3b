#include "cpu_peers.h"

#include <exception>

#include "bench_check.h"
#include "bench_timing.h"

namespace plaidml_bench {

namespace {

Peer absent_peer(const std::string& name, const std::string& why) {
  Peer p;
  p.name = name;
  p.absent = why;
  p.run = [why](const BenchCase&, int, const RunSettings&) {
    CaseResult r;
    r.error = why;
    return r;
  };
  return p;
}

// Runs fn; an exception (oneDNN reports errors as dnnl::error) becomes its message.
std::string guarded(const std::function<void()>& fn) {
  try {
    fn();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

std::vector<Peer> cpu_peers() {
  std::vector<Peer> peers;
#if PLAIDML_BENCH_HAVE_ONEDNN
  peers.push_back(onednn_peer());
#else
  peers.push_back(absent_peer("onednn", "oneDNN (libdnnl-dev) was not found at configure time"));
#endif
#if PLAIDML_BENCH_HAVE_OPENBLAS
  peers.push_back(openblas_peer());
#else
  peers.push_back(
      absent_peer("openblas", "OpenBLAS (libopenblas-dev) was not found at configure time"));
#endif
  return peers;
}

CaseResult run_prepared(const BenchCase& c, const HostInputs& inputs, const RunSettings& settings,
                        const std::function<PreparedCase()>& prepare) {
  CaseResult result;
  PreparedCase prepared;
  auto start = Clock::now();
  result.error = guarded([&] { prepared = prepare(); });
  result.compile_ms = ms_since(start);
  result.detail = prepared.detail;
  if (!result.error.empty()) return result;

  start = Clock::now();
  result.error = guarded(prepared.run);
  result.first_run_ms = ms_since(start);
  if (!result.error.empty()) return result;

  result.error = timed_runs(
      settings, [&] { return guarded(prepared.run); }, result);
  if (!result.error.empty()) return result;

  std::vector<float> output = prepared.output();
  result.check = spot_check(c, inputs, output, settings.spot_checks);
  if (settings.keep_output) result.output = std::move(output);
  return result;
}

}  // namespace plaidml_bench
