/* train_mlp.c: train a small neural network with plaidml from C.
 *
 * A 2-layer perceptron (8 inputs -> 16 hidden units with relu -> 3 classes) learns to classify
 * synthetic points. The forward program is built with ops of the op library (matmul, relu,
 * categorical_crossentropy); plaidml_program_gradient derives the training program from it
 * (reverse-mode autodiff: the loss, then the gradient of each weight), and the weights are
 * updated on the host with plain SGD. Exits 1 unless the final loss is below 0.7 times the
 * initial loss.
 *
 * Build (after installing plaidml):
 *   cc -std=c99 train_mlp.c -o train_mlp $(pkg-config --cflags --libs plaidml)
 */
#include <plaidml/plaidml.h>
#include <stdio.h>
#include <stdlib.h>

/* Every plaidml call returns a status; on failure, the message says what and where. */
#define TRY(call)                                                                  \
  do {                                                                             \
    plaidml_status status_ = (call);                                               \
    if (status_ != PLAIDML_STATUS_OK) {                                            \
      fprintf(stderr, "%s failed (%s): %s\n", #call, plaidml_status_name(status_), \
              plaidml_last_error_message());                                       \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

enum { BATCH = 64, N_IN = 8, N_HIDDEN = 16, N_CLASSES = 3, STEPS = 40 };
static const float kLearningRate = 0.1f;

/* The inputs of the forward program: data first, then the four trained parameters. */
enum { X, Y, W1, B1, W2, B2, N_INPUTS };
static const char* kNames[N_INPUTS] = {"X", "Y", "W1", "B1", "W2", "B2"};
static const char* kGradNames[4] = {"W1_grad", "B1_grad", "W2_grad", "B2_grad"};

/* A fixed-seed generator (so every run is the same): uniform in [-1, 1). */
static float next_random(unsigned* state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)((*state >> 8) & 0xffffff) / (float)0x800000 - 1.0f;
}

/* value = builder op `op` on n operands, with no attributes (attrs may be NULL). */
static plaidml_value op(plaidml_builder* b, const char* name, size_t n, const plaidml_value* args,
                        const plaidml_attrs* attrs) {
  plaidml_value out;
  TRY(plaidml_builder_op(b, name, n, args, attrs, &out));
  return out;
}

/* An elementwise a + b (numpy broadcasting: the bias is added to every row). */
static plaidml_value add(plaidml_builder* b, plaidml_value x, plaidml_value y) {
  plaidml_value args[2], out;
  args[0] = x;
  args[1] = y;
  TRY(plaidml_builder_call(b, "add", 2, args, 0, NULL, &out));
  return out;
}

/* loss = categorical_crossentropy(Y, relu(X @ W1 + B1) @ W2 + B2), from logits. Dims are named:
 * the program runs at any batch size. */
static plaidml_program* forward_program(void) {
  static const char* dims[N_INPUTS][2] = {{"BATCH", "IN"},  {"BATCH", "CLASSES"},
                                          {"IN", "HIDDEN"}, {"HIDDEN", NULL},
                                          {"HIDDEN", "CLASSES"}, {"CLASSES", NULL}};
  static const size_t ranks[N_INPUTS] = {2, 2, 2, 1, 2, 1};
  plaidml_builder* b = NULL;
  plaidml_attrs* attrs = NULL;
  plaidml_program* program = NULL;
  plaidml_value in[N_INPUTS], args[2], hidden, logits, loss;
  int i;

  TRY(plaidml_builder_create("mlp", &b));
  for (i = 0; i < N_INPUTS; ++i) {
    TRY(plaidml_builder_add_input(b, kNames[i], ranks[i], dims[i], PLAIDML_DTYPE_FLOAT32,
                                  &in[i]));
  }
  args[0] = in[X];
  args[1] = in[W1];
  hidden = add(b, op(b, "matmul", 2, args, NULL), in[B1]);
  hidden = op(b, "relu", 1, &hidden, NULL);
  args[0] = hidden;
  args[1] = in[W2];
  logits = add(b, op(b, "matmul", 2, args, NULL), in[B2]);

  /* The softmax is folded into the loss; the default reduction is the mean over the batch. */
  TRY(plaidml_attrs_create(&attrs));
  TRY(plaidml_attrs_set_int(attrs, "from_logits", 1));
  args[0] = in[Y];
  args[1] = logits;
  loss = op(b, "categorical_crossentropy", 2, args, attrs);
  plaidml_attrs_destroy(attrs);

  TRY(plaidml_builder_add_output(b, "loss", loss));
  TRY(plaidml_builder_build(b, &program));
  plaidml_builder_destroy(b); /* the program stays valid */
  return program;
}

/* Points labelled by the largest of 3 random linear functions of them (learnable). */
static void make_data(unsigned* seed, float* x, float* y) {
  float teacher[N_IN * N_CLASSES];
  int i, j, k;
  for (i = 0; i < N_IN * N_CLASSES; ++i) teacher[i] = next_random(seed);
  for (i = 0; i < BATCH * N_IN; ++i) x[i] = 2.0f * next_random(seed);
  for (i = 0; i < BATCH; ++i) {
    int best = 0;
    float best_score = -1e30f;
    for (k = 0; k < N_CLASSES; ++k) {
      float score = 0;
      for (j = 0; j < N_IN; ++j) score += x[i * N_IN + j] * teacher[j * N_CLASSES + k];
      if (score > best_score) best_score = score, best = k;
    }
    for (k = 0; k < N_CLASSES; ++k) y[i * N_CLASSES + k] = (k == best) ? 1.0f : 0.0f;
  }
}

int main(void) {
  static float x[BATCH * N_IN], y[BATCH * N_CLASSES];
  static float w1[N_IN * N_HIDDEN], b1[N_HIDDEN], w2[N_HIDDEN * N_CLASSES], b2[N_CLASSES];
  float* host[N_INPUTS] = {x, y, w1, b1, w2, b2};
  const int64_t shapes[N_INPUTS][2] = {{BATCH, N_IN},     {BATCH, N_CLASSES},
                                       {N_IN, N_HIDDEN},  {N_HIDDEN, 0},
                                       {N_HIDDEN, N_CLASSES}, {N_CLASSES, 0}};
  const size_t ranks[N_INPUTS] = {2, 2, 2, 1, 2, 1};
  size_t sizes[N_INPUTS]; /* elements */
  const char* wrt[4] = {"W1", "B1", "W2", "B2"};
  plaidml_context* ctx = NULL;
  plaidml_program *forward = NULL, *train = NULL;
  plaidml_buffer* inputs[N_INPUTS];
  unsigned seed = 42;
  float first_loss = 0, loss = 0, grad[N_IN * N_HIDDEN];
  int i, step, p;

  make_data(&seed, x, y);
  for (i = 0; i < N_IN * N_HIDDEN; ++i) w1[i] = 0.5f * next_random(&seed);
  for (i = 0; i < N_HIDDEN * N_CLASSES; ++i) w2[i] = 0.5f * next_random(&seed);
  for (i = 0; i < N_HIDDEN; ++i) b1[i] = 0;
  for (i = 0; i < N_CLASSES; ++i) b2[i] = 0;

  /* The training program: outputs loss, W1_grad, B1_grad, W2_grad, B2_grad. */
  forward = forward_program();
  TRY(plaidml_program_gradient(forward, "loss", 4, wrt, kGradNames, &train));

  TRY(plaidml_context_create(NULL, &ctx));
  for (i = 0; i < N_INPUTS; ++i) {
    sizes[i] = (size_t)(shapes[i][0] * (ranks[i] == 2 ? shapes[i][1] : 1));
    TRY(plaidml_buffer_create_from_host(ctx, PLAIDML_DTYPE_FLOAT32, ranks[i], shapes[i], host[i],
                                        sizes[i] * sizeof(float), &inputs[i]));
  }

  for (step = 0; step < STEPS; ++step) {
    plaidml_buffer* outputs[5] = {NULL, NULL, NULL, NULL, NULL}; /* plaidml allocates them */
    /* The first run compiles; later runs (same shapes) are served from the cache. */
    TRY(plaidml_execute(ctx, train, N_INPUTS, kNames, inputs, 5, NULL, outputs));
    TRY(plaidml_buffer_read(outputs[0], &loss, sizeof(loss)));
    if (step == 0) first_loss = loss;
    if (step % 5 == 0 || step == STEPS - 1) printf("step %3d  loss %.4f\n", step, loss);

    /* SGD on the host: param -= rate * gradient, then write the parameter back. */
    for (p = 0; p < 4; ++p) {
      float* param = host[W1 + p];
      size_t n = sizes[W1 + p], k;
      TRY(plaidml_buffer_read(outputs[1 + p], grad, n * sizeof(float)));
      for (k = 0; k < n; ++k) param[k] -= kLearningRate * grad[k];
      TRY(plaidml_buffer_write(inputs[W1 + p], param, n * sizeof(float)));
    }
    for (p = 0; p < 5; ++p) plaidml_buffer_destroy(outputs[p]);
  }

  printf("initial loss %.4f, final loss %.4f\n", first_loss, loss);
  for (i = 0; i < N_INPUTS; ++i) plaidml_buffer_destroy(inputs[i]);
  plaidml_program_destroy(train);
  plaidml_program_destroy(forward);
  plaidml_context_destroy(ctx);
  if (!(loss < 0.7f * first_loss)) {
    fprintf(stderr, "FAILED: the loss did not go down enough\n");
    return 1;
  }
  return 0;
}
