// The --help texts. Kept apart from the parser so that the manual reads as one piece.
#include "args.h"

namespace plaidml_cli {

namespace {

constexpr const char* kOverview = R"(usage: plaidml <command> [options]

Compiles and runs Tile tensor programs with the plaidml JIT.

commands:
  run PROGRAM.tile [options]   compile and run a program on .npy inputs
  print PROGRAM.tile           parse a program and print it back as Tile text
  devices                      list the devices, their availability and why not
  help [COMMAND]               show this text, or a command's options

options:
  -h, --help                   show this text
  -V, --version                show the library and ABI versions

exit status: 0 success; 1 the command failed (file, .npy, parse, shape or device error);
2 bad command line (unknown option, malformed --input, an input the program does not have or
a missing one). Errors go to stderr; Tile errors read FILE:LINE:COLUMN: message.

environment: PLAIDML_DEVICE (default device id), PLAIDML_NUM_THREADS,
PLAIDML_CACHE_DIR (the on-disk kernel cache folder; empty: no disk cache; default
$XDG_CACHE_HOME/plaidml, else ~/.cache/plaidml), PLAIDML_LOG_LEVEL.
)";

constexpr const char* kRun = R"(usage: plaidml run PROGRAM.tile [options]

Binds the program's inputs, compiles it for their shapes (once; later runs are served from the
cache, and a later process reuses the kernels kept in PLAIDML_CACHE_DIR) and runs it. Prints
the timings, the cache statistics and, per output, its shape, dtype, min, max and mean.

options:
  -i, --input NAME=FILE.npy        an input from a NumPy .npy file (C order, little-endian)
  -i, --input NAME=random:DTYPE:DIMS
                                   seeded random values: floats uniform in [-1, 1),
                                   integers in [-4, 4] (unsigned [0, 8]), bools 0/1
      --input NAME=zeros:DTYPE:DIMS, NAME=ones:DTYPE:DIMS
                                   DTYPE: bool i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64;
                                   DIMS: e.g. 2x3x4, or 'scalar'
  -o, --output-dir DIR             write each output to DIR/NAME.npy (DIR is created)
      --device ID                  run on this device (see 'plaidml devices'); default:
                                   $PLAIDML_DEVICE, else cpu:0
      --repeat N                   after the first run, run N more times from the cache and
                                   print min/median times
      --threads N                  CPU worker threads (0: the library default)
      --seed S                     seed of the random inputs (default 0)
      --print-values               print every element of each output
      --summary                    accepted for compatibility: the per-output summary
                                   (shape, dtype, min, max, mean) is always printed

output lines (stable, for scripts):
  compile+run: <ms> ms
  cached runs: n=<N> min=<ms> ms median=<ms> ms
  cache: compiles=<n> hits=<n> compile_time=<ms> ms
  kernel cache: compiled=<n> memory_hits=<n> disk_hits=<n> disk_misses=<n> disk_writes=<n>
                dir=<DIR|off>   (one line)
  output <NAME>: shape=<DIMS> dtype=<DTYPE> min=<v> max=<v> mean=<v> [file=<path>]

bf16 outputs are written as raw '<u2' bits (NumPy has no bfloat16).
)";

constexpr const char* kPrint = R"(usage: plaidml print PROGRAM.tile

Parses the program and prints it back as canonical Tile text (which parses to the same program).
Parse errors are reported as FILE:LINE:COLUMN: message.
)";

constexpr const char* kDevices = R"(usage: plaidml devices

Lists every device plaidml knows: its id (for --device and PLAIDML_DEVICE), its name, and
whether it is available; an unavailable device says why (e.g. no OpenCL driver).
)";

}  // namespace

std::string help_text(const std::string& topic) {
  if (topic == "run") return kRun;
  if (topic == "print") return kPrint;
  if (topic == "devices") return kDevices;
  return kOverview;
}

}  // namespace plaidml_cli
