// Small RAII and error helpers over the public C API (include/plaidml/plaidml.h), shared by the
// subcommands. Nothing here reaches past the C ABI.
#pragma once

#include <plaidml/plaidml.h>

#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "npy.h"
#include "result.h"

namespace plaidml_cli {

struct ContextDeleter {
  void operator()(plaidml_context* c) const { plaidml_context_destroy(c); }
};
struct ProgramDeleter {
  void operator()(plaidml_program* p) const { plaidml_program_destroy(p); }
};
struct BufferDeleter {
  void operator()(plaidml_buffer* b) const { plaidml_buffer_destroy(b); }
};
using ContextPtr = std::unique_ptr<plaidml_context, ContextDeleter>;
using ProgramPtr = std::unique_ptr<plaidml_program, ProgramDeleter>;
using BufferPtr = std::unique_ptr<plaidml_buffer, BufferDeleter>;

// A runtime error carrying the library's message for the failed call, after `what` (e.g.
// "model.tile: "). The library's messages are already in the user's terms.
Error api_error(const std::string& what);

// The library's message for the failed call about a Tile file, compiler style: messages that
// carry a location ("3:14: ...") become "PATH:3:14: ...", others "PATH: ...".
Error program_error(const std::string& path);

// The whole file as text; a runtime error naming the path if it cannot be read.
Result<std::string> read_text_file(const std::string& path);

// Loads a program: a path ending in .onnx is imported as an ONNX model with each --dim fixed
// (onnx_util.h); any other is parsed as Tile, where --dim is a usage error. Parse errors read
// "PATH:LINE:COLUMN: message".
Result<ProgramPtr> load_program(const std::string& path, const std::vector<DimSpec>& dims = {});

// Names of the program's inputs or outputs, in declaration order.
std::vector<std::string> program_input_names(const plaidml_program* program);
std::vector<std::string> program_output_names(const plaidml_program* program);

struct ContextSettings {
  std::string device;  // "": the library default
  int threads = 0;     // 0: the library default
};
Result<ContextPtr> create_context(const ContextSettings& settings);

Result<BufferPtr> buffer_from_array(plaidml_context* context, const NpyArray& array);
Result<NpyArray> array_from_buffer(const plaidml_buffer* buffer);

// "A, B, C"
std::string join(const std::vector<std::string>& names, const std::string& sep = ", ");

}  // namespace plaidml_cli
