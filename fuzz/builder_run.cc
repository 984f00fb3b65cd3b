// What builder_calls does with a program it built: print and parse back, differentiate, and
// run on the CPU at shapes its declared inputs allow, as an application would.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "builder_script.h"
#include "c_round_trip.h"
#include "check.h"

namespace plaidml::fuzz {
namespace {

// Running stops here: the memory budget of issue 18 is not the business of this target.
constexpr uint64_t kMaxPeakBytes = uint64_t{64} << 20;

// One context per process, made again now and then so that its caches stay small.
plaidml_context* context() {
  static plaidml_context* ctx = nullptr;
  static int uses = 0;
  if (ctx != nullptr && ++uses % 256 != 0) return ctx;
  plaidml_context_destroy(ctx);
  ctx = nullptr;
  plaidml_context_options* options = nullptr;
  check_c(plaidml_context_options_create(&options), "plaidml_context_options_create");
  check_c(plaidml_context_options_set_string(options, PLAIDML_CONTEXT_OPTION_CACHE_DIR, ""),
          "set CACHE_DIR");
  check_c(plaidml_context_options_set_string(options, PLAIDML_CONTEXT_OPTION_DEVICE, "cpu:0"),
          "set DEVICE");
  check_c(plaidml_context_options_set_int(options, PLAIDML_CONTEXT_OPTION_NUM_THREADS, 1),
          "set NUM_THREADS");
  if (plaidml_context_create(options, &ctx) != PLAIDML_STATUS_OK) {
    fail("cannot create a context", plaidml_last_error_message());
  }
  plaidml_context_options_destroy(options);
  return ctx;
}

void gradient(const plaidml_program* program) {
  const char* loss = nullptr;
  const char* wrt = nullptr;
  if (plaidml_program_output_name(program, 0, &loss) != PLAIDML_STATUS_OK) return;
  if (plaidml_program_input_name(program, 0, &wrt) != PLAIDML_STATUS_OK) return;
  plaidml_program* grad = nullptr;
  check_c(plaidml_program_gradient(program, loss, 1, &wrt, nullptr, &grad), "program_gradient");
  plaidml_program_destroy(grad);
}

// A shape for input `index` that its declaration allows; false when a fixed size is too large.
bool input_shape(const plaidml_program* program, size_t index, ScriptValues& s,
                 std::map<std::string, int64_t>& dim_sizes, plaidml_tensor_shape& shape,
                 std::vector<int64_t>& dims) {
  size_t rank = 0;
  check_c(plaidml_program_input_type(program, index, &shape.dtype, &rank), "input_type");
  if (shape.dtype == PLAIDML_DTYPE_INVALID) shape.dtype = s.b.ConsumeIntegralInRange(1, 13);
  bool known = rank != PLAIDML_RANK_UNKNOWN;
  dims.resize(known ? rank : s.b.ConsumeIntegralInRange(0, 2));
  for (size_t axis = 0; axis < dims.size(); ++axis) {
    const char* dim = "";
    if (known) check_c(plaidml_program_input_dim(program, index, axis, &dim), "input_dim");
    char* end = nullptr;
    long long fixed = std::strtoll(dim, &end, 10);
    if (*dim != '\0' && *end == '\0') {
      if (fixed > 8) return false;
      dims[axis] = fixed;
    } else if (*dim != '\0' && dim_sizes.count(dim)) {
      dims[axis] = dim_sizes[dim];
    } else {
      dims[axis] = s.b.ConsumeIntegralInRange<int64_t>(0, 3);
      if (*dim != '\0') dim_sizes[dim] = dims[axis];
    }
  }
  shape.rank = dims.size();
  shape.dims = dims.data();
  return true;
}

void execute(const plaidml_program* program, ScriptValues& s) {
  size_t input_count = 0, output_count = 0;
  check_c(plaidml_program_input_count(program, &input_count), "input_count");
  check_c(plaidml_program_output_count(program, &output_count), "output_count");
  std::map<std::string, int64_t> dim_sizes;
  std::vector<plaidml_tensor_shape> shapes(input_count);
  std::vector<std::vector<int64_t>> dims(input_count);
  for (size_t i = 0; i < input_count; ++i) {
    if (!input_shape(program, i, s, dim_sizes, shapes[i], dims[i])) return;
  }
  plaidml_context* ctx = context();
  plaidml_memory memory{};
  memory.struct_size = sizeof(memory);
  if (check_c(plaidml_program_memory(ctx, program, input_count, nullptr, shapes.data(), &memory),
              "plaidml_program_memory") != PLAIDML_STATUS_OK ||
      memory.peak_bytes > kMaxPeakBytes) {
    return;
  }
  std::vector<plaidml_buffer*> inputs(input_count, nullptr);
  std::vector<plaidml_buffer*> outputs(output_count, nullptr);
  bool made = true;
  for (size_t i = 0; i < input_count && made; ++i) {
    size_t element = 0;
    plaidml_dtype_size(shapes[i].dtype, &element);
    size_t bytes = element;
    for (int64_t d : dims[i]) bytes *= static_cast<size_t>(d);
    std::vector<uint8_t> data = s.b.ConsumeBytes<uint8_t>(bytes);
    data.resize(bytes);
    made = check_c(plaidml_buffer_create_from_host(ctx, shapes[i].dtype, shapes[i].rank,
                                                   shapes[i].dims, data.data(), bytes, &inputs[i]),
                   "buffer_create_from_host") == PLAIDML_STATUS_OK;
  }
  if (made) {
    check_c(plaidml_execute(ctx, program, input_count, nullptr, inputs.data(), output_count,
                            nullptr, outputs.data()),
            "plaidml_execute");
  }
  for (plaidml_buffer* b : inputs) plaidml_buffer_destroy(b);
  for (plaidml_buffer* b : outputs) plaidml_buffer_destroy(b);
}

}  // namespace

void use_program(const plaidml_program* program, bool round_trip_ok, ScriptValues& s) {
  if (const char* print = std::getenv("PLAIDML_FUZZ_PRINT"); print && *print && *print != '0') {
    std::fprintf(stderr, "the built program:\n%s", print_or_fail(program, "print").c_str());
  }
  if (round_trip_ok) check_round_trip(program, "a built program");
  if (s.b.ConsumeIntegralInRange(0, 3) == 0) gradient(program);
  if (s.b.ConsumeBool()) execute(program, s);
}

}  // namespace plaidml::fuzz
