#include "jit/memory_budget.h"

#include <fmt/format.h>

#include <cctype>
#include <iterator>

#include "core/base/env.h"

namespace plaidml::jit {
namespace {

constexpr const char* kLimitOption = "PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT";
constexpr const char* kLimitVariable = "PLAIDML_MEMORY_LIMIT";

// The power of 1024 a suffix names ("", "K", "KiB", ... "TiB"), or -1.
int byte_suffix_power(std::string_view suffix) {
  if (suffix.empty()) return 0;
  if (suffix.size() != 1 && (suffix.size() != 3 || suffix.substr(1) != "iB")) return -1;
  size_t unit = std::string_view("KMGT").find(
      static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0]))));
  return unit == std::string_view::npos ? -1 : static_cast<int>(unit) + 1;
}

}  // namespace

std::optional<int64_t> parse_byte_count(std::string_view text) {
  size_t digits = 0;
  int64_t value = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, text[digits] - '0', &value)) {
      return std::nullopt;
    }
    ++digits;
  }
  int power = byte_suffix_power(text.substr(digits));
  if (digits == 0 || power < 0) return std::nullopt;
  for (int i = 0; i < power; ++i) {
    if (__builtin_mul_overflow(value, 1024, &value)) return std::nullopt;
  }
  return value;
}

Expected<HostLimit> resolve_memory_limit(int64_t option) {
  if (option < 0) {
    return make_error(StatusCode::kInvalidArgument,
                      "{} must be a number of bytes >= 0 (0: the default), got {}", kLimitOption,
                      option);
  }
  if (option > 0) return HostLimit{static_cast<uint64_t>(option), kLimitOption};
  std::string text = env_string(kLimitVariable, "");
  if (!text.empty()) {
    std::optional<int64_t> bytes = parse_byte_count(text);
    if (!bytes) {
      return make_error(StatusCode::kInvalidArgument,
                        "{} must be a number of bytes, optionally with K, M, G or T (powers of "
                        "1024: \"8G\", \"512MiB\"); got '{}'",
                        kLimitVariable, text);
    }
    if (*bytes > 0) return HostLimit{static_cast<uint64_t>(*bytes), kLimitVariable};
  }
  HostLimit limit = default_host_limit();
  limit.source = "the default: " + limit.source;
  limit.available = available_host_memory;
  return limit;
}

std::string format_bytes(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  // The unit in which the value, rounded to one decimal, stays below 1024 ("1.0 MiB", never
  // "1024.0 KiB").
  while (unit + 1 < std::size(kUnits) && value >= 1024 - 0.05) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

MemoryBudget::MemoryBudget(std::string device_id, const devices::DeviceInfo& info,
                           const HostLimit& host)
    : device_id_(std::move(device_id)) {
  if (info.unified_memory) {
    host_ = &host;
    bytes_ = host.bytes;
  } else {
    bytes_ = info.memory_bytes > 0 ? static_cast<uint64_t>(info.memory_bytes) : 0;
  }
}

MemoryBudget::Texts MemoryBudget::texts(uint64_t need) const {
  Texts t{format_bytes(need), ""};
  std::string have = format_bytes(bytes_);
  if (t.need == have) {
    t.need = fmt::format("{} bytes", need);
    have = fmt::format("{} bytes", bytes_);
  }
  t.bound = host_ ? fmt::format("the context's memory limit is {} ({})", have, host_->source)
                  : fmt::format("{} has {} of memory", device_id_, have);
  return t;
}

std::string MemoryBudget::unavailable(uint64_t need) const {
  if (!host_ || !host_->available || need <= kCheckAvailableAbove) return "";
  std::optional<uint64_t> available = host_->available();
  if (!available || need <= *available) return "";
  return fmt::format("the host has {} available now (MemAvailable + SwapFree in /proc/meminfo; "
                     "{} sets a limit of your own)",
                     format_bytes(*available), kLimitVariable);
}

Status MemoryBudget::check_run(const std::string& program_name,
                               const MemoryFigures& figures) const {
  uint64_t need = figures.peak_bytes();
  bool over_limit = bytes_ != 0 && need > bytes_;  // the stable bound is named first
  std::string short_of = over_limit ? "" : unavailable(need);
  if (!over_limit && short_of.empty()) return Status::ok();
  std::string what = program_name.empty() ? "the program" : "'" + program_name + "'";
  Texts t = texts(need);
  if (!short_of.empty()) t.bound = short_of;
  return make_error(StatusCode::kOutOfMemory,
                    "running {} on {} needs {} (inputs {}, outputs {}, intermediates {}, "
                    "constants {}), but {}",
                    what, device_id_, t.need, format_bytes(figures.inputs_bytes),
                    format_bytes(figures.outputs_bytes), format_bytes(figures.arena_bytes),
                    format_bytes(figures.constants_bytes), t.bound);
}

Status MemoryBudget::check_allocation(const Shape& shape, uint64_t bytes) const {
  bool over_limit = bytes_ != 0 && bytes > bytes_;
  std::string short_of = over_limit ? "" : unavailable(bytes);
  if (!over_limit && short_of.empty()) return Status::ok();
  Texts t = texts(bytes);
  if (!short_of.empty()) t.bound = short_of;
  return make_error(StatusCode::kOutOfMemory, "a buffer of shape {} needs {}, but {}",
                    shape.to_string(), t.need, t.bound);
}

}  // namespace plaidml::jit
