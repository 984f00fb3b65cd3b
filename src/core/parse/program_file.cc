#include "core/parse/program_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "core/base/byte_io.h"
#include "core/base/hash.h"
#include "core/ir/constant.h"
#include "core/ir/printer.h"
#include "core/parse/parse.h"

namespace plaidml::parse {
namespace {

constexpr char kMagic[8] = {'P', 'L', 'M', 'L', 'P', 'R', 'G', '\n'};
constexpr size_t kChecksumAt = 24;  // after magic, version, reserved, header length
constexpr size_t kFixedBytes = 32;  // through the checksum
constexpr uint64_t kAlign = 64;     // ir::kConstantAlignment
constexpr uint64_t kMaxRank = 64;

std::string reason() { return std::strerror(errno); }

struct ConstantEntry {
  uint64_t digest = 0;
  Shape shape;
  uint64_t offset = 0;
  uint64_t length = 0;
};

// The constants the printed text names by digest (one entry per digest and shape).
std::vector<std::shared_ptr<const ir::ConstantData>> digest_constants(const ir::Program& p) {
  std::vector<std::shared_ptr<const ir::ConstantData>> out;
  std::set<std::pair<uint64_t, std::string>> seen;
  for (const ir::Node& n : p.nodes) {
    if (n.kind != ir::NodeKind::kConstant || !n.constant) continue;
    if (n.constant->shape.elements() <= ir::kMaxPrintedConstantElements) continue;
    if (seen.insert(ir::constant_identity(*n.constant)).second) {
      out.push_back(n.constant);
    }
  }
  return out;
}

std::string encode_header(const ir::Program& program, const ProgramFileOptions& options,
                          const std::vector<std::shared_ptr<const ir::ConstantData>>& constants,
                          std::vector<uint64_t>& offsets) {
  // Two passes: the table's size fixes where the first constant goes.
  auto build = [&](uint64_t data_start) {
    ByteWriter w;
    w.bytes(std::string_view(kMagic, sizeof(kMagic)));
    w.u32(kProgramFileVersion);
    w.u32(0);
    w.u64(0);  // header length, patched below
    w.u64(0);  // checksum, patched below
    w.str(options.tag);
    w.str(program.name);
    w.str(ir::print_tile(program));
    w.u64(constants.size());
    offsets.clear();
    uint64_t at = data_start;
    for (const auto& c : constants) {
      w.u64(c->digest);
      w.u32(static_cast<uint32_t>(dtype_abi_value(c->shape.dtype)));
      w.u32(static_cast<uint32_t>(c->shape.rank()));
      for (int64_t d : c->shape.dims) w.u64(static_cast<uint64_t>(d));
      w.u64(at);
      w.u64(c->byte_size());
      offsets.push_back(at);
      at = (at + c->byte_size() + kAlign - 1) / kAlign * kAlign;
    }
    // Where nodes come from (ONNX node names, for profiles): not in the Tile text.
    std::vector<const ir::Node*> named;
    for (const ir::Node& n : program.nodes) {
      // Literals may print inline, nameless: their names need not survive the parse.
      if (!n.origin.empty() && n.kind != ir::NodeKind::kLiteral) named.push_back(&n);
    }
    w.u64(named.size());
    for (const ir::Node* n : named) {
      w.str(n->name);
      w.str(n->origin);
    }
    return std::move(w.out());
  };
  std::string header = build(0);
  uint64_t data_start = (header.size() + kAlign - 1) / kAlign * kAlign;
  header = build(data_start);
  ByteWriter len;
  len.u64(header.size());
  std::memcpy(header.data() + 16, len.out().data(), 8);
  ByteWriter sum;
  sum.u64(murmur64(header));
  std::memcpy(header.data() + kChecksumAt, sum.out().data(), 8);
  return header;
}

bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// A read-only mapping of a whole file, unmapped when the last constant over it goes.
struct Mapping {
  const char* base = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (base) ::munmap(const_cast<char*>(base), size);
  }
};

Expected<std::shared_ptr<Mapping>> map_file(const std::string& path, bool untrusted) {
  int flags = O_RDONLY | O_CLOEXEC | (untrusted ? O_NOFOLLOW | O_NONBLOCK : 0);
  int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    StatusCode code = errno == ENOENT ? StatusCode::kNotFound : StatusCode::kIoError;
    return make_error(code, "cannot open program file {}: {}", path, reason());
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(StatusCode::kIoError, "{} is not a regular file", path);
  }
  auto m = std::make_shared<Mapping>();
  m->size = static_cast<size_t>(st.st_size);
  if (m->size > 0) {
    void* p = ::mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      return make_error(StatusCode::kIoError, "cannot map program file {}: {}", path, reason());
    }
    m->base = static_cast<const char*>(p);
  }
  ::close(fd);
  return m;
}

Status damaged(const std::string& path, const std::string& what) {
  return make_error(StatusCode::kIoError, "program file {} is damaged: {}", path, what);
}

struct Header {
  std::string_view tag, name, text;
  std::vector<ConstantEntry> constants;
  std::map<std::string_view, std::string_view> origins;  // node name -> Node::origin
};

Expected<Header> read_header(const Mapping& m, const std::string& path) {
  std::string_view all(m.base ? m.base : "", m.size);
  if (all.size() < kFixedBytes || std::memcmp(all.data(), kMagic, sizeof(kMagic)) != 0) {
    return make_error(StatusCode::kIoError, "{} is not a plaidml program file", path);
  }
  ByteReader fixed(all.substr(8, 24));
  uint32_t version = 0, reserved = 0;
  uint64_t length = 0, checksum = 0;
  fixed.u32(version), fixed.u32(reserved), fixed.u64(length), fixed.u64(checksum);
  if (version != kProgramFileVersion) {
    return make_error(StatusCode::kIoError, "program file {} has version {}; this plaidml reads {}",
                      path, version, kProgramFileVersion);
  }
  if (length < kFixedBytes || length > all.size()) return damaged(path, "truncated header");
  std::string copy(all.substr(0, length));
  std::memset(copy.data() + kChecksumAt, 0, 8);
  if (murmur64(copy) != checksum) return damaged(path, "header checksum mismatch");
  Header h;
  ByteReader r(all.substr(kFixedBytes, length - kFixedBytes));
  uint64_t count = 0;
  if (!r.str(h.tag) || !r.str(h.name) || !r.str(h.text) || !r.u64(count) || count > length) {
    return damaged(path, "malformed header");
  }
  for (uint64_t i = 0; i < count; ++i) {
    ConstantEntry e;
    uint32_t dtype = 0, rank = 0;
    if (!r.u64(e.digest) || !r.u32(dtype) || !r.u32(rank) || rank > kMaxRank) {
      return damaged(path, fmt::format("constant {}: malformed", i));
    }
    auto type = dtype_from_abi_value(static_cast<int>(dtype));
    if (!type) return damaged(path, fmt::format("constant {}: dtype {}", i, dtype));
    e.shape.dtype = *type;
    for (uint32_t a = 0; a < rank; ++a) {
      uint64_t d = 0;
      if (!r.u64(d) || d > (uint64_t{1} << 48)) return damaged(path, fmt::format("constant {}", i));
      e.shape.dims.push_back(static_cast<int64_t>(d));
    }
    if (!r.u64(e.offset) || !r.u64(e.length) || e.offset % kAlign != 0 ||
        e.length != static_cast<uint64_t>(e.shape.byte_size()) || e.offset > m.size ||
        e.length > m.size - e.offset) {
      return damaged(path, fmt::format("constant {} lies outside the file", i));
    }
    h.constants.push_back(std::move(e));
  }
  uint64_t origins = 0;
  if (!r.u64(origins) || origins > length) return damaged(path, "malformed origins");
  for (uint64_t i = 0; i < origins; ++i) {
    std::string_view node, origin;
    if (!r.str(node) || !r.str(origin)) return damaged(path, "malformed origins");
    h.origins[node] = origin;
  }
  return h;
}

}  // namespace

Status save_program(const ir::Program& program, const std::string& path,
                    const ProgramFileOptions& options) {
  auto constants = digest_constants(program);
  std::vector<uint64_t> offsets;
  std::string header = encode_header(program, options, constants, offsets);
  static std::atomic<uint64_t> counter{0};
  std::string temp = fmt::format("{}.tmp-{}-{}", path, ::getpid(), counter++);
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(StatusCode::kIoError, "cannot write {}: {}", temp, reason());
  bool ok = write_all(fd, header.data(), header.size());
  uint64_t at = header.size();
  static const char zeros[kAlign] = {};
  for (size_t i = 0; ok && i < constants.size(); ++i) {
    ok = write_all(fd, zeros, offsets[i] - at) &&
         write_all(fd, constants[i]->data, constants[i]->byte_size());
    at = offsets[i] + constants[i]->byte_size();
  }
  std::string why = ok ? "" : reason();
  if (::close(fd) != 0 && ok) ok = false, why = reason();
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) ok = false, why = reason();
  if (!ok) {
    ::unlink(temp.c_str());
    return make_error(StatusCode::kIoError, "cannot write program file {}: {}", path, why);
  }
  return Status::ok();
}

Expected<std::shared_ptr<const ir::Program>> load_program(const std::string& path,
                                                          const ProgramFileOptions& options) {
  PLAIDML_ASSIGN(std::shared_ptr<Mapping> mapping, map_file(path, options.untrusted_path));
  PLAIDML_ASSIGN(Header header, read_header(*mapping, path));
  if (header.tag != options.tag) {
    return make_error(StatusCode::kNotFound, "program file {} holds another key", path);
  }
  Status problem;  // a damaged constant: the file's error, not the parser's
  auto resolve = [&](const Shape& shape,
                     uint64_t digest) -> Expected<std::shared_ptr<const ir::ConstantData>> {
    for (const ConstantEntry& e : header.constants) {
      if (e.digest != digest || e.shape != shape) continue;
      auto c = ir::adopt_constant(shape, mapping->base + e.offset, [mapping] {},
                                  /*file_backed=*/true);
      if (c->digest == digest) return c;
      problem = damaged(path, fmt::format("constant {} does not match its digest",
                                          shape.to_string()));
      return problem;
    }
    problem = damaged(path, fmt::format("constant {} with digest {:016x} is missing",
                                        shape.to_string(), digest));
    return problem;
  };
  auto program = parse_tile(header.text, std::string(header.name), resolve, false);
  if (!program && !problem.is_ok()) return problem;
  if (!program || header.origins.empty()) return program;
  // The printed names are the parsed program's names: give each node its origin back.
  auto with_origins = std::make_shared<ir::Program>(**program);
  for (ir::Node& n : with_origins->nodes) {
    auto it = header.origins.find(n.name);
    if (it != header.origins.end()) n.origin = std::string(it->second);
  }
  return std::shared_ptr<const ir::Program>(std::move(with_origins));
}

}  // namespace plaidml::parse
