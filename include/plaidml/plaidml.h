/* plaidml.h: the stable C ABI of plaidml (C99).
 *
 * This header is the manual. Every declaration states its behaviour, who owns what, what NULL
 * means, whether it is thread-safe and which statuses it returns.
 *
 * General rules (they hold for every entry point unless its comment says otherwise):
 *   - Every fallible call returns a plaidml_status: PLAIDML_STATUS_OK (0) on success, else an
 *     error code; plaidml_last_error_message() then gives the detail for the calling thread.
 *   - A NULL handle or a NULL out_* pointer gives PLAIDML_STATUS_INVALID_ARGUMENT, never a crash.
 *   - On failure, out_* values are left unchanged and nothing is allocated.
 *   - No exception, abort or exit ever crosses this boundary; running out of memory is
 *     PLAIDML_STATUS_OUT_OF_MEMORY.
 *   - Strings passed in are NUL-terminated UTF-8 and are copied; the caller keeps ownership.
 *   - "Borrowed" strings returned through out_* stay valid as long as the object they came from.
 *   - plaidml_*_destroy(NULL) does nothing.
 *   - Thread safety: contexts, programs and buffers may be used from many threads at once (one
 *     compiled program may be executed from many threads concurrently; concurrent first runs or
 *     compiles of the same program at the same input shapes compile once, the other callers wait
 *     for that compile). A builder or a contraction is single-threaded: use each from one thread
 *     at a time. Writing a buffer while another thread reads or executes with it is a data race
 *     on its contents (as with any memory), not on plaidml's state.
 *
 * Values of enumerations are append-only: they are never renumbered, so a program built against
 * an older header keeps working with a newer library of the same PLAIDML_VERSION_MAJOR.
 */
#ifndef PLAIDML_PLAIDML_H_
#define PLAIDML_PLAIDML_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define PLAIDML_API
#else
#define PLAIDML_API __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------------------------------------
 * Version
 * ------------------------------------------------------------------------------------------- */

/* The version of this header. The library's SONAME carries the ABI number (libplaidml.so.0). */
#define PLAIDML_VERSION_MAJOR 0
#define PLAIDML_VERSION_MINOR 1
#define PLAIDML_VERSION_PATCH 0

/* The version of the library loaded at run time, as "MAJOR.MINOR.PATCH" (a static string; never
 * NULL, never free it). Compare with the macros above to detect a mismatched library.
 * Thread-safe. Cannot fail. */
PLAIDML_API const char* plaidml_version(void);

/* ---------------------------------------------------------------------------------------------
 * Status codes and errors
 * ------------------------------------------------------------------------------------------- */

typedef int32_t plaidml_status;
enum {
  PLAIDML_STATUS_OK = 0,
  PLAIDML_STATUS_INVALID_ARGUMENT = 1, /* NULL handle, bad option, wrong buffer size, misuse */
  PLAIDML_STATUS_PARSE_ERROR = 2,      /* malformed Tile text; the message carries line:column */
  PLAIDML_STATUS_TYPE_ERROR = 3,       /* dtype, rank, dimension or broadcasting mismatch */
  PLAIDML_STATUS_NOT_FOUND = 4,        /* unknown tensor, input, output, device or function */
  PLAIDML_STATUS_UNSUPPORTED = 5,      /* a valid program the chosen device cannot run */
  PLAIDML_STATUS_OUT_OF_MEMORY = 6,
  PLAIDML_STATUS_DEVICE_ERROR = 7, /* driver or device failure during compile, load, launch */
  PLAIDML_STATUS_INTERNAL = 8,     /* a broken invariant inside plaidml: please report it */
  PLAIDML_STATUS_IO_ERROR = 9      /* file read or write failure */
};

/* The symbolic name of a status ("PLAIDML_STATUS_NOT_FOUND"); "PLAIDML_STATUS_UNKNOWN" for a
 * value this library does not know. Static string, never NULL. Thread-safe. Cannot fail. */
PLAIDML_API const char* plaidml_status_name(plaidml_status status);

/* The message of the last failed call made by the calling thread ("" if none has failed yet).
 * Thread-local: errors on other threads never show here. Successful calls leave it unchanged.
 * The string is owned by plaidml and stays valid until the calling thread's next failing call;
 * copy it to keep it. Never NULL. Cannot fail. */
PLAIDML_API const char* plaidml_last_error_message(void);

/* Records status and message as the calling thread's last error, as a failing plaidml call
 * does, and returns status. For libraries layered on this ABI (libplaidml_onnx), so that their
 * callers read every error the same way. message NULL means "". Thread-safe. Cannot fail. */
PLAIDML_API plaidml_status plaidml_set_last_error(plaidml_status status, const char* message);

/* Frees a string that plaidml allocated for the caller (plaidml_program_print). NULL does
 * nothing. Thread-safe. */
PLAIDML_API void plaidml_string_destroy(char* str);

/* ---------------------------------------------------------------------------------------------
 * Logging
 * ------------------------------------------------------------------------------------------- */

typedef int32_t plaidml_log_level;
enum {
  PLAIDML_LOG_TRACE = 0,
  PLAIDML_LOG_DEBUG = 1,
  PLAIDML_LOG_INFO = 2,
  PLAIDML_LOG_WARN = 3, /* the default, unless the environment sets PLAIDML_LOG_LEVEL */
  PLAIDML_LOG_ERROR = 4,
  PLAIDML_LOG_CRITICAL = 5,
  PLAIDML_LOG_OFF = 6
};

/* Sets the process-wide log level: messages below it are dropped. It overrides the environment
 * variable PLAIDML_LOG_LEVEL (trace, debug, info, warn, error, critical, off, in any case; an
 * unknown value keeps warn and logs one warning naming these). Thread-safe.
 * Statuses: OK; INVALID_ARGUMENT for a value outside PLAIDML_LOG_TRACE..PLAIDML_LOG_OFF. */
PLAIDML_API plaidml_status plaidml_set_log_level(plaidml_log_level level);

/* A log receiver. message is the text of one log line without a trailing newline; it is valid
 * only during the call. It may be called from any thread plaidml uses, but never from two
 * threads at once. It must not call back into plaidml's logging functions. */
typedef void (*plaidml_log_callback)(void* user_data, plaidml_log_level level, const char* message);

/* Installs callback as the process-wide log receiver (besides standard error), replacing any
 * previous one; user_data is passed back on every call. callback NULL removes it. After this
 * returns, the previous callback is never called again. Thread-safe. Statuses: OK. */
PLAIDML_API plaidml_status plaidml_set_log_callback(plaidml_log_callback callback, void* user_data);

/* ---------------------------------------------------------------------------------------------
 * Dtypes
 * ------------------------------------------------------------------------------------------- */

typedef int32_t plaidml_dtype;
enum {
  PLAIDML_DTYPE_INVALID = 0, /* "not specified" where a call allows it (builder inputs) */
  PLAIDML_DTYPE_BOOL = 1,    /* one byte holding 0 or 1 */
  PLAIDML_DTYPE_INT8 = 2,
  PLAIDML_DTYPE_INT16 = 3,
  PLAIDML_DTYPE_INT32 = 4,
  PLAIDML_DTYPE_INT64 = 5,
  PLAIDML_DTYPE_UINT8 = 6,
  PLAIDML_DTYPE_UINT16 = 7,
  PLAIDML_DTYPE_UINT32 = 8,
  PLAIDML_DTYPE_UINT64 = 9,
  PLAIDML_DTYPE_FLOAT16 = 10, /* IEEE half, stored as its 16-bit pattern */
  PLAIDML_DTYPE_BFLOAT16 = 11,
  PLAIDML_DTYPE_FLOAT32 = 12,
  PLAIDML_DTYPE_FLOAT64 = 13
};

/* Bytes per element of a dtype through out_size. Thread-safe.
 * Statuses: OK; INVALID_ARGUMENT for an unknown dtype or NULL out_size. */
PLAIDML_API plaidml_status plaidml_dtype_size(plaidml_dtype dtype, size_t* out_size);

/* ---------------------------------------------------------------------------------------------
 * Contexts
 *
 * A context owns the devices, the compiled-program cache and its statistics. Create one per
 * application (or per independent subsystem). All context calls are thread-safe.
 * ------------------------------------------------------------------------------------------- */

typedef struct plaidml_context plaidml_context;
typedef struct plaidml_context_options plaidml_context_options;

/* Keys of context options. Each key has one value type, set with the matching typed setter. */
typedef int32_t plaidml_context_option;
enum {
  /* int: worker threads of the CPU device. 0 (the default) means the environment variable
   * PLAIDML_NUM_THREADS, else the number of cores. Must be >= 0. */
  PLAIDML_CONTEXT_OPTION_NUM_THREADS = 1,
  /* string: the id of the device that runs programs ("cpu:0"). "" (the default) means the
   * environment variable PLAIDML_DEVICE, else "cpu:0". */
  PLAIDML_CONTEXT_OPTION_DEVICE = 2,
  /* string: the folder of the on-disk kernel cache, where compiled kernels are kept for later
   * processes (a second process at the same shapes generates no code). Unlike DEVICE, "" is not
   * the default: "" turns the disk cache off (kernels are then cached in memory only). When the
   * option is not set: the environment variable PLAIDML_CACHE_DIR when it is set (its empty
   * value turns the disk cache off too), else $XDG_CACHE_HOME/plaidml, else
   * $HOME/.cache/plaidml. A relative path is taken relative to the working directory at
   * plaidml_context_create. The folder is created when the first kernel is stored, mode 0700.
   * A folder that cannot be created or written (read-only, full, not a folder) is not an error:
   * the context logs one warning and runs without storing kernels there. Deleting the folder
   * (or any file in it) at any time is safe: it only costs recompiles.
   * The cache holds native code the process runs, so the folder must be one only the user can
   * change: it, and every folder above it (symbolic links resolved), must belong to the user or
   * root and be writable by no one else (root's sticky folders such as /tmp, and the user's
   * private group, are allowed). Otherwise the folder is refused: one warning names the folder
   * and why, and the context runs with its in-memory caches only (plaidml_context_cache_dir
   * then gives ""). An entry that is not a regular file of at most 256 MiB (a symbolic link, a
   * FIFO, a device, a folder) is never read: it is a miss with a warning, and the kernels are
   * compiled and stored again. See docs/kernel-cache.md. */
  PLAIDML_CONTEXT_OPTION_CACHE_DIR = 3,
  /* int: the memory limit, in bytes, of each execute and each buffer on a device whose buffers
   * live in host memory (the CPU; an OpenCL device with host-unified memory). Other devices are
   * bounded by their own memory (plaidml_memory.device_memory_bytes). An execute whose planned
   * peak (plaidml_program_memory's peak_bytes: inputs, outputs, intermediates and constants)
   * exceeds it fails with OUT_OF_MEMORY before allocating anything, with the figures:
   * "running 'f' on cpu:0 needs 100.0 MiB (inputs 16 B, outputs 100.0 MiB, intermediates 0 B,
   * constants 0 B), but the context's memory limit is 64.0 MiB
   * (PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT)"; so does a buffer larger than it. The limit bounds
   * each of these alone: it does not add up the buffers the application holds.
   * 0 (the default) means the environment variable PLAIDML_MEMORY_LIMIT (bytes, or with a K, M,
   * G or T suffix in powers of 1024: "8G", "512MiB"; another value fails plaidml_context_create
   * with INVALID_ARGUMENT), else the least of the host's physical memory, the memory limit of
   * the process's cgroup (v2 memory.max or v1 memory.limit_in_bytes, at its level or above) and
   * its RLIMIT_AS and RLIMIT_DATA; under this default, an execute or buffer of more than 1 GiB
   * must also fit the memory the host has available at that moment (MemAvailable + SwapFree in
   * /proc/meminfo). The message names the source that set the limit. INT64_MAX
   * turns the check off. Must be >= 0. */
  PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT = 4
};

/* Creates a set of options holding every default. The caller owns *out_options and frees it
 * with plaidml_context_options_destroy. Statuses: OK, INVALID_ARGUMENT, OUT_OF_MEMORY. */
PLAIDML_API plaidml_status plaidml_context_options_create(plaidml_context_options** out_options);

/* Frees options. NULL does nothing. */
PLAIDML_API void plaidml_context_options_destroy(plaidml_context_options* options);

/* Sets an integer-valued option (NUM_THREADS, MEMORY_LIMIT). Statuses: OK; INVALID_ARGUMENT for
 * NULL options, a key that is not integer-valued or unknown, or a value out of range (the
 * message names the key). */
PLAIDML_API plaidml_status plaidml_context_options_set_int(plaidml_context_options* options,
                                                           plaidml_context_option key,
                                                           int64_t value);

/* Sets a string-valued option (value is copied). Statuses: OK; INVALID_ARGUMENT for NULL options
 * or value, or a key that is not string-valued or unknown. */
PLAIDML_API plaidml_status plaidml_context_options_set_string(plaidml_context_options* options,
                                                              plaidml_context_option key,
                                                              const char* value);

/* Creates a context. options may be NULL (all defaults); it is only read, and may be destroyed
 * right after. The caller owns *out_context and frees it with plaidml_context_destroy.
 * Statuses: OK; INVALID_ARGUMENT (NULL out_context; PLAIDML_MEMORY_LIMIT set to something that
 * is not a byte count); NOT_FOUND when the DEVICE option names an unknown or unavailable device
 * (the message lists the available ids); OUT_OF_MEMORY; DEVICE_ERROR. */
PLAIDML_API plaidml_status plaidml_context_create(const plaidml_context_options* options,
                                                  plaidml_context** out_context);

/* Releases the context. Buffers created in it keep what they need alive, so destroying the
 * context before its buffers is allowed (the buffers remain usable until destroyed). Must not
 * race with other calls on the same context. NULL does nothing. */
PLAIDML_API void plaidml_context_destroy(plaidml_context* context);

/* ---------------------------------------------------------------------------------------------
 * Devices
 *
 * Devices are listed by index 0..count-1. The list includes devices that cannot be used (a GPU
 * plugin whose driver is missing), so that an application can tell the user why.
 * ------------------------------------------------------------------------------------------- */

/* Number of devices known to the context. Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_device_count(const plaidml_context* context, size_t* out_count);

/* The id ("cpu:0", "opencl:1") of device index; borrowed from the context.
 * Statuses: OK; INVALID_ARGUMENT for NULL arguments or index >= count. */
PLAIDML_API plaidml_status plaidml_device_id(const plaidml_context* context, size_t index,
                                             const char** out_id);

/* The human-readable name of device index; borrowed from the context.
 * Statuses: OK; INVALID_ARGUMENT for NULL arguments or index >= count. */
PLAIDML_API plaidml_status plaidml_device_name(const plaidml_context* context, size_t index,
                                               const char** out_name);

/* Whether device index can run programs. out_reason (may be NULL if not wanted) receives why
 * not, or "" for an available device; borrowed from the context.
 * Statuses: OK; INVALID_ARGUMENT for NULL context/out_available or index >= count. */
PLAIDML_API plaidml_status plaidml_device_available(const plaidml_context* context, size_t index,
                                                    bool* out_available, const char** out_reason);

/* Makes device_id the device that later buffer creations, compiles and executions of this
 * context use. Calls already running are unaffected. Thread-safe.
 * Statuses: OK; INVALID_ARGUMENT (NULL); NOT_FOUND for an unknown or unavailable id (the
 * message names it and lists the available ids). */
PLAIDML_API plaidml_status plaidml_context_select_device(plaidml_context* context,
                                                         const char* device_id);

/* The id of the selected device; borrowed from the context (valid until the context is
 * destroyed). Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_context_device(const plaidml_context* context,
                                                  const char** out_device_id);

/* ---------------------------------------------------------------------------------------------
 * Programs
 *
 * A program is an immutable, shape-polymorphic tensor computation: dimension sizes and dtypes
 * are bound when it runs, from the shapes of the input buffers. It does not belong to a context
 * and may be used with several. Thread-safe.
 * ------------------------------------------------------------------------------------------- */

typedef struct plaidml_program plaidml_program;

/* Parses a program from Tile text (see docs/tile.md), e.g.
 *   "function (A[M, K], B[K, N]) -> (C) { C[i, j : M, N] = +(A[i, k] * B[k, j]); }"
 * The caller owns *out_program (plaidml_program_destroy).
 * Statuses: OK; INVALID_ARGUMENT (NULL); PARSE_ERROR with "line:column: ..." in the message;
 * NOT_FOUND for an unknown function or tensor (with line:column); other codes for structural
 * errors the message explains. */
PLAIDML_API plaidml_status plaidml_program_from_tile(const char* tile_text,
                                                     plaidml_program** out_program);

/* Frees a program. Running executions keep what they need. NULL does nothing. */
PLAIDML_API void plaidml_program_destroy(plaidml_program* program);

/* Writes the program to a file (its Tile text and its constants' bytes; format in
 * src/core/parse/program_file.h) that plaidml_program_load reads back in any later process,
 * without the frontend that built it. The file appears whole or not at all (written beside and
 * renamed). Statuses: OK, INVALID_ARGUMENT (NULL), IO_ERROR naming the path and the reason. */
PLAIDML_API plaidml_status plaidml_program_save(const plaidml_program* program, const char* path);

/* Reads a program plaidml_program_save wrote. Its constants are the file's pages, mapped
 * read-only: the file may be deleted, or replaced by another renamed over it (as
 * plaidml_program_save and the cache write), while the program lives, but must not be written
 * in place meanwhile, which would change the program's weights. The caller owns
 * *out_program. Statuses: OK; INVALID_ARGUMENT (NULL); NOT_FOUND (no such file); IO_ERROR (not
 * a regular file, not a program file, another version, truncated or damaged: the message says
 * which). */
PLAIDML_API plaidml_status plaidml_program_load(const char* path, plaidml_program** out_program);

/* Programs kept in the disk cache folder (the one a context created now without the CACHE_DIR
 * option would use: PLAIDML_CACHE_DIR, else the default) under a caller's key, e.g. a model
 * file's identity and import options: libplaidml_onnx keeps imported models there. Entries live
 * in <folder>/programs/, named by the key's SHA-256, and hold the key itself: another key's
 * entry is NOT_FOUND. The entry is opened without following a symlink and without blocking.
 * cache_store: OK also when the disk cache is off or its folder cannot be written (nothing is
 * stored, and a debug log line says why). cache_load: OK with *out_program NULL when there is
 * no usable entry (absent, the cache off; damaged or foreign: also logged as a warning), else
 * the caller owns *out_program. INVALID_ARGUMENT for NULL; OUT_OF_MEMORY (never taken for a
 * damaged entry or a program that cannot be kept). */
PLAIDML_API plaidml_status plaidml_program_cache_store(const char* key,
                                                       const plaidml_program* program);
PLAIDML_API plaidml_status plaidml_program_cache_load(const char* key,
                                                      plaidml_program** out_program);

/* Prints the program as Tile text that parses back to the same program. The caller owns
 * *out_text and frees it with plaidml_string_destroy.
 * Statuses: OK, INVALID_ARGUMENT, OUT_OF_MEMORY. */
PLAIDML_API plaidml_status plaidml_program_print(const plaidml_program* program, char** out_text);

/* Number of inputs, in declaration order. Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_program_input_count(const plaidml_program* program,
                                                       size_t* out_count);

/* Name of input index (borrowed from the program).
 * Statuses: OK; INVALID_ARGUMENT for NULL arguments or index >= count. */
PLAIDML_API plaidml_status plaidml_program_input_name(const plaidml_program* program, size_t index,
                                                      const char** out_name);

/* The declared dtype of input index (PLAIDML_DTYPE_INVALID: any dtype) and its rank
 * (PLAIDML_RANK_UNKNOWN: any rank). Statuses: OK; INVALID_ARGUMENT (NULL, index >= count). */
PLAIDML_API plaidml_status plaidml_program_input_type(const plaidml_program* program, size_t index,
                                                      plaidml_dtype* out_dtype, size_t* out_rank);

/* Dimension axis of input index as declared: its name ("N"), its fixed size in decimal ("224"),
 * or "" when unnamed (any size). Borrowed from the program.
 * Statuses: OK; INVALID_ARGUMENT (NULL, index >= count, an input of unknown rank, axis >= rank). */
PLAIDML_API plaidml_status plaidml_program_input_dim(const plaidml_program* program, size_t index,
                                                     size_t axis, const char** out_dim);

/* The program's constants (plaidml_builder_add_constant): how many, and their bytes in all.
 * Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_program_constants(const plaidml_program* program,
                                                     size_t* out_count, uint64_t* out_bytes);

/* Number of outputs, in declaration order. Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_program_output_count(const plaidml_program* program,
                                                        size_t* out_count);

/* Name of output index (borrowed from the program).
 * Statuses: OK; INVALID_ARGUMENT for NULL arguments or index >= count. */
PLAIDML_API plaidml_status plaidml_program_output_name(const plaidml_program* program, size_t index,
                                                       const char** out_name);

/* ---------------------------------------------------------------------------------------------
 * Builder: programs from calls
 *
 * A builder makes the same programs as Tile text, one statement per call. Tensor values and
 * integer expressions are small value types (plaidml_value, plaidml_expr) that name nodes inside
 * their builder: they need no freeing and are meaningless in another builder (passing one gives
 * INVALID_ARGUMENT). Errors name the builder call and the tensors, dims and indices involved.
 * A builder is used from one thread at a time.
 * ------------------------------------------------------------------------------------------- */

typedef struct plaidml_builder plaidml_builder;
typedef struct plaidml_contraction plaidml_contraction;

/* A tensor value inside a builder (an input, a constant, a contraction or elementwise result). */
typedef struct plaidml_value {
  int32_t id;
} plaidml_value;

/* An integer expression inside a builder: an index variable, a dimension size, a literal, or
 * + - * / max min of those. In index expressions / is exact rational division (points where an
 * index is not an integer are skipped); in output sizes it is C integer division. */
typedef struct plaidml_expr {
  int32_t id;
} plaidml_expr;

/* Pass as rank to plaidml_builder_add_input for an input of any rank (Tile `X`). */
#define PLAIDML_RANK_UNKNOWN ((size_t)-1)

/* Creates an empty builder; name (may be NULL) names the program in messages. The caller owns
 * *out_builder (plaidml_builder_destroy). Statuses: OK, INVALID_ARGUMENT, OUT_OF_MEMORY. */
PLAIDML_API plaidml_status plaidml_builder_create(const char* name, plaidml_builder** out_builder);

/* Frees a builder and every expression and value it made. Programs it built stay valid.
 * NULL does nothing. */
PLAIDML_API void plaidml_builder_destroy(plaidml_builder* builder);

/* Declares an input tensor, in program order. rank is the number of dims, or
 * PLAIDML_RANK_UNKNOWN for any rank (then dim_names must be NULL). dim_names: rank entries, each
 * a dimension name (capitalised, e.g. "M"; a name used twice must get equal sizes at run time),
 * a size in decimal ("224": the buffer must have exactly that size there, and the program's
 * shapes use it as a known number), or NULL for an unnamed dimension; dim_names itself may be NULL for all-unnamed (or rank 0).
 * dtype: PLAIDML_DTYPE_INVALID for any dtype, else the dtype the buffer must have.
 * Statuses: OK; INVALID_ARGUMENT (NULL builder/name/out_value, unknown dtype, duplicate
 * tensor name, a rank over 64). */
PLAIDML_API plaidml_status plaidml_builder_add_input(plaidml_builder* builder, const char* name,
                                                     size_t rank, const char* const* dim_names,
                                                     plaidml_dtype dtype, plaidml_value* out_value);

/* An integer constant tensor (a scalar that takes the dtype of what it meets).
 * Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_builder_int_constant(plaidml_builder* builder, int64_t value,
                                                        plaidml_value* out_value);

/* A float constant tensor (a scalar that takes the float dtype of what it meets).
 * Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_builder_float_constant(plaidml_builder* builder, double value,
                                                          plaidml_value* out_value);

/* How plaidml_builder_add_constant's data is released when the builder or program no longer
 * needs it. */
typedef void (*plaidml_release_fn)(void* release_data);

/* A constant tensor (a weight) of dtype and dims (rank entries, each >= 0) holding byte_size
 * bytes at data (row-major; byte_size must equal the shape's byte size). name (may be NULL: a
 * generated name) names it like an input: unique, shown when the program is printed.
 * With release == NULL the bytes are copied before the call returns. Otherwise they are
 * adopted: plaidml reads them in place, the caller keeps them valid and unchanged, and plaidml
 * calls release(release_data) exactly once when the builder and every program built from it
 * no longer need them (also when this call fails). The bytes are hashed once, here; a program's
 * constants are uploaded to a device by its first execute there and stay resident for later
 * executes (the CPU device reads them in place, never a second copy, when they are 64-byte
 * aligned, as plaidml's copies are); they are not part of the shape key (plaidml_compile lists
 * only inputs). Programs with constants print them in Tile as `constant(f32[2], [1, 2])`, or by digest when larger
 * than 16 elements (text that does not carry them, so it does not parse back).
 * Statuses: OK; INVALID_ARGUMENT (NULL builder or out_value, NULL data with byte_size > 0,
 * unknown dtype, a negative dim, byte_size disagreeing with the shape, a duplicate name);
 * OUT_OF_MEMORY (the copy). */
PLAIDML_API plaidml_status plaidml_builder_add_constant(plaidml_builder* builder, const char* name,
                                                        plaidml_dtype dtype, size_t rank,
                                                        const int64_t* dims, const void* data,
                                                        size_t byte_size, plaidml_release_fn release,
                                                        void* release_data,
                                                        plaidml_value* out_value);

/* A dimension size (or an integer expression over dims and literals, e.g. N - 1) used as a
 * scalar integer tensor in elementwise code (Tile `R = X / N`); evaluated when the program runs.
 * Statuses: OK; INVALID_ARGUMENT (NULL, foreign expression, a dim no input declares, an index
 * variable inside size_expr). */
PLAIDML_API plaidml_status plaidml_builder_dim_constant(plaidml_builder* builder,
                                                        plaidml_expr size_expr,
                                                        plaidml_value* out_value);

/* Applies an elementwise operator or function by its Tile name: "add" "sub" "mul" "div" "mod"
 * "neg" "cmp_eq" "cmp_ne" "cmp_lt" "cmp_gt" "cmp_le" "cmp_ge" "bit_and" "bit_or" "bit_xor"
 * "bit_not" "bit_left" "bit_right" "select", and every function of docs/tile.md section 3 ("exp",
 * "relu", "as_float", "reshape", ...). operands: operand_count values (operands may be NULL
 * when operand_count is 0). int_args: the non-tensor integer arguments (cast bits, reshape dims,
 * index axis), int_arg_count expressions (may be NULL when 0).
 * Statuses: OK; INVALID_ARGUMENT (NULL, wrong operand count, a value or expression of another
 * builder, bad cast bits); NOT_FOUND for an unknown function name (the message names it). */
PLAIDML_API plaidml_status plaidml_builder_call(plaidml_builder* builder, const char* function,
                                                size_t operand_count, const plaidml_value* operands,
                                                size_t int_arg_count, const plaidml_expr* int_args,
                                                plaidml_value* out_value);

/* The number of elementwise operators and functions plaidml_builder_call knows, and the Tile
 * name of function index (0 <= index < count, in the library's op-table order, "add" first; the
 * string is static), so that bindings can check that they wrap every one.
 * Statuses: OK; INVALID_ARGUMENT (NULL, index out of range). */
PLAIDML_API plaidml_status plaidml_function_count(size_t* out_count);
PLAIDML_API plaidml_status plaidml_function_name(size_t index, const char** out_name);

/* Gives value a user-visible name (Tile `NAME = ...`) and marks it as a program output, in
 * output order. A value that already has this name (an input passed through) is allowed.
 * Statuses: OK; INVALID_ARGUMENT (NULL, foreign value, a name given twice: the message names
 * both places, a duplicate output). */
PLAIDML_API plaidml_status plaidml_builder_add_output(plaidml_builder* builder, const char* name,
                                                      plaidml_value value);

/* Finishes the program. The builder stays valid (it can add more and build again). The caller
 * owns *out_program (plaidml_program_destroy).
 * Statuses: OK; INVALID_ARGUMENT (NULL, no outputs); OUT_OF_MEMORY. */
PLAIDML_API plaidml_status plaidml_builder_build(plaidml_builder* builder,
                                                 plaidml_program** out_program);

/* --- integer expressions --- */

typedef int32_t plaidml_expr_op;
enum {
  PLAIDML_EXPR_ADD = 1,
  PLAIDML_EXPR_SUB = 2,
  PLAIDML_EXPR_MUL = 3,
  PLAIDML_EXPR_DIV = 4, /* rational in index expressions, C integer division in sizes */
  PLAIDML_EXPR_MAX = 5, /* in index expressions only over dims and literals */
  PLAIDML_EXPR_MIN = 6, /* in index expressions only over dims and literals */
  /* Floor division of operands free of index variables (Tile `floordiv(a, b)`): an integer in
   * sizes and in index expressions alike (where DIV would be exact rational division). */
  PLAIDML_EXPR_FLOOR_DIV = 7
};

/* The index variable name, as Tile text writes one: a lowercase letter, then letters, digits
 * and '_' (e.g. "i", "k2"); the same name is the same variable within one contraction.
 * Statuses: OK, INVALID_ARGUMENT (NULL name, or one that is not an index name). */
PLAIDML_API plaidml_status plaidml_expr_index(plaidml_builder* builder, const char* name,
                                              plaidml_expr* out_expr);

/* The size of dimension name, as declared by an input (e.g. "M"). Using a name no input declares
 * is reported when the contraction is added. Statuses: OK, INVALID_ARGUMENT (NULL or empty). */
PLAIDML_API plaidml_status plaidml_expr_dim(plaidml_builder* builder, const char* name,
                                            plaidml_expr* out_expr);

/* An integer literal. Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_expr_int(plaidml_builder* builder, int64_t value,
                                            plaidml_expr* out_expr);

/* lhs op rhs. Statuses: OK; INVALID_ARGUMENT (NULL, unknown op, foreign expression). */
PLAIDML_API plaidml_status plaidml_expr_binary(plaidml_builder* builder, plaidml_expr_op op,
                                               plaidml_expr lhs, plaidml_expr rhs,
                                               plaidml_expr* out_expr);

/* -operand. Statuses: OK; INVALID_ARGUMENT (NULL, foreign expression). */
PLAIDML_API plaidml_status plaidml_expr_neg(plaidml_builder* builder, plaidml_expr operand,
                                            plaidml_expr* out_expr);

/* --- assertions (Tile `assert cond, "message", args...;`) --- */

typedef int32_t plaidml_assert_op;
enum {
  PLAIDML_ASSERT_EQ = 1,        /* lhs == rhs */
  PLAIDML_ASSERT_GE = 2,        /* lhs >= rhs */
  PLAIDML_ASSERT_BROADCAST = 3, /* lhs == rhs, or either is 1 (numpy broadcasting) */
  PLAIDML_ASSERT_MULTIPLE = 4   /* lhs is a multiple of rhs (rhs > 0) */
};

/* Requires `lhs op rhs` of sizes (expressions over dims and literals) whenever the program runs:
 * for a size agreement that no value checks, where a mismatch would otherwise give a wrong
 * answer (out-of-range accesses are skipped) instead of an error. Running the program at shapes
 * that break it fails with TYPE_ERROR and `message`, in which {k} stands for the size args[k]
 * takes at those shapes ("conv: input has {0} channels, the kernel {1}"). A condition the
 * expressions decide already fails here (TYPE_ERROR, the message with args printed) or is
 * dropped. The message is copied; args may be NULL when arg_count is 0.
 * Statuses: OK; INVALID_ARGUMENT (NULL, unknown op, foreign expression, an index variable);
 * NOT_FOUND (a dim no input declares); TYPE_ERROR (as above). */
PLAIDML_API plaidml_status plaidml_builder_add_assertion(plaidml_builder* builder,
                                                         plaidml_assert_op op, plaidml_expr lhs,
                                                         plaidml_expr rhs, const char* message,
                                                         size_t arg_count,
                                                         const plaidml_expr* args);

/* --- contractions (Tile `O[idx : sizes] = AGG(A[...] COMB B[...]), constraints...;`) --- */

typedef int32_t plaidml_agg_op;
enum {
  PLAIDML_AGG_SUM = 1,   /* + */
  PLAIDML_AGG_PROD = 2,  /* * */
  PLAIDML_AGG_MAX = 3,   /* > */
  PLAIDML_AGG_MIN = 4,   /* < */
  PLAIDML_AGG_ASSIGN = 5 /* = */
};

typedef int32_t plaidml_comb_op;
enum {
  PLAIDML_COMB_NONE = 1, /* one input: its value */
  PLAIDML_COMB_MUL = 2,  /* two inputs: A * B */
  PLAIDML_COMB_ADD = 3,  /* two inputs: A + B */
  PLAIDML_COMB_EQ = 4,   /* two inputs: A == B (bool) */
  PLAIDML_COMB_COND = 5  /* three inputs: (A == B) ? C : 0 */
};

/* Starts describing a contraction in builder. The caller owns *out_contraction and frees it with
 * plaidml_contraction_destroy (after plaidml_builder_add_contraction, or to abandon it); it must
 * not outlive its builder. Statuses: OK; INVALID_ARGUMENT (NULL, unknown agg or comb op). */
PLAIDML_API plaidml_status plaidml_contraction_create(plaidml_builder* builder, plaidml_agg_op agg,
                                                      plaidml_comb_op comb,
                                                      plaidml_contraction** out_contraction);

/* Frees a contraction description. NULL does nothing. */
PLAIDML_API void plaidml_contraction_destroy(plaidml_contraction* contraction);

/* Sets the output access and sizes: rank index expressions and rank size expressions (rank 0 is
 * a scalar output; the arrays may then be NULL). Calling it again replaces them.
 * Statuses: OK; INVALID_ARGUMENT (NULL arrays with rank > 0, foreign expressions). */
PLAIDML_API plaidml_status plaidml_contraction_set_output(plaidml_contraction* contraction,
                                                          size_t rank, const plaidml_expr* indices,
                                                          const plaidml_expr* sizes);

/* Appends an input access tensor[indices...] (the order is A, B, C of the combination).
 * Statuses: OK; INVALID_ARGUMENT (NULL indices with rank > 0, foreign value or expression). */
PLAIDML_API plaidml_status plaidml_contraction_add_input(plaidml_contraction* contraction,
                                                         plaidml_value tensor, size_t rank,
                                                         const plaidml_expr* indices);

/* Adds the constraint 0 <= poly < bound (Tile `, poly < bound`).
 * Statuses: OK; INVALID_ARGUMENT (NULL, foreign expressions). */
PLAIDML_API plaidml_status plaidml_contraction_add_constraint(plaidml_contraction* contraction,
                                                              plaidml_expr poly,
                                                              plaidml_expr bound);

/* The output starts as value (broadcast) instead of the aggregation identity (Tile `default`).
 * Statuses: OK; INVALID_ARGUMENT (NULL, foreign value). */
PLAIDML_API plaidml_status plaidml_contraction_set_default(plaidml_contraction* contraction,
                                                           plaidml_value value);

/* Adds the described contraction to its builder; the description stays reusable.
 * Statuses: OK; INVALID_ARGUMENT with the builder's structural errors, e.g. wrong input count for
 * the combination, "index k is not in the output of an assign contraction", a dim no input
 * declares, sizes/indices count mismatch. */
PLAIDML_API plaidml_status plaidml_builder_add_contraction(plaidml_builder* builder,
                                                           const plaidml_contraction* contraction,
                                                           plaidml_value* out_value);

/* Labels every value the builder makes from now on with `origin`, where it comes from in the
 * caller's terms (the ONNX importer gives "<node name> (<op type>)"). Profiles name each kernel
 * by the origins of the values it computes (plaidml_context_profile_trace). It changes no
 * result and no cache key. origin NULL or "" stops labelling. The string is copied.
 * Statuses: OK; INVALID_ARGUMENT (NULL builder). */
PLAIDML_API plaidml_status plaidml_builder_set_origin(plaidml_builder* builder, const char* origin);

/* The rank of a value made by this builder (its dims are known symbolically while building).
 * An input declared with PLAIDML_RANK_UNKNOWN has no rank here.
 * Statuses: OK; INVALID_ARGUMENT (NULL, foreign value); TYPE_ERROR (the value depends on an
 * input of unknown rank: the message names it). */
PLAIDML_API plaidml_status plaidml_builder_value_rank(plaidml_builder* builder, plaidml_value value,
                                                      size_t* out_rank);

/* Dimension axis of a value, as an integer expression over the inputs' dims (e.g. M, or
 * (X - 3) / 2 + 1 for a convolution's output), usable as a contraction size. An unnamed input
 * dim it needs is given a generated name (X_D1 for axis 1 of X), which accepts any size as
 * before. Statuses: OK; INVALID_ARGUMENT (NULL, foreign value, axis >= rank); TYPE_ERROR as in
 * plaidml_builder_value_rank. */
PLAIDML_API plaidml_status plaidml_builder_value_dim(plaidml_builder* builder, plaidml_value value,
                                                     size_t axis, plaidml_expr* out_expr);

/* The size of dimension axis of value when it is known while building (every size it depends
 * on is fixed: a constant's, or an input dim declared as a number), else -1.
 * Statuses: OK; INVALID_ARGUMENT (NULL, foreign value, axis >= rank); TYPE_ERROR as in
 * plaidml_builder_value_rank. */
PLAIDML_API plaidml_status plaidml_builder_value_size(plaidml_builder* builder, plaidml_value value,
                                                      size_t axis, int64_t* out_size);

/* ---------------------------------------------------------------------------------------------
 * Op library: composite ops by name
 *
 * plaidml_builder_op adds an op of the library ("matmul", "conv", "max_pool", "softmax", ...:
 * plaidml_op_name lists them; docs/ops.md describes each operand and attribute) to a builder,
 * built from contractions and elementwise calls like hand-written Tile, so the program still
 * runs at any input shape. Attributes are a small typed name -> value map.
 * ------------------------------------------------------------------------------------------- */

typedef struct plaidml_attrs plaidml_attrs;

/* Creates an empty attribute map. The caller owns *out_attrs (plaidml_attrs_destroy). A map is
 * used from one thread at a time. Statuses: OK, INVALID_ARGUMENT, OUT_OF_MEMORY. */
PLAIDML_API plaidml_status plaidml_attrs_create(plaidml_attrs** out_attrs);

/* Frees an attribute map. NULL does nothing. */
PLAIDML_API void plaidml_attrs_destroy(plaidml_attrs* attrs);

/* Set attribute name (replacing any earlier value of that name) to an integer, a list of
 * count integers (values may be NULL when count is 0), a float, or a string (copied).
 * Statuses: OK; INVALID_ARGUMENT (NULL attrs or name, empty name, NULL values/value). */
PLAIDML_API plaidml_status plaidml_attrs_set_int(plaidml_attrs* attrs, const char* name,
                                                 int64_t value);
PLAIDML_API plaidml_status plaidml_attrs_set_ints(plaidml_attrs* attrs, const char* name,
                                                  size_t count, const int64_t* values);
PLAIDML_API plaidml_status plaidml_attrs_set_float(plaidml_attrs* attrs, const char* name,
                                                   double value);
PLAIDML_API plaidml_status plaidml_attrs_set_string(plaidml_attrs* attrs, const char* name,
                                                    const char* value);

/* Applies op `op` to operand_count operands (operands may be NULL when the count is 0) with
 * attrs (NULL: none), giving one value. On failure the builder is unchanged.
 * Statuses: OK; NOT_FOUND (an unknown op: the message names it); INVALID_ARGUMENT (NULL, a
 * foreign value, wrong operand count, an unknown attribute or one of the wrong type or value:
 * the message names the op and the attribute); TYPE_ERROR (operands that do not fit, a wrong
 * rank, an axis out of range, mismatched channels or groups: the message names the op and the
 * argument). Some shape errors can only be found when the program runs (sizes are bound then);
 * they are reported by plaidml_compile/plaidml_execute as TYPE_ERROR. */
PLAIDML_API plaidml_status plaidml_builder_op(plaidml_builder* builder, const char* op,
                                              size_t operand_count, const plaidml_value* operands,
                                              const plaidml_attrs* attrs,
                                              plaidml_value* out_value);

/* The number of ops in the library, and the name of op index (0 <= index < count, sorted;
 * the string is static). Statuses: OK; INVALID_ARGUMENT (NULL, index out of range). */
PLAIDML_API plaidml_status plaidml_op_count(size_t* out_count);
PLAIDML_API plaidml_status plaidml_op_name(size_t index, const char** out_name);

/* ---------------------------------------------------------------------------------------------
 * Gradients
 * ------------------------------------------------------------------------------------------- */

/* Reverse-mode automatic differentiation. Makes a new program: program's outputs, followed by
 * the gradient of the scalar output `loss` with respect to each input named in wrt_names
 * (wrt_count entries), in that order. grad_names names those outputs (NULL: "<input>_grad").
 * A gradient output has its input's shape; an input the loss does not depend on gets zeros.
 * The caller owns *out_program (plaidml_program_destroy). Gradients of contractions are
 * contractions (the output and input accesses swapped), max/min aggregations route the gradient
 * to the elements equal to the result (all of them on ties), broadcasting is undone by sums.
 * Statuses: OK; INVALID_ARGUMENT (NULL, a duplicate or repeated name, a gradient through an
 * integer or boolean op, through `*` aggregation or another op without a gradient: the message
 * names the op and the value); NOT_FOUND (unknown loss output or input); TYPE_ERROR (a loss
 * that is not a scalar, an input of unknown rank). */
PLAIDML_API plaidml_status plaidml_program_gradient(const plaidml_program* program,
                                                    const char* loss, size_t wrt_count,
                                                    const char* const* wrt_names,
                                                    const char* const* grad_names,
                                                    plaidml_program** out_program);

/* ---------------------------------------------------------------------------------------------
 * Buffers
 *
 * A buffer is a dense row-major tensor (dtype + dims) in one device's memory. Host data passed
 * in or out is row-major with the dtype's element size and native byte order. Buffers hold a
 * reference to their context's runtime: they may outlive the plaidml_context handle.
 * ------------------------------------------------------------------------------------------- */

typedef struct plaidml_buffer plaidml_buffer;

/* Allocates an uninitialised buffer on the context's selected device. dims: rank sizes, each
 * >= 0 (may be NULL when rank is 0: a scalar). The caller owns *out_buffer
 * (plaidml_buffer_destroy). Statuses: OK; INVALID_ARGUMENT (NULL, unknown dtype, a rank over
 * 64, negative dim, dims whose byte size overflows 64 bits: "the shape f32[...] is too large:
 * its byte size overflows 64-bit integers"); OUT_OF_MEMORY (also, before allocating, for a
 * buffer larger than the context's memory limit or the device's memory, with both sizes);
 * DEVICE_ERROR. */
PLAIDML_API plaidml_status plaidml_buffer_create(plaidml_context* context, plaidml_dtype dtype,
                                                 size_t rank, const int64_t* dims,
                                                 plaidml_buffer** out_buffer);

/* Allocates a buffer like plaidml_buffer_create and copies size bytes from data into it; size
 * must equal the buffer's byte size (else INVALID_ARGUMENT naming both sizes, and nothing is
 * allocated). data may be NULL only when size is 0. */
PLAIDML_API plaidml_status plaidml_buffer_create_from_host(plaidml_context* context,
                                                           plaidml_dtype dtype, size_t rank,
                                                           const int64_t* dims, const void* data,
                                                           size_t size,
                                                           plaidml_buffer** out_buffer);

/* Frees a buffer. A buffer still in use by a running execution stays alive until it finishes.
 * NULL does nothing. */
PLAIDML_API void plaidml_buffer_destroy(plaidml_buffer* buffer);

/* Copies size bytes from host data into the buffer. size must equal the byte size.
 * Statuses: OK; INVALID_ARGUMENT (NULL, size mismatch naming both sizes); DEVICE_ERROR. */
PLAIDML_API plaidml_status plaidml_buffer_write(plaidml_buffer* buffer, const void* data,
                                                size_t size);

/* Copies the buffer's contents into host data (size bytes). size must equal the byte size.
 * Statuses: OK; INVALID_ARGUMENT (NULL, size mismatch naming both sizes); DEVICE_ERROR. */
PLAIDML_API plaidml_status plaidml_buffer_read(const plaidml_buffer* buffer, void* data,
                                               size_t size);

/* The buffer's dtype. Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_buffer_dtype(const plaidml_buffer* buffer,
                                                plaidml_dtype* out_dtype);

/* The buffer's rank (0 for a scalar). Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_buffer_rank(const plaidml_buffer* buffer, size_t* out_rank);

/* The size of dimension axis. Statuses: OK; INVALID_ARGUMENT (NULL, axis >= rank). */
PLAIDML_API plaidml_status plaidml_buffer_dim(const plaidml_buffer* buffer, size_t axis,
                                              int64_t* out_size);

/* The buffer's size in bytes (elements * dtype size). Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_buffer_byte_size(const plaidml_buffer* buffer, size_t* out_size);

/* ---------------------------------------------------------------------------------------------
 * Compiling and executing
 * ------------------------------------------------------------------------------------------- */

/* The shape of one input for plaidml_compile. dims has rank entries (may be NULL if rank 0). */
typedef struct plaidml_tensor_shape {
  plaidml_dtype dtype;
  size_t rank;
  const int64_t* dims;
} plaidml_tensor_shape;

/* Compiles program for these input shapes on the context's selected device without running it
 * (a warm-up): a later plaidml_execute at the same shapes and dtypes is a cache hit. Inputs are
 * named by input_names (input_count entries, each input exactly once); input_names NULL means
 * the program's declaration order. Concurrent calls with the same shapes compile once.
 * Statuses: OK; INVALID_ARGUMENT (NULL, unknown dtype, negative dim, duplicate or missing
 * input, more inputs than the program has, a tensor of the program whose byte size would
 * overflow 64 bits); NOT_FOUND (an unknown input name); TYPE_ERROR (shapes that do not fit the
 * program, e.g. "dimension 'K' ..." when two inputs give one dim two sizes); OUT_OF_MEMORY (an
 * execute at these shapes would exceed the device's budget: the message of plaidml_execute's
 * check, see PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT; the program is compiled all the same, and
 * plaidml_program_memory gives its figures); UNSUPPORTED; DEVICE_ERROR. */
PLAIDML_API plaidml_status plaidml_compile(plaidml_context* context, const plaidml_program* program,
                                           size_t input_count, const char* const* input_names,
                                           const plaidml_tensor_shape* input_shapes);

/* What one execute of program at these input shapes needs on the context's selected device,
 * known before anything runs. Set struct_size to sizeof(plaidml_memory) before the call (the
 * struct may grow; only the fields that fit are filled). Intermediates are planned at compile
 * time by liveness: those whose lives do not overlap share one block of an arena, which the
 * compiled program keeps between executes (one arena per concurrent execute). */
typedef struct plaidml_memory {
  size_t struct_size;
  uint64_t constants_bytes; /* weights: resident on the device once per program */
  uint64_t arena_bytes;     /* intermediates, as planned */
  uint64_t unshared_bytes;  /* the intermediates if each had its own buffer */
  uint64_t inputs_bytes;
  uint64_t outputs_bytes;
  uint64_t peak_bytes;          /* constants + arena + inputs + outputs */
  uint64_t device_memory_bytes; /* the device's memory, 0 when it does not say */
  /* What peak_bytes is checked against: the context's memory limit on a device whose buffers
   * live in host memory (PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT), else device_memory_bytes; 0 when
   * there is none. */
  uint64_t budget_bytes;
} plaidml_memory;

/* Compiles program for these input shapes like plaidml_compile (a cache hit when it was
 * compiled) and fills *out_memory. An execute whose peak_bytes exceed budget_bytes fails with
 * OUT_OF_MEMORY and these figures before allocating or running anything; this call reports
 * them without failing.
 * Statuses: as plaidml_compile, but no OUT_OF_MEMORY for a program over the budget;
 * INVALID_ARGUMENT also for a NULL out_memory or a struct_size smaller than sizeof(size_t). */
PLAIDML_API plaidml_status plaidml_program_memory(plaidml_context* context,
                                                  const plaidml_program* program,
                                                  size_t input_count,
                                                  const char* const* input_names,
                                                  const plaidml_tensor_shape* input_shapes,
                                                  plaidml_memory* out_memory);

/* Runs program on the context's selected device. Inputs are bound by name: input_names and
 * inputs have input_count entries, and every program input must be given exactly once
 * (input_names NULL: the program's declaration order). Output shapes are inferred from the
 * input shapes. outputs has output_count entries, named by output_names (NULL: the program's
 * outputs in declaration order, then output_count must not exceed their number). For each
 * entry: NULL asks plaidml to allocate the output, and on success the entry receives a new
 * buffer the caller owns (plaidml_buffer_destroy); a non-NULL buffer is written in place after
 * checking that its dtype and dims equal the inferred shape. output_count 0 (outputs may be NULL)
 * runs for side effects only. The first run at a set of input shapes compiles (once, even from
 * concurrent callers); later runs reuse the compiled program. Executing one program from many
 * threads at once is allowed. On failure no caller buffer is written and no buffer is returned.
 * Statuses: OK; INVALID_ARGUMENT (NULL arrays with a non-zero count, NULL entries in inputs,
 * a buffer of another context, duplicate names, a missing input: the message names it);
 * NOT_FOUND (an unknown input or output name: the message names it); TYPE_ERROR (shapes that do not
 * fit, e.g. "dimension 'K' ...", or a given output buffer of the wrong shape); UNSUPPORTED;
 * OUT_OF_MEMORY (also when the planned peak exceeds the device's budget: checked before anything
 * is allocated, with the figures, see PLAIDML_CONTEXT_OPTION_MEMORY_LIMIT); DEVICE_ERROR. */
PLAIDML_API plaidml_status plaidml_execute(plaidml_context* context, const plaidml_program* program,
                                           size_t input_count, const char* const* input_names,
                                           plaidml_buffer* const* inputs, size_t output_count,
                                           const char* const* output_names,
                                           plaidml_buffer** outputs);

/* Compile statistics of a context. Set struct_size to sizeof(plaidml_stats) before the call:
 * the library fills only the fields that fit in struct_size, so the struct can grow (fields are
 * only ever appended).
 * A compile (a cache miss of the compiled-program cache) lowers the program, then looks its
 * generated code up in the kernel cache: in memory, then in the disk cache folder
 * (PLAIDML_CONTEXT_OPTION_CACHE_DIR), and runs code generation only when both miss. A second
 * process at the same shapes with the same cache folder shows compiles > 0, disk_hits > 0 and
 * kernels_compiled == 0. */
typedef struct plaidml_stats {
  size_t struct_size;
  int64_t compiles;            /* programs compiled (cache misses) */
  int64_t cache_hits;          /* executions and compiles served from the cache */
  double compile_seconds;      /* total time spent compiling (including kernel-cache lookups) */
  double last_compile_seconds; /* time of the most recent compile */
  /* Fields below were added in 0.1 with the disk cache. */
  int64_t kernels_compiled;     /* kernels produced by code generation (kernel-cache misses) */
  int64_t kernel_memory_hits;   /* compiles whose kernels were found in memory */
  int64_t disk_hits;            /* compiles whose kernels were read from the disk cache */
  int64_t disk_misses;          /* disk-cache lookups that found no valid entry */
  int64_t disk_invalid;         /* entries found damaged, truncated or foreign (and rebuilt) */
  int64_t disk_writes;          /* entries written to the disk cache */
  int64_t disk_write_failures;  /* entries that could not be written (see CACHE_DIR) */
  /* Fields below were added in 0.2 with program constants. */
  int64_t constant_uploads; /* constants copied to a device: once per constant and device */
  int64_t constant_bytes;   /* bytes of constants resident on devices now */
  /* Fields below were added in 0.3 with compiled plans on disk: a compile that finds the plan
   * of the same program, shapes and device in the cache folder binds, lowers and schedules
   * nothing (its kernels still come from the kernel cache, counted above). */
  int64_t plan_disk_hits;   /* compiles made from a plan entry */
  int64_t plan_disk_misses; /* plan lookups without a usable entry */
  int64_t plan_disk_writes; /* plan entries written */
  /* Fields below were added in 0.4 with the kernel library: a compile takes each kernel that an
   * earlier compile of the context loaded on the device (of another program, or of the same one
   * at other sizes: on the CPU a kernel serves every extent of its parallel loop) and neither
   * generates nor reads it again. */
  int64_t kernel_library_hits; /* kernels taken from the kernel library */
} plaidml_stats;

/* Fills *out_stats (see plaidml_stats). Thread-safe; the values are a consistent snapshot (the
 * kernel-cache fields, from kernels_compiled on, are one snapshot taken just after the others).
 * Statuses: OK; INVALID_ARGUMENT (NULL, struct_size smaller than sizeof(size_t)). */
PLAIDML_API plaidml_status plaidml_context_stats(const plaidml_context* context,
                                                 plaidml_stats* out_stats);

/* The folder of the context's disk cache, absolute, as chosen at creation (see
 * PLAIDML_CONTEXT_OPTION_CACHE_DIR), or "" when the disk cache is off (set so, or the folder
 * was refused at creation as one others can change); borrowed from the context. Thread-safe.
 * Statuses: OK, INVALID_ARGUMENT. */
PLAIDML_API plaidml_status plaidml_context_cache_dir(const plaidml_context* context,
                                                     const char** out_dir);

/* ---------------------------------------------------------------------------------------------
 * Profiling (opt-in, per context)
 *
 * While profiling is on, the context records each compile, each kernel run and each transfer
 * between host and device (buffer reads and writes, constant uploads) with its start and
 * duration; a kernel also with the bytes it reads and writes, its estimated operations, and the
 * origins of what it computes (plaidml_builder_set_origin: the ONNX nodes it came from). Kernel
 * times are taken on the host around each launch followed by a wait for the device, so a
 * profiled execute runs its kernels one after another: the figures say where the time goes, not
 * how fast an unprofiled execute is. At most 1,048,576 events are kept (later ones are counted
 * as dropped). All four calls are thread-safe.
 * ------------------------------------------------------------------------------------------- */

/* Turns recording on or off (off at creation). Statuses: OK; INVALID_ARGUMENT (NULL). */
PLAIDML_API plaidml_status plaidml_context_set_profiling(plaidml_context* context, bool enabled);

/* The events recorded so far as a Chrome trace (JSON: {"traceEvents": [...]}, one complete
 * event per record on a track per kind, times in microseconds), which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open. The caller owns *out_json
 * (plaidml_string_destroy). Statuses: OK; INVALID_ARGUMENT (NULL); OUT_OF_MEMORY. */
PLAIDML_API plaidml_status plaidml_context_profile_trace(plaidml_context* context,
                                                         char** out_json);

/* A table for people of the `top` kernels by total time (calls, total and mean ms, share of
 * all kernel time, GFLOP/s, GB/s, origins), then the totals of compiles and transfers. The
 * caller owns *out_text (plaidml_string_destroy). Statuses: OK; INVALID_ARGUMENT (NULL);
 * OUT_OF_MEMORY. */
PLAIDML_API plaidml_status plaidml_context_profile_summary(plaidml_context* context, size_t top,
                                                           char** out_text);

/* Forgets the events recorded so far (recording stays as it is). Statuses: OK;
 * INVALID_ARGUMENT (NULL). */
PLAIDML_API plaidml_status plaidml_context_profile_clear(plaidml_context* context);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PLAIDML_PLAIDML_H_ */
