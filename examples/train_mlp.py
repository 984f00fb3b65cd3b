#!/usr/bin/env python3
"""train_mlp.py: train a small neural network with plaidml from Python.

A 2-layer perceptron (8 inputs -> 16 hidden units with relu -> 3 classes) learns to classify
synthetic points. The forward program is built from ops of the op library (matmul, relu,
categorical_crossentropy); plaidml derives the gradient program from it (reverse-mode
autodiff), and the weights are updated on the host with plain SGD.

Run from a build tree:
    PLAIDML_LIBRARY=<build>/src/capi/libplaidml.so PYTHONPATH=<src>/bindings/python \
        python3 examples/train_mlp.py
Exits 1 unless the final loss is below 0.7 times the initial loss.
"""
import sys

import numpy as np

import plaidml

BATCH, N_IN, N_HIDDEN, N_CLASSES = 64, 8, 16, 3
STEPS, LEARNING_RATE = 40, 0.1
PARAMS = ("W1", "B1", "W2", "B2")


def forward_program():
    """loss = categorical_crossentropy(Y, relu(X @ W1 + B1) @ W2 + B2), from logits."""
    b = plaidml.Builder("mlp")
    # Dims are symbolic (named): the same program runs at any batch size.
    x = b.input("X", ("BATCH", "IN"), dtype="float32")
    y = b.input("Y", ("BATCH", "CLASSES"), dtype="float32")
    w1 = b.input("W1", ("IN", "HIDDEN"), dtype="float32")
    b1 = b.input("B1", ("HIDDEN",), dtype="float32")
    w2 = b.input("W2", ("HIDDEN", "CLASSES"), dtype="float32")
    b2 = b.input("B2", ("CLASSES",), dtype="float32")
    hidden = b.op("relu", b.op("matmul", x, w1) + b1)  # + broadcasts the bias over the batch
    logits = b.op("matmul", hidden, w2) + b2
    # The softmax is folded into the loss (from_logits=1), which is the mean over the batch.
    b.output("loss", b.op("categorical_crossentropy", y, logits, from_logits=1))
    return b.build()


def synthetic_data(rng):
    """Points labelled by the largest of 3 random linear functions of them (learnable)."""
    x = rng.standard_normal((BATCH, N_IN)).astype(np.float32)
    labels = np.argmax(x @ rng.standard_normal((N_IN, N_CLASSES)), axis=1)
    return x, np.eye(N_CLASSES, dtype=np.float32)[labels]


def main():
    rng = np.random.default_rng(0)  # a fixed seed: every run is the same
    x, y = synthetic_data(rng)
    params = {
        "W1": (rng.standard_normal((N_IN, N_HIDDEN)) * 0.5).astype(np.float32),
        "B1": np.zeros(N_HIDDEN, np.float32),
        "W2": (rng.standard_normal((N_HIDDEN, N_CLASSES)) * 0.5).astype(np.float32),
        "B2": np.zeros(N_CLASSES, np.float32),
    }
    # The gradient program outputs "loss" then d(loss)/d(param) as "<param>_grad".
    train = forward_program().gradient("loss", PARAMS)
    print("training program outputs:", train.outputs)

    ctx = plaidml.Context()
    losses = []
    for step in range(STEPS):
        out = ctx.run(train, {"X": x, "Y": y, **params})  # compiles once, then cached
        losses.append(float(out["loss"]))
        for name in PARAMS:
            params[name] -= LEARNING_RATE * out[name + "_grad"]
        if step % 5 == 0 or step == STEPS - 1:
            print("step %3d  loss %.4f" % (step, losses[-1]))

    print("initial loss %.4f, final loss %.4f" % (losses[0], losses[-1]))
    if not losses[-1] < 0.7 * losses[0]:
        print("FAILED: the loss did not go down enough", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
