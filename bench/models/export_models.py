"""Exports the real architectures the ONNX importer is checked on, with random weights (nothing is
downloaded), to ONNX files with dynamic batch (and sequence) axes. Runs where PyTorch,
torchvision and transformers are installed (the GPU machine); the files are not committed.

    python bench/models/export_models.py --out /tmp/models [--only resnet50,bert_base]

bert_tiny and gpt2_tiny (not exported by default) are the same architectures at 64 wide and two
layers: files of a few MiB, to bring back from the GPU machine for debugging. gpt2_decode is one
decode step of GPT-2 (a token beside the past keys and values of every layer; its dims "past" =
"sequence" - 1).

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


class FirstOutput(torch.nn.Module):
    """The main output of a model that returns a dict (segmentation) or a named tuple."""

    def __init__(self, model, key):
        super().__init__()
        self.model, self.key = model, key

    def forward(self, images):
        return self.model(images)[self.key]


# The convolutional networks of the Vulkan device-lost finding (issue 36) beside the defaults:
# squeezenets (concat of 1x1 and 3x3 branches), VGG (large 3x3 convs), GoogLeNet (inception v1)
# and Inception v3, DenseNet (concats of growing depth), MobileNetV3-Small, LR-ASPP
# segmentation, and MobileViT (timm) where timm is installed.
VISION = ["resnet50", "mobilenet_v3", "vit_b_16", "squeezenet1_0", "squeezenet1_1", "vgg19",
          "googlenet", "inception_v3", "densenet121", "mobilenet_v3_small", "lraspp",
          "mobilevit_xxs"]


def make_vision(name):
    if name == "mobilevit_xxs":
        import timm
        return timm.create_model("mobilevit_xxs", pretrained=False)
    import torchvision.models as tvm
    if name == "lraspp":
        return FirstOutput(tvm.segmentation.lraspp_mobilenet_v3_large(
            weights=None, weights_backbone=None), "out")
    make = {"mobilenet_v3": tvm.mobilenet_v3_large}.get(name) or getattr(tvm, name)
    if name in ("googlenet", "inception_v3"):  # no auxiliary heads: one output in eval
        return make(weights=None, aux_logits=False, init_weights=True)
    return make(weights=None)


def vision(name):
    model = make_vision(name).eval()
    if name == "vit_b_16":  # torchvision zero-initialises ViT's head: logits would all be 0
        torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    size = 299 if name == "inception_v3" else 224
    example = (torch.randn(2, 3, size, size),)
    inputs = [{"name": "images", "dims": ["batch", 3, size, size], "dtype": "float32"}]
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


# The tiny variants: the same architectures and graph patterns, small enough (a few MiB) to bring
# back from the GPU machine for debugging the importer where torch is not installed.
TINY = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128,
            vocab_size=1000)
TINY_GPT2 = dict(n_layer=2, n_embd=64, n_head=2, vocab_size=1000)


def text(name):
    import transformers as tf
    if name.startswith("bert"):
        config = tf.BertConfig(**(TINY if name.endswith("tiny") else {}))
        model = tf.BertModel(config).eval()
        outputs, vocab = ["last_hidden_state", "pooler_output"], config.vocab_size
    else:
        config = tf.GPT2Config(**(TINY_GPT2 if name.endswith("tiny") else {}))
        model = tf.GPT2LMHeadModel(config).eval()
        outputs, vocab = ["logits"], config.vocab_size
    seq = 16
    example = (torch.randint(0, vocab, (2, seq)), torch.ones(2, seq, dtype=torch.int64))
    inputs = [{"name": "input_ids", "dims": ["batch", "sequence"], "dtype": "int64",
               "range": [0, vocab]},
              {"name": "attention_mask", "dims": ["batch", "sequence"], "dtype": "int64",
               "range": [1, 2]}]
    dynamic = {"input_ids": {0: "batch", 1: "sequence"},
               "attention_mask": {0: "batch", 1: "sequence"}}
    return TextWrapper(model, outputs).eval(), example, inputs, dynamic, outputs


class DecodeWrapper(torch.nn.Module):
    """One decode step of GPT-2: a token per sequence beside the keys and values of the `past`
    tokens before it (flat: layer 0's key, layer 0's value, ...); returns the logits and the
    keys and values with the new token appended."""

    def __init__(self, model, layers):
        super().__init__()
        self.model, self.layers = model, layers

    def forward(self, input_ids, attention_mask, *past):
        from transformers.cache_utils import DynamicCache
        cache = DynamicCache()
        for i in range(self.layers):
            cache.update(past[2 * i], past[2 * i + 1], i)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         past_key_values=cache, use_cache=True, return_dict=True)
        present = out.past_key_values
        if hasattr(present, "layers"):  # transformers 4.56 and later
            pairs = [(layer.keys, layer.values) for layer in present.layers]
        else:
            pairs = [present[i] for i in range(self.layers)]
        return (out.logits, *[t for kv in pairs for t in kv])


def decode(name):
    """gpt2_decode: input_ids [batch, 1], attention_mask [batch, sequence] and the past keys and
    values [batch, heads, past, head size] of every layer, past = sequence - 1."""
    import transformers as tf
    config = tf.GPT2Config(**(TINY_GPT2 if "tiny" in name else {}))
    model = tf.GPT2LMHeadModel(config).eval()
    heads, size = config.n_head, config.n_embd // config.n_head
    past = 15
    names = [f"past_{kind}_{i}" for i in range(config.n_layer) for kind in ("key", "value")]
    example = (torch.randint(0, config.vocab_size, (2, 1)),
               torch.ones(2, past + 1, dtype=torch.int64),
               *[torch.randn(2, heads, past, size) for _ in names])
    inputs = [{"name": "input_ids", "dims": ["batch", 1], "dtype": "int64",
               "range": [0, config.vocab_size]},
              {"name": "attention_mask", "dims": ["batch", "sequence"], "dtype": "int64",
               "range": [1, 2]}]
    inputs += [{"name": n, "dims": ["batch", heads, "past", size], "dtype": "float32"}
               for n in names]
    dynamic = {"input_ids": {0: "batch"}, "attention_mask": {0: "batch", 1: "sequence"}}
    dynamic.update({n: {0: "batch", 2: "past"} for n in names})
    outputs = ["logits"] + ["present" + n[4:] for n in names]
    return DecodeWrapper(model, config.n_layer).eval(), example, inputs, dynamic, outputs


MODELS = {"bert_base": text, "gpt2": text, "bert_tiny": text, "gpt2_tiny": text,
          "gpt2_decode": decode, "gpt2_tiny_decode": decode, **{n: vision for n in VISION}}
DEFAULT = "resnet50,mobilenet_v3,vit_b_16,bert_base,gpt2"


def export_one(name, out_dir, dynamo):
    torch.manual_seed(SEED)
    model, example, inputs, dynamic, outputs = MODELS[name](name)
    path = os.path.join(out_dir, name + ("_dynamo" if dynamo else "") + ".onnx")
    names = [i["name"] for i in inputs]
    start = time.time()
    if dynamo:
        # A tuple in forward()'s argument order (a dict would need its parameter names, "x" for
        # torchvision); one Dim object per name, shared where axes are the same size.
        dims = {}
        shapes = tuple({a: dims.setdefault(d, torch.export.Dim(d, min=1, max=4096))
                        for a, d in dynamic[n].items()} for n in names)
        with torch.no_grad():
            program = torch.onnx.export(model, example, dynamo=True, input_names=names,
                                        output_names=outputs, dynamic_shapes=shapes,
                                        external_data=False)
        program.save(path)
    else:
        # Not under no_grad: there torch's MultiheadAttention takes its fused fast path
        # (aten::_native_multi_head_attention), which the TorchScript exporter cannot export.
        torch.onnx.export(model, example, path, dynamo=False, opset_version=17,
                          input_names=names, output_names=outputs, dynamic_axes=dynamic)
    return {"model": name, "file": os.path.basename(path), "exporter":
            "dynamo" if dynamo else "torchscript", "inputs": inputs, "outputs": outputs,
            "seconds": round(time.time() - start, 1), "bytes": os.path.getsize(path)}


def previous_exports(out_dir):
    """The manifest entries of an earlier call whose files are still there."""
    try:
        with open(os.path.join(out_dir, "manifest.json")) as f:
            entries = json.load(f)["models"]
    except (OSError, ValueError, KeyError):
        return []
    return [e for e in entries if os.path.exists(os.path.join(out_dir, e["file"]))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--only", default=DEFAULT, help="from: " + ",".join(MODELS))
    parser.add_argument("--no-dynamo", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    manifest, failures = previous_exports(args.out), []
    done = {(e["model"], e["exporter"]) for e in manifest}
    for name in args.only.split(","):
        # A decode step's varargs of past tensors: the TorchScript exporter only.
        only_torchscript = args.no_dynamo or name.endswith("decode")
        for dynamo in ((False,) if only_torchscript else (False, True)):
            if (name, "dynamo" if dynamo else "torchscript") in done:
                continue  # exported by an earlier call into the same folder
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
