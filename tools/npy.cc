#include "npy.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "npy_header.h"

namespace plaidml_cli {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kAlignment = 64;  // numpy pads the header so that the data is 64-byte aligned

uint32_t read_le(std::string_view bytes, size_t offset, size_t width) {
  uint32_t v = 0;
  for (size_t i = 0; i < width; ++i) {
    v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  }
  return v;
}

std::string prefixed(std::string_view source, std::string_view message) {
  return std::string(source) + ": " + std::string(message);
}

// The dtype of a descriptor such as '<f4' or '|b1'.
Result<Dtype> dtype_from_descr(std::string_view descr, std::string_view source) {
  if (descr.size() < 2)
    return runtime_error(prefixed(source, "unsupported dtype '" + std::string(descr) + "'"));
  char order = descr[0];
  std::string_view kind = descr.substr(1);
  static constexpr struct {
    std::string_view kind;
    Dtype dtype;
  } kKinds[] = {{"b1", Dtype::Bool}, {"?", Dtype::Bool}, {"i1", Dtype::I8},  {"i2", Dtype::I16},
                {"i4", Dtype::I32},  {"i8", Dtype::I64}, {"u1", Dtype::U8},  {"u2", Dtype::U16},
                {"u4", Dtype::U32},  {"u8", Dtype::U64}, {"f2", Dtype::F16}, {"f4", Dtype::F32},
                {"f8", Dtype::F64}};
  for (const auto& k : kKinds) {
    if (kind != k.kind) continue;
    if (order == '>' && dtype_size(k.dtype) > 1) {
      return runtime_error(prefixed(source, "big-endian dtype '" + std::string(descr) +
                                                "' is not supported: convert it with a.astype('<" +
                                                std::string(kind) + "') before saving"));
    }
    if (order == '<' || order == '|' || order == '=' || order == '>') return k.dtype;
  }
  return runtime_error(prefixed(source, "unsupported dtype '" + std::string(descr) +
                                            "' (plaidml reads NumPy bool, int8/16/32/64, "
                                            "uint8/16/32/64, float16/32/64)"));
}

std::string header_text(const NpyArray& array) {
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i) {
    shape += std::to_string(array.shape[i]);
    if (i + 1 < array.shape.size() || array.shape.size() == 1) shape += ",";
    if (i + 1 < array.shape.size()) shape += " ";
  }
  shape += ")";
  return "{'descr': '" + std::string(dtype_numpy_descr(array.dtype)) +
         "', 'fortran_order': False, 'shape': " + shape + ", }";
}

}  // namespace

int64_t NpyArray::element_count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string format_dims(const std::vector<int64_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "x" : "") + std::to_string(shape[i]);
  return out;
}

Result<NpyArray> decode_npy(std::string_view bytes, std::string_view source) {
  if (bytes.size() < kMagic.size() + 2 || bytes.substr(0, kMagic.size()) != kMagic) {
    return runtime_error(prefixed(source,
                                  "not a NumPy .npy file (it does not start with the "
                                  "\\x93NUMPY magic bytes)"));
  }
  int major = static_cast<uint8_t>(bytes[6]);
  int minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return runtime_error(prefixed(source, "unsupported .npy format version " +
                                              std::to_string(major) + "." + std::to_string(minor) +
                                              " (plaidml reads 1.0, 2.0 and 3.0)"));
  }
  size_t len_width = major == 1 ? 2 : 4;
  size_t header_start = 8 + len_width;
  if (bytes.size() < header_start) return runtime_error(prefixed(source, "truncated .npy header"));
  size_t header_len = read_le(bytes, 8, len_width);
  if (bytes.size() < header_start + header_len) {
    return runtime_error(prefixed(source, "truncated .npy header"));
  }
  auto header = parse_npy_header(bytes.substr(header_start, header_len), source);
  if (!header) return header.error();
  if (header->fortran_order) {
    return runtime_error(
        prefixed(source,
                 "fortran_order=True arrays are not supported: save a C-order array "
                 "(np.save(path, np.ascontiguousarray(a)))"));
  }
  auto dtype = dtype_from_descr(header->descr, source);
  if (!dtype) return dtype.error();
  NpyArray array;
  array.dtype = *dtype;
  array.shape = header->shape;
  std::string_view data = bytes.substr(header_start + header_len);
  // Overflow-checked: a forged header must not make the size wrap around to the data's size.
  uint64_t expected = static_cast<uint64_t>(dtype_size(array.dtype));
  bool overflow = false;
  for (int64_t d : array.shape) {
    overflow |= __builtin_mul_overflow(expected, static_cast<uint64_t>(d), &expected);
  }
  if (overflow) {
    return runtime_error(prefixed(source, "shape " + format_dims(array.shape) + " is too large"));
  }
  if (data.size() != expected) {
    return runtime_error(prefixed(
        source, "holds " + std::to_string(data.size()) + " bytes of data but shape " +
                    format_dims(array.shape) + " of " + std::string(dtype_name(array.dtype)) +
                    " needs " + std::to_string(expected) + " (the file is truncated or corrupt)"));
  }
  array.data.assign(data.begin(), data.end());
  if (array.dtype == Dtype::Bool) {
    for (uint8_t& b : array.data) b = b != 0;  // numpy bools are 0/1; normalise anything else
  }
  return array;
}

std::string encode_npy(const NpyArray& array) {
  std::string header = header_text(array);
  // Version 1.0 stores the header length in 2 bytes; a longer header (a very high rank) needs 2.0.
  size_t prefix = 8 + 2;
  size_t total = (prefix + header.size() + 1 + kAlignment - 1) / kAlignment * kAlignment;
  bool v2 = total - prefix > 0xffff;
  if (v2) {
    prefix = 8 + 4;
    total = (prefix + header.size() + 1 + kAlignment - 1) / kAlignment * kAlignment;
  }
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::string out(kMagic);
  out += static_cast<char>(v2 ? 2 : 1);
  out += static_cast<char>(0);
  size_t len = header.size();
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(array.data.data()), array.data.size());
  return out;
}

Result<NpyArray> read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return runtime_error(path + ": cannot open for reading (" + std::strerror(errno) + ")");
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return runtime_error(path + ": read failed");
  return decode_npy(buffer.str(), path);
}

Result<Done> write_npy(const std::string& path, const NpyArray& array) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return runtime_error(path + ": cannot open for writing (" + std::strerror(errno) + ")");
  }
  std::string bytes = encode_npy(array);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return runtime_error(path + ": write failed (" + std::strerror(errno) + ")");
  return Done{};
}

std::optional<std::string> npy_write_warning(Dtype dtype, std::string_view path) {
  if (dtype != Dtype::BF16) return std::nullopt;
  return std::string(path) +
         ": NumPy has no bfloat16 dtype; the values are stored as their raw bits in a '<u2' "
         "array (in NumPy: (a.astype(np.uint32) << 16).view(np.float32))";
}

}  // namespace plaidml_cli
