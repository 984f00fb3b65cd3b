"""Random inputs for an exported model, from export_models.py's manifest entry (or a spec of the
same form): dims named "batch" and "sequence" take the sizes asked for; int64 inputs (tokens,
masks) are drawn from the entry's "range", floats from a standard normal."""
import numpy as np


def make_inputs(spec, batch, seq, rng):
    feeds = {}
    for inp in spec["inputs"]:
        dims = [batch if d == "batch" else seq if d == "sequence" else d for d in inp["dims"]]
        if inp["dtype"] == "int64":
            lo, hi = inp.get("range", [0, 100])
            feeds[inp["name"]] = rng.integers(lo, hi, size=dims, dtype=np.int64)
        else:
            feeds[inp["name"]] = rng.standard_normal(dims).astype(inp["dtype"])
    return feeds
