"""How close to the matmul peak the wide model can come while autograd accumulates into .grad.

A micro-batch of the wide preset (1024-4096-4096-256, float32) is its matmuls plus work that
does not shrink with the micro-batch: autograd's addition of each micro-batch's gradient into
the 22-million-float .grad buffers (the lesson's accumulation), and once per window of --accum
micro-batches the buffers' zeroing and their per-parameter norms (what the window reads back).
This script times each part alone on the Python's torch (Debian's python3-torch shares the 1.13
build's OpenBLAS, the wheel in .venv-torch2 the 2.x build's oneMKL), at one thread by default:
  - the matmul peak: square torch.mm of --size (scripts/bench/roofline.py's loop);
  - the model's matmuls at each micro-batch as autograd issues them: forward addmm(b, x, W.t()),
    backward grad·W for the input gradients (none for the first layer) and h.t()·grad for the
    weight gradients;
  - the fixed part: .grad.add_(new gradient) once per micro-batch, zero_() and the norms once per
    window.
It prints, for each micro-batch, the matmuls' GFLOP/s against the peak and the bound that
follows: the model's FLOPs at the peak over (that time plus the fixed part), the share of the
peak a step could reach even with a BLAS at its square peak for these shapes. A measurement,
not a test: it prints a table and never fails on a timing.

Usage: /usr/bin/python3 scripts/bench/wide_bound.py [--micro 64,256] [--accum 4] [--threads 1]
       .venv-torch2/bin/python scripts/bench/wide_bound.py
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roofline import flops_per_sample, matmul_peak, size_threads  # noqa: E402

WIDTHS = [1024, 4096, 4096, 256]  # the wide preset: in, hidden, hidden, classes (core/config.cpp)


def best_seconds(fn, rounds, iters):
    fn()
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - start) / iters)
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--micro", default="64,256", help="micro-batch sizes, comma-separated")
    p.add_argument("--accum", type=int, default=4, help="micro-batches per window")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--size", type=int, default=2048, help="the square matmul of the peak")
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()

    size_threads(args.threads)
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    peak = matmul_peak(torch, "cpu", torch.float32, args.size, args.rounds, 5)
    weights = [torch.randn(WIDTHS[i + 1], WIDTHS[i]) for i in range(3)]  # W: (out, in)
    biases = [torch.randn(WIDTHS[i + 1]) for i in range(3)]
    count = sum(w.numel() + b.numel() for w, b in zip(weights, biases))
    grad = torch.zeros(count)  # the flat .grad buffers
    new = torch.randn(count)  # one micro-batch's gradient, as autograd hands it to AccumulateGrad
    views = []
    offset = 0
    for w, b in zip(weights, biases):
        for n in (w.numel(), b.numel()):
            views.append(grad[offset:offset + n])
            offset += n
    add = best_seconds(lambda: grad.add_(new), args.rounds, 3)
    zero = best_seconds(lambda: grad.zero_(), args.rounds, 3)
    norms = best_seconds(lambda: torch.stack([v.norm() for v in views]), args.rounds, 3)
    fixed = add + (zero + norms) / args.accum

    config = {"in_features": WIDTHS[0], "hidden": WIDTHS[1], "classes": WIDTHS[3]}
    print(f"torch {torch.__version__}, {args.threads} thread(s); matmul peak {peak / 1e9:.0f} GFLOP/s "
          f"(torch.mm {args.size}x{args.size})")
    print(f"per micro-batch, whatever its size: .grad.add_ {add * 1e3:.1f} ms; per window of {args.accum}: "
          f"zero_ {zero * 1e3:.1f} ms, norms {norms * 1e3:.1f} ms; fixed part {fixed * 1e3:.1f} ms a micro-batch")
    print("| micro | matmuls ms | matmuls GFLOP/s | of the peak | at the peak ms | + fixed ms | bound |")
    print("|---|---|---|---|---|---|---|")
    for micro in (int(m) for m in args.micro.split(",")):
        acts = [torch.randn(micro, WIDTHS[i]) for i in range(3)]  # the layers' inputs: (micro, in)
        grads = [torch.randn(micro, WIDTHS[i + 1]) for i in range(3)]  # their outputs' gradients

        def matmuls():
            for x, w, b in zip(acts, weights, biases):
                torch.addmm(b, x, w.t())  # forward: (micro, out)
            for i, (x, w, g) in enumerate(zip(acts, weights, grads)):
                if i > 0:
                    g.mm(w)  # the input's gradient: (micro, in)
                x.t().mm(g)  # the weight's gradient, as W.t()'s: (in, out)

        seconds = best_seconds(matmuls, args.rounds, 2)
        flops = flops_per_sample(config) * micro
        ideal = flops / peak
        print(f"| {micro} | {seconds * 1e3:.1f} | {flops / seconds / 1e9:.0f} | {100 * flops / seconds / peak:.0f}% | "
              f"{ideal * 1e3:.1f} | {fixed * 1e3:.1f} | {100 * ideal / (ideal + fixed):.0f}% |")


if __name__ == "__main__":
    main()
