#include "jit/host_memory.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace plaidml::jit {
namespace {

// Bounds on what a hostile or broken /proc can make us read: a mountinfo of 8,000 mounts fits
// in 1 MiB (a truncated one loses only its last mounts), and no real cgroup tree is 64 deep.
constexpr size_t kMaxFileBytes = size_t{1} << 20;
constexpr size_t kMaxCgroupDepth = 64;
constexpr size_t kMaxMountsPerVersion = 4;

std::vector<std::string_view> split_on(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

bool lists_item(std::string_view list, std::string_view item) {
  for (std::string_view part : split_on(list, ',')) {
    if (part == item) return true;
  }
  return false;
}

// mountinfo escapes space, tab, newline and backslash in paths as \ooo (octal).
std::string unescape_octal(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    bool escape = text[i] == '\\' && i + 3 < text.size();
    if (escape) {
      int value = 0;
      for (size_t k = 1; k <= 3 && escape; ++k) {
        char c = text[i + k];
        escape = c >= '0' && c <= '7';
        value = value * 8 + (c - '0');
      }
      if (escape && value < 256) {
        out.push_back(static_cast<char>(value));
        i += 3;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

std::optional<CgroupMount> parse_mount_line(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::string_view f : split_on(line, ' ')) {
    if (!f.empty()) fields.push_back(f);
  }
  // id parent major:minor root mount-point options [optional...] - fstype source super-options
  auto dash = std::find(fields.begin(), fields.end(), "-");
  if (dash == fields.end() || dash - fields.begin() < 6 || fields.end() - dash < 4) {
    return std::nullopt;
  }
  std::string_view fstype = dash[1], super_options = dash[3];
  CgroupMount m;
  if (fstype == "cgroup2") {
    m.version = 2;
  } else if (fstype == "cgroup" && lists_item(super_options, "memory")) {
    m.version = 1;
  } else {
    return std::nullopt;
  }
  m.root = unescape_octal(fields[3]);
  m.mount_point = unescape_octal(fields[4]);
  if (m.root.empty() || m.root[0] != '/' || m.mount_point.empty() || m.mount_point[0] != '/') {
    return std::nullopt;
  }
  return m;
}

// The path's components below `root`, or nullopt when it is not below it (or climbs out).
std::optional<std::vector<std::string>> components_below(const std::string& path,
                                                         const std::string& root) {
  std::vector<std::string_view> p = split_on(path, '/'), r = split_on(root, '/');
  auto drop_empty = [](std::vector<std::string_view>& v) {
    v.erase(std::remove(v.begin(), v.end(), std::string_view()), v.end());
  };
  drop_empty(p);
  drop_empty(r);
  if (r.size() > p.size() || !std::equal(r.begin(), r.end(), p.begin())) return std::nullopt;
  std::vector<std::string> below;
  for (size_t i = r.size(); i < p.size(); ++i) {
    if (p[i] == "." || p[i] == "..") return std::nullopt;
    below.emplace_back(p[i]);
  }
  if (below.size() > kMaxCgroupDepth) return std::nullopt;
  return below;
}

// What is mounted where when mountinfo cannot be read: the usual places.
std::vector<CgroupMount> usual_cgroup_mounts() {
  return {{2, "/", "/sys/fs/cgroup"}, {1, "/", "/sys/fs/cgroup/memory"}};
}

}  // namespace

std::optional<HostLimit> least(std::optional<HostLimit> a, std::optional<HostLimit> b) {
  if (!a) return b;
  if (!b) return a;
  return b->bytes < a->bytes ? b : a;
}

std::optional<uint64_t> parse_cgroup_limit(std::string_view text) {
  auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;  // "max", "-1", "1e9", "12abc", ...
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, static_cast<uint64_t>(c - '0'), &value)) {
      return std::nullopt;
    }
  }
  if (value == 0) return std::nullopt;  // no process runs in 0 bytes: not a real limit
  return value;
}

std::vector<CgroupMount> parse_mountinfo(std::string_view text) {
  std::vector<CgroupMount> mounts;
  int counts[3] = {0, 0, 0};
  for (std::string_view line : split_on(text, '\n')) {
    std::optional<CgroupMount> m = parse_mount_line(line);
    if (!m || counts[m->version] >= static_cast<int>(kMaxMountsPerVersion)) continue;
    bool seen = std::any_of(mounts.begin(), mounts.end(),
                            [&](const CgroupMount& o) { return o.mount_point == m->mount_point; });
    if (seen) continue;
    ++counts[m->version];
    mounts.push_back(std::move(*m));
  }
  return mounts;
}

CgroupPaths parse_proc_cgroup(std::string_view text) {
  CgroupPaths paths;
  for (std::string_view line : split_on(text, '\n')) {
    // hierarchy-id:controllers:path (the path itself may hold ':')
    size_t first = line.find(':');
    size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    std::string_view id = line.substr(0, first),
                     controllers = line.substr(first + 1, second - first - 1);
    std::string path(line.substr(second + 1));
    if (path.empty() || path[0] != '/') continue;
    if (id == "0" && controllers.empty()) {
      if (!paths.unified) paths.unified = path;
    } else if (lists_item(controllers, "memory")) {
      if (!paths.memory) paths.memory = path;
    }
  }
  return paths;
}

std::vector<std::string> cgroup_limit_files(const CgroupPaths& paths,
                                            const std::vector<CgroupMount>& mounts) {
  std::vector<std::string> files;
  for (const CgroupMount& m : mounts) {
    const std::optional<std::string>& path = m.version == 2 ? paths.unified : paths.memory;
    if (!path) continue;
    auto below = components_below(*path, m.root);
    if (!below) continue;
    const char* name = m.version == 2 ? "memory.max" : "memory.limit_in_bytes";
    std::string base = m.mount_point;
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    for (size_t depth = below->size() + 1; depth-- > 0;) {
      std::string dir = base;
      for (size_t i = 0; i < depth; ++i) dir += "/" + (*below)[i];
      files.push_back(dir + (dir == "/" ? "" : "/") + name);
    }
  }
  return files;
}

std::optional<std::string> read_small_file(const std::string& path) {
  // Non-blocking: a FIFO put where a pseudo-file should be must not hang context creation.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  std::string text;
  char chunk[4096];
  while (text.size() < kMaxFileBytes) {
    ssize_t n = ::read(fd, chunk, std::min(sizeof(chunk), kMaxFileBytes - text.size()));
    if (n <= 0) break;
    text.append(chunk, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

std::optional<HostLimit> cgroup_limit(const FileReader& read) {
  std::optional<std::string> own = read("/proc/self/cgroup");
  if (!own) return std::nullopt;
  std::optional<std::string> mountinfo = read("/proc/self/mountinfo");
  std::vector<CgroupMount> mounts = mountinfo ? parse_mountinfo(*mountinfo) : usual_cgroup_mounts();
  std::optional<HostLimit> best;
  for (const std::string& file : cgroup_limit_files(parse_proc_cgroup(*own), mounts)) {
    std::optional<std::string> text = read(file);
    std::optional<uint64_t> bytes = text ? parse_cgroup_limit(*text) : std::nullopt;
    if (bytes) best = least(best, HostLimit{*bytes, "the cgroup limit in " + file});
  }
  return best;
}

std::optional<HostLimit> rlimit_bound(uint64_t value, uint64_t infinity, const char* name) {
  if (value == infinity || value == 0) return std::nullopt;
  return HostLimit{value, name};
}

std::optional<uint64_t> parse_meminfo_available(std::string_view meminfo) {
  // A line's value in kB ("MemAvailable:    8123456 kB"), or nullopt.
  auto field = [&meminfo](std::string_view key) -> std::optional<uint64_t> {
    size_t at = 0;
    while ((at = meminfo.find(key, at)) != std::string_view::npos) {
      if (at == 0 || meminfo[at - 1] == '\n') break;
      at += key.size();
    }
    if (at == std::string_view::npos) return std::nullopt;
    size_t pos = at + key.size();
    while (pos < meminfo.size() && meminfo[pos] == ' ') ++pos;
    uint64_t kb = 0;
    size_t digits = 0;
    for (; pos < meminfo.size() && meminfo[pos] >= '0' && meminfo[pos] <= '9'; ++pos, ++digits) {
      if (__builtin_mul_overflow(kb, 10, &kb) ||
          __builtin_add_overflow(kb, static_cast<uint64_t>(meminfo[pos] - '0'), &kb)) {
        return std::nullopt;
      }
    }
    if (digits == 0 || meminfo.substr(pos, 3) != " kB") return std::nullopt;
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(kb, 1024, &bytes)) return std::nullopt;
    return bytes;
  };
  std::optional<uint64_t> available = field("MemAvailable:");
  if (!available) return std::nullopt;
  uint64_t total = *available;
  if (__builtin_add_overflow(total, field("SwapFree:").value_or(0), &total)) return UINT64_MAX;
  return total;
}

std::optional<uint64_t> available_host_memory() {
  std::optional<std::string> text = read_small_file("/proc/meminfo");
  return text ? parse_meminfo_available(*text) : std::nullopt;
}

std::optional<HostLimit> physical_bound(int64_t pages, int64_t page_size) {
  uint64_t bytes = 0;
  if (pages <= 0 || page_size <= 0 ||
      __builtin_mul_overflow(static_cast<uint64_t>(pages), static_cast<uint64_t>(page_size),
                             &bytes)) {
    return std::nullopt;
  }
  return HostLimit{bytes, "physical memory"};
}

HostLimit default_host_limit() {
  std::optional<HostLimit> best = physical_bound(sysconf(_SC_PHYS_PAGES), sysconf(_SC_PAGESIZE));
  best = least(best, cgroup_limit(read_small_file));
  struct rlimit r {};
  if (getrlimit(RLIMIT_AS, &r) == 0) {
    best = least(best, rlimit_bound(r.rlim_cur, RLIM_INFINITY, "RLIMIT_AS (ulimit -v)"));
  }
  if (getrlimit(RLIMIT_DATA, &r) == 0) {
    best = least(best, rlimit_bound(r.rlim_cur, RLIM_INFINITY, "RLIMIT_DATA (ulimit -d)"));
  }
  return best.value_or(HostLimit{});
}

}  // namespace plaidml::jit
