// The stable hashes against published test vectors: cache files written by one build are named
// by these values in every later build.
#include "core/base/hash.h"

#include <doctest/doctest.h>

#include <string>

using namespace plaidml;

TEST_CASE("sha256: FIPS 180-4 test vectors") {
  CHECK(to_hex(sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(to_hex(sha256("abc")) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(to_hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(to_hex(sha256(std::string(1000000, 'a'))) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256: every length around the block and padding boundaries differs") {
  // 55, 56 and 64 bytes are where the padding needs one block or two.
  std::string previous;
  for (size_t n = 50; n < 140; ++n) {
    std::string hex = to_hex(sha256(std::string(n, 'x')));
    CHECK(hex.size() == 64);
    CHECK(hex != previous);
    previous = hex;
  }
  CHECK(to_hex(sha256(std::string(55, 'a'))) ==
        "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(to_hex(sha256(std::string(56, 'a'))) ==
        "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  CHECK(to_hex(sha256(std::string(64, 'a'))) ==
        "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST_CASE("to_hex: a prefix of the digest") { CHECK(to_hex(sha256("abc"), 4) == "ba7816bf"); }

TEST_CASE("fnv1a64: reference values") {
  CHECK(fnv1a64("") == 0xcbf29ce484222325ull);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
  CHECK(fnv1a64("foobar") == 0x85944171f73967e8ull);
}

// Values from an independent Python transcription of the construction (hash.h): the hash must
// not change between builds, and it must see every byte, the length and the tail.
TEST_CASE("murmur64: reference values, length and tail bytes count") {
  CHECK(murmur64("") == 0x84d69dcef1e6733aull);
  CHECK(murmur64("a") == 0xb2b29803fc3845c1ull);
  CHECK(murmur64("abcdefgh") == 0x3c637301817a7cbdull);
  CHECK(murmur64("abcdefghi") == 0x0e64643616cc82a1ull);
  CHECK(murmur64(std::string_view("\0", 1)) == 0xb6facdf1a1299057ull);
  CHECK(murmur64(std::string_view("\0\0", 2)) == 0x828e21ef0299a371ull);
}
