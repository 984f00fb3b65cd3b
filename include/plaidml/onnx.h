/* plaidml ONNX importer: the C ABI of libplaidml_onnx.
 *
 * Makes a plaidml_program (see plaidml.h) from an ONNX model. The importer is its own library,
 * built on libplaidml's public C ABI only: a program that never imports ONNX links neither it
 * nor protobuf. Link with `pkg-config --libs plaidml-onnx` or the CMake target plaidml::onnx.
 *
 * What it accepts
 * - ONNX IR versions PLAIDML_ONNX_MIN_IR_VERSION to PLAIDML_ONNX_MAX_IR_VERSION (3 to 14; the
 *   IR versions after 8 add element types, which are checked one by one).
 * - The default operator domain ("" or "ai.onnx") at opsets PLAIDML_ONNX_MIN_OPSET to
 *   PLAIDML_ONNX_MAX_OPSET (1 to 28, the opsets onnx 1.23 defines; exporters today
 *   write 13 to 21). Each node is imported with
 *   the semantics of the version of its op in effect at the model's opset (Reshape's allowzero from 14, axes as inputs of
 *   Squeeze/Unsqueeze/Split from 13 and of the Reduce ops from 18, ...). docs/onnx-support.md
 *   lists the ops and the versions of each that import.
 * - Tensor types: float, double, float16, bfloat16, int8/16/32/64, uint8/16/32/64, bool.
 * Everything else is refused with PLAIDML_STATUS_UNSUPPORTED before anything runs, the message
 * naming the node (name, op type, opset) and the reason: string, sequence, map and optional
 * types; other domains (ai.onnx.ml, training, custom); control flow (If, Loop, Scan) whose
 * branch is not a constant; an op, version or attribute value the importer does not implement.
 * A model is never imported into a program that would give a wrong answer.
 *
 * The program's inputs are the graph inputs that are not initializers, with the model's names
 * and dtypes; its outputs are the graph outputs, with the model's names. Initializers and
 * Constant nodes become program constants (plaidml_builder_add_constant): uploaded to a device
 * once, resident for every later execute, not part of the shape key. What depends only on
 * constants and known sizes (the Shape -> Gather -> Concat -> Reshape chains exporters emit)
 * is evaluated at import.
 *
 * Symbolic dimensions (dim_param "batch", or unnamed) stay symbolic unless an option fixes
 * them: the program then runs at any size there, compiled once per size by the shape-keyed
 * cache. A dimension with a fixed size (dim_value 224) must be given that size at run time.
 *
 * Every call is thread-safe; an options object is used from one thread at a time. Errors set
 * plaidml_last_error_message() like every plaidml call.
 */
#ifndef PLAIDML_ONNX_H_
#define PLAIDML_ONNX_H_

#include <stddef.h>
#include <stdint.h>

#include "plaidml/plaidml.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PLAIDML_ONNX_MIN_IR_VERSION 3
#define PLAIDML_ONNX_MAX_IR_VERSION 14
#define PLAIDML_ONNX_MIN_OPSET 1
#define PLAIDML_ONNX_MAX_OPSET 28

typedef struct plaidml_onnx_options plaidml_onnx_options;

/* Creates options holding every default (no dimension fixed). The caller owns *out_options
 * (plaidml_onnx_options_destroy). Statuses: OK, INVALID_ARGUMENT, OUT_OF_MEMORY. */
PLAIDML_API plaidml_status plaidml_onnx_options_create(plaidml_onnx_options** out_options);

/* Frees options. NULL does nothing. */
PLAIDML_API void plaidml_onnx_options_destroy(plaidml_onnx_options* options);

/* Fixes the symbolic dimension `name` (an input's dim_param, e.g. "batch") to size (>= 0);
 * setting a name again replaces its size. A name no input uses is an error at import, naming
 * it (a misspelt option is not silently ignored).
 * Statuses: OK; INVALID_ARGUMENT (NULL, empty name, negative size). */
PLAIDML_API plaidml_status plaidml_onnx_options_set_dim(plaidml_onnx_options* options,
                                                        const char* name, int64_t size);

/* Whether convolutions, pools and the elementwise ops between them keep their values channels
 * last (N, spatial..., C) inside the program; default true. ONNX lays images out channels first;
 * plaidml's CPU schedule for convolutions is much faster channels last (about 12 times for a
 * ResNet-50 3x3 layer), so the importer moves known weights on the host and transposes a value
 * only where an op that needs channels first reads it. Inputs and outputs keep the model's
 * layout either way, and the results agree within rounding. false imports every op as written.
 * Known issue: NVIDIA's Vulkan driver loses the device (DEVICE_ERROR, "VK_ERROR_DEVICE_LOST")
 * on channels-last ResNet-50 from its first residual block (BERT, which lost it too, runs
 * since kernels bind only their own buffers); it runs channels first: on that device, import
 * image models with false until the GPU kernel issue finds the cause.
 * Statuses: OK; INVALID_ARGUMENT (NULL options). */
PLAIDML_API plaidml_status plaidml_onnx_options_set_channels_last(plaidml_onnx_options* options,
                                                                  bool enabled);

/* Whether plaidml_onnx_import_file keeps the imported program in the disk cache folder and
 * reuses it (default true): a model file imported again with the same options, in this or a
 * later process, is read back from there (plaidml_program_cache_load) without parsing the
 * model, its weights the cache file's mapped pages. The key is the file's identity (canonical
 * path, device, inode, size, modification and change times in nanoseconds), the options and
 * the importer's revision, so a rewritten or replaced file is imported again. Models whose
 * tensors live in external data files, and imports with bound input values, are not kept.
 * Importing bytes is never cached. The cache folder is the one contexts use
 * (PLAIDML_CACHE_DIR; empty turns it off). Statuses: OK; INVALID_ARGUMENT (NULL options). */
PLAIDML_API plaidml_status plaidml_onnx_options_set_cache(plaidml_onnx_options* options,
                                                          bool enabled);

/* Binds the graph input `name` to a value at import: the importer treats it as a constant
 * (folding what it feeds) and the program no longer has that input. This is how a model whose
 * shapes depend on an input's contents imports: a Reshape's `shape`, a TopK's `K`, a Resize's
 * `scales`, a Reduce's `axes` fed as graph inputs rather than initializers. plaidml compiles for
 * shapes known before running, so such a model is imported once per value of those inputs
 * (plaidml_onnx_needed_inputs_* says which they are). The value is rank sizes at dims, size
 * bytes of dtype elements in row-major order at data, copied; binding a name again replaces its
 * value. At import, a name that is no graph input, a dtype other than the input's or dims its
 * declared shape does not allow are INVALID_ARGUMENT.
 * Statuses: OK; INVALID_ARGUMENT (NULL, empty name, an invalid dtype, size not the byte size of
 * dims); OUT_OF_MEMORY. */
PLAIDML_API plaidml_status plaidml_onnx_options_set_input_value(plaidml_onnx_options* options,
                                                                const char* name,
                                                                plaidml_dtype dtype, size_t rank,
                                                                const int64_t* dims,
                                                                const void* data, size_t size);

/* The graph inputs whose values the model's import needs (see
 * plaidml_onnx_options_set_input_value), given the options: the names, each followed by '\n', in
 * *out_names (plaidml_string_destroy). The importer imports the model; when a node fails only
 * because contents it needs come from graph inputs, those inputs are listed. "" when the model
 * imports as it is, or fails for a reason binding values cannot mend (the import's own status
 * says which). Bind the listed inputs and ask again: a node further on may need more.
 * Statuses: as plaidml_onnx_import_bytes / _file, except that UNSUPPORTED is never returned. */
PLAIDML_API plaidml_status plaidml_onnx_needed_inputs_bytes(const void* data, size_t size,
                                                            const plaidml_onnx_options* options,
                                                            char** out_names);
PLAIDML_API plaidml_status plaidml_onnx_needed_inputs_file(const char* path,
                                                           const plaidml_onnx_options* options,
                                                           char** out_names);

/* Imports a model from its serialized bytes (size bytes at data). External data files are
 * refused (there is no folder to resolve them in: use plaidml_onnx_import_file). options may be
 * NULL (defaults). The caller owns *out_program (plaidml_program_destroy); the program holds
 * its own copy of every weight.
 * Statuses: OK; INVALID_ARGUMENT (NULL, a malformed model: truncated or corrupt protobuf, a
 * graph with a cycle, an undefined or duplicate value name, an initializer whose bytes disagree
 * with its dims, an unknown dimension option); UNSUPPORTED (see above: names the node and the
 * reason); TYPE_ERROR (shapes that cannot agree); OUT_OF_MEMORY. */
PLAIDML_API plaidml_status plaidml_onnx_import_bytes(const void* data, size_t size,
                                                     const plaidml_onnx_options* options,
                                                     plaidml_program** out_program);

/* Imports a model from a file. Tensors stored as external data are read from files in the
 * model's folder (mapped with mmap, never copied twice); a location that is absolute, escapes
 * that folder (".."), or is a symlink leading out of it is refused, as is a range past the end
 * of its file. Statuses: as plaidml_onnx_import_bytes, and IO_ERROR (the model or a data file
 * cannot be opened or read: the message names the path). */
PLAIDML_API plaidml_status plaidml_onnx_import_file(const char* path,
                                                    const plaidml_onnx_options* options,
                                                    plaidml_program** out_program);

/* A report on a model without importing it: producer, IR version, opsets, inputs and outputs
 * with their types and shapes, op counts, constants' total size, and every node that would not
 * import with the reason (one line each). Text for people, not for parsing. The caller owns
 * *out_text (plaidml_string_destroy). A model whose nodes do not all import is still described
 * (status OK); a file that is not an ONNX model is an error.
 * Statuses: OK; INVALID_ARGUMENT; IO_ERROR; OUT_OF_MEMORY. */
PLAIDML_API plaidml_status plaidml_onnx_describe_file(const char* path, char** out_text);

#ifdef __cplusplus
}
#endif

#endif /* PLAIDML_ONNX_H_ */
