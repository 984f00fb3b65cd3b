#!/usr/bin/env python3
"""The plaidml_gpu_bench shapes through PyTorch on CUDA: the baseline for bench/compare_gpu.py.

  python3 bench/torch_gpu.py [--warmup 3] [--repeat 20] [--cases matmul_1024,...] > torch_gpu.json

f32 with TF32 off (cuBLAS and cuDNN do full f32 math, as plaidml's OpenCL kernels do), except the
matmul_f16_* cases: f16 inputs and output, which cuBLAS sums in f32 on the tensor cores (the
counterpart of plaidml's cooperative-matrix kernels through Vulkan).
Matmul is torch.matmul (cuBLAS); the convolution is torch.nn.functional.conv2d (cuDNN) on
channels_last tensors, i.e. NHWC in memory like plaidml's input. cudnn.benchmark is on, so the
first call ("compile_ms") includes cuDNN's algorithm search, the counterpart of plaidml's compile.
Each timed run is bracketed by CUDA events (min_ms, median_ms: device time); wall_min_ms and
wall_median_ms time as many more runs the way plaidml_gpu_bench does (wall clock until the
device is done). One JSON line per case on stdout (the keys of plaidml_gpu_bench), a table on
stderr. Exit status 0 when every case ran and passed its check.
"""
import argparse
import json
import statistics
import sys
import time

# ResNet-50's layers as bench/bench_cases.cc's resnet50_gpu_convs() lists them:
# (h = w, ci, co, kernel, stride, pad).
RESNET50_CONVS = [(224, 3, 64, 7, 2, 3), (56, 64, 64, 3, 1, 1), (28, 128, 128, 3, 1, 1),
                  (14, 256, 256, 3, 1, 1), (7, 512, 512, 3, 1, 1), (56, 256, 64, 1, 1, 0),
                  (14, 256, 1024, 1, 1, 0), (7, 2048, 512, 1, 1, 0)]


def conv_name(batch, hw, ci, co, k, stride):
    """bench_cases.cc's conv_name: conv3x3_56x56x64_n1, conv7x7s2_..., conv1x1_14x14x256to1024_n1."""
    name = f"conv{k}x{k}" + (f"s{stride}" if stride != 1 else "") + f"_{hw}x{hw}x{ci}"
    if co != ci and k == 1:
        name += f"to{co}"
    return name + f"_n{batch}"


CASES = [("matmul_1024", "matmul", 1024), ("matmul_2048", "matmul", 2048)]
# BERT-base's and GPT-2 small's projections at sequence 128 (bench_cases.cc's gpu_cases): M x K x N.
CASES += [(f"matmul_128x{k}x{n}", "matmul", (128, k, n))
          for k, n in ((768, 768), (768, 2304), (768, 3072), (3072, 768))]
CASES += [(conv_name(n, hw, ci, co, k, st), "conv", (n, hw, ci, co, k, st, pad))
          for n in (1, 32) for hw, ci, co, k, st, pad in RESNET50_CONVS]
CASES += [(f"matmul_f16_{n}", "matmul_f16", n) for n in (1024, 2048, 4096, 8192)]
CASES += [("matmul_4096", "matmul", 4096), ("matmul_8192", "matmul", 8192)]
RELATIVE_TOLERANCE = 1e-4  # of the sum of |terms|, as in bench/bench_check.cc
HALF_TOLERANCE = 1e-3  # an f16 output: the f32 sum rounded to f16


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--warmup-seconds", type=float, default=1.0,
                   help="warm up at least this long too (the GPU clock rises from idle)")
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    p.add_argument("--device", default="cuda", help="torch device; 'cpu' only to test the script")
    return p.parse_args()


def make_matmul(torch, size, dev, dtype=None):
    """size: n for an n x n x n matmul, or (m, k, n)."""
    m, k, n = size if isinstance(size, tuple) else (size, size, size)
    dtype = dtype or torch.float32
    a = (torch.rand(m, k, device=dev) * 2 - 1).to(dtype)
    b = (torch.rand(k, n, device=dev) * 2 - 1).to(dtype)
    out = torch.empty(m, n, device=dev, dtype=dtype)

    def run():
        torch.matmul(a, b, out=out)

    def reference(flat):
        i, j = divmod(flat, n)
        terms = a[i, :].double().cpu() * b[:, j].double().cpu()
        return float(terms.sum()), float(terms.abs().sum())

    shape = f"{m}x{k}x{n}" + (", f16" if dtype == torch.float16 else "")
    return run, out.view(-1), reference, 2.0 * m * k * n, shape


def make_conv(torch, params, dev):
    import torch.nn.functional as F
    batch, hw, ci, co, k, stride, pad = params
    x = (torch.rand(batch, ci, hw, hw, device=dev) * 2 - 1).to(memory_format=torch.channels_last)
    w = (torch.rand(co, ci, k, k, device=dev) * 2 - 1).to(memory_format=torch.channels_last)
    out_hw = (hw + 2 * pad - k) // stride + 1
    result = {}

    def run():
        result["y"] = F.conv2d(x, w, stride=stride, padding=pad)

    def reference(flat):
        # flat indexes the NHWC output, like plaidml's
        o, rest = flat % co, flat // co
        xx, rest = rest % out_hw, rest // out_hw
        yy, n = rest % out_hw, rest // out_hw
        padded = F.pad(x[n].double().cpu(), (pad, pad, pad, pad))
        y0, x0 = yy * stride, xx * stride
        patch = padded[:, y0:y0 + k, x0:x0 + k]
        terms = patch * w[o].double().cpu()
        return float(terms.sum()), float(terms.abs().sum())

    def output():
        return result["y"].permute(0, 2, 3, 1).reshape(-1)  # NHWC order

    shape = f"{batch}x{hw}x{hw}x{ci} * {k}x{k}x{ci}x{co}, stride {stride}, pad {pad}"
    return run, output, reference, 2.0 * batch * out_hw * out_hw * co * k * k * ci, shape


def device_name(torch, dev):
    return "cpu" if dev == "cpu" else torch.cuda.get_device_name(torch.device(dev))


def time_call(torch, fn, dev):
    if dev == "cpu":
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e3
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


# A run as plaidml_gpu_bench times it: wall clock until the device is done, launch included.
def wall_call(fn, sync):
    t0 = time.perf_counter()
    fn()
    sync()
    return (time.perf_counter() - t0) * 1e3


def spot_check(torch, output, reference, count, n=8, tolerance=RELATIVE_TOLERANCE):
    indices = [0, count - 1] + [(i * 2654435761) % count for i in range(1, n - 1)]
    worst, failures = 0.0, 0
    for flat in indices:
        want, scale = reference(flat)
        rel = abs(float(output[flat]) - want) / (scale if scale > 0 else 1.0)
        worst = max(worst, rel)
        failures += not rel <= tolerance
    return len(indices), failures, worst


def run_case(torch, name, kind, size, args):
    dev = args.device
    if kind == "conv":
        made = make_conv(torch, size, dev)
    else:
        made = make_matmul(torch, size, dev, torch.float16 if kind == "matmul_f16" else None)
    run, output, reference, flop, shape = made
    line = {"impl": "torch", "version": torch.__version__, "device": dev,
            "device_name": device_name(torch, dev), "case": name, "shape": shape, "flop": flop}
    sync = torch.cuda.synchronize if dev != "cpu" else (lambda: None)
    sync()
    t0 = time.perf_counter()
    run()
    sync()
    line["compile_ms"] = (time.perf_counter() - t0) * 1e3
    warmup_start = time.perf_counter()
    warmups = 0
    while warmups < args.warmup or time.perf_counter() - warmup_start < args.warmup_seconds:
        run()
        sync()
        warmups += 1
    times = [time_call(torch, run, dev) for _ in range(args.repeat)]
    wall = [wall_call(run, sync) for _ in range(args.repeat)]
    out = output() if callable(output) else output
    tolerance = HALF_TOLERANCE if kind == "matmul_f16" else RELATIVE_TOLERANCE
    checked, failed, worst = spot_check(torch, out, reference, out.numel(), tolerance=tolerance)
    med, best = statistics.median(times), min(times)
    line.update({"status": "ok", "warmup": warmups, "repeat": len(times), "min_ms": best,
                 "median_ms": med, "gflops": flop / (med * 1e6), "gflops_best": flop / (best * 1e6),
                 "check": "ok" if failed == 0 else "FAIL", "checked": checked,
                 "max_rel_error": worst, "wall_min_ms": min(wall),
                 "wall_median_ms": statistics.median(wall)})
    return line


def main():
    args = parse_args()
    try:
        import torch
    except ImportError:
        print(f"torch_gpu.py: PyTorch is not installed for {sys.executable}", file=sys.stderr)
        return 1
    if args.device != "cpu" and not torch.cuda.is_available():
        print("torch_gpu.py: PyTorch sees no CUDA device", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(1)
    wanted = set(filter(None, args.cases.split(",")))
    unknown = wanted - {c[0] for c in CASES}
    if unknown:
        print(f"torch_gpu.py: unknown cases {sorted(unknown)}", file=sys.stderr)
        return 2
    print(f"torch {torch.__version__} on {device_name(torch, args.device)}, TF32 off",
          file=sys.stderr)
    print(f"{'case':30} {'first ms':>10} {'min ms':>10} {'median ms':>10} {'GFLOP/s':>9} check",
          file=sys.stderr)
    failures = 0
    for name, kind, size in CASES:
        if wanted and name not in wanted:
            continue
        try:
            line = run_case(torch, name, kind, size, args)
        except Exception as e:  # a failed case must not hide the others' figures
            line = {"impl": "torch", "case": name, "status": "error", "error": repr(e)}
        failures += line["status"] != "ok" or line.get("check") != "ok"
        print(json.dumps(line), flush=True)
        if line["status"] == "ok":
            print(f"{name:30} {line['compile_ms']:10.2f} {line['min_ms']:10.3f} "
                  f"{line['median_ms']:10.3f} {line['gflops']:9.1f} {line['check']}",
                  file=sys.stderr)
        else:
            print(f"{name:30} error: {line['error']}", file=sys.stderr)
        if args.device != "cpu":
            torch.cuda.empty_cache()
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
