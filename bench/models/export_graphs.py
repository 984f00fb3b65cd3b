"""The GPU machine's side of bench/models/weightless.py: exports the models (export_models.py,
into ONNX_MODEL_DIR, default /tmp/plaidml-onnx-models, where device-run.sh's later steps find
them) and writes each one's graph without its big weights to $OUT/<name>.graph.onnx, small enough
to come back. Run as device-run.sh's script step:

    STEPS=script SCRIPT=bench/models/export_graphs.py GRAPH_MODELS=bert_base,gpt2_decode ...

Here, `python bench/models/weightless.py fill <name>.graph.onnx` gives the model back with random
weights.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import weightless  # noqa: E402


def main():
    out = os.environ.get("OUT", ".")
    models = os.environ.get("ONNX_MODEL_DIR", "/tmp/plaidml-onnx-models")
    names = os.environ.get("GRAPH_MODELS", "resnet50,mobilenet_v3,vit_b_16,bert_base,gpt2_decode")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, os.path.join(here, "export_models.py"), "--out", models,
                    "--only", names], check=True)
    for name in names.split(","):
        source = os.path.join(models, name + ".onnx")
        if os.path.exists(source):
            weightless.strip(source, os.path.join(out, name + ".graph.onnx"))
        else:
            print(f"{source}: not exported")
    return 0


if __name__ == "__main__":
    sys.exit(main())
