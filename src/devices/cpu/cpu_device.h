// The built-in CPU device: the plugin vtable (include/plaidml/plugin.h) over host memory, the
// ORC loader (orc_loader.h) and a thread pool. Artifact format "elf-object" only; buffers are
// 64-byte aligned host allocations; a launch splits [0, parallel_extent) over the pool when the
// kernel's estimated work makes it worthwhile, else runs on the calling thread.
// Open options: "num_threads" (<= 0 or absent: PLAIDML_NUM_THREADS, else the core count).
#pragma once

#include "plaidml/plugin.h"

namespace plaidml::devices::cpu {

// The vtable; lives for the whole process.
const plaidml_plugin* cpu_plugin();

// Below this many estimated scalar operations a launch runs on one thread: waking workers
// costs a few microseconds.
constexpr double kMinParallelWork = 32768;

}  // namespace plaidml::devices::cpu
