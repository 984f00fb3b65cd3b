#include "jit/plan_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/base/byte_io.h"
#include "jit/lower/panel_packing.h"

namespace plaidml::jit {
namespace {

// Larger counts than any program has: such a count is damage, not a plan.
constexpr uint64_t kMaxCount = uint64_t{1} << 24;
constexpr uint64_t kMaxRank = 64;

Status malformed(const std::string& what) {
  return Status(StatusCode::kIoError, "malformed plan entry: " + what);
}

void put_shape(ByteWriter& w, const Shape& s) {
  w.u32(static_cast<uint32_t>(dtype_abi_value(s.dtype)));  // stable across builds
  w.u64(s.dims.size());
  for (int64_t d : s.dims) w.i64(d);
}

void put_shapes(ByteWriter& w, const std::vector<Shape>& shapes) {
  w.u64(shapes.size());
  for (const Shape& s : shapes) put_shape(w, s);
}

void put_ints(ByteWriter& w, const std::vector<int>& values) {
  w.u64(values.size());
  for (int v : values) w.i64(v);
}

void put_u64s(ByteWriter& w, const std::vector<uint64_t>& values) {
  w.u64(values.size());
  for (uint64_t v : values) w.u64(v);
}

// The decoding side: each getter leaves `error` set on the first problem and then does
// nothing, so a decoder reads straight through and checks once at the end.
class Decoder {
 public:
  explicit Decoder(std::string_view payload) : r_(payload) {}

  uint64_t count(const char* what) {
    uint64_t n = 0;
    if (!ok()) return 0;
    if (!r_.u64(n)) return fail(fmt::format("{}: truncated", what)), 0;
    // Every element takes at least one byte of what is left: a damaged count cannot make the
    // decoder allocate beyond the payload's size.
    if (n > kMaxCount || n > r_.remaining()) return fail(fmt::format("{}: count {}", what, n)), 0;
    return n;
  }
  int64_t i64(const char* what) {
    int64_t v = 0;
    if (ok() && !r_.i64(v)) fail(fmt::format("{}: truncated", what));
    return v;
  }
  uint64_t u64(const char* what) {
    uint64_t v = 0;
    if (ok() && !r_.u64(v)) fail(fmt::format("{}: truncated", what));
    return v;
  }
  int small_int(const char* what) {
    int64_t v = i64(what);
    if (v < 0 || v > static_cast<int64_t>(kMaxCount)) return fail(fmt::format("{}: {}", what, v)), 0;
    return static_cast<int>(v);
  }
  double f64(const char* what) {
    double v = 0;
    if (ok() && !r_.f64(v)) fail(fmt::format("{}: truncated", what));
    return v;
  }
  void digest(const char* what, Sha256Digest& out) {
    std::string_view data;
    if (ok() && !r_.bytes(out.size(), data)) return fail(fmt::format("{}: truncated", what));
    if (ok()) std::copy(data.begin(), data.end(), out.begin());
  }
  std::string str(const char* what) {
    std::string s;
    if (ok() && !r_.str(s)) fail(fmt::format("{}: truncated", what));
    return s;
  }
  Shape shape(const char* what) {
    Shape s;
    uint32_t dtype = 0;
    if (ok() && !r_.u32(dtype)) return fail(fmt::format("{}: truncated", what)), s;
    std::optional<DType> parsed = dtype_from_abi_value(static_cast<int>(dtype));
    if (!parsed) return fail(fmt::format("{}: dtype {}", what, dtype)), s;
    s.dtype = *parsed;
    uint64_t rank = u64(what);
    if (rank > kMaxRank) return fail(fmt::format("{}: rank {}", what, rank)), s;
    for (uint64_t i = 0; i < rank && ok(); ++i) s.dims.push_back(i64(what));
    return s;
  }
  std::vector<Shape> shapes(const char* what) {
    std::vector<Shape> out(count(what));
    for (Shape& s : out) s = shape(what);
    return out;
  }
  std::vector<int> ints(const char* what) {
    std::vector<int> out(count(what));
    for (int& v : out) v = static_cast<int>(i64(what));
    return out;
  }
  std::vector<uint64_t> u64s(const char* what) {
    std::vector<uint64_t> out(count(what));
    for (uint64_t& v : out) v = u64(what);
    return out;
  }
  size_t remaining() const { return r_.remaining(); }
  bool ok() const { return error_.empty(); }
  void fail(std::string what) {
    if (ok()) error_ = std::move(what);
  }
  const std::string& error() const { return error_; }

 private:
  ByteReader r_;
  std::string error_;
};

void put_memory(ByteWriter& w, const MemoryPlan& plan, const MemoryFigures& figures) {
  put_ints(w, plan.block_of);
  put_ints(w, plan.first_kernel);
  put_u64s(w, plan.block_bytes);
  w.u64(plan.arena_bytes);
  w.u64(plan.unshared_bytes);
  for (uint64_t v : {figures.constants_bytes, figures.arena_bytes, figures.unshared_bytes,
                     figures.inputs_bytes, figures.outputs_bytes}) {
    w.u64(v);
  }
}

void get_memory(Decoder& d, MemoryPlan& plan, MemoryFigures& figures) {
  plan.block_of = d.ints("memory plan");
  plan.first_kernel = d.ints("memory plan");
  plan.block_bytes = d.u64s("memory plan");
  plan.arena_bytes = d.u64("memory plan");
  plan.unshared_bytes = d.u64("memory plan");
  for (uint64_t* v : {&figures.constants_bytes, &figures.arena_bytes, &figures.unshared_bytes,
                      &figures.inputs_bytes, &figures.outputs_bytes}) {
    *v = d.u64("memory figures");
  }
}

// Elements of a decoded shape, or nullopt when a dim is negative or the product overflows (a
// damaged payload must not overflow anything).
std::optional<int64_t> checked_elements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dims) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

// A packed constant's panels (PanelPacking) cover exactly its source's elements, so packing it
// reads nothing beyond the constant.
bool packing_consistent(const BufferSlot& slot) {
  const PanelPacking& p = slot.packing;
  if (!p.packed()) return p.rows == 0 && p.cols == 0 && p.width == 0;
  constexpr int64_t kWidestTile = 4096;  // 32 vectors of 128 lanes, far beyond any tile
  if (slot.role != BufferSlot::Role::kConstant || p.rows <= 0 || p.cols <= 0 ||
      p.width > kWidestTile) {
    return false;
  }
  std::optional<int64_t> source = checked_elements(p.source);
  int64_t rows_cols = 0, padded_cols = 0, packed = 0;
  if (!source || __builtin_mul_overflow(p.rows, p.cols, &rows_cols) || rows_cols != *source ||
      __builtin_add_overflow(p.cols, p.width, &padded_cols) ||
      __builtin_mul_overflow(p.rows, padded_cols, &packed)) {
    return false;
  }
  // rows * (cols + width) bounds packed_elements(p), which now cannot overflow.
  return slot.shape == Shape(p.source.dtype, {packed_elements(p)});
}

// Every index the plan follows at run time lies inside what it indexes.
Status check_indices(const PlanRecord& r) {
  size_t slots = r.slots.size();
  if (r.constant_digests.size() != slots) return malformed("constant digests: count");
  if (r.memory_plan.block_of.size() != slots) return malformed("memory plan: slot count");
  if (r.launch_info.size() != r.calls.size()) return malformed("launch info: count");
  for (size_t s = 0; s < slots; ++s) {
    int block = r.memory_plan.block_of[s];
    bool temp = r.slots[s].role == BufferSlot::Role::kTemp;
    if (temp ? (block < 0 || static_cast<size_t>(block) >= r.memory_plan.block_bytes.size())
             : block != -1) {
      return malformed(fmt::format("slot {}: arena block {}", s, block));
    }
    size_t io = r.slots[s].role == BufferSlot::Role::kInput    ? r.input_shapes.size()
                : r.slots[s].role == BufferSlot::Role::kOutput ? r.output_shapes.size()
                                                                : SIZE_MAX;
    if (r.slots[s].index < 0 || static_cast<size_t>(r.slots[s].index) >= io) {
      return malformed(fmt::format("slot {}: index {}", s, r.slots[s].index));
    }
    if (!packing_consistent(r.slots[s])) return malformed(fmt::format("slot {}: packing", s));
  }
  for (size_t k = 0; k < r.kernels.size(); ++k) {
    int artifact = r.kernels[k].artifact;
    if (artifact < 0 || static_cast<size_t>(artifact) >= r.artifact_keys.size()) {
      return malformed(
          fmt::format("kernel {}: artifact {} of {}", k, artifact, r.artifact_keys.size()));
    }
  }
  for (size_t c = 0; c < r.calls.size(); ++c) {
    const KernelCall& call = r.calls[c];
    if (call.kernel < 0 || static_cast<size_t>(call.kernel) >= r.kernels.size()) {
      return malformed(fmt::format("call {}: kernel {} of {}", c, call.kernel, r.kernels.size()));
    }
    if (call.parallel_extent < 0) {
      return malformed(fmt::format("call {}: parallel extent {}", c, call.parallel_extent));
    }
    for (int a : call.args) {
      if (a < 0 || static_cast<size_t>(a) >= slots) {
        return malformed(fmt::format("call {}: argument {} of {} slots", c, a, slots));
      }
    }
  }
  return Status::ok();
}

}  // namespace

std::string encode_plan_record(const PlanRecord& record) {
  ByteWriter w;
  put_shapes(w, record.input_shapes);
  put_shapes(w, record.output_shapes);
  w.u64(record.slots.size());
  for (size_t s = 0; s < record.slots.size(); ++s) {
    w.u64(static_cast<uint64_t>(record.slots[s].role));
    w.i64(record.slots[s].index);
    put_shape(w, record.slots[s].shape);
    w.u64(record.constant_digests[s]);
    const PanelPacking& p = record.slots[s].packing;
    w.i64(p.rows);
    w.i64(p.cols);
    w.i64(p.width);
    if (p.packed()) put_shape(w, p.source);
  }
  w.u64(record.calls.size());
  for (size_t c = 0; c < record.calls.size(); ++c) {
    w.i64(record.calls[c].kernel);
    put_ints(w, record.calls[c].args);
    w.i64(record.calls[c].parallel_extent);
    w.f64(record.calls[c].work);
    w.u64(record.launch_info[c].origins.size());
    for (const std::string& o : record.launch_info[c].origins) w.str(o);
    w.u64(record.launch_info[c].bytes);
  }
  put_memory(w, record.memory_plan, record.memory);
  w.u64(record.kernels.size());
  for (const RecordedKernel& k : record.kernels) {
    w.i64(k.artifact);
    w.i64(k.index);
    w.bytes(std::string_view(reinterpret_cast<const char*>(k.form.data()), k.form.size()));
  }
  w.u64(record.artifact_keys.size());
  for (const std::string& key : record.artifact_keys) w.str(key);
  return std::move(w.out());
}

Expected<PlanRecord> decode_plan_record(std::string_view payload) {
  Decoder d(payload);
  PlanRecord r;
  r.input_shapes = d.shapes("input shapes");
  r.output_shapes = d.shapes("output shapes");
  r.slots.resize(d.count("slots"));
  r.constant_digests.resize(r.slots.size());
  for (size_t s = 0; s < r.slots.size() && d.ok(); ++s) {
    uint64_t role = d.u64("slot role");
    if (role > static_cast<uint64_t>(BufferSlot::Role::kConstant)) d.fail("slot role");
    r.slots[s].role = static_cast<BufferSlot::Role>(role);
    r.slots[s].index = static_cast<int>(d.i64("slot index"));
    r.slots[s].shape = d.shape("slot shape");
    r.constant_digests[s] = d.u64("slot digest");
    PanelPacking& p = r.slots[s].packing;
    p.rows = d.i64("slot packing");
    p.cols = d.i64("slot packing");
    p.width = d.i64("slot packing");
    if (p.packed()) p.source = d.shape("slot packing");
  }
  r.calls.resize(d.count("calls"));
  r.launch_info.resize(r.calls.size());
  for (size_t c = 0; c < r.calls.size() && d.ok(); ++c) {
    r.calls[c].kernel = d.small_int("call kernel");
    r.calls[c].args = d.ints("call arguments");
    r.calls[c].parallel_extent = d.i64("call extent");
    r.calls[c].work = d.f64("call work");
    r.launch_info[c].origins.resize(d.count("call origins"));
    for (std::string& o : r.launch_info[c].origins) o = d.str("call origin");
    r.launch_info[c].bytes = d.u64("call bytes");
  }
  get_memory(d, r.memory_plan, r.memory);
  r.kernels.resize(d.count("kernels"));
  for (RecordedKernel& k : r.kernels) {
    k.artifact = d.small_int("kernel artifact");
    k.index = d.small_int("kernel index");
    d.digest("kernel form", k.form);
  }
  r.artifact_keys.resize(d.count("artifacts"));
  for (std::string& key : r.artifact_keys) key = d.str("artifact key");
  if (!d.ok()) return malformed(d.error());
  if (d.remaining() != 0) return malformed(fmt::format("{} bytes after the end", d.remaining()));
  PLAIDML_TRY(check_indices(r));
  return r;
}

}  // namespace plaidml::jit
