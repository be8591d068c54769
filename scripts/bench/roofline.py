"""A step's time against the matmul roofline: the device's measured matmul peak beside the
FLOP/s that AccumLab's sweep points reached (scripts/gpu-check.sh runs it on a GPU in bfloat16
at micro-batch 256 and up).

The peak is measured, not looked up: a loop of square torch.mm of --size in --dtype on --device
(the Python's torch: the wheel AccumLab was built against), synchronised, the best of --rounds.
A sweep point's FLOP/s counts the model's matmuls alone (forward 2·m·k·n per layer; backward
twice that, less the first layer's input gradient, which autograd does not compute), times its
samples/sec from accum-curve.json. Prints a table; never fails on a timing.

Usage: python scripts/bench/roofline.py --device cuda --dtype bfloat16 [--size 8192] CURVE.json ...
"""

import argparse
import json
import os
import time


def size_threads(threads):
    """Before torch is imported: the CPU threads of LibTorch's pool and of the BLAS's own.

    OpenBLAS keeps a thread pool of its own, sized from the environment when it loads."""
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(threads)


def matmul_peak(torch, device, dtype, size, rounds, iters):
    a = torch.randn(size, size, device=device, dtype=dtype)
    b = torch.randn(size, size, device=device, dtype=dtype)
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    torch.mm(a, b)
    sync()
    best = 0.0
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(iters):
            torch.mm(a, b)
        sync()
        best = max(best, 2.0 * size ** 3 * iters / (time.perf_counter() - start))
    return best


def flops_per_sample(config):
    widths = [config["in_features"], config["hidden"], config["hidden"], config["classes"]]
    macs = [widths[i] * widths[i + 1] for i in range(3)]
    return 2 * sum(macs) + 4 * sum(macs) - 2 * macs[0]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("curves", nargs="+", help="accum-curve.json files of sweeps")
    p.add_argument("--device", default="cuda")
    p.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16", "float32"])
    p.add_argument("--size", type=int, default=8192)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--threads", type=int, default=0,
                   help="CPU threads for the peak, LibTorch's and the BLAS's own pool (0: their defaults)")
    args = p.parse_args()
    if args.threads:
        size_threads(args.threads)
    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    peak = matmul_peak(torch, args.device, getattr(torch, args.dtype), args.size, args.rounds, args.iters)
    print(f"matmul peak on {args.device} in {args.dtype}: {peak / 1e12:.3f} TFLOP/s "
          f"(torch.mm {args.size}x{args.size}, best of {args.rounds} rounds of {args.iters})")
    print("| sweep | dtype | micro | accum | samples/sec | median step ms | TFLOP/s | of the peak |")
    print("|---|---|---|---|---|---|---|---|")
    for path in args.curves:
        with open(path) as f:
            curve = json.load(f)
        per_sample = flops_per_sample(curve["config"])
        for point in curve["points"]:
            rate = point["samples_per_sec"] * per_sample
            print(f"| {path} | {point['dtype']} | {point['micro_batch']} | {point['accum_steps']} | "
                  f"{point['samples_per_sec']:.1f} | {point['median_step_ms']:.2f} | {rate / 1e12:.3f} | "
                  f"{100 * rate / peak:.0f}% |")


if __name__ == "__main__":
    main()
