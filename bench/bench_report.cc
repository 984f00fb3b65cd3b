#include "bench_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace plaidml_bench {

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += char(ch);
    } else if (ch < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", ch);
      out += esc;
    } else {
      out += char(ch);
    }
  }
  return out + "\"";
}

// JSON has no NaN or infinity: those become null.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

double gflops(double flop, double ms) { return ms > 0 ? flop / (ms * 1e6) : 0; }

std::string check_status(const CaseResult& r) {
  if (r.check.checked == 0) return "none";
  return r.check.failed == 0 ? "ok" : "FAIL";
}

}  // namespace

Timing summarize(std::vector<double> run_ms) {
  Timing t;
  if (run_ms.empty()) return t;
  std::sort(run_ms.begin(), run_ms.end());
  size_t n = run_ms.size();
  t.min_ms = run_ms.front();
  t.median_ms = n % 2 ? run_ms[n / 2] : (run_ms[n / 2 - 1] + run_ms[n / 2]) / 2;
  return t;
}

std::string json_line(const RunInfo& info, const BenchCase& c, const CaseResult& r) {
  Timing t = summarize(r.run_ms);
  std::string s = "{\"impl\": \"plaidml\"";
  s += ", \"version\": " + json_string(info.version);
  s += ", \"device\": " + json_string(info.device_id);
  s += ", \"device_name\": " + json_string(info.device_name);
  s += ", \"case\": " + json_string(c.name);
  s += ", \"shape\": " + json_string(c.shape);
  s += ", \"flop\": " + json_number(c.flop);
  s += ", \"status\": " + json_string(r.error.empty() ? "ok" : "error");
  if (!r.error.empty()) s += ", \"error\": " + json_string(r.error);
  s += ", \"compile_ms\": " + json_number(r.compile_ms);
  s += ", \"library_compile_ms\": " + json_number(r.library_compile_ms);
  if (r.error.empty()) {
    s += ", \"first_run_ms\": " + json_number(r.first_run_ms);
    s += ", \"warmup\": " + std::to_string(r.warmup);
    s += ", \"repeat\": " + std::to_string(r.run_ms.size());
    s += ", \"min_ms\": " + json_number(t.min_ms);
    s += ", \"median_ms\": " + json_number(t.median_ms);
    s += ", \"gflops\": " + json_number(gflops(c.flop, t.median_ms));
    s += ", \"gflops_best\": " + json_number(gflops(c.flop, t.min_ms));
    s += ", \"check\": " + json_string(check_status(r));
    s += ", \"checked\": " + std::to_string(r.check.checked);
    s += ", \"max_rel_error\": " + json_number(r.check.max_error);
    if (!r.check.first_failure.empty())
      s += ", \"check_failure\": " + json_string(r.check.first_failure);
  }
  return s + "}";
}

std::string table_header() {
  char text[200];
  std::snprintf(text, sizeof text, "%-22s %11s %10s %10s %10s %9s %6s", "case", "compile ms",
                "first ms", "min ms", "median ms", "GFLOP/s", "check");
  return text;
}

std::string table_row(const BenchCase& c, const CaseResult& r) {
  if (!r.error.empty())
    return c.name + std::string(c.name.size() < 22 ? 22 - c.name.size() : 0, ' ') +
           " error: " + r.error;
  char text[200];
  Timing t = summarize(r.run_ms);
  std::snprintf(text, sizeof text, "%-22s %11.1f %10.2f %10.3f %10.3f %9.1f %6s", c.name.c_str(),
                r.compile_ms, r.first_run_ms, t.min_ms, t.median_ms, gflops(c.flop, t.median_ms),
                check_status(r).c_str());
  return text;
}

}  // namespace plaidml_bench
