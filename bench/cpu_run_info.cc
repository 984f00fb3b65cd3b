#include "cpu_run_info.h"

#include <plaidml/plaidml.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "bench_report.h"

namespace plaidml_bench {

namespace {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "";
}

std::string loadavg_json() {
  double load[3] = {-1, -1, -1};
  if (getloadavg(load, 3) != 3) return "null";
  return "[" + json_number(load[0]) + ", " + json_number(load[1]) + ", " + json_number(load[2]) +
         "]";
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string peers_json(const std::vector<Peer>& peers) {
  std::string s = "[";
  for (const Peer& p : peers) {
    if (s.size() > 1) s += ", ";
    s += "{\"impl\": " + json_string(p.name) + ", \"version\": " + json_string(p.version) +
         ", \"detail\": " + json_string(p.detail);
    if (!p.absent.empty()) s += ", \"absent\": " + json_string(p.absent);
    s += "}";
  }
  return s + "]";
}

std::string threads_json(const std::vector<int>& threads) {
  std::string s = "[";
  for (int t : threads) s += (s.size() > 1 ? ", " : "") + std::to_string(t);
  return s + "]";
}

}  // namespace

std::string run_json(const Options& o, const std::vector<Peer>& peers) {
  std::string s = "{\"kind\": \"run\", \"plaidml_version\": " + json_string(plaidml_version());
  s += ", \"device\": " + json_string(o.device);
  s += ", \"cpu\": " + json_string(cpu_model());
  s += ", \"cores\": " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN));
  s += ", \"threads\": " + threads_json(o.threads);
  s += ", \"peers\": " + peers_json(peers);
  s += ", \"warmup\": " + std::to_string(o.run.warmup);
  s += ", \"repeat\": " + std::to_string(o.run.repeat);
  s += ", \"min_repeat\": " + std::to_string(o.run.min_repeat);
  s += ", \"max_seconds\": " + json_number(o.run.max_seconds);
  s += ", \"cache_dir\": " + json_string(env_or_empty("PLAIDML_CACHE_DIR"));
  s += ", \"openblas_coretype\": " + json_string(env_or_empty("OPENBLAS_CORETYPE"));
  s += ", \"openblas_coretype_was\": " +
       json_string(env_or_empty("PLAIDML_BENCH_OPENBLAS_CORETYPE_WAS"));
  s += ", \"loadavg\": " + loadavg_json();
  return s + "}";
}

std::string run_banner(const Options& o, const std::vector<Peer>& peers) {
  std::string s = "plaidml " + std::string(plaidml_version()) + " on " + o.device + " (" +
                  cpu_model() + ", " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " cores)\n";
  for (const Peer& p : peers) {
    s += "  peer " + p.name + ": " +
         (p.absent.empty() ? p.version + " (" + p.detail + ")" : "absent: " + p.absent) + "\n";
  }
  const std::string was = env_or_empty("PLAIDML_BENCH_OPENBLAS_CORETYPE_WAS");
  if (!was.empty()) {
    s += "  OPENBLAS_CORETYPE=" + env_or_empty("OPENBLAS_CORETYPE") + " set by the bench (was " +
         was + ")\n";
  }
  s += "  load average at start: " + loadavg_json() + "\n";
  return s;
}

std::string end_json(double elapsed_s, double others_cores) {
  return "{\"kind\": \"end\", \"elapsed_s\": " + json_number(elapsed_s) +
         ", \"others_cores\": " + (others_cores < 0 ? "null" : json_number(others_cores)) +
         ", \"loadavg\": " + loadavg_json() + "}";
}

}  // namespace plaidml_bench
