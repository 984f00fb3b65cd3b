#include "jit/plan_cache.h"

#include <fmt/format.h>

#include <chrono>
#include <new>

namespace plaidml::jit {
namespace {

// boost::hash_combine's mixing, widened to 64 bits.
void combine(size_t& seed, uint64_t v) {
  seed ^= std::hash<uint64_t>{}(v) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

}  // namespace

std::string PlanKey::to_string() const {
  std::string shapes;
  for (size_t i = 0; i < input_shapes.size(); ++i) {
    if (i) shapes += ",";
    shapes += input_shapes[i].to_string();
  }
  return fmt::format("{:016x}|{}|{}", fingerprint, shapes, device);
}

size_t PlanKeyHash::operator()(const PlanKey& key) const {
  size_t seed = std::hash<uint64_t>{}(key.fingerprint);
  for (const Shape& s : key.input_shapes) {
    combine(seed, static_cast<uint64_t>(s.dtype));
    combine(seed, s.dims.size());
    for (int64_t d : s.dims) combine(seed, static_cast<uint64_t>(d));
  }
  combine(seed, std::hash<std::string>{}(key.device));
  return seed;
}

Expected<PlanCache::PlanPtr> PlanCache::get_or_compile(const PlanKey& key, const Factory& make) {
  std::promise<Result> promise;
  std::shared_future<Result> future;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      // A finished plan or a compile in flight: either way this call does not compile.
      stats_.cache_hits++;
      it->second.last_use = ++clock_;
      future = it->second.result;
    } else {
      evict_if_full();
      entries_.emplace(key, Entry{promise.get_future().share(), ++clock_});
    }
  }
  if (future.valid()) return future.get();
  return compile(key, make, promise);
}

PlanCache::Result PlanCache::compile(const PlanKey& key, const Factory& make,
                                     std::promise<Result>& promise) {
  auto start = std::chrono::steady_clock::now();
  Result result = Status(StatusCode::kInternal, "compile did not run");
  try {
    result = make();
  } catch (const std::bad_alloc&) {
    result = Status(StatusCode::kOutOfMemory, "out of memory while compiling");
  } catch (const std::exception& e) {
    result = make_error(StatusCode::kInternal, "compile failed: {}", e.what());
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (result.has_value()) {
      stats_.compiles++;
      stats_.compile_seconds += seconds;
      stats_.last_compile_seconds = seconds;
    } else {
      entries_.erase(key);  // let a later call try again
    }
  }
  promise.set_value(result);
  return result;
}

void PlanCache::evict_if_full() {
  if (entries_.size() < capacity_) return;
  auto victim = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    bool ready = it->second.result.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    if (ready && (victim == entries_.end() || it->second.last_use < victim->second.last_use)) {
      victim = it;
    }
  }
  if (victim != entries_.end()) entries_.erase(victim);
}

CacheStats PlanCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

size_t PlanCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

void PlanCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    bool ready = it->second.result.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    it = ready ? entries_.erase(it) : std::next(it);
  }
}

}  // namespace plaidml::jit
