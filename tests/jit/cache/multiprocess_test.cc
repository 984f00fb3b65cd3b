// Several processes on one cache folder (the promise): a second process at the same
// shapes generates no code and gets the right numbers; two processes filling an empty folder at
// once both succeed and leave valid entries. The processes are tests/jit/cache/cache_child.c.
#include <doctest/doctest.h>

#ifdef PLAIDML_CACHE_CHILD

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <map>
#include <sstream>

#include "cache_test_util.h"
#include "jit/cache/disk_cache.h"

extern char** environ;

using namespace plaidml;
using namespace plaidml::testing;

namespace {

struct Child {
  pid_t pid = -1;
  std::string out_path;
};

// Starts cache_child with args, its stdout going to out_path.
Child start_child(const std::vector<std::string>& args, const std::string& out_path) {
  std::vector<char*> argv;
  std::string program = PLAIDML_CACHE_CHILD;
  argv.push_back(program.data());
  std::vector<std::string> copies = args;
  for (auto& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  Child child;
  child.out_path = out_path;
  int err = posix_spawn(&child.pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(err == 0);
  return child;
}

struct ChildResult {
  int exit_code = -1;
  std::map<std::string, std::string> fields;  // from "key=value key=value ..."
  std::string line;
};

ChildResult finish(const Child& child) {
  int status = 0;
  REQUIRE(waitpid(child.pid, &status, 0) == child.pid);
  ChildResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.line = read_file(child.out_path);
  std::istringstream words(r.line);
  for (std::string w; words >> w;) {
    size_t eq = w.find('=');
    if (eq != std::string::npos) r.fields[w.substr(0, eq)] = w.substr(eq + 1);
  }
  return r;
}

ChildResult run_child(const TempDir& dir, const std::string& cache, int n) {
  return finish(start_child({cache, std::to_string(n)}, dir.path("child.out")));
}

// Every file of the cache's entry folder is a whole, self-consistent entry named by its key's
// hash, and no temporary file is left.
void check_entries_valid(const std::string& entries_dir, size_t expected) {
  auto files = list_files(entries_dir);
  CHECK(files.size() == expected);
  for (const auto& name : files) {
    CAPTURE(name);
    // ParsedEntry views the bytes, so they must outlive it.
    std::string bytes = read_file(entries_dir + "/" + name);
    jit::ParsedEntry parsed = jit::parse_disk_entry(bytes);
    CHECK(parsed.problem == "");
    CHECK(to_hex(sha256(parsed.key_text)) == name);
  }
}

}  // namespace

TEST_CASE("multi-process: a second process at the same shapes compiles nothing") {
  TempDir dir;
  std::string cache = dir.path("cache");
  ChildResult first = run_child(dir, cache, 96);
  INFO(first.line);
  REQUIRE(first.exit_code == 0);
  CHECK(first.fields["ok"] == "1");
  CHECK(first.fields["kernels_compiled"] != "0");
  CHECK(first.fields["disk_writes"] == "1");
  CHECK(first.fields["plan_disk_writes"] == "1");
  ChildResult second = run_child(dir, cache, 96);
  INFO(second.line);
  REQUIRE(second.exit_code == 0);
  CHECK(second.fields["ok"] == "1");  // the right numbers, from cached code
  CHECK(second.fields["compiles"] == "1");
  CHECK(second.fields["kernels_compiled"] == "0");
  CHECK(second.fields["disk_hits"] == "1");
  CHECK(second.fields["disk_writes"] == "0");
  CHECK(second.fields["plan_disk_hits"] == "1");  // nothing bound, lowered or scheduled
  CHECK(second.fields["plan_disk_writes"] == "0");
  check_entries_valid(cache + "/kernels", 1);
  check_entries_valid(cache + "/plans", 1);
  // Another shape in a third process: a new entry beside the first.
  ChildResult third = run_child(dir, cache, 40);
  CHECK(third.fields["kernels_compiled"] != "0");
  check_entries_valid(cache + "/kernels", 2);
}

TEST_CASE("multi-process: PLAIDML_CACHE_DIR chooses the folder of a process") {
  TempDir dir;
  ::setenv("PLAIDML_CACHE_DIR", dir.path("from-env").c_str(), 1);
  ChildResult r = finish(start_child({"-", "16"}, dir.path("child.out")));
  ::unsetenv("PLAIDML_CACHE_DIR");
  INFO(r.line);
  CHECK(r.exit_code == 0);
  CHECK(r.fields["disk_writes"] == "1");
  check_entries_valid(dir.path("from-env/kernels"), 1);
}

TEST_CASE("multi-process: two processes filling an empty folder at once both succeed") {
  for (int round = 0; round < 3; ++round) {
    CAPTURE(round);
    TempDir dir;
    std::string cache = dir.path("cache");
    std::string go = dir.path("go");
    Child a = start_child({cache, "128", go}, dir.path("a.out"));
    Child b = start_child({cache, "128", go}, dir.path("b.out"));
    write_file(go, "");  // both start compiling now
    ChildResult ra = finish(a);
    ChildResult rb = finish(b);
    INFO(ra.line);
    INFO(rb.line);
    CHECK(ra.exit_code == 0);
    CHECK(rb.exit_code == 0);
    CHECK(ra.fields["ok"] == "1");
    CHECK(rb.fields["ok"] == "1");
    CHECK(ra.fields["disk_write_failures"] == "0");
    CHECK(rb.fields["disk_write_failures"] == "0");
    CHECK(ra.fields["disk_invalid"] == "0");
    CHECK(rb.fields["disk_invalid"] == "0");
    check_entries_valid(cache + "/kernels", 1);
    // And a third process reads what they left.
    ChildResult rc = run_child(dir, cache, 128);
    CHECK(rc.fields["kernels_compiled"] == "0");
    CHECK(rc.fields["ok"] == "1");
  }
}

#endif  // PLAIDML_CACHE_CHILD
