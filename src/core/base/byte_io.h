// Little-endian fixed-width encoding for cache files: the same bytes on every host, and a
// reader that reports running past the end instead of reading it (files may be truncated).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace plaidml {

class ByteWriter {
 public:
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void i64(int64_t v) { put(static_cast<uint64_t>(v), 8); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    put(bits, 8);
  }
  void bytes(std::string_view data) { out_.append(data); }
  // A length-prefixed string.
  void str(std::string_view s) {
    u64(s.size());
    bytes(s);
  }
  std::string& out() { return out_; }

 private:
  void put(uint64_t v, int size) {
    for (int i = 0; i < size; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string out_;
};

// Every getter returns false, and leaves the reader failed, when the data runs out.
class ByteReader {
 public:
  explicit ByteReader(std::string_view data) : data_(data) {}
  bool u32(uint32_t& v) {
    uint64_t w = 0;
    if (!get(w, 4)) return false;
    v = static_cast<uint32_t>(w);
    return true;
  }
  bool u64(uint64_t& v) { return get(v, 8); }
  bool i64(int64_t& v) {
    uint64_t w = 0;
    if (!get(w, 8)) return false;
    v = static_cast<int64_t>(w);
    return true;
  }
  bool f64(double& v) {
    uint64_t bits = 0;
    if (!get(bits, 8)) return false;
    std::memcpy(&v, &bits, sizeof(v));
    return true;
  }
  bool bytes(size_t size, std::string_view& out) {
    if (failed_ || size > data_.size() - pos_) return fail();
    out = data_.substr(pos_, size);
    pos_ += size;
    return true;
  }
  bool str(std::string& out) {
    std::string_view view;
    if (!str(view)) return false;
    out.assign(view);
    return true;
  }
  // A length-prefixed string, as a view into the data.
  bool str(std::string_view& out) {
    uint64_t size = 0;
    return u64(size) && bytes(size, out);
  }
  size_t remaining() const { return failed_ ? 0 : data_.size() - pos_; }

 private:
  bool get(uint64_t& v, int size) {
    if (failed_ || static_cast<size_t>(size) > data_.size() - pos_) return fail();
    v = 0;
    for (int i = 0; i < size; ++i) {
      v |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
    }
    pos_ += size;
    return true;
  }
  bool fail() {
    failed_ = true;
    return false;
  }
  std::string_view data_;
  size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace plaidml
