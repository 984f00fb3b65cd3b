"""Random inputs for an exported model, from export_models.py's manifest entry (or a spec of the
same form): dims named "batch" and "sequence" take the sizes asked for, "past" (a decode step's
past tokens) one less than the sequence; int64 inputs (tokens,
masks) are drawn from the entry's "range", floats from a standard normal."""
import numpy as np


def make_inputs(spec, batch, seq, rng):
    feeds = {}
    for inp in spec["inputs"]:
        sizes = {"batch": batch, "sequence": seq, "past": seq - 1}
        dims = [sizes.get(d, d) if isinstance(d, str) else d for d in inp["dims"]]
        if inp["dtype"] == "int64":
            lo, hi = inp.get("range", [0, 100])
            feeds[inp["name"]] = rng.integers(lo, hi, size=dims, dtype=np.int64)
        else:
            feeds[inp["name"]] = rng.standard_normal(dims).astype(inp["dtype"])
    return feeds


def import_dims(spec, batch, seq):
    """The named dims of the spec's inputs fixed to the sizes asked for, as keyword arguments of
    plaidml.onnx.load: onnxruntime sees the sizes at its first run, and fixing them at import
    folds exported shape arithmetic to constants (symbolic lengths import too, and
    symbolic_lengths.py measures them: docs/onnx.md)."""
    sizes = {"batch": batch, "sequence": seq, "past": seq - 1}
    named = {d for i in spec["inputs"] for d in i["dims"] if isinstance(d, str)}
    return {d: sizes[d] for d in named if d in sizes}
