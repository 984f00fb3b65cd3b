/* plaidml device-plugin ABI (C99), versioned on its own (PLAIDML_PLUGIN_ABI_VERSION).
 *
 * A device plugin gives plaidml one vtable (plaidml_plugin) through which the JIT enumerates
 * devices, moves bytes, loads compiled artifacts and launches kernels. The CPU device is built
 * into libplaidml and fills the same vtable; GPU plugins (OpenCL, Vulkan) are modules named
 * libplaidml_device_<name>.so, found in ${libdir}/plaidml/devices or in the directories of
 * PLAIDML_PLUGIN_PATH, and export plaidml_plugin_get_v1().
 *
 * Devices never see graph or loop IR: only artifacts (target code in a named format plus entry
 * symbols) and launch metadata.
 *
 * Conventions, for every function pointer below:
 * - It returns a plaidml_plugin_status; 0 is success. On failure the plugin keeps a message
 *   that last_error() returns on the same thread until that thread's next call into the plugin.
 * - Outputs come last, named out_*, and are written only on success.
 * - Handles are opaque; a plugin may make them anything (host pointers, driver objects).
 * - No function may throw, abort or exit: a plugin written in C++ catches everything.
 * - Every function may be called from several threads at once, on the same device too, unless
 *   its comment says otherwise. Launches on one device from several threads may run
 *   concurrently; a plugin that cannot run them concurrently serialises them itself.
 * - Buffers, executables and devices are freed before the device that owns them is closed
 *   (plaidml guarantees this order).
 * - Growing the ABI: new members are appended to a struct and struct_size tells the reader
 *   which ones exist; a change that is not an append bumps PLAIDML_PLUGIN_ABI_VERSION and adds
 *   plaidml_plugin_get_v<N>.
 */
#ifndef PLAIDML_PLUGIN_H_
#define PLAIDML_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PLAIDML_PLUGIN_ABI_VERSION 1u

/* Status codes; the values match plaidml_status in plaidml.h (append-only). */
typedef int32_t plaidml_plugin_status;
#define PLAIDML_PLUGIN_OK 0
#define PLAIDML_PLUGIN_INVALID_ARGUMENT 1 /* bad handle, index, offset or size */
#define PLAIDML_PLUGIN_NOT_FOUND 4        /* no such device or entry symbol */
#define PLAIDML_PLUGIN_UNSUPPORTED 5      /* artifact format or feature the device lacks */
#define PLAIDML_PLUGIN_OUT_OF_MEMORY 6
#define PLAIDML_PLUGIN_DEVICE_ERROR 7 /* driver or device failure */
#define PLAIDML_PLUGIN_INTERNAL 8     /* a bug in the plugin */

typedef struct plaidml_plugin_device_s* plaidml_plugin_device;
typedef struct plaidml_plugin_buffer_s* plaidml_plugin_buffer;
typedef struct plaidml_plugin_executable_s* plaidml_plugin_executable;

/* Device feature flags (plaidml_plugin_device_info.flags). */
#define PLAIDML_PLUGIN_DEVICE_FP16 (1u << 0)
#define PLAIDML_PLUGIN_DEVICE_FP64 (1u << 1)
#define PLAIDML_PLUGIN_DEVICE_UNIFIED_MEMORY (1u << 2) /* buffers live in host memory */
/* With INT_LIMITS set, INT8/INT16/INT64 say which integer widths kernels may use; without it
 * (CPU, OpenCL, plugins older than these flags) every width works. */
#define PLAIDML_PLUGIN_DEVICE_INT_LIMITS (1u << 3)
#define PLAIDML_PLUGIN_DEVICE_INT8 (1u << 4)
#define PLAIDML_PLUGIN_DEVICE_INT16 (1u << 5)
#define PLAIDML_PLUGIN_DEVICE_INT64 (1u << 6)
/* Kernels can ask that signed zeros, infinities and NaN be preserved (Vulkan:
 * shaderSignedZeroInfNanPreserveFloat32). CPU and OpenCL always preserve them. */
#define PLAIDML_PLUGIN_DEVICE_IEEE_FLOAT_CONTROLS (1u << 7)

/* What a device is and what it accepts; filled by describe_device. Strings are owned by the
 * plugin and stay valid until the plugin is unloaded. */
typedef struct plaidml_plugin_device_info {
  uint32_t struct_size;          /* set by the caller to sizeof(plaidml_plugin_device_info) */
  const char* name;              /* "Intel(R) Xeon(R) ..." */
  const char* vendor;            /* "GenuineIntel", "NVIDIA Corporation" */
  const char* kind;              /* "cpu", "gpu", "accelerator" */
  const char* artifact_formats;  /* comma-separated: "elf-object", "opencl-c", "spirv" */
  const char* target;            /* format-specific target description (CPU: LLVM cpu name) */
  uint64_t memory_bytes;         /* total device memory */
  uint64_t max_allocation_bytes; /* largest single buffer */
  uint64_t local_memory_bytes;   /* per-workgroup shared memory; 0 on the CPU */
  uint32_t max_workgroup_size;   /* threads per workgroup; 1 on the CPU */
  uint32_t compute_units;        /* CPU: worker threads of an opened device; GPU: SMs / CUs */
  uint32_t vector_bits;          /* widest native vector register */
  uint32_t flags;                /* PLAIDML_PLUGIN_DEVICE_* */
  /* Appended in ABI 1 (struct_size says whether they exist; the caller zero-fills the struct). */
  uint32_t subgroup_size;        /* threads that run in lockstep (warp, wavefront); 0: unknown */
  const char* memory_heaps;      /* free text, e.g. "80 GiB device-local, 62 GiB host"; NULL */
  /* Appended later in ABI 1. Cooperative-matrix multiply-adds the device runs with f32
   * accumulators, as items separated by commas: "A_DTYPE:MxNxK" at subgroup scope
   * ("f16:16x16x16"), "A_DTYPE:MxNxK@W" at workgroup scope with exactly W invocations, M, N and
   * K then granularities ("f16:16x16x16@256"); readers skip items of forms they do not know.
   * NULL or "" when none. */
  const char* matrix_shapes;
} plaidml_plugin_device_info;

/* An option given to open_device, e.g. {"num_threads", "4"}. Unknown keys are ignored. */
typedef struct plaidml_plugin_option {
  const char* key;
  const char* value;
} plaidml_plugin_option;

/* One kernel launch. For the CPU ("elf-object") a kernel runs iterations [0, parallel_extent)
 * of its outermost parallel loop (the plugin may split that range over threads when work is
 * large); grid and workgroup sizes are for GPU formats and ignored by the CPU. */
typedef struct plaidml_plugin_launch_info {
  uint32_t struct_size; /* sizeof(plaidml_plugin_launch_info) */
  uint32_t kernel;      /* index into the symbols given to load */
  int64_t parallel_extent;
  double work;          /* estimated scalar operations: a hint for splitting */
  uint32_t grid[3];     /* workgroups per dimension */
  uint32_t workgroup[3];/* threads per workgroup per dimension */
} plaidml_plugin_launch_info;

typedef struct plaidml_plugin {
  uint32_t abi_version; /* PLAIDML_PLUGIN_ABI_VERSION */
  uint32_t struct_size; /* sizeof(plaidml_plugin) of the plugin's header */
  const char* name;     /* device id prefix, lowercase: "cpu", "opencl", "vulkan" */

  /* The thread-local message of the calling thread's last failed call; never NULL. */
  const char* (*last_error)(void);

  /* Number of devices. A missing driver or runtime is an error (the message says which). */
  plaidml_plugin_status (*device_count)(uint32_t* out_count);
  /* Describes device `index` without opening it; info->struct_size is set by the caller. */
  plaidml_plugin_status (*describe_device)(uint32_t index, plaidml_plugin_device_info* info);

  /* Opens device `index`; options may be NULL when num_options is 0. A device may be opened
   * more than once; each handle is independent. */
  plaidml_plugin_status (*open_device)(uint32_t index, const plaidml_plugin_option* options,
                                       size_t num_options, plaidml_plugin_device* out_device);
  /* Fills info for an opened device (compute_units reflects its options). */
  plaidml_plugin_status (*query_device)(plaidml_plugin_device device,
                                        plaidml_plugin_device_info* info);
  /* Closes a device; NULL does nothing. Not concurrent with other calls on that device. */
  void (*close_device)(plaidml_plugin_device device);

  /* Allocates `bytes` (0 allowed) of device memory, uninitialised. */
  plaidml_plugin_status (*allocate)(plaidml_plugin_device device, uint64_t bytes,
                                    plaidml_plugin_buffer* out_buffer);
  /* Frees a buffer; NULL does nothing. */
  void (*free_buffer)(plaidml_plugin_device device, plaidml_plugin_buffer buffer);
  /* Host -> device copy into [offset, offset + bytes) of the buffer. Blocking. */
  plaidml_plugin_status (*write)(plaidml_plugin_device device, plaidml_plugin_buffer buffer,
                                 uint64_t offset, const void* data, uint64_t bytes);
  /* Device -> host copy from [offset, offset + bytes). Waits for launches writing the buffer. */
  plaidml_plugin_status (*read)(plaidml_plugin_device device, plaidml_plugin_buffer buffer,
                                uint64_t offset, void* data, uint64_t bytes);
  /* Device -> device copy between (or within, not overlapping) buffers of one device. */
  plaidml_plugin_status (*copy)(plaidml_plugin_device device, plaidml_plugin_buffer src,
                                uint64_t src_offset, plaidml_plugin_buffer dst,
                                uint64_t dst_offset, uint64_t bytes);

  /* Loads an artifact: `format` is one of artifact_formats, `bytes` its code, `symbols` the
   * entry points that launch indexes. Unknown format: UNSUPPORTED; missing symbol: NOT_FOUND. */
  plaidml_plugin_status (*load)(plaidml_plugin_device device, const char* format,
                                const void* bytes, uint64_t num_bytes,
                                const char* const* symbols, size_t num_symbols,
                                plaidml_plugin_executable* out_executable);
  /* Unloads an executable (frees its code); NULL does nothing. */
  void (*unload)(plaidml_plugin_device device, plaidml_plugin_executable executable);

  /* Launches one kernel over `buffers` (the kernel's buffer arguments, in its parameter order).
   * May return before the kernel finishes; launches of one calling thread run in order. */
  plaidml_plugin_status (*launch)(plaidml_plugin_device device,
                                  plaidml_plugin_executable executable,
                                  const plaidml_plugin_launch_info* launch,
                                  const plaidml_plugin_buffer* buffers, size_t num_buffers);
  /* Waits until every launch this thread made on the device has finished. */
  plaidml_plugin_status (*synchronize)(plaidml_plugin_device device);

  /* Members from here on are optional: NULL, or beyond an older plugin's struct_size. */

  /* A buffer over the caller's host memory [data, data + bytes), with no copy: kernels only
   * read it, and write, copy into and free_buffer leave the memory alone (write fails). The
   * caller keeps the memory alive and unchanged until the buffer is freed. Offered by devices
   * whose kernels reach host memory (the CPU): plaidml keeps weights in place this way. */
  plaidml_plugin_status (*wrap_host)(plaidml_plugin_device device, const void* data,
                                     uint64_t bytes, plaidml_plugin_buffer* out_buffer);
} plaidml_plugin;

/* The size of a vtable with every required member (up to synchronize). */
#define PLAIDML_PLUGIN_REQUIRED_SIZE offsetof(plaidml_plugin, wrap_host)

/* The entry point a plugin module exports (with default visibility). Returns a vtable that
 * lives as long as the module; NULL if the plugin cannot work in this process at all. */
typedef const plaidml_plugin* (*plaidml_plugin_get_v1_fn)(void);
#define PLAIDML_PLUGIN_ENTRY_V1 "plaidml_plugin_get_v1"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PLAIDML_PLUGIN_H_ */
