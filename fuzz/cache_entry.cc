// Fuzz target cache_entry: the decoders of what the disk cache folder holds, which another
// process (or damage) may have written.
//
// The first byte picks the decoder; the rest is its input:
//   0  a whole kernel or plan entry file (jit/cache/disk_cache.h: magic, key, checksum), and,
//      when it is well formed, its payload by the decoder its key names;
//   1  an artifact payload (jit/cache/artifact_codec.h), past the checksum that would stop
//      almost every mutation of a whole entry;
//   2  a plan record payload (jit/plan_record.h), likewise;
//   3  a program file (core/parse/program_file.h, the cache's programs/ entries), loaded from
//      a temporary file as the cache loads one.
// What decodes must encode to bytes that decode and encode to the same bytes again. Findings:
// fuzz/check.h, and an unstable round trip.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "check_status.h"
#include "core/parse/program_file.h"
#include "jit/cache/artifact_codec.h"
#include "jit/cache/disk_cache.h"
#include "jit/plan_record.h"

namespace plaidml::fuzz {
namespace {

template <typename Decode, typename Encode>
void check_codec(std::string_view payload, Decode decode, Encode encode, const char* name) {
  auto first = decode(payload);
  if (!first) {
    check_status(first.status(), name);
    return;
  }
  std::string bytes = encode(*first);
  auto second = decode(bytes);
  if (!second)
    fail("an encoded value does not decode", std::string(name) + ": " + second.status().message());
  if (encode(*second) != bytes) fail("encode(decode(encode(x))) != encode(x)", name);
}

void artifact_payload(std::string_view payload) {
  check_codec(payload, jit::decode_artifact, jit::encode_artifact, "decode_artifact");
}

void plan_payload(std::string_view payload) {
  check_codec(payload, jit::decode_plan_record, jit::encode_plan_record, "decode_plan_record");
}

// A whole entry. Plan keys start "plaidml plan\n" (jit/plan_store.cc); others are kernels'.
void disk_entry(std::string_view entry) {
  jit::ParsedEntry parsed = jit::parse_disk_entry(entry);
  if (!parsed.problem.empty()) return;
  std::string again = jit::encode_disk_entry(parsed.digest, parsed.key_text, parsed.payload);
  if (again != entry) fail("a well-formed entry does not encode to its own bytes", "");
  if (parsed.key_text.substr(0, 13) == "plaidml plan\n") {
    plan_payload(parsed.payload);
  } else {
    artifact_payload(parsed.payload);
  }
}

// The temporary file of program_file(): one per process, removed at exit.
const std::string& program_path() {
  static const std::string path = [] {
    std::string dir = (std::filesystem::temp_directory_path() / "plaidml_fuzz_XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr) fail("cannot create a temporary folder", dir);
    static std::string remove_dir = dir;
    std::atexit([] { std::filesystem::remove_all(remove_dir); });
    return dir + "/entry.plmlprg";
  }();
  return path;
}

void program_file(std::string_view bytes) {
  {
    std::ofstream out(program_path(), std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.good()) fail("cannot write the temporary program file", program_path());
  }
  parse::ProgramFileOptions options;
  options.untrusted_path = true;
  auto program = parse::load_program(program_path(), options);
  if (!program) check_status(program.status(), "load_program");
}

}  // namespace
}  // namespace plaidml::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace plaidml::fuzz;
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      disk_entry(rest);
      break;
    case 1:
      artifact_payload(rest);
      break;
    case 2:
      plan_payload(rest);
      break;
    case 3:
      program_file(rest);
      break;
  }
  return 0;
}
