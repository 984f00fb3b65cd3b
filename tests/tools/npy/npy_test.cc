// Round trips of every dtype through the .npy encoder and decoder, byte-exact checks against
// headers written by NumPy itself, and every error message of the reader.
#include "npy.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

namespace plaidml_cli {
namespace {

// What np.save(f, np.array([[1, 2, 3], [4, 5, 6]], dtype='<f4')) writes (numpy 1.24), header
// part: magic, version 1.0, header length 118, the dict padded to 128 bytes with a newline.
std::string numpy_header(const std::string& dict) {
  std::string padded = dict;
  size_t total = (10 + dict.size() + 1 + 63) / 64 * 64;
  padded.append(total - 10 - dict.size() - 1, ' ');
  padded += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(padded.size() & 0xff);
  out += static_cast<char>(padded.size() >> 8);
  return out + padded;
}

template <typename T>
std::string raw(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return out;
}

NpyArray make(Dtype dtype, std::vector<int64_t> shape, int fill_seed) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.data.resize(a.element_count() * dtype_size(dtype));
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = static_cast<uint8_t>(i * 37 + fill_seed);
  if (dtype == Dtype::Bool) {
    for (auto& b : a.data) b &= 1;
  }
  return a;
}

TEST_CASE("npy round-trips every dtype at several ranks") {
  for (int abi = 1; abi <= 13; ++abi) {
    Dtype dtype = *dtype_from_abi(abi);
    for (auto shape : {std::vector<int64_t>{}, {5}, {2, 3}, {2, 0, 4}, {1, 2, 3, 2}}) {
      CAPTURE(dtype_name(dtype));
      CAPTURE(format_dims(shape));
      NpyArray a = make(dtype, shape, abi);
      std::string bytes = encode_npy(a);
      CHECK((bytes.size() - a.data.size()) % 64 == 0);  // data 64-byte aligned, as numpy does
      auto b = decode_npy(bytes, "x.npy");
      REQUIRE(b.ok());
      // bf16 is stored as u16 bits: NumPy has no bfloat16.
      CHECK(b->dtype == (dtype == Dtype::BF16 ? Dtype::U16 : dtype));
      CHECK(b->shape == shape);
      CHECK(b->data == a.data);
    }
  }
}

TEST_CASE("npy header text matches numpy's") {
  NpyArray a = make(Dtype::F32, {2, 3}, 0);
  std::string bytes = encode_npy(a);
  CHECK(bytes.substr(0, 10 + 118) ==
        numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
  NpyArray v = make(Dtype::I64, {7}, 0);
  CHECK(encode_npy(v).find("'shape': (7,), }") != std::string::npos);
  NpyArray s = make(Dtype::Bool, {}, 0);
  CHECK(encode_npy(s).find("{'descr': '|b1', 'fortran_order': False, 'shape': (), }") !=
        std::string::npos);
}

TEST_CASE("npy reads numpy-written descriptors and values") {
  auto a = decode_npy(numpy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }") +
                          raw<double>({1.5, -2.25}),
                      "d.npy");
  REQUIRE(a.ok());
  CHECK(a->dtype == Dtype::F64);
  CHECK(load_as_double(a->dtype, a->data.data(), 1) == -2.25);
  // '|i1', '|u1', '|b1' (numpy's 1-byte spelling), '=' native order, and double quotes.
  auto b =
      decode_npy(numpy_header("{\"descr\": \"|i1\", \"fortran_order\": False, \"shape\": (3,)}") +
                     std::string("\xff\x02\x80", 3),
                 "b.npy");
  REQUIRE(b.ok());
  CHECK(b->dtype == Dtype::I8);
  CHECK(load_as_double(b->dtype, b->data.data(), 0) == -1);
  CHECK(load_as_double(b->dtype, b->data.data(), 2) == -128);
  auto c =
      decode_npy(numpy_header("{'descr': '=u2', 'fortran_order': False, 'shape': (1L, 1L), }") +
                     raw<uint16_t>({65535}),
                 "c.npy");
  REQUIRE(c.ok());
  CHECK(c->dtype == Dtype::U16);
  CHECK(c->shape == std::vector<int64_t>{1, 1});
  auto h = decode_npy(numpy_header("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }") +
                          raw<uint16_t>({0x3c00, 0xc000}),
                      "h.npy");
  REQUIRE(h.ok());
  CHECK(load_as_double(h->dtype, h->data.data(), 0) == 1.0);
  CHECK(load_as_double(h->dtype, h->data.data(), 1) == -2.0);
  // Bools other than 0/1 are normalised.
  auto z = decode_npy(numpy_header("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }") +
                          std::string("\x00\x07", 2),
                      "z.npy");
  REQUIRE(z.ok());
  CHECK(z->data == std::vector<uint8_t>{0, 1});
}

TEST_CASE("npy version 2.0 headers are read") {
  std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  std::string padded = dict + std::string(64 - 12 - dict.size() - 1 + 64, ' ') + "\n";
  std::string bytes = std::string("\x93NUMPY\x02\x00", 8);
  uint32_t len = static_cast<uint32_t>(padded.size());
  bytes.append(reinterpret_cast<const char*>(&len), 4);
  bytes += padded + raw<int32_t>({7, -8});
  auto a = decode_npy(bytes, "v2.npy");
  REQUIRE(a.ok());
  CHECK(a->dtype == Dtype::I32);
  CHECK(load_as_double(a->dtype, a->data.data(), 1) == -8);
}

void check_error(const std::string& bytes, const std::string& message) {
  auto a = decode_npy(bytes, "in.npy");
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().code == ExitCode::kRuntime);
  CHECK(a.error().message == message);
}

TEST_CASE("npy errors say what is wrong in the user's terms") {
  check_error("hello world",
              "in.npy: not a NumPy .npy file (it does not start with the \\x93NUMPY magic bytes)");
  check_error(std::string("\x93NUMPY\x04\x00\x00\x00", 10),
              "in.npy: unsupported .npy format version 4.0 (plaidml reads 1.0, 2.0 and 3.0)");
  check_error(std::string("\x93NUMPY\x01\x00\x40\x00{'descr'", 17),
              "in.npy: truncated .npy header");
  check_error(numpy_header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }") +
                  raw<float>({1, 2, 3, 4}),
              "in.npy: fortran_order=True arrays are not supported: save a C-order array "
              "(np.save(path, np.ascontiguousarray(a)))");
  check_error(
      numpy_header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }") + raw<float>({1}),
      "in.npy: big-endian dtype '>f4' is not supported: convert it with a.astype('<f4') "
      "before saving");
  check_error(numpy_header("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }") +
                  raw<float>({1, 2}),
              "in.npy: unsupported dtype '<c8' (plaidml reads NumPy bool, int8/16/32/64, "
              "uint8/16/32/64, float16/32/64)");
  check_error(numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") +
                  raw<float>({1, 2, 3}),
              "in.npy: holds 12 bytes of data but shape 2x3 of f32 needs 24 (the file is "
              "truncated or corrupt)");
  check_error(
      numpy_header("{'descr': '<f4', 'shape': (2, 3), }"),
      "in.npy: malformed .npy header: the header has no 'fortran_order' entry at offset 34");
  check_error(numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }"),
              "in.npy: malformed .npy header: expected a non-negative dimension at offset 54");
  check_error(numpy_header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"),
              "in.npy: malformed .npy header: structured dtypes (record arrays) are not "
              "supported at offset 10");
  check_error(numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, "
                           "4294967296, 4294967296), }"),
              "in.npy: shape 4294967296x4294967296x4294967296 is too large");
}

TEST_CASE("npy files: write, read back, and file errors") {
  auto dir = std::filesystem::temp_directory_path() / "plaidml_npy_test";
  std::filesystem::create_directories(dir);
  std::string path = (dir / "a.npy").string();
  NpyArray a = make(Dtype::F16, {3, 2}, 5);
  REQUIRE(write_npy(path, a).ok());
  auto b = read_npy(path);
  REQUIRE(b.ok());
  CHECK(b->data == a.data);
  auto missing = read_npy((dir / "missing.npy").string());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message ==
        (dir / "missing.npy").string() + ": cannot open for reading (No such file or directory)");
  auto bad_dir = write_npy((dir / "no" / "such" / "x.npy").string(), a);
  REQUIRE_FALSE(bad_dir.ok());
  CHECK(bad_dir.error().message == (dir / "no" / "such" / "x.npy").string() +
                                       ": cannot open for writing (No such file or directory)");
  std::filesystem::remove_all(dir);
}

TEST_CASE("bf16 writes warn that NumPy sees raw u16 bits") {
  CHECK_FALSE(npy_write_warning(Dtype::F32, "o.npy").has_value());
  auto w = npy_write_warning(Dtype::BF16, "o.npy");
  REQUIRE(w.has_value());
  CHECK(*w ==
        "o.npy: NumPy has no bfloat16 dtype; the values are stored as their raw bits in a '<u2' "
        "array (in NumPy: (a.astype(np.uint32) << 16).view(np.float32))");
}

TEST_CASE("half and bfloat16 conversions round to nearest even") {
  CHECK(float_to_half(1.0f) == 0x3c00);
  CHECK(float_to_half(-2.0f) == 0xc000);
  CHECK(float_to_half(65504.0f) == 0x7bff);
  CHECK(float_to_half(65520.0f) == 0x7c00);                // rounds up to inf
  CHECK(float_to_half(5.960464477539063e-08f) == 0x0001);  // smallest subnormal
  CHECK(float_to_half(1.0f + 1.0f / 2048) == 0x3c00);      // tie -> even
  CHECK(float_to_half(1.0f + 3.0f / 2048) == 0x3c02);      // tie -> even (up)
  CHECK(half_to_float(0x0001) == 5.960464477539063e-08f);
  CHECK(half_to_float(0x7bff) == 65504.0f);
  CHECK(std::isinf(half_to_float(0x7c00)));
  CHECK(float_to_bf16(1.0f) == 0x3f80);
  CHECK(float_to_bf16(1.00390625f) == 0x3f80);  // tie -> even
  CHECK(bf16_to_float(0x4049) == 3.140625f);
  for (uint32_t h = 0; h < 0x7c00; ++h) {  // every finite positive half round-trips
    REQUIRE(float_to_half(half_to_float(static_cast<uint16_t>(h))) == h);
  }
}

}  // namespace
}  // namespace plaidml_cli
