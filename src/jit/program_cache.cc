#include "jit/program_cache.h"

#include <filesystem>

#include "core/base/hash.h"
#include "core/base/logging.h"
#include "core/parse/program_file.h"
#include "jit/cache/cache_dir.h"

namespace plaidml::jit {
namespace {

// <cache folder>/programs/<sha256 of key>, or "" when the disk cache is off.
std::string entry_path(const std::string& key) {
  std::string dir = resolve_cache_dir(std::nullopt);
  return dir.empty() ? "" : dir + "/programs/" + to_hex(sha256(key));
}

}  // namespace

void store_cached_program(const std::string& key, const ir::Program& program) {
  std::string entry = entry_path(key);
  if (entry.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(entry.substr(0, entry.rfind('/')), ec);
  Status written = ec ? make_error(StatusCode::kIoError, "cannot create the folder of {}: {}",
                                   entry, ec.message())
                      : parse::save_program(program, entry, {key, true});
  if (!written.is_ok()) logger().debug("program cache: {}", written.message());
}

std::shared_ptr<const ir::Program> load_cached_program(const std::string& key) {
  std::string entry = entry_path(key);
  if (entry.empty()) return nullptr;
  auto program = parse::load_program(entry, {key, true});
  if (program) return *program;
  if (program.status().code() != StatusCode::kNotFound) {
    logger().warn("program cache: ignoring {}", program.status().message());
  }
  return nullptr;
}

}  // namespace plaidml::jit
