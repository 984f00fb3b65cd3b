#include "jit/profiler.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <new>

namespace plaidml::jit {
namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

int track_of(const std::string& category) {
  if (category == "kernel") return 1;
  if (category == "transfer") return 2;
  return 3;
}

std::string trace_event(const ProfileEvent& e) {
  std::string args = fmt::format("\"device\": {}", json_string(e.device));
  if (!e.origins.empty()) args += fmt::format(", \"ops\": {}", json_string(joined(e.origins)));
  if (e.bytes) args += fmt::format(", \"bytes\": {}", e.bytes);
  if (e.flops > 0) args += fmt::format(", \"flops\": {:.0f}", e.flops);
  return fmt::format(
      "{{\"name\": {}, \"cat\": {}, \"ph\": \"X\", \"ts\": {:.3f}, \"dur\": {:.3f}, \"pid\": 1, "
      "\"tid\": {}, \"args\": {{{}}}}}",
      json_string(e.name), json_string(e.category), e.start_us, e.duration_us,
      track_of(e.category), args);
}

struct KernelTotals {
  int64_t calls = 0;
  double us = 0, flops = 0, bytes = 0;
  std::vector<std::string> origins;
};

}  // namespace

double Profiler::now_us() const {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - epoch_)
      .count();
}

// Called from ProfileScope's destructor, which must not throw: an event that finds no memory is
// dropped and counted like one over the limit.
void Profiler::record(ProfileEvent event) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (events_.size() >= kMaxEvents) {
    ++dropped_;
    return;
  }
  try {
    events_.push_back(std::move(event));
  } catch (const std::bad_alloc&) {
    ++dropped_;
  }
}

void Profiler::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.clear();
  dropped_ = 0;
}

std::string Profiler::chrome_trace() const {
  std::lock_guard<std::mutex> lock(mutex_);
  // Track names first (metadata events), then one complete event per record.
  std::vector<std::string> lines;
  const char* tracks[] = {"kernels", "transfers", "compiles"};
  for (int t = 0; t < 3; ++t) {
    lines.push_back(fmt::format(
        "{{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": {}, \"args\": "
        "{{\"name\": \"{}\"}}}}",
        t + 1, tracks[t]));
  }
  for (const ProfileEvent& e : events_) lines.push_back(trace_event(e));
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  for (size_t i = 0; i < lines.size(); ++i) out += lines[i] + (i + 1 < lines.size() ? ",\n" : "\n");
  return out + fmt::format("], \"otherData\": {{\"dropped_events\": {}}}}}\n", dropped_);
}

std::string Profiler::summary(size_t top) const {
  std::map<std::string, KernelTotals> kernels;
  double kernel_us = 0, compile_us = 0, transfer_us = 0, transfer_bytes = 0;
  int64_t compiles = 0, transfers = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const ProfileEvent& e : events_) {
      if (e.category == "kernel") {
        KernelTotals& k = kernels[e.name];
        ++k.calls;
        k.us += e.duration_us;
        k.flops += e.flops;
        k.bytes += static_cast<double>(e.bytes);
        k.origins = e.origins;
        kernel_us += e.duration_us;
      } else if (e.category == "compile") {
        ++compiles;
        compile_us += e.duration_us;
      } else {
        ++transfers;
        transfer_us += e.duration_us;
        transfer_bytes += static_cast<double>(e.bytes);
      }
    }
  }
  std::vector<std::pair<std::string, KernelTotals>> rows(kernels.begin(), kernels.end());
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.second.us > b.second.us; });
  std::string out = fmt::format("{:<28} {:>6} {:>10} {:>9} {:>6} {:>8} {:>8}  {}\n", "kernel",
                                "calls", "total ms", "mean ms", "share", "GFLOP/s", "GB/s", "ops");
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const KernelTotals& k = rows[i].second;
    double s = k.us * 1e-6;
    out += fmt::format("{:<28} {:>6} {:>10.3f} {:>9.3f} {:>5.1f}% {:>8.1f} {:>8.1f}  {}\n",
                       rows[i].first, k.calls, k.us * 1e-3, k.us * 1e-3 / k.calls,
                       kernel_us > 0 ? 100 * k.us / kernel_us : 0.0,
                       s > 0 ? k.flops / s * 1e-9 : 0.0, s > 0 ? k.bytes / s * 1e-9 : 0.0,
                       joined(k.origins));
  }
  out += fmt::format("kernels: {} distinct, {:.3f} ms in all", rows.size(), kernel_us * 1e-3);
  if (rows.size() > top) out += fmt::format(" ({} not shown)", rows.size() - top);
  out += fmt::format("\ncompiles: {} in {:.3f} ms; transfers: {} of {:.1f} MB in {:.3f} ms\n",
                     compiles, compile_us * 1e-3, transfers, transfer_bytes * 1e-6,
                     transfer_us * 1e-3);
  return out;
}

ProfileScope::ProfileScope(Profiler& profiler, ProfileEvent event)
    : profiler_(profiler), on_(profiler.enabled()), event_(std::move(event)) {
  if (on_) event_.start_us = profiler_.now_us();
}

ProfileScope::~ProfileScope() {
  if (!on_) return;
  event_.duration_us = profiler_.now_us() - event_.start_us;
  profiler_.record(std::move(event_));
}

}  // namespace plaidml::jit
