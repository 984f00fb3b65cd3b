#include "devices/cpu/thread_pool.h"

#include <doctest/doctest.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using plaidml::devices::cpu::ThreadPool;

namespace {

// Every index of [0, extent) is visited exactly once.
void check_covers(ThreadPool& pool, int64_t extent, int64_t chunks) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(extent));
  std::atomic<int> calls{0};
  pool.parallel_for(extent, chunks, [&](int64_t begin, int64_t end) {
    CHECK(begin < end);
    for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
    calls.fetch_add(1);
  });
  for (int64_t i = 0; i < extent; ++i) REQUIRE(hits[i].load() == 1);
  CHECK(calls.load() == std::min<int64_t>(std::max<int64_t>(chunks, 1), extent));
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

}  // namespace

TEST_CASE("thread pool: parallel_for covers the range exactly once") {
  ThreadPool pool(4);
  CHECK(pool.num_threads() == 4);
  check_covers(pool, 1, 1);
  check_covers(pool, 7, 3);
  check_covers(pool, 100, 16);
  check_covers(pool, 5, 50);    // more chunks than iterations: one per iteration
  check_covers(pool, 1000, 0);  // chunks clamped to 1
  pool.parallel_for(0, 4, [](int64_t, int64_t) { FAIL("called for an empty range"); });
}

TEST_CASE("thread pool: single-thread pool runs inline") {
  ThreadPool pool(1);
  CHECK(pool.num_threads() == 1);
  auto caller = std::this_thread::get_id();
  int calls = 0;
  pool.parallel_for(100, 8, [&](int64_t b, int64_t e) {
    CHECK(std::this_thread::get_id() == caller);
    CHECK(b == 0);
    CHECK(e == 100);
    ++calls;
  });
  CHECK(calls == 1);
}

TEST_CASE("thread pool: chunks run on several threads, the caller included") {
  ThreadPool pool(4);
  std::mutex m;
  std::set<std::thread::id> ids;
  pool.parallel_for(16, 16, [&](int64_t, int64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::lock_guard<std::mutex> lock(m);
    ids.insert(std::this_thread::get_id());
  });
  CHECK(ids.size() > 1);
  CHECK(ids.count(std::this_thread::get_id()) == 1);
}

TEST_CASE("thread pool: concurrent and nested submissions") {
  ThreadPool pool(3);
  constexpr int kSubmitters = 8;
  std::vector<int64_t> sums(kSubmitters, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kSubmitters; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) {
        std::atomic<int64_t> sum{0};
        pool.parallel_for(1000, 8, [&](int64_t b, int64_t e) {
          // A nested job from inside a chunk must not deadlock even with every worker busy.
          pool.parallel_for(e - b, 2, [&](int64_t nb, int64_t ne) {
            for (int64_t i = b + nb; i < b + ne; ++i) sum.fetch_add(i);
          });
        });
        sums[t] += sum.load();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kSubmitters; ++t) CHECK(sums[t] == 20 * (999 * 1000 / 2));
}

TEST_CASE("thread pool: idle workers sleep instead of spinning") {
  ThreadPool pool(4);
  pool.parallel_for(8, 8, [](int64_t, int64_t) {});  // wake everybody once
  double before = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  double used = process_cpu_seconds() - before;
  // Three spinning workers would burn about 0.9 s of CPU in 0.3 s.
  CHECK(used < 0.05);
}

TEST_CASE("thread pool: thread count from PLAIDML_NUM_THREADS, else the core count") {
  const char* old = std::getenv("PLAIDML_NUM_THREADS");
  std::string saved = old ? old : "";
  setenv("PLAIDML_NUM_THREADS", "3", 1);
  CHECK(ThreadPool::default_thread_count() == 3);
  {
    ThreadPool pool(0);
    CHECK(pool.num_threads() == 3);
  }
  setenv("PLAIDML_NUM_THREADS", "zero", 1);  // not a number: ignored
  CHECK(ThreadPool::default_thread_count() ==
        static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  unsetenv("PLAIDML_NUM_THREADS");
  CHECK(ThreadPool::default_thread_count() ==
        static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  ThreadPool explicit_pool(2);  // an explicit count beats the environment
  CHECK(explicit_pool.num_threads() == 2);
  if (old) setenv("PLAIDML_NUM_THREADS", saved.c_str(), 1);
}
