// A persistent pool of worker threads for splitting a kernel's parallel range. Workers poll for
// 50 us after their last job, then sleep on a condition variable (as the submitter polls for its
// job's last chunks before it sleeps), and the thread that submits a job works on it too, so a
// pool of N threads has N - 1 workers and a job never waits for a free worker: concurrent and
// nested submissions cannot deadlock.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace plaidml::devices::cpu {

class ThreadPool {
 public:
  // num_threads <= 0 picks default_thread_count().
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that take part in a job, the caller included.
  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) over disjoint chunks covering [0, extent), at most `chunks` of them,
  // and returns when all are done. Thread-safe; may be called from inside fn.
  void parallel_for(int64_t extent, int64_t chunks,
                    const std::function<void(int64_t, int64_t)>& fn);

  // PLAIDML_NUM_THREADS when set and positive, else std::thread::hardware_concurrency().
  static int default_thread_count();

 private:
  struct Job;
  void worker_loop();
  static bool run_one_chunk(Job& job);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;  // jobs with chunks not yet claimed
  std::atomic<int> queued_{0};               // queue_.size(), for polling without the mutex
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace plaidml::devices::cpu
