#include "devices/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "core/base/env.h"

namespace plaidml::devices::cpu {

struct ThreadPool::Job {
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  int64_t extent = 0;
  int64_t chunks = 0;
  std::atomic<int64_t> next{0};  // next unclaimed chunk
  std::mutex done_mutex;
  std::condition_variable done_cv;
  std::atomic<int64_t> remaining{0};  // chunks not finished; reaching 0 notifies under done_mutex
};

namespace {

// How long a thread polls before it sleeps: a network's kernels come microseconds apart, while
// a wake-up through the condition variable (a futex) took tens of microseconds on a shared VM,
// as long as a small kernel's whole run.
constexpr auto kSpin = std::chrono::microseconds(50);

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polls `ready` for up to kSpin; whether it became true.
template <typename Ready>
bool spin_until(const Ready& ready) {
  auto deadline = std::chrono::steady_clock::now() + kSpin;
  while (!ready()) {
    for (int i = 0; i < 64; ++i) cpu_relax();
    if (std::chrono::steady_clock::now() > deadline) return ready();
  }
  return true;
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0) num_threads = default_thread_count();
  workers_.reserve(num_threads - 1);
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

int ThreadPool::default_thread_count() {
  if (auto n = env_int("PLAIDML_NUM_THREADS"); n && *n > 0) {
    return static_cast<int>(std::min<int64_t>(*n, 1024));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

bool ThreadPool::run_one_chunk(Job& job) {
  int64_t c = job.next.fetch_add(1, std::memory_order_relaxed);
  if (c >= job.chunks) return false;
  // Chunk c covers [extent*c/chunks, extent*(c+1)/chunks): sizes differ by at most one.
  int64_t begin = job.extent * c / job.chunks;
  int64_t end = job.extent * (c + 1) / job.chunks;
  (*job.fn)(begin, end);
  if (job.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::lock_guard<std::mutex> lock(job.done_mutex);
    job.done_cv.notify_all();
  }
  return true;
}

void ThreadPool::parallel_for(int64_t extent, int64_t chunks,
                              const std::function<void(int64_t, int64_t)>& fn) {
  if (extent <= 0) return;
  chunks = std::clamp<int64_t>(chunks, 1, extent);
  if (chunks == 1 || workers_.empty()) {
    fn(0, extent);
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->extent = extent;
  job->chunks = chunks;
  job->remaining = chunks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(job);
    queued_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  while (run_one_chunk(*job)) {
  }
  {
    // Every chunk is claimed: make sure no worker picks the job up again.
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = std::find(queue_.begin(), queue_.end(), job);
    if (it != queue_.end()) {
      queue_.erase(it);
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  auto done = [&] { return job->remaining.load(std::memory_order_acquire) == 0; };
  if (spin_until(done)) return;
  std::unique_lock<std::mutex> lock(job->done_mutex);
  job->done_cv.wait(lock, done);
}

void ThreadPool::worker_loop() {
  while (true) {
    spin_until([this] { return queued_.load(std::memory_order_acquire) > 0; });
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    std::shared_ptr<Job> job = queue_.front();
    if (job->next.load(std::memory_order_relaxed) >= job->chunks) {
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
      continue;
    }
    lock.unlock();
    while (run_one_chunk(*job)) {
    }
  }
}

}  // namespace plaidml::devices::cpu
