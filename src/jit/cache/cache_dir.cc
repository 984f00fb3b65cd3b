#include "jit/cache/cache_dir.h"

#include <filesystem>

#include "core/base/env.h"
#include "core/base/logging.h"

namespace plaidml::jit {
namespace {

std::string absolute(const std::string& dir) {
  if (dir.empty()) return dir;
  std::error_code ec;
  std::filesystem::path path = std::filesystem::absolute(dir, ec);
  // Without a working directory (deleted under us) keep the relative name: the cache then
  // fails to write with a warning, which is the right outcome.
  if (ec) return dir;
  path = path.lexically_normal();
  if (!path.has_filename() && path.has_relative_path()) path = path.parent_path();  // "a/b/"
  return path.string();
}

std::string default_dir() {
  std::string xdg = env_string("XDG_CACHE_HOME");
  if (!xdg.empty() && xdg.front() == '/') return xdg + "/plaidml";
  std::string home = env_string("HOME");
  if (!home.empty()) return home + "/.cache/plaidml";
  logger().debug("kernel cache: neither XDG_CACHE_HOME nor HOME is set; no disk cache");
  return "";
}

}  // namespace

std::string resolve_cache_dir(const std::optional<std::string>& option) {
  if (option) return absolute(*option);
  if (env_is_set("PLAIDML_CACHE_DIR")) return absolute(env_string("PLAIDML_CACHE_DIR"));
  return default_dir();
}

}  // namespace plaidml::jit
