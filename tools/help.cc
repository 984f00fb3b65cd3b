// The --help texts. Kept apart from the parser so that the manual reads as one piece.
#include "args.h"

namespace plaidml_cli {

namespace {

constexpr const char* kOverview = R"(usage: plaidml <command> [options]

Compiles and runs Tile tensor programs and ONNX models with the plaidml JIT.

commands:
  run PROGRAM [options]        compile and run a program on .npy inputs
  print PROGRAM                print a program as Tile text
  info PROGRAM                 describe a program's inputs and outputs (an ONNX model's
                               opsets, ops, constants and unsupported nodes too)
  devices                      list the devices, their availability and why not
  help [COMMAND]               show this text, or a command's options

PROGRAM is a Tile file (PROGRAM.tile), or an ONNX model: a path ending in .onnx is imported
with libplaidml_onnx (its symbolic dims stay symbolic, or are fixed with --dim NAME=SIZE).

options:
  -h, --help                   show this text
  -V, --version                show the library and ABI versions

exit status: 0 success; 1 the command failed (file, .npy, parse, import, shape or device
error); 2 bad command line (unknown option, malformed --input or --dim, an input the program
does not have or a missing one, --dim for a Tile program). Errors go to stderr; Tile errors
read FILE:LINE:COLUMN: message.

environment: PLAIDML_DEVICE (default device id), PLAIDML_NUM_THREADS,
PLAIDML_CACHE_DIR (the on-disk kernel cache folder; empty: no disk cache; default
$XDG_CACHE_HOME/plaidml, else ~/.cache/plaidml), PLAIDML_LOG_LEVEL.
)";

constexpr const char* kRun = R"(usage: plaidml run PROGRAM.tile|MODEL.onnx [options]

Loads the program (a .onnx path is imported as an ONNX model), binds its inputs, compiles it
for their shapes (once; later runs are served from the cache, and a later process reuses the
kernels kept in PLAIDML_CACHE_DIR) and runs it. Prints the timings, the cache statistics and,
per output, its shape, dtype, min, max and mean.

options:
  -i, --input NAME=FILE.npy        an input from a NumPy .npy file (C order, little-endian)
  -i, --input NAME=random:DTYPE:DIMS
                                   seeded random values: floats uniform in [-1, 1),
                                   integers in [-4, 4] (unsigned [0, 8]), bools 0/1
      --input NAME=zeros:DTYPE:DIMS, NAME=ones:DTYPE:DIMS
                                   DTYPE: bool i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64;
                                   DIMS: e.g. 2x3x4, or 'scalar'
      --dim NAME=SIZE              ONNX models: fix the symbolic dimension NAME (an input's
                                   dim_param, e.g. batch=8) at import; repeatable. A name no
                                   input uses is an error. Not for Tile programs.
  -o, --output-dir DIR             write each output to DIR/NAME.npy (DIR is created); in the
                                   file name '/', '\', ':' become '_' (ONNX names such as
                                   'logits/Add:0'); two outputs mapping to one file are an
                                   error, reported before the run
      --device ID                  run on this device (see 'plaidml devices'); default:
                                   $PLAIDML_DEVICE, else cpu:0
      --repeat N                   after the first run, run N more times from the cache and
                                   print min/median times
      --threads N                  CPU worker threads (0: the library default)
      --seed S                     seed of the random inputs (default 0)
      --profile FILE.json          time the compile, every kernel of every run and the
                                   transfers; write them to FILE.json as a Chrome trace
                                   (open it in ui.perfetto.dev) and print the kernels that
                                   took the most time, named by the ops they compute. A
                                   profiled run waits for each kernel before the next
      --memory                     before running, print what an execute needs on the
                                   device (bytes): resident constants, the arena of
                                   intermediates (and their size without sharing),
                                   inputs, outputs, the peak, and the device's memory
      --print-values               print every element of each output
      --summary                    accepted for compatibility: the per-output summary
                                   (shape, dtype, min, max, mean) is always printed

output lines (stable, for scripts):
  compile+run: <ms> ms
  cached runs: n=<N> min=<ms> ms median=<ms> ms
  cache: compiles=<n> hits=<n> compile_time=<ms> ms
  kernel cache: compiled=<n> memory_hits=<n> disk_hits=<n> disk_misses=<n> disk_writes=<n>
                dir=<DIR|off>   (one line)
  memory: constants=<B> arena=<B> unshared=<B> inputs=<B> outputs=<B> peak=<B> device=<B>
                (one line, with --memory, before the first run)
  output <NAME>: shape=<DIMS> dtype=<DTYPE> min=<v> max=<v> mean=<v> [file=<path>]

NAME in --input is the input's name as the program declares it: any text without '=', such
as ONNX names 'input.1' or '0' (quote it for the shell if needed).
bf16 outputs are written as raw '<u2' bits (NumPy has no bfloat16).
)";

constexpr const char* kPrint = R"(usage: plaidml print PROGRAM.tile|MODEL.onnx [--dim NAME=SIZE]...

Parses the program and prints it back as canonical Tile text (which parses to the same program).
Parse errors are reported as FILE:LINE:COLUMN: message. An ONNX model is imported (with each
--dim fixed) and printed as the Tile program it becomes, its weights as constant(...) values;
ONNX names that are not Tile names (e.g. 'input.1') are printed as they are, so such text does
not parse back.
)";

constexpr const char* kInfo = R"(usage: plaidml info PROGRAM.tile|MODEL.onnx [--dim NAME=SIZE]...

ONNX model: prints libplaidml_onnx's report: producer, IR version, opsets, inputs and outputs
with types and shapes, op counts, the constants' size, every node that would not import and
why, and whether the import succeeds. Exits 0 even when nodes are unsupported (the report says
so), 1 for a file that is not an ONNX model. With --dim, the model is also imported at those
sizes and the program's inputs, outputs and constants are printed after the report ("imported
with --dim ...:"); an import error then exits 1.

Tile program: parses it and prints its inputs (name: dtype[dims], 'any' where the program
leaves the dtype open), its outputs and its constants. --dim is a usage error for Tile.
)";

constexpr const char* kDevices = R"(usage: plaidml devices

Lists every device plaidml knows: its id (for --device and PLAIDML_DEVICE), its name, and
whether it is available; an unavailable device says why (e.g. no OpenCL driver).
)";

}  // namespace

std::string help_text(const std::string& topic) {
  if (topic == "run") return kRun;
  if (topic == "print") return kPrint;
  if (topic == "info") return kInfo;
  if (topic == "devices") return kDevices;
  return kOverview;
}

}  // namespace plaidml_cli
