// Stable hashes: the same value on every run, platform and compiler (std::hash is not), for
// fingerprints and cache keys that outlive a process.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace plaidml {

// FNV-1a, 64 bit: fast, for in-process fingerprints where a collision only costs a recompile.
uint64_t fnv1a64(std::string_view data);

// MurmurHash64A's construction, eight bytes at a time: for bulk data (a model's weights) hashed
// in process, about eight times faster than fnv1a64; stable like it.
uint64_t murmur64(std::string_view data);

// SHA-256 (FIPS 180-4): for keys of files that other processes and later builds trust, where a
// collision would run the wrong code.
using Sha256Digest = std::array<uint8_t, 32>;
Sha256Digest sha256(std::string_view data);

// Lower-case hex of the first `bytes` bytes of a digest.
std::string to_hex(const Sha256Digest& digest, size_t bytes = 32);

}  // namespace plaidml
