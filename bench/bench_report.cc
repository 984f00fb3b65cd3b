#include "bench_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench_check.h"

namespace plaidml_bench {

namespace {

double per_ms(double amount, double ms) { return ms > 0 ? amount / (ms * 1e6) : 0; }

std::string status_of(const CaseResult& r) {
  if (!r.not_applicable.empty()) return "n/a";
  return r.error.empty() ? "ok" : "error";
}

std::string check_fields(const CaseResult& r) {
  std::string s = ", \"check\": " + json_string(check_status(r));
  s += ", \"checked\": " + std::to_string(r.check.checked);
  s += ", \"max_rel_error\": " + json_number(r.check.max_error);
  if (!r.check.first_failure.empty())
    s += ", \"check_failure\": " + json_string(r.check.first_failure);
  if (!r.agreement.with.empty()) {
    s += ", \"compared_with\": " + json_string(r.agreement.with);
    s += ", \"max_abs_diff\": " + json_number(r.agreement.max_abs_diff);
    s += ", \"diff_tolerance\": " + json_number(r.agreement.tolerance);
    if (!r.agreement.first_failure.empty())
      s += ", \"compare_failure\": " + json_string(r.agreement.first_failure);
  }
  return s;
}

std::string timing_fields(const BenchCase& c, const CaseResult& r) {
  Timing t = summarize(r.run_ms);
  std::string s = ", \"first_run_ms\": " + json_number(r.first_run_ms);
  s += ", \"warmup\": " + std::to_string(r.warmup);
  s += ", \"repeat\": " + std::to_string(r.run_ms.size());
  s += ", \"min_ms\": " + json_number(t.min_ms);
  s += ", \"median_ms\": " + json_number(t.median_ms);
  s += ", \"gflops\": " + json_number(per_ms(c.flop, t.median_ms));
  s += ", \"gflops_best\": " + json_number(per_ms(c.flop, t.min_ms));
  s += ", \"gbps\": " + json_number(per_ms(c.bytes, t.median_ms));
  return s;
}

std::string pad_to(const std::string& s, int width) {
  return s + std::string(s.size() < size_t(width) ? size_t(width) - s.size() : 0, ' ');
}

}  // namespace

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

Timing summarize(std::vector<double> run_ms) {
  Timing t;
  if (run_ms.empty()) return t;
  std::sort(run_ms.begin(), run_ms.end());
  size_t n = run_ms.size();
  t.min_ms = run_ms.front();
  t.median_ms = n % 2 ? run_ms[n / 2] : (run_ms[n / 2 - 1] + run_ms[n / 2]) / 2;
  return t;
}

std::string compile_fields(const CaseResult& r) {
  std::string s = ", \"library_compile_ms\": " + json_number(r.library_compile_ms);
  s += ", \"kernels_compiled\": " + std::to_string(r.kernels_compiled);
  s += ", \"kernel_disk_hits\": " + std::to_string(r.kernel_disk_hits);
  return s;
}

std::string json_line(const RunInfo& info, const BenchCase& c, const CaseResult& r) {
  std::string s = "{\"impl\": " + json_string(info.impl);
  s += ", \"version\": " + json_string(info.version);
  s += ", \"device\": " + json_string(info.device_id);
  s += ", \"device_name\": " + json_string(info.device_name);
  if (info.threads > 0) s += ", \"threads\": " + std::to_string(info.threads);
  s += ", \"case\": " + json_string(c.name);
  s += ", \"shape\": " + json_string(c.shape);
  s += ", \"flop\": " + json_number(c.flop);
  s += ", \"bytes\": " + json_number(c.bytes);
  s += ", \"status\": " + json_string(status_of(r));
  if (!r.not_applicable.empty()) return s + ", \"reason\": " + json_string(r.not_applicable) + "}";
  if (!r.error.empty()) s += ", \"error\": " + json_string(r.error);
  if (!r.detail.empty()) s += ", \"detail\": " + json_string(r.detail);
  s += ", \"compile_ms\": " + json_number(r.compile_ms);
  if (info.impl == "plaidml") s += compile_fields(r);
  if (r.error.empty()) s += timing_fields(c, r) + check_fields(r);
  if (r.others_cores >= 0) s += ", \"others_cores\": " + json_number(r.others_cores);
  if (r.self_cores >= 0) s += ", \"self_cores\": " + json_number(r.self_cores);
  return s + "}";
}

std::string table_header(int label_width) {
  char text[200];
  std::snprintf(text, sizeof text, "%11s %10s %10s %10s %9s %6s", "compile ms", "first ms",
                "min ms", "median ms", "GFLOP/s", "check");
  return pad_to("case", label_width) + " " + text;
}

std::string table_row(const std::string& label, const BenchCase& c, const CaseResult& r,
                      int label_width) {
  if (!r.not_applicable.empty()) return pad_to(label, label_width) + " n/a: " + r.not_applicable;
  if (!r.error.empty()) return pad_to(label, label_width) + " error: " + r.error;
  char text[200];
  Timing t = summarize(r.run_ms);
  std::snprintf(text, sizeof text, "%11.1f %10.2f %10.3f %10.3f %9.1f %6s", r.compile_ms,
                r.first_run_ms, t.min_ms, t.median_ms, per_ms(c.flop, t.median_ms),
                check_status(r).c_str());
  return pad_to(label, label_width) + " " + text;
}

}  // namespace plaidml_bench
