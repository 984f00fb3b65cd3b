// The plan cache: (program fingerprint, input shapes and dtypes, device) -> compiled plan. This
// is the shape-keyed cache users see: a repeated shape never compiles again.
// Single flight: when several threads ask for a missing key at once, one of them compiles and
// the others wait for its result (a plan or the error). A failed compile is not cached, so a
// later call tries again. Beyond `capacity` plans the least recently used finished one is
// dropped (a caller still holding it keeps it alive).
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/status.h"
#include "core/types/shape.h"
#include "jit/runtime.h"

namespace plaidml::jit {

struct PlanKey {
  uint64_t fingerprint = 0;
  std::vector<Shape> input_shapes;
  std::string device;  // device id, "cpu:0"

  bool operator==(const PlanKey& other) const = default;
  std::string to_string() const;  // "3f2a...|f32[2, 3],f32[3]|cpu:0", for logs
};

struct PlanKeyHash {
  size_t operator()(const PlanKey& key) const;
};

class PlanCache {
 public:
  using PlanPtr = std::shared_ptr<const Plan>;
  using Factory = std::function<Expected<PlanPtr>()>;
  static constexpr size_t kDefaultCapacity = 1024;

  explicit PlanCache(size_t capacity = kDefaultCapacity) : capacity_(capacity) {}

  // The cached plan for key, or the result of make() (called at most once at a time per key).
  Expected<PlanPtr> get_or_compile(const PlanKey& key, const Factory& make);

  CacheStats stats() const;
  size_t size() const;  // plans held
  void clear();         // drops every finished plan (in-flight compiles finish normally)

 private:
  using Result = Expected<PlanPtr>;
  struct Entry {
    std::shared_future<Result> result;
    uint64_t last_use = 0;
  };
  Result compile(const PlanKey& key, const Factory& make, std::promise<Result>& promise);
  void evict_if_full();  // with mutex_ held

  size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<PlanKey, Entry, PlanKeyHash> entries_;
  uint64_t clock_ = 0;  // use counter for LRU
  CacheStats stats_;
};

}  // namespace plaidml::jit
