// The process environment a fair CPU run needs, fixed before any library reads it.
#pragma once

#include <string>

namespace plaidml_bench {

// OpenBLAS picks its kernels when it is loaded, before main: from OPENBLAS_CORETYPE when set,
// else from the CPU model. This environment may export OPENBLAS_CORETYPE=Haswell (AVX2 kernels at
// 60% of their speed), and OpenBLAS 0.3.21 does not know newer Xeons (family 6 model 207 here)
// and falls back to Prescott (SSE3, a fifth of the speed). So when OPENBLAS_CORETYPE is not the
// best core for this CPU's features (SkylakeX with AVX-512, Haswell with AVX2), this sets it and
// restarts the process (execv of /proc/self/exe with the same arguments). The setting found at
// start is kept in PLAIDML_BENCH_OPENBLAS_CORETYPE_WAS for the report.
// PLAIDML_BENCH_KEEP_OPENBLAS_CORETYPE=1 keeps whatever is set.
void pin_openblas_coretype(char** argv);

// The on-disk kernel cache folder for this process, through PLAIDML_CACHE_DIR (set before any
// context exists). `requested` (--cache-dir) wins; else a PLAIDML_CACHE_DIR already set is
// kept; else a fresh folder under $TMPDIR: compile times are only cold on an empty cache, and a
// bench should not fill the user's. Returns the folder to remove at exit ("" for none).
std::string use_cache_dir(const std::string& requested);

}  // namespace plaidml_bench
