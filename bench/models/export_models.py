"""Exports the real architectures the ONNX importer is checked on, with random weights (nothing is
downloaded), to ONNX files with dynamic batch (and sequence) axes. Runs where PyTorch,
torchvision and transformers are installed (the GPU machine); the files are not committed.

    python bench/models/export_models.py --out /tmp/models [--only resnet50,bert]

Each model is exported twice where the exporter allows: by the TorchScript exporter at opset 17
(the Shape -> Gather -> Concat -> Reshape graphs of older exports) as <name>.onnx, and by the
dynamo exporter (opset 18+, what torch.onnx.export makes today) as <name>_dynamo.onnx. A
manifest.json lists each file with its inputs (name, dims with symbolic names, dtype, and the
integer range of token inputs) and which exporter made it.
"""
import argparse
import json
import os
import sys
import time
import traceback

import torch

SEED = 0


def vision(name):
    import torchvision.models as tvm
    make = {"resnet50": tvm.resnet50, "mobilenet_v3": tvm.mobilenet_v3_large,
            "vit_b_16": tvm.vit_b_16}[name]
    model = make(weights=None).eval()
    example = (torch.randn(2, 3, 224, 224),)
    inputs = [{"name": "images", "dims": ["batch", 3, 224, 224], "dtype": "float32"}]
    dynamic = {"images": {0: "batch"}}
    return model, example, inputs, dynamic, ["logits"]


class TextWrapper(torch.nn.Module):
    """Calls a transformers model with plain tensors and returns plain tensors (no dicts)."""

    def __init__(self, model, outputs):
        super().__init__()
        self.model, self.outputs = model, outputs

    def forward(self, input_ids, attention_mask):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False,
                         return_dict=True)
        return tuple(out[k] for k in self.outputs)


def text(name):
    import transformers as tf
    if name == "bert_base":
        model = tf.BertModel(tf.BertConfig()).eval()
        outputs, vocab = ["last_hidden_state", "pooler_output"], tf.BertConfig().vocab_size
    else:
        model = tf.GPT2LMHeadModel(tf.GPT2Config()).eval()
        outputs, vocab = ["logits"], tf.GPT2Config().vocab_size
    seq = 16
    example = (torch.randint(0, vocab, (2, seq)), torch.ones(2, seq, dtype=torch.int64))
    inputs = [{"name": "input_ids", "dims": ["batch", "sequence"], "dtype": "int64",
               "range": [0, vocab]},
              {"name": "attention_mask", "dims": ["batch", "sequence"], "dtype": "int64",
               "range": [1, 2]}]
    dynamic = {"input_ids": {0: "batch", 1: "sequence"},
               "attention_mask": {0: "batch", 1: "sequence"}}
    return TextWrapper(model, outputs), example, inputs, dynamic, outputs


MODELS = {"resnet50": vision, "mobilenet_v3": vision, "vit_b_16": vision, "bert_base": text,
          "gpt2": text}


def export_one(name, out_dir, dynamo):
    torch.manual_seed(SEED)
    model, example, inputs, dynamic, outputs = MODELS[name](name)
    path = os.path.join(out_dir, name + ("_dynamo" if dynamo else "") + ".onnx")
    names = [i["name"] for i in inputs]
    start = time.time()
    with torch.no_grad():
        if dynamo:
            shapes = {n: {a: torch.export.Dim(d, min=1, max=4096) for a, d in axes.items()}
                      for n, axes in dynamic.items()}
            program = torch.onnx.export(model, example, dynamo=True, input_names=names,
                                        output_names=outputs, dynamic_shapes=shapes,
                                        external_data=False)
            program.save(path)
        else:
            torch.onnx.export(model, example, path, dynamo=False, opset_version=17,
                              input_names=names, output_names=outputs, dynamic_axes=dynamic)
    return {"model": name, "file": os.path.basename(path), "exporter":
            "dynamo" if dynamo else "torchscript", "inputs": inputs, "outputs": outputs,
            "seconds": round(time.time() - start, 1), "bytes": os.path.getsize(path)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--only", default=",".join(MODELS))
    parser.add_argument("--no-dynamo", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    manifest, failures = [], []
    for name in args.only.split(","):
        for dynamo in ((False,) if args.no_dynamo else (False, True)):
            try:
                entry = export_one(name, args.out, dynamo)
                manifest.append(entry)
                print("exported %(file)s (%(exporter)s, %(bytes)d bytes, %(seconds)s s)" % entry,
                      flush=True)
            except Exception as e:  # an exporter that fails is reported, the rest go on
                failures.append({"model": name, "dynamo": dynamo, "error": repr(e)[:2000]})
                print("export of %s (dynamo=%s) failed: %r" % (name, dynamo, e), flush=True)
                traceback.print_exc(limit=3)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"torch": torch.__version__, "models": manifest, "failures": failures}, f,
                  indent=1)
    return 0 if manifest else 1


if __name__ == "__main__":
    sys.exit(main())
