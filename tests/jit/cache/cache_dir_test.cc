// Where the disk cache lives: the option, then PLAIDML_CACHE_DIR, then the XDG default.
#include "jit/cache/cache_dir.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <optional>
#include <string>

using plaidml::jit::resolve_cache_dir;

namespace {

// Sets (or unsets, for nullopt) an environment variable for one scope.
class EnvGuard {
 public:
  EnvGuard(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~EnvGuard() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("cache dir: the option wins over the environment, and \"\" turns the cache off") {
  EnvGuard env("PLAIDML_CACHE_DIR", "/env/cache");
  CHECK(resolve_cache_dir(std::string("/opt/cache")) == "/opt/cache");
  CHECK(resolve_cache_dir(std::string("")) == "");
}

TEST_CASE("cache dir: PLAIDML_CACHE_DIR when set, and its empty value turns the cache off") {
  EnvGuard xdg("XDG_CACHE_HOME", "/xdg");
  {
    EnvGuard env("PLAIDML_CACHE_DIR", "/env/cache");
    CHECK(resolve_cache_dir(std::nullopt) == "/env/cache");
  }
  EnvGuard env("PLAIDML_CACHE_DIR", "");
  CHECK(resolve_cache_dir(std::nullopt) == "");
}

TEST_CASE("cache dir: default $XDG_CACHE_HOME/plaidml, else $HOME/.cache/plaidml, else off") {
  EnvGuard env("PLAIDML_CACHE_DIR", std::nullopt);
  EnvGuard home("HOME", "/home/user");
  {
    EnvGuard xdg("XDG_CACHE_HOME", "/xdg");
    CHECK(resolve_cache_dir(std::nullopt) == "/xdg/plaidml");
  }
  {
    EnvGuard xdg("XDG_CACHE_HOME", "relative/xdg");  // the XDG spec says to ignore it
    CHECK(resolve_cache_dir(std::nullopt) == "/home/user/.cache/plaidml");
  }
  EnvGuard xdg("XDG_CACHE_HOME", std::nullopt);
  CHECK(resolve_cache_dir(std::nullopt) == "/home/user/.cache/plaidml");
  EnvGuard no_home("HOME", std::nullopt);
  CHECK(resolve_cache_dir(std::nullopt) == "");
}

TEST_CASE("cache dir: a relative folder is made absolute against the working directory") {
  std::string cwd = std::filesystem::current_path().string();
  CHECK(resolve_cache_dir(std::string("rel/cache")) == cwd + "/rel/cache");
  CHECK(resolve_cache_dir(std::string("rel/cache/")) == cwd + "/rel/cache");
  CHECK(resolve_cache_dir(std::string("/abs/./x/../cache/")) == "/abs/cache");
  EnvGuard env("PLAIDML_CACHE_DIR", "envrel");
  CHECK(resolve_cache_dir(std::nullopt) == cwd + "/envrel");
}
