#include "jit/cache/artifact_codec.h"

#include "core/base/byte_io.h"

namespace plaidml::jit {
namespace {

// More kernels than any program lowers to: a larger count is damage, not a program.
constexpr uint64_t kMaxKernels = 1 << 20;

void encode_kernel(ByteWriter& w, const KernelEntry& k) {
  w.str(k.symbol);
  w.i64(k.parallel_extent);
  w.f64(k.work);
  for (uint32_t g : k.grid) w.u32(g);
  for (uint32_t g : k.workgroup) w.u32(g);
}

bool decode_kernel(ByteReader& r, KernelEntry& k) {
  if (!r.str(k.symbol) || !r.i64(k.parallel_extent) || !r.f64(k.work)) return false;
  for (uint32_t& g : k.grid) {
    if (!r.u32(g)) return false;
  }
  for (uint32_t& g : k.workgroup) {
    if (!r.u32(g)) return false;
  }
  return true;
}

Status malformed(const std::string& what) {
  return Status(StatusCode::kIoError, "malformed artifact: " + what);
}

}  // namespace

std::string encode_artifact(const Artifact& artifact) {
  ByteWriter w;
  w.str(artifact.format);
  w.u64(artifact.kernels.size());
  for (const KernelEntry& k : artifact.kernels) encode_kernel(w, k);
  w.u64(artifact.bytes.size());
  w.bytes(std::string_view(reinterpret_cast<const char*>(artifact.bytes.data()),
                           artifact.bytes.size()));
  return std::move(w.out());
}

Expected<Artifact> decode_artifact(std::string_view payload) {
  ByteReader r(payload);
  Artifact artifact;
  uint64_t count = 0;
  if (!r.str(artifact.format) || !r.u64(count)) return malformed("truncated header");
  if (count > kMaxKernels) return malformed(fmt::format("{} kernels", count));
  artifact.kernels.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    if (!decode_kernel(r, artifact.kernels[i]))
      return malformed(fmt::format("kernel {}: truncated", i));
  }
  uint64_t size = 0;
  std::string_view code;
  if (!r.u64(size) || !r.bytes(size, code)) return malformed("truncated code");
  if (r.remaining() != 0) return malformed(fmt::format("{} bytes after the code", r.remaining()));
  artifact.bytes.assign(code.begin(), code.end());
  return artifact;
}

}  // namespace plaidml::jit
