#!/usr/bin/env python3
"""The plaidml_gpu_bench shapes through PyTorch on CUDA: the baseline for bench/compare_gpu.py.

  python3 bench/torch_gpu.py [--warmup 3] [--repeat 20] [--cases matmul_1024,...] > torch_gpu.json

f32 throughout with TF32 off (cuBLAS and cuDNN do full f32 math, as plaidml's OpenCL kernels do).
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

CASES = [
    ("matmul_1024", "matmul", 1024),
    ("matmul_2048", "matmul", 2048),
    ("conv3x3_56x56x64_n1", "conv", 1),
    ("conv3x3_56x56x64_n32", "conv", 32),
    ("matmul_4096", "matmul", 4096),
    ("matmul_8192", "matmul", 8192),
]
RELATIVE_TOLERANCE = 1e-4  # of the sum of |terms|, as in bench/bench_runner.cc


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    p.add_argument("--device", default="cuda", help="torch device; 'cpu' only to test the script")
    return p.parse_args()


def make_matmul(torch, n, dev):
    a = torch.rand(n, n, device=dev) * 2 - 1
    b = torch.rand(n, n, device=dev) * 2 - 1
    out = torch.empty(n, n, device=dev)

    def run():
        torch.matmul(a, b, out=out)

    def reference(flat):
        i, j = divmod(flat, n)
        terms = a[i, :].double().cpu() * b[:, j].double().cpu()
        return float(terms.sum()), float(terms.abs().sum())

    shape = f"{n}x{n}x{n}"
    return run, out.view(-1), reference, 2.0 * n * n * n, shape


def make_conv(torch, batch, dev):
    import torch.nn.functional as F
    h = w = 56
    c = 64
    x = (torch.rand(batch, c, h, w, device=dev) * 2 - 1).to(memory_format=torch.channels_last)
    k = (torch.rand(c, c, 3, 3, device=dev) * 2 - 1).to(memory_format=torch.channels_last)
    result = {}

    def run():
        result["y"] = F.conv2d(x, k, padding=1)

    def reference(flat):
        # flat indexes the NHWC output, like plaidml's
        o, rest = flat % c, flat // c
        xx, rest = rest % w, rest // w
        yy, n = rest % h, rest // h
        padded = F.pad(x[n].double().cpu(), (1, 1, 1, 1))
        patch = padded[:, yy:yy + 3, xx:xx + 3]
        terms = patch * k[o].double().cpu()
        return float(terms.sum()), float(terms.abs().sum())

    def output():
        return result["y"].permute(0, 2, 3, 1).reshape(-1)  # NHWC order

    shape = f"{batch}x56x56x64 * 3x3x64x64, stride 1, pad 1"
    return run, output, reference, 2.0 * batch * h * w * c * 9 * c, shape


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


def spot_check(torch, output, reference, count, n=8):
    indices = [0, count - 1] + [(i * 2654435761) % count for i in range(1, n - 1)]
    worst, failures = 0.0, 0
    for flat in indices:
        want, scale = reference(flat)
        rel = abs(float(output[flat]) - want) / (scale if scale > 0 else 1.0)
        worst = max(worst, rel)
        failures += not rel <= RELATIVE_TOLERANCE
    return len(indices), failures, worst


def run_case(torch, name, kind, size, args):
    dev = args.device
    made = make_matmul(torch, size, dev) if kind == "matmul" else make_conv(torch, size, dev)
    run, output, reference, flop, shape = made
    line = {"impl": "torch", "version": torch.__version__, "device": dev,
            "device_name": device_name(torch, dev), "case": name, "shape": shape, "flop": flop}
    sync = torch.cuda.synchronize if dev != "cpu" else (lambda: None)
    sync()
    t0 = time.perf_counter()
    run()
    sync()
    line["compile_ms"] = (time.perf_counter() - t0) * 1e3
    for _ in range(args.warmup):
        run()
    times = [time_call(torch, run, dev) for _ in range(args.repeat)]
    wall = [wall_call(run, sync) for _ in range(args.repeat)]
    out = output() if callable(output) else output
    checked, failed, worst = spot_check(torch, out, reference, out.numel())
    med, best = statistics.median(times), min(times)
    line.update({"status": "ok", "warmup": args.warmup, "repeat": len(times), "min_ms": best,
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
    print(f"{'case':22} {'first ms':>10} {'min ms':>10} {'median ms':>10} {'GFLOP/s':>9} check",
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
            print(f"{name:22} {line['compile_ms']:10.2f} {line['min_ms']:10.3f} "
                  f"{line['median_ms']:10.3f} {line['gflops']:9.1f} {line['check']}",
                  file=sys.stderr)
        else:
            print(f"{name:22} error: {line['error']}", file=sys.stderr)
        if args.device != "cpu":
            torch.cuda.empty_cache()
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
