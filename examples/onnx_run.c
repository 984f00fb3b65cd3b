/* onnx_run.c: run an ONNX model with plaidml from C.
 *
 *   onnx_run MODEL.onnx [NAME=SIZE]...
 *
 * Imports the model with libplaidml_onnx, prints its inputs (name, dtype, and dims as the
 * imported program declares them: a size, or the name of a symbolic dimension) and outputs, runs it once on the default device with every input filled with
 * ones, and prints the first values of each output. A symbolic dimension (dim_param "batch") is
 * fixed by a NAME=SIZE argument (passed to the importer, so the program is compiled for that
 * size), else bound to 1.
 *
 * Build (after installing plaidml with ONNX support):
 *   cc -std=c99 onnx_run.c -o onnx_run $(pkg-config --cflags --libs plaidml-onnx)
 */
#include <plaidml/onnx.h>
#include <plaidml/plaidml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TENSORS 64 /* inputs and outputs this example handles */
#define MAX_RANK 16
#define MAX_SHOWN 8 /* values printed per output */

/* Every plaidml call returns a status; on failure the thread's last error message says what
 * went wrong. CHECK jumps to the cleanup at the end of the function it is used in. */
#define CHECK(call)                                                                          \
  do {                                                                                       \
    plaidml_status status_ = (call);                                                         \
    if (status_ != PLAIDML_STATUS_OK) {                                                      \
      fprintf(stderr, "onnx_run: %s failed (%s): %s\n", #call, plaidml_status_name(status_), \
              plaidml_last_error_message());                                                 \
      goto done;                                                                             \
    }                                                                                        \
  } while (0)

static const char* const kDtypeNames[] = {"any", "bool", "i8",  "i16", "i32",  "i64", "u8",
                                          "u16", "u32",  "u64", "f16", "bf16", "f32", "f64"};
static const size_t kDtypeSizes[] = {0, 1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8};

static const char* dtype_name(plaidml_dtype dtype) {
  return dtype >= 0 && dtype <= PLAIDML_DTYPE_FLOAT64 ? kDtypeNames[dtype] : "?";
}

/* The size a declared dimension is run at: its fixed size ("3"), else 1. A dimension named by a
 * NAME=SIZE argument is fixed already: the importer replaced its name by the size. */
static int64_t dim_size(const char* dim) { return dim[0] >= '0' && dim[0] <= '9' ? atoll(dim) : 1; }

static int is_signed_int(plaidml_dtype dtype) {
  return dtype >= PLAIDML_DTYPE_INT8 && dtype <= PLAIDML_DTYPE_INT64;
}

/* Writes the value one of this dtype at p (host byte order, as plaidml buffers hold it). */
static void store_one(plaidml_dtype dtype, unsigned char* p) {
  const float f = 1.0f;
  const double d = 1.0;
  const unsigned short f16 = 0x3C00, bf16 = 0x3F80; /* 1.0 as IEEE half and bfloat16 bits */
  const unsigned long long integer = 1;
  const void* one = &integer;
  if (dtype == PLAIDML_DTYPE_FLOAT32) one = &f;
  if (dtype == PLAIDML_DTYPE_FLOAT64) one = &d;
  if (dtype == PLAIDML_DTYPE_FLOAT16) one = &f16;
  if (dtype == PLAIDML_DTYPE_BFLOAT16) one = &bf16;
  memcpy(p, one, kDtypeSizes[dtype]); /* integers: the low bytes on a little-endian host */
}

/* The element at p as a double; f16 and bf16 show their raw bits (a conversion is beyond this
 * example). Integers are read little-endian, sign-extended for the signed dtypes. */
static double load(plaidml_dtype dtype, const unsigned char* p) {
  size_t size = kDtypeSizes[dtype];
  unsigned long long bits = 0;
  float f;
  double d;
  if (dtype == PLAIDML_DTYPE_FLOAT32) {
    memcpy(&f, p, sizeof(f));
    return f;
  }
  if (dtype == PLAIDML_DTYPE_FLOAT64) {
    memcpy(&d, p, sizeof(d));
    return d;
  }
  memcpy(&bits, p, size);
  if (!is_signed_int(dtype)) return (double)bits;
  if (size < 8 && (bits >> (8 * size - 1)) & 1) bits |= ~0ULL << (8 * size);
  return (double)(long long)bits;
}

/* Prints "  NAME: DTYPE[d0, d1]" and makes a buffer of ones at the sizes the dims run at. */
static int make_input(plaidml_context* ctx, const plaidml_program* program, size_t index,
                      plaidml_buffer** out) {
  const char* name = NULL;
  const char* dim = NULL;
  plaidml_dtype dtype = PLAIDML_DTYPE_INVALID;
  size_t rank = 0, axis, count = 1, i;
  int64_t dims[MAX_RANK];
  unsigned char* data = NULL;
  int ok = 0;
  CHECK(plaidml_program_input_name(program, index, &name));
  CHECK(plaidml_program_input_type(program, index, &dtype, &rank));
  if (dtype <= PLAIDML_DTYPE_INVALID || dtype > PLAIDML_DTYPE_FLOAT64) {
    dtype = PLAIDML_DTYPE_FLOAT32; /* any dtype (or one newer than this example): use f32 */
  }
  if (rank == PLAIDML_RANK_UNKNOWN || rank > MAX_RANK) {
    fprintf(stderr, "onnx_run: input %s has a rank this example does not handle\n", name);
    goto done;
  }
  printf("  %s: %s[", name, dtype_name(dtype));
  for (axis = 0; axis < rank; ++axis) {
    CHECK(plaidml_program_input_dim(program, index, axis, &dim));
    printf("%s%s", axis ? ", " : "", *dim ? dim : "?");
    dims[axis] = dim_size(dim);
    count *= (size_t)dims[axis];
  }
  printf("]\n");
  data = malloc(count * kDtypeSizes[dtype] + 1);
  if (data == NULL) {
    fprintf(stderr, "onnx_run: out of memory for input %s\n", name);
    goto done;
  }
  for (i = 0; i < count; ++i) store_one(dtype, data + i * kDtypeSizes[dtype]);
  CHECK(plaidml_buffer_create_from_host(ctx, dtype, rank, dims, data, count * kDtypeSizes[dtype],
                                        out));
  ok = 1;
done:
  free(data);
  return ok;
}

/* Prints "NAME: DTYPE[d0, d1] = v0 v1 ..." (the first MAX_SHOWN values). */
static int print_output(const char* name, const plaidml_buffer* buffer) {
  plaidml_dtype dtype = PLAIDML_DTYPE_INVALID;
  size_t rank = 0, bytes = 0, axis, i;
  int64_t size = 0;
  unsigned char* data = NULL;
  int ok = 0;
  CHECK(plaidml_buffer_dtype(buffer, &dtype));
  CHECK(plaidml_buffer_rank(buffer, &rank));
  CHECK(plaidml_buffer_byte_size(buffer, &bytes));
  if (dtype <= PLAIDML_DTYPE_INVALID || dtype > PLAIDML_DTYPE_FLOAT64) {
    printf("%s: dtype %d, newer than this example\n", name, (int)dtype);
    return 1;
  }
  printf("%s: %s[", name, dtype_name(dtype));
  for (axis = 0; axis < rank; ++axis) {
    CHECK(plaidml_buffer_dim(buffer, axis, &size));
    printf("%s%lld", axis ? ", " : "", (long long)size);
  }
  printf("] =");
  data = malloc(bytes + 1);
  if (data == NULL) {
    fprintf(stderr, "onnx_run: out of memory for output %s\n", name);
    goto done;
  }
  CHECK(plaidml_buffer_read(buffer, data, bytes));
  for (i = 0; i < bytes / kDtypeSizes[dtype] && i < MAX_SHOWN; ++i) {
    printf(" %g", load(dtype, data + i * kDtypeSizes[dtype]));
  }
  printf("%s\n", bytes / kDtypeSizes[dtype] > MAX_SHOWN ? " ..." : "");
  ok = 1;
done:
  free(data);
  return ok;
}

/* Passes each NAME=SIZE argument to the importer. */
static int set_dims(plaidml_onnx_options* options, int argc, char** argv) {
  int i, ok = 0;
  for (i = 2; i < argc; ++i) {
    char* eq = strchr(argv[i], '=');
    plaidml_status status;
    if (eq == NULL) {
      fprintf(stderr, "onnx_run: '%s' is not NAME=SIZE\n", argv[i]);
      return 0;
    }
    *eq = '\0'; /* the name ends here for the call, then argv is restored */
    status = plaidml_onnx_options_set_dim(options, argv[i], atoll(eq + 1));
    *eq = '=';
    CHECK(status);
  }
  ok = 1;
done:
  return ok;
}

int main(int argc, char** argv) {
  plaidml_onnx_options* options = NULL;
  plaidml_program* program = NULL;
  plaidml_context* ctx = NULL;
  plaidml_buffer* inputs[MAX_TENSORS] = {NULL};
  plaidml_buffer* outputs[MAX_TENSORS] = {NULL}; /* NULL: plaidml allocates each output */
  const char* names[MAX_TENSORS];
  const char* device = NULL;
  size_t n_in = 0, n_out = 0, i;
  int exit_code = 1;
  if (argc < 2) {
    fprintf(stderr, "usage: onnx_run MODEL.onnx [NAME=SIZE]...\n");
    return 2;
  }
  CHECK(plaidml_onnx_options_create(&options));
  if (!set_dims(options, argc, argv)) goto done;
  CHECK(plaidml_onnx_import_file(argv[1], options, &program));
  CHECK(plaidml_program_input_count(program, &n_in));
  CHECK(plaidml_program_output_count(program, &n_out));
  if (n_in > MAX_TENSORS || n_out > MAX_TENSORS) {
    fprintf(stderr, "onnx_run: more than %d inputs or outputs\n", MAX_TENSORS);
    goto done;
  }
  CHECK(plaidml_context_create(NULL, &ctx)); /* NULL: default options and device */
  CHECK(plaidml_context_device(ctx, &device));
  printf("model: %s\ndevice: %s\ninputs:\n", argv[1], device);
  for (i = 0; i < n_in; ++i) {
    CHECK(plaidml_program_input_name(program, i, &names[i]));
    if (!make_input(ctx, program, i, &inputs[i])) goto done;
  }
  printf("outputs:\n");
  for (i = 0; i < n_out; ++i) {
    const char* name = NULL;
    CHECK(plaidml_program_output_name(program, i, &name));
    printf("  %s\n", name);
  }
  /* Inputs bound by name; output shapes inferred from the inputs' (the first run compiles). */
  CHECK(plaidml_execute(ctx, program, n_in, names, inputs, n_out, NULL, outputs));
  for (i = 0; i < n_out; ++i) {
    const char* name = NULL;
    CHECK(plaidml_program_output_name(program, i, &name));
    if (!print_output(name, outputs[i])) goto done;
  }
  exit_code = 0;
done:
  for (i = 0; i < MAX_TENSORS; ++i) {
    plaidml_buffer_destroy(inputs[i]);
    plaidml_buffer_destroy(outputs[i]);
  }
  plaidml_context_destroy(ctx);
  plaidml_program_destroy(program);
  plaidml_onnx_options_destroy(options);
  return exit_code;
}
